//! Local persistence of labels (autosave), keyed by trace content hash and trajectory id.
//!
//! Labels live in the page's `localStorage`, one entry per trajectory
//! (`trajscope.label.v1 <content hash> <trajectory id>` → the label's JSON), written
//! synchronously on every change, so closing the tab mid-work loses nothing and loading the same
//! file again finds them. The annotator's name is remembered under `trajscope.annotator`.
//! A full or disabled storage is reported as a [`StorageError`] the panel shows, never a panic.

use trajscope_core::labels::Label;
use wasm_bindgen::JsCast as _;

const LABEL_PREFIX: &str = "trajscope.label.v1 ";
const ANNOTATOR_KEY: &str = "trajscope.annotator";

/// Why a label could not be saved or read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StorageError {
    /// The browser offers no local storage (disabled, private mode, sandboxed frame).
    Unavailable,
    /// The storage is full.
    Quota,
    Other(String),
}

impl std::fmt::Display for StorageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StorageError::Unavailable => f.write_str(
                "local storage is not available in this browser: labels are not saved — export them before closing the tab",
            ),
            StorageError::Quota => f.write_str(
                "local storage is full: this label was not saved — export your labels, then clear old ones",
            ),
            StorageError::Other(e) => write!(f, "could not save the label: {e}"),
        }
    }
}

fn storage() -> Result<web_sys::Storage, StorageError> {
    web_sys::window()
        .and_then(|w| w.local_storage().ok().flatten())
        .ok_or(StorageError::Unavailable)
}

fn write_error(e: wasm_bindgen::JsValue) -> StorageError {
    let name = js_sys::Reflect::get(&e, &"name".into()).ok().and_then(|n| n.as_string());
    match name.as_deref() {
        Some("QuotaExceededError") | Some("NS_ERROR_DOM_QUOTA_REACHED") => StorageError::Quota,
        _ => StorageError::Other(
            e.dyn_ref::<js_sys::Error>()
                .map(|e| String::from(e.message()))
                .unwrap_or_else(|| "the browser gave no reason".into()),
        ),
    }
}

/// The storage key of a trajectory's label.
pub fn label_key(content_hash: &str, trajectory_id: &str) -> String {
    // The hash has no spaces, so the first space after the prefix ends it unambiguously.
    format!("{LABEL_PREFIX}{content_hash} {trajectory_id}")
}

/// The saved label of a trajectory, if any. A stored entry that no longer parses is ignored.
pub fn load_label(content_hash: &str, trajectory_id: &str) -> Result<Option<Label>, StorageError> {
    let s = storage()?;
    let text = s.get_item(&label_key(content_hash, trajectory_id)).map_err(write_error)?;
    Ok(text.as_deref().and_then(read_label))
}

/// A stored label, read as a JSON value first: the label import reads labels from values
/// already, so the bundle holds one `Label` reader, not a second one over text (5 KB of wasm).
fn read_label(text: &str) -> Option<Label> {
    let value = trajscope_core::json::from_str::<serde_json::Value>(text).ok()?;
    serde_json::from_value(value).ok()
}

/// Saves (replaces) the label of its trajectory.
pub fn save_label(label: &Label) -> Result<(), StorageError> {
    let s = storage()?;
    let text = serde_json::to_string(label).map_err(|e| StorageError::Other(e.to_string()))?;
    s.set_item(&label_key(&label.content_hash, &label.trajectory_id), &text).map_err(write_error)
}

/// Forgets the label of a trajectory.
pub fn delete_label(content_hash: &str, trajectory_id: &str) -> Result<(), StorageError> {
    storage()?.remove_item(&label_key(content_hash, trajectory_id)).map_err(write_error)
}

/// Every saved label of one trace file (all its trajectories), in trajectory id order.
pub fn labels_of_trace(content_hash: &str) -> Result<Vec<Label>, StorageError> {
    let s = storage()?;
    let prefix = format!("{LABEL_PREFIX}{content_hash} ");
    let n = s.length().map_err(write_error)?;
    let mut out = Vec::new();
    for i in 0..n {
        let Some(key) = s.key(i).ok().flatten() else { continue };
        if !key.starts_with(&prefix) {
            continue;
        }
        if let Some(l) = s.get_item(&key).ok().flatten().and_then(|t| read_label(&t)) {
            out.push(l);
        }
    }
    trajscope_core::sort::sort_by(&mut out, |a, b| a.trajectory_id.cmp(&b.trajectory_id));
    Ok(out)
}

/// The annotator's name as last entered ("" when never).
pub fn load_annotator() -> String {
    storage().ok().and_then(|s| s.get_item(ANNOTATOR_KEY).ok().flatten()).unwrap_or_default()
}

/// Remembers the annotator's name for the next label and the next visit.
pub fn save_annotator(name: &str) -> Result<(), StorageError> {
    storage()?.set_item(ANNOTATOR_KEY, name).map_err(write_error)
}
