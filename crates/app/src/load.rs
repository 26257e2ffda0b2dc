//! Reading a `File` (or any `Blob`) in slices and streaming it into the core's ingestor, so the
//! page never holds a large file as one JS string.

use js_sys::Uint8Array;
use trajscope_core::Ingestor;
use wasm_bindgen::JsCast as _;
use wasm_bindgen_futures::JsFuture;

/// Slice size for reading a file: big enough to amortise the async hop, small enough to keep
/// memory flat.
pub const CHUNK: f64 = 4.0 * 1024.0 * 1024.0;

/// Reads `blob` slice by slice into `ingestor`, calling `on_progress(bytes_read, total)` after
/// each slice.
pub async fn read_blob_into(
    blob: &web_sys::Blob,
    ingestor: &mut Ingestor,
    mut on_progress: impl FnMut(f64, f64),
) -> Result<(), String> {
    let size = blob.size();
    let mut pos = 0.0;
    while pos < size {
        let end = (pos + CHUNK).min(size);
        let slice = blob.slice_with_f64_and_f64(pos, end).map_err(js_err)?;
        let buf = JsFuture::from(slice.array_buffer()).await.map_err(js_err)?;
        let bytes = Uint8Array::new(&buf).to_vec();
        ingestor.feed(&bytes);
        pos = end;
        on_progress(pos, size);
    }
    Ok(())
}

/// Fetches a same-origin asset (the bundled sample) as a blob.
pub async fn fetch_blob(url: &str) -> Result<web_sys::Blob, String> {
    let window = web_sys::window().ok_or("no window")?;
    let resp = JsFuture::from(window.fetch_with_str(url)).await.map_err(js_err)?;
    let resp: web_sys::Response = resp.dyn_into().map_err(js_err)?;
    if !resp.ok() {
        return Err(format!("could not load {url}: HTTP {}", resp.status()));
    }
    let blob = JsFuture::from(resp.blob().map_err(js_err)?).await.map_err(js_err)?;
    blob.dyn_into().map_err(js_err)
}

fn js_err(v: wasm_bindgen::JsValue) -> String {
    v.as_string()
        .or_else(|| v.dyn_ref::<js_sys::Error>().map(|e| String::from(e.message())))
        .unwrap_or_else(|| format!("{v:?}"))
}
