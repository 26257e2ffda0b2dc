//! What a drop or a picker gives, turned into the named traces the queue takes: a dropped
//! folder is walked (`webkitGetAsEntry`), a picked folder (`<input webkitdirectory>`) names each
//! file by its `webkitRelativePath`, and a `.tar`, `.tar.gz` or `.zip` of traces (told by its
//! content, never its name; an Inspect `.eval` stays one trace) gives one trace per member,
//! named `ARCHIVE!MEMBER`, under the ingest caps (`docs/limits.md`, "Archives of traces").
//! Hidden files and OS metadata (`.DS_Store`, `__MACOSX/`) in a folder are skipped, as the CLI
//! skips them.

use js_sys::{Array, Promise, Uint8Array};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{
    Blob, DataTransfer, File, FileSystemDirectoryEntry, FileSystemDirectoryReader, FileSystemEntry,
    FileSystemFileEntry,
};

use trajscope_core::ingest::{archive_files, archive_kind, is_os_metadata, Limits};

/// One thing to queue: a trace and its name, or a file that could not be read, and why.
pub enum Item {
    Trace {
        name: String,
        blob: Blob,
    },
    /// A trace as its bytes, which the worker reads at once: an archive's member under
    /// [`MEMBER_BYTES`], or a file of at most [`HEAD_BYTES`] (read whole to tell an archive). A
    /// `Blob` for each (or a slice of one) cost the page about 0.14 ms and the worker about
    /// 0.4 ms a trace, whatever its size (`docs/performance.md`, "Many files").
    Member {
        name: String,
        bytes: Uint8Array,
    },
    Failed {
        name: String,
        error: String,
    },
}

/// The largest archive member handed over as bytes ([`Item::Member`]); a larger one is a blob,
/// read in slices with progress and shown before its end like a file.
pub const MEMBER_BYTES: usize = 1 << 20;

/// One thing dropped: a file or folder entry (when the browser gives entries), or a file.
pub enum Dropped {
    Entry(FileSystemEntry),
    File(File),
}

/// What a drop holds, taken at once: the `DataTransfer`'s items are gone once the event ends.
pub fn dropped(dt: &DataTransfer) -> Vec<Dropped> {
    let items = dt.items();
    let mut out = Vec::new();
    for i in 0..items.length() {
        let Some(item) = items.get(i) else { continue };
        if item.kind() != "file" {
            continue;
        }
        match item.webkit_get_as_entry() {
            Ok(Some(entry)) => out.push(Dropped::Entry(entry)),
            _ => {
                if let Ok(Some(f)) = item.get_as_file() {
                    out.push(Dropped::File(f));
                }
            }
        }
    }
    if out.is_empty() {
        // A browser without items: the plain file list.
        if let Some(list) = dt.files() {
            out.extend((0..list.length()).filter_map(|i| list.get(i)).map(Dropped::File));
        }
    }
    out
}

/// Whether a file found in a folder is left out: hidden (`.name`) or OS metadata.
fn skipped(path: &str) -> bool {
    is_os_metadata(path) || path.split('/').any(|part| part.starts_with('.'))
}

/// The files of a drop, each with its path (a folder's files as `folder/sub/name`, in name
/// order), and the folders that could not be read.
pub async fn files_of_drop(dropped: Vec<Dropped>) -> Vec<Item> {
    let mut out = Vec::new();
    for d in dropped {
        match d {
            Dropped::File(f) => out.push(Item::Trace { name: f.name(), blob: f.into() }),
            Dropped::Entry(e) => walk(e, &mut out).await,
        }
    }
    out
}

async fn walk(root: FileSystemEntry, out: &mut Vec<Item>) {
    let mut stack = vec![root];
    while let Some(entry) = stack.pop() {
        let path = entry.full_path().trim_start_matches('/').to_string();
        if entry.is_file() {
            let fe: FileSystemFileEntry = entry.unchecked_into();
            match file(&fe).await {
                Ok(f) => out.push(Item::Trace { name: path, blob: f.into() }),
                Err(error) => out.push(Item::Failed { name: path, error }),
            }
            continue;
        }
        if !entry.is_directory() {
            continue;
        }
        let de: FileSystemDirectoryEntry = entry.unchecked_into();
        let reader = de.create_reader();
        let mut children = Vec::new();
        // readEntries gives a batch at a time (100 in Chromium) until an empty one.
        loop {
            match read_batch(&reader).await {
                Ok(batch) if batch.length() > 0 => {
                    children.extend(batch.iter().map(|v| v.unchecked_into::<FileSystemEntry>()))
                }
                Ok(_) => break,
                Err(error) => {
                    out.push(Item::Failed { name: path.clone(), error });
                    break;
                }
            }
        }
        children.retain(|c| !skipped(c.full_path().trim_start_matches('/')));
        trajscope_core::sort::sort_by_key(&mut children, |c| std::cmp::Reverse(c.name()));
        stack.extend(children);
    }
}

async fn read_batch(reader: &FileSystemDirectoryReader) -> Result<Array, String> {
    let p = Promise::new(&mut |resolve, reject| {
        if let Err(e) = reader.read_entries_with_callback_and_callback(&resolve, &reject) {
            let _ = reject.call1(&JsValue::NULL, &e);
        }
    });
    JsFuture::from(p).await.map(|v| v.unchecked_into()).map_err(js_err)
}

async fn file(entry: &FileSystemFileEntry) -> Result<File, String> {
    let p = Promise::new(&mut |resolve, reject| {
        entry.file_with_callback_and_callback(&resolve, &reject)
    });
    JsFuture::from(p).await.map(|v| v.unchecked_into()).map_err(js_err)
}

/// The files of a picker, named by their path in a picked folder (`webkitRelativePath`), else
/// by their name; a folder's hidden files and OS metadata left out.
pub fn files_of_picker(list: Option<web_sys::FileList>) -> Vec<Item> {
    let Some(list) = list else { return Vec::new() };
    let mut out = Vec::new();
    for f in (0..list.length()).filter_map(|i| list.get(i)) {
        let rel = js_sys::Reflect::get(&f, &JsValue::from_str("webkitRelativePath"))
            .ok()
            .and_then(|v| v.as_string())
            .unwrap_or_default();
        if rel.is_empty() {
            out.push(Item::Trace { name: f.name(), blob: f.into() });
        } else if !skipped(&rel) {
            out.push(Item::Trace { name: rel, blob: f.into() });
        }
    }
    trajscope_core::sort::sort_by(&mut out, |a, b| name(a).cmp(name(b)));
    out
}

fn name(i: &Item) -> &str {
    match i {
        Item::Trace { name, .. } | Item::Member { name, .. } | Item::Failed { name, .. } => name,
    }
}

/// An item whose first bytes are being read (what [`expand`] needs to tell an archive).
pub struct Pending {
    item: Item,
    head: Option<JsFuture>,
}

/// How much of a file [`start`] reads to tell an archive.
pub const HEAD_BYTES: f64 = 64.0 * 1024.0;

/// Starts reading `item`'s first bytes (several items' reads go on at once).
pub fn start(item: Item) -> Pending {
    let head = match &item {
        Item::Trace { blob, .. } => blob.slice_with_f64_and_f64(0.0, HEAD_BYTES).ok(),
        Item::Member { .. } | Item::Failed { .. } => None,
    };
    Pending { head: head.map(|h| JsFuture::from(h.array_buffer())), item }
}

/// An archive of traces opened into its members (`ARCHIVE!MEMBER`, each its own trace), and
/// what stopped the reading; any other file as it is. Only a file whose first bytes are a zip,
/// a tar or a gzipped tar is read whole, and only up to the archive cap.
pub async fn expand(pending: Pending, limits: &Limits) -> Vec<Item> {
    let Pending { item: Item::Trace { name, blob }, head } = pending else {
        return vec![pending.item];
    };
    let head_js = match head {
        Some(h) => h.await.map(|b| Uint8Array::new(&b)).ok(),
        None => None,
    };
    let head = head_js.as_ref().map(Uint8Array::to_vec).unwrap_or_default();
    let maybe = head.starts_with(b"PK\x03\x04") || archive_kind(&head, limits).is_some();
    if !maybe || blob.size() > limits.max_archive_bytes as f64 {
        // A small file was read whole: its bytes, not the blob, go on. A larger one's first
        // bytes go on with it (`bridge::envelope`): the worker parses them while the browser
        // reads the next slice, instead of waiting for it to read them again.
        if let Some(h) = head_js {
            if f64::from(h.length()) == blob.size() {
                return vec![Item::Member { name, bytes: h }];
            }
            js_sys::Reflect::set(&blob, &JsValue::from_str("head"), &h).ok();
        }
        return vec![Item::Trace { name, blob }];
    }
    let bytes = match read(&blob).await {
        Ok(b) => b,
        Err(error) => return vec![Item::Failed { name, error }],
    };
    let Some(archive) = archive_files(&bytes, limits) else {
        return vec![Item::Trace { name, blob }]; // an .eval, or a zip the ingest will explain
    };
    drop(bytes);
    let mut out = Vec::new();
    for (path, data) in archive.files {
        let member = format!("{name}!{path}");
        let bytes = Uint8Array::from(&data[..]);
        if data.len() < MEMBER_BYTES {
            out.push(Item::Member { name: member, bytes });
            continue;
        }
        match Blob::new_with_u8_array_sequence(&Array::of1(&bytes)) {
            Ok(blob) => out.push(Item::Trace { name: member, blob }),
            Err(_) => out.push(Item::Failed { name: member, error: "cannot hold it".into() }),
        }
    }
    // An archive of no file has an error too (`archive_files`).
    if let Some(error) = archive.error {
        out.push(Item::Failed { name, error });
    }
    out
}

async fn read(blob: &Blob) -> Result<Vec<u8>, String> {
    let buf = JsFuture::from(blob.array_buffer()).await.map_err(js_err)?;
    Ok(Uint8Array::new(&buf).to_vec())
}

fn js_err(v: JsValue) -> String {
    v.dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| v.as_string())
        .unwrap_or_else(|| "the browser could not read it".into())
}
