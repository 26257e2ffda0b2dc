//! JSON text read through one of serde_json's readers in the web build.
//!
//! serde_json compiles its whole parser once per input kind: `from_str` (`StrRead`) and
//! `from_slice` (`SliceRead`) were two copies of it in the bundle, about 10 KB of wasm each. The
//! byte reader stays (a document's bytes that are not UTF-8 get its error, which the quarantine
//! reports), so the web build reads text through it too: the same values and errors for any
//! `&str` (valid UTF-8 by its type), at the cost of checking each JSON string's bytes for UTF-8
//! once more. Native builds keep `serde_json::from_str`.

/// `serde_json::from_str`, through the byte reader in the web build.
pub fn from_str<'a, T: serde::Deserialize<'a>>(text: &'a str) -> serde_json::Result<T> {
    #[cfg(target_arch = "wasm32")]
    {
        serde_json::from_slice(text.as_bytes())
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        serde_json::from_str(text)
    }
}
