//! Where the ingest worker's script is. The build names it after its content
//! (`scripts/hash_assets.py`) and writes that name into the page's
//! `<meta name="trajscope-worker">`, so a deploy never pairs a cached old worker with a new page.

/// The loader's name before the build hashes it: the fallback for a page without the meta tag
/// (an unhashed build, the wasm-bindgen tests).
const UNHASHED: &str = "worker_loader.js";

/// The worker loader's URL as the page names it (relative to the page, so a sub-path deployment
/// works).
pub fn for_page() -> String {
    web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.query_selector("meta[name=\"trajscope-worker\"]").ok().flatten())
        .and_then(|m| m.get_attribute("content"))
        .filter(|c| !c.is_empty())
        .unwrap_or_else(|| UNHASHED.to_string())
}

/// Inside a worker: the URL of its own script (`self.location.href`), to start another instance
/// of itself.
#[cfg(target_arch = "wasm32")]
pub fn own() -> String {
    let global = js_sys::global();
    js_sys::Reflect::get(&global, &"location".into())
        .and_then(|l| js_sys::Reflect::get(&l, &"href".into()))
        .ok()
        .and_then(|h| h.as_string())
        .unwrap_or_else(|| UNHASHED.to_string())
}
