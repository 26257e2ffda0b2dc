//! Saving text as a file the user downloads (exports): a `Blob` URL clicked through an `<a
//! download>`; nothing leaves the browser.

use wasm_bindgen::JsCast as _;

/// Offers `text` as a download named `file_name` with the given MIME type.
pub fn save_text(file_name: &str, mime: &str, text: &str) -> Result<(), String> {
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(text));
    save_parts(file_name, mime, &parts)
}

/// Offers the strings of `parts`, one after the other, as one download: the browser joins them
/// into the file (a large export is never one string).
pub fn save_parts(file_name: &str, mime: &str, parts: &js_sys::Array) -> Result<(), String> {
    let opts = web_sys::BlobPropertyBag::new();
    opts.set_type(mime);
    let blob = web_sys::Blob::new_with_str_sequence_and_options(parts, &opts)
        .map_err(|_| "could not create the file".to_string())?;
    let url = web_sys::Url::create_object_url_with_blob(&blob)
        .map_err(|_| "could not create a download link".to_string())?;
    let document = gloo::utils::document();
    let a: web_sys::HtmlAnchorElement = document
        .create_element("a")
        .map_err(|_| "could not create a link".to_string())?
        .unchecked_into();
    a.set_href(&url);
    a.set_download(file_name);
    a.style().set_property("display", "none").ok();
    let body = gloo::utils::body();
    body.append_child(&a).ok();
    a.click();
    body.remove_child(&a).ok();
    web_sys::Url::revoke_object_url(&url).ok();
    Ok(())
}
