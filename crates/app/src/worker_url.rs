//! Starting the ingest worker. The worker runs the page's own wasm module: its script (written
//! by `scripts/hash_assets.py`, named after its content, its name in the page's
//! `<meta name="trajscope-worker">`) is a module worker that imports the page's wasm-bindgen JS
//! and instantiates the `WebAssembly.Module` the page sends it as its first message, so the
//! module is downloaded and compiled once. A deploy never pairs a cached old worker with a new
//! page: the script's name changes with the module's.

/// The worker script's name before the build hashes it: the fallback for a page without the
/// meta tag (an unhashed build, the wasm-bindgen tests).
const UNHASHED: &str = "worker.js";

/// The worker script's URL as the page names it (relative to the page, so a sub-path
/// deployment works).
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

/// Starts the worker script at `url` as a module worker and hands it this instance's compiled
/// module (`{wasm_module}`, its first message; the script falls back to fetching the wasm
/// itself if that message is not a module).
pub fn start(url: &str) -> Option<web_sys::Worker> {
    use wasm_bindgen::JsValue;
    let opts = web_sys::WorkerOptions::new();
    opts.set_type(web_sys::WorkerType::Module);
    let worker = web_sys::Worker::new_with_options(url, &opts).ok()?;
    let first = js_sys::Object::new();
    js_sys::Reflect::set(&first, &JsValue::from_str("wasm_module"), &wasm_bindgen::module())
        .ok()?;
    worker.post_message(&first).ok()?;
    Some(worker)
}
