//! Reading a `File` (or any `Blob`) in slices, so no large file is ever held as one JS string
//! or one buffer, and fetching the bundled sample.

use js_sys::Uint8Array;
use wasm_bindgen::JsCast as _;
use wasm_bindgen_futures::JsFuture;

/// Slice size for reading a file: big enough to amortise the async hop, small enough to keep
/// memory flat.
pub const CHUNK: f64 = 4.0 * 1024.0 * 1024.0;

/// The first slice is smaller: a file whose first trajectory settles early is shown after
/// a few milliseconds of parsing, not after a whole [`CHUNK`]. (256 KiB of one-line runs,
/// parsed by code the engine has not optimised yet, took about 70 ms in Chromium; 64 KiB,
/// 26–31 ms: `docs/performance.md`, "Browser".)
pub const FIRST_CHUNK: f64 = 64.0 * 1024.0;

/// The slices while the page waits for an answer (the worker answers between two).
pub const SMALL_CHUNK: f64 = 256.0 * 1024.0;

/// The size of what a `Load` carries: a blob, or a trace's bytes (a `Uint8Array`,
/// `gather::Item::Member`).
pub fn size_of(src: &wasm_bindgen::JsValue) -> f64 {
    match src.dyn_ref::<web_sys::Blob>() {
        Some(b) => b.size(),
        None => f64::from(src.unchecked_ref::<Uint8Array>().length()),
    }
}

/// A blob read slice by slice, the next slice requested before the current one is handed
/// out, so the browser reads while the caller works on the previous slice. Memory stays at two
/// slices whatever the blob's size.
pub struct Slices<'b> {
    blob: Option<&'b web_sys::Blob>,
    /// Bytes handed over whole instead of a blob ([`Slices::of_bytes`]), until handed out.
    whole: Option<Vec<u8>>,
    total: f64,
    /// End of the slice handed out last.
    pos: f64,
    /// End of the slice requested next.
    next_end: f64,
    /// Size of the slices requested from now on.
    chunk: f64,
    next: Option<JsFuture>,
}

impl<'b> Slices<'b> {
    /// `head`: the blob's first bytes when the page has read them already (`gather::expand`
    /// reads a file's first `gather::HEAD_BYTES` to tell an archive), handed out as the first
    /// slice at once instead of asking the browser for them again.
    pub fn new(blob: &'b web_sys::Blob, head: Option<Vec<u8>>) -> Slices<'b> {
        let total = blob.size();
        let mut s = Slices {
            blob: Some(blob),
            whole: None,
            total,
            pos: 0.0,
            next_end: FIRST_CHUNK.min(total),
            chunk: CHUNK,
            next: None,
        };
        match head {
            Some(h) => {
                s.next_end = h.len() as f64;
                s.whole = Some(h);
            }
            None => s.next = s.request(0.0, s.next_end),
        }
        s
    }

    /// `bytes` as one slice (an archive member's, `gather::Item::Member`).
    pub fn of_bytes(bytes: Vec<u8>) -> Slices<'static> {
        let total = bytes.len() as f64;
        Slices {
            blob: None,
            whole: Some(bytes),
            total,
            pos: 0.0,
            next_end: total,
            chunk: CHUNK,
            next: None,
        }
    }

    fn request(&self, from: f64, to: f64) -> Option<JsFuture> {
        let slice = self.blob?.slice_with_f64_and_f64(from, to).ok()?;
        Some(JsFuture::from(slice.array_buffer()))
    }

    /// The size of the slices requested from now on: [`SMALL_CHUNK`] while the page waits for
    /// an answer (the worker answers between slices), else [`CHUNK`].
    pub fn set_small(&mut self, small: bool) {
        self.chunk = if small { SMALL_CHUNK } else { CHUNK };
        // A big slice asked already is asked again small (the page waits behind its parse).
        if small && self.next.is_some() && self.next_end - self.pos > SMALL_CHUNK {
            self.next_end = (self.pos + SMALL_CHUNK).min(self.total);
            self.next = self.request(self.pos, self.next_end);
        }
    }

    /// Bytes handed out so far.
    pub fn pos(&self) -> f64 {
        self.pos
    }

    /// The next slice's bytes; `None` at the end; an error when the browser cannot read it.
    pub async fn next(&mut self) -> Option<Result<Vec<u8>, &'static str>> {
        if self.pos >= self.total {
            return None;
        }
        let bytes = match self.whole.take() {
            Some(bytes) => bytes,
            None => {
                let Some(pending) = self.next.take() else {
                    return Some(Err("could not slice the file"));
                };
                let Ok(buf) = pending.await else {
                    return Some(Err(
                        "the browser could not read the file (was it moved or deleted?)",
                    ));
                };
                Uint8Array::new(&buf).to_vec()
            }
        };
        self.pos = self.next_end;
        if self.pos < self.total {
            self.next_end = (self.pos + self.chunk).min(self.total);
            self.next = self.request(self.pos, self.next_end);
        }
        Some(Ok(bytes))
    }
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
        .unwrap_or_else(|| "the browser gave no reason".into())
}
