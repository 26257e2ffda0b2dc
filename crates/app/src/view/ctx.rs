//! What the app shares with its parts ([`Ctx`]): the worker bridge, the ids it hands out, which
//! answers are still wanted; and loading what the user gives (files, a URL, pasted text) through
//! the worker.

use std::cell::RefCell;
use std::collections::HashSet;
use std::rc::Rc;

use wasm_bindgen::{JsCast as _, JsValue};
use yew::prelude::*;

use super::{Action, LabelAction, PageAction, QueueAction, State};
use crate::bridge::Bridge;
use crate::download::save_text;
use crate::protocol::{Grain, Request, Response, PUSHED};
use crate::worker::files::ByFile;

/// (file, trajectory, step, grain) of a step text asked of the worker.
pub(super) type StepKey = (u32, u32, u32, Grain);

/// What the app shares with its parts: the worker and the ids it hands out.
#[derive(Clone)]
pub struct Ctx {
    bridge: Rc<RefCell<Option<Bridge>>>,
    next_file: Rc<RefCell<u32>>,
    next_req: Rc<RefCell<u32>>,
    /// The step texts asked of the worker for the open trajectory (each asked once).
    pub(super) requested: Rc<RefCell<HashSet<StepKey>>>,
    /// The id of the last request of each kind whose answer replaces the one before (columns,
    /// search): an answer with another id is stale and dropped. (Each quarantine export and
    /// each window of step texts is wanted, so those are not matched this way.)
    /// The last request id of each `Asked` kind (by its index; 0 for none, ids start at 1).
    latest: Rc<RefCell<[u32; 2]>>,
    /// The columns the worker sends unasked with the first `Loaded` of a file the page opens
    /// (`Request::Load`'s `open`): the effect that asks the open trajectory's columns runs only
    /// after the render, the layout and the paint; if that trajectory is open then and the
    /// columns have not come yet, the effect takes them as its answer
    /// ([`Ctx::take_prefetched`]) instead of asking.
    prefetched: Rc<RefCell<Option<Prefetch>>>,
    /// Each loaded file as picked (a `Blob` is a handle, not a copy), or a small archive
    /// member's bytes (a `Uint8Array`, `gather::Item::Member`): a step's whole record is read
    /// from it again when the step keeps only a part (the source dialog).
    blobs: Rc<RefCell<ByFile<JsValue>>>,
}

/// Requests of which only the last one's answer counts (each kind an index of `Ctx::latest`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Asked {
    Columns,
    Search,
}

impl Asked {
    /// The kind of request `resp` answers and its id, for those answers only the last counts.
    fn of(resp: &Response) -> Option<(Asked, u32)> {
        match resp {
            Response::Columns { req, .. } => Some((Asked::Columns, *req)),
            Response::SearchHits { req, .. } => Some((Asked::Search, *req)),
            _ => None,
        }
    }
}

/// The first trajectory's columns of `file`, coming unasked ahead of the effect
/// ([`Ctx::expect_opening`]).
#[derive(Clone, Copy)]
struct Prefetch {
    file: u32,
    /// They came (and were given to the page, which keeps them if that trajectory is open).
    answered: bool,
}

impl PartialEq for Ctx {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.bridge, &other.bridge)
    }
}

impl Ctx {
    pub(super) fn new() -> Ctx {
        Ctx {
            bridge: Rc::new(RefCell::new(None)),
            next_file: Rc::new(RefCell::new(0)),
            next_req: Rc::new(RefCell::new(0)),
            requested: Rc::new(RefCell::new(HashSet::new())),
            latest: Rc::new(RefCell::new([0; 2])),
            prefetched: Rc::new(RefCell::new(None)),
            blobs: Rc::new(RefCell::new(ByFile::default())),
        }
    }

    /// Lets go of a removed file's blob.
    pub(super) fn forget_blob(&self, file: u32) {
        self.blobs.borrow_mut().remove(&file);
    }

    /// Reads step `step`'s record (`span`, line `line`) of `file` from the picked file and
    /// opens the source dialog with it. The offsets are of the decoded text: a compressed file
    /// cannot be sliced, and says so (an archive's member is its decompressed bytes, or a blob
    /// of them, `gather.rs`, so it can).
    pub(super) fn show_source(
        &self,
        dispatch: &UseReducerDispatcher<State>,
        file: u32,
        (step, line): (u32, u32),
        span: trajscope_core::session::steps::SourceSpan,
    ) {
        let Some(src) = self.blobs.borrow().get(&file).cloned() else { return };
        // A member's bytes are read as a blob of them, made now.
        let blob = match src.dyn_into::<web_sys::Blob>() {
            Ok(b) => Ok(b),
            Err(v) => web_sys::Blob::new_with_u8_array_sequence(&js_sys::Array::of1(&v)),
        };
        let Ok(blob) = blob else { return };
        let dispatch = dispatch.clone();
        wasm_bindgen_futures::spawn_local(async move {
            let shown = read_source(&blob, span).await;
            let (text, read, note) = match shown {
                Ok((text, note)) => (text, true, note),
                Err(why) => (why, false, None),
            };
            let end = span.offset + if span.len > 0 { span.len } else { text.len() as u64 };
            let title = match read {
                true => format!("Step #{step} · line {line} · bytes {}–{end}", span.offset),
                false => format!("Step #{step} · line {line}"),
            };
            let s = super::state::SourceText { title, text, read, note };
            dispatch.dispatch(PageAction::ShowSource(Rc::new(s)).into());
        });
    }

    /// The first trajectory of `file`, loaded with `open`, will come with its columns unasked
    /// (a file just loaded is opened at its first trajectory unless a deep link waits or
    /// another file of its batch is read first: then the effect asks, and these are dropped).
    pub(super) fn expect_opening(&self, file: u32) {
        let p = Prefetch { file, answered: false };
        *self.prefetched.borrow_mut() = Some(p);
    }

    /// No worker yet (or it crashed and was not restarted).
    pub(super) fn bridge_down(&self) -> bool {
        self.bridge.borrow().is_none()
    }

    /// The worker lost them, or another trajectory is open: step texts are asked again.
    pub(super) fn forget_requested(&self) {
        self.requested.borrow_mut().clear();
    }

    pub(super) fn send(&self, req: &Request) {
        if let Some(b) = self.bridge.borrow().as_ref() {
            b.send(req);
        }
    }

    pub(super) fn req_id(&self) -> u32 {
        let mut n = self.next_req.borrow_mut();
        *n += 1;
        *n
    }

    /// A new request id for a request of kind `kind`, now the only one whose answer counts.
    pub(super) fn ask(&self, kind: Asked) -> u32 {
        let req = self.req_id();
        self.latest.borrow_mut()[kind as usize] = req;
        req
    }

    /// Whether the columns expected unasked are those of the open trajectory `traj` of `file`
    /// and have not come yet: then they are the answer that counts, and the effect asks
    /// nothing. Otherwise (another trajectory opened, or the answer came before the effect ran
    /// and the page may not have kept it) the effect asks as usual. Either way the prefetch is
    /// over.
    pub(super) fn take_prefetched(&self, file: u32, traj: u32) -> bool {
        let Some(p) = self.prefetched.borrow_mut().take() else { return false };
        if p.file != file || traj != 0 || p.answered {
            return false;
        }
        self.latest.borrow_mut()[Asked::Columns as usize] = PUSHED;
        true
    }

    /// False for an answer to a request of a kind asked again since. Columns sent unasked
    /// count while expected: they may come before the effect took them as its answer (the page
    /// applies columns only to the trajectory it has open).
    pub(super) fn fresh(&self, resp: &Response) -> bool {
        if let Response::Columns { req: PUSHED, .. } = resp {
            if let Some(p) = self.prefetched.borrow_mut().as_mut() {
                p.answered = true;
                return true;
            }
        }
        Asked::of(resp).is_none_or(|(kind, req)| self.latest.borrow()[kind as usize] == req)
    }

    /// Queues what a drop or a picker gave, archives opened into their members, in order.
    pub(super) fn load_items(
        &self,
        dispatch: &UseReducerDispatcher<State>,
        items: Vec<crate::gather::Item>,
    ) {
        let (ctx, dispatch) = (self.clone(), dispatch.clone());
        wasm_bindgen_futures::spawn_local(async move {
            let limits = trajscope_core::ingest::Limits::default();
            let mut batch = None;
            // 64 files at a time: their first bytes read at once, then all queued in one go
            // (one render). One by one, each read's wait let the page render between two
            // files: a folder of 2,000 small traces took 24 s to queue.
            let mut items = items.into_iter();
            loop {
                let started: Vec<_> = items.by_ref().take(64).map(crate::gather::start).collect();
                if started.is_empty() {
                    break;
                }
                let mut ready = Vec::new();
                for pending in started {
                    ready.extend(crate::gather::expand(pending, &limits).await);
                }
                for one in ready {
                    match one {
                        crate::gather::Item::Trace { name, blob } => {
                            ctx.load_in(&dispatch, name, blob.into(), &mut batch)
                        }
                        crate::gather::Item::Member { name, bytes } => {
                            ctx.load_in(&dispatch, name, bytes.into(), &mut batch)
                        }
                        crate::gather::Item::Failed { name, error } => {
                            ctx.fail(&dispatch, name, error, &mut batch)
                        }
                    }
                }
            }
        });
    }

    /// A new file id, and the id of the first file of its batch (`batch`: `None` until the
    /// batch's first file; one drop, pick, folder or archive is one batch).
    fn new_id(&self, batch: &mut Option<u32>) -> (u32, u32) {
        let mut n = self.next_file.borrow_mut();
        *n += 1;
        (*n, *batch.get_or_insert(*n))
    }

    /// A queue entry for something that could not be read, and why.
    fn fail(
        &self,
        dispatch: &UseReducerDispatcher<State>,
        name: String,
        error: String,
        batch: &mut Option<u32>,
    ) {
        let (id, batch) = self.new_id(batch);
        dispatch.dispatch(QueueAction::Add { id, batch, name, size: 0.0 }.into());
        dispatch.dispatch(QueueAction::Failed { id, error }.into());
    }

    /// Queues a blob for ingest under a new file id, on its own.
    pub(super) fn load(
        &self,
        dispatch: &UseReducerDispatcher<State>,
        name: String,
        blob: web_sys::Blob,
    ) {
        self.load_in(dispatch, name, blob.into(), &mut None)
    }

    /// Queues a blob, or a trace's bytes (a `Uint8Array`, `gather::Item::Member`), for ingest
    /// under a new file id, in `batch`.
    fn load_in(
        &self,
        dispatch: &UseReducerDispatcher<State>,
        name: String,
        blob: JsValue,
        batch: &mut Option<u32>,
    ) {
        let (id, batch) = self.new_id(batch);
        let size = crate::load::size_of(&blob);
        dispatch.dispatch(QueueAction::Add { id, batch, name, size }.into());
        self.blobs.borrow_mut().insert(id, blob.clone());
        if self.bridge.borrow().is_none() {
            // A file dropped the moment the page appears, before the effect that starts the
            // worker has run: start it now (its queue holds the request until it is ready).
            start_bridge(self, dispatch.clone());
        }
        // The first file of a batch is the one the page opens (unless another is read first:
        // the page state's `first_of_batch`): its first trajectory comes with its `Loaded`.
        let open = id == batch;
        if open {
            self.expect_opening(id);
        }
        match self.bridge.borrow().as_ref() {
            Some(b) => b.send_with(&Request::Load { file: id, open }, Some(&blob)),
            None => dispatch.dispatch(
                QueueAction::Failed { id, error: "the ingest worker is not running".into() }.into(),
            ),
        }
    }
}

/// Restores what the saved labels of `file` say once its identity `hash` is known (with
/// `Loaded`, or with `Identity` for a large file): the queue marks labelled trajectories, and a
/// saved "this run failed" / "passed" holds for the reloaded file too.
pub(super) fn restore_labels(ctx: &Ctx, d: &UseReducerDispatcher<State>, file: u32, hash: &str) {
    if hash.is_empty() {
        return;
    }
    let saved = crate::storage::labels_of_trace(hash).unwrap_or_default();
    for l in saved.into_iter().filter(|l| !l.time.is_empty()) {
        if l.outcome != trajscope_core::model::Outcome::Unknown {
            let (trajectory_id, outcome) = (l.trajectory_id.clone(), l.outcome);
            ctx.send(&Request::SetOutcome { file, trajectory_id, outcome });
        }
        d.dispatch(
            LabelAction::Set { file, trajectory_id: l.trajectory_id, critical: l.critical_step }
                .into(),
        );
    }
}

pub(super) fn start_bridge(ctx: &Ctx, dispatch: UseReducerDispatcher<State>) {
    let d1 = dispatch.clone();
    let ctx1 = ctx.clone();
    let bridge = Bridge::new(
        move |resp| match resp {
            // An answer to a request asked again since (another trajectory, another query).
            resp if !ctx1.fresh(&resp) => {}
            Response::QuarantineJsonl { text, redacted, .. } => {
                // The name says which: the exact bytes, or secrets masked.
                let name = if redacted { "quarantine.redacted.jsonl" } else { "quarantine.jsonl" };
                if let Err(e) = save_text(name, "application/x-ndjson", &text) {
                    d1.dispatch(PageAction::Notice(e).into());
                }
            }
            Response::Loaded { file, summary } => {
                let hash = summary.content_hash.clone();
                d1.dispatch(Action::Worker(Box::new(Response::Loaded { file, summary })));
                restore_labels(&ctx1, &d1, file, &hash);
            }
            resp @ (Response::DatasetPart { .. } | Response::DatasetDone { .. }) => {
                crate::annotate::dataset::on_worker(resp)
            }
            Response::Identity { file, content_hash } => {
                let hash = content_hash.clone();
                d1.dispatch(Action::Worker(Box::new(Response::Identity { file, content_hash })));
                restore_labels(&ctx1, &d1, file, &hash);
            }
            other => d1.dispatch(Action::Worker(Box::new(other))),
        },
        move |msg| dispatch.dispatch(Action::WorkerCrashed(msg)),
    );
    match bridge {
        Ok(b) => *ctx.bridge.borrow_mut() = Some(b),
        Err(e) => gloo::console::error!(e),
    }
}

/// Loads a same-origin URL (`?url=` or the bundled sample) through the worker.
pub(super) fn load_url(ctx: Ctx, dispatch: UseReducerDispatcher<State>, url: String) {
    wasm_bindgen_futures::spawn_local(async move {
        let name = url.rsplit('/').next().unwrap_or("trace").to_string();
        match same_origin(&url) {
            Err(e) => dispatch.dispatch(PageAction::Notice(e).into()),
            Ok(abs) => match crate::load::fetch_blob(&abs).await {
                Ok(blob) => ctx.load(&dispatch, name, blob),
                Err(e) => dispatch.dispatch(PageAction::Notice(e).into()),
            },
        }
    });
}

/// The most of a record the source dialog reads when its extent is not known (it then ends at
/// its line's end).
const SOURCE_MAX: f64 = 8.0 * 1024.0 * 1024.0;

/// The text of `span` in `blob`, and what was left out; or why it cannot be read.
async fn read_source(
    blob: &web_sys::Blob,
    span: trajscope_core::session::steps::SourceSpan,
) -> Result<(String, Option<String>), String> {
    const PACKED: &str = "its offsets are in the decompressed text, which the page does not keep: open the decompressed file to read the record whole";
    let magic =
        blob_bytes(&blob.slice_with_f64_and_f64(0.0, 4.0).map_err(|_| "cannot read")?).await?;
    if magic.starts_with(&[0x1f, 0x8b]) || magic.starts_with(b"PK\x03\x04") {
        return Err(format!("The file is compressed: {PACKED}."));
    }
    let start = span.offset as f64;
    let known = span.len > 0;
    let end = if known { start + span.len as f64 } else { start + SOURCE_MAX };
    let bytes =
        blob_bytes(&blob.slice_with_f64_and_f64(start, end).map_err(|_| "cannot read")?).await?;
    let (bytes, note) = match known {
        true => (&bytes[..], None),
        false => match bytes.iter().position(|&b| b == b'\n') {
            Some(i) => {
                // A record of a pretty-printed document starts on this line and goes on below.
                let whole = std::str::from_utf8(&bytes[..i])
                    .is_ok_and(|t| js_sys::JSON::parse(t.trim_end_matches('\r')).is_ok());
                let note = (!whole).then(|| {
                    "From the record's start to its line's end, which is not one JSON value: the record goes on over the next lines, or more of the file follows it on this line."
                        .to_string()
                });
                (&bytes[..i], note)
            }
            None if bytes.len() as f64 >= SOURCE_MAX => (
                &bytes[..],
                Some("The record goes on past 8 MiB: the first 8 MiB are shown.".to_string()),
            ),
            None => (&bytes[..], None),
        },
    };
    Ok((String::from_utf8_lossy(bytes).into_owned(), note))
}

/// The bytes of `blob`.
async fn blob_bytes(blob: &web_sys::Blob) -> Result<Vec<u8>, String> {
    let buf = wasm_bindgen_futures::JsFuture::from(blob.array_buffer()).await.map_err(|_| {
        "the file can no longer be read (moved or changed since it was picked?)".to_string()
    })?;
    Ok(js_sys::Uint8Array::new(&buf).to_vec())
}

/// Resolves `url` against the page and refuses another origin.
fn same_origin(url: &str) -> Result<String, String> {
    let href = gloo::utils::window().location().href().map_err(|_| "no location")?;
    let u = web_sys::Url::new_with_base(url, &href).map_err(|_| format!("not a URL: {url}"))?;
    let here = web_sys::Url::new(&href).map_err(|_| "no location")?;
    if u.origin() != here.origin() {
        // A `javascript:` or `data:` URL has the opaque origin "null": name its scheme instead.
        let from = match u.origin().as_str() {
            "null" => format!("a {} URL", u.protocol()),
            other => other.to_string(),
        };
        return Err(format!("only traces from this site can be loaded by URL, not {from}"));
    }
    Ok(u.href())
}

/// A blob of `text` (pasted text, loaded as a trace).
pub fn text_blob(text: &str) -> Option<web_sys::Blob> {
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(text));
    web_sys::Blob::new_with_str_sequence(&parts).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::StepColumns;

    fn columns(req: u32) -> Response {
        Response::Columns { req, file: 1, traj: 0, columns: StepColumns::default() }
    }

    #[test]
    fn columns_sent_with_a_file_serve_the_trajectory_opened_then() {
        // Opened as expected, the columns after the effect: the effect asks nothing.
        let ctx = Ctx::new();
        ctx.expect_opening(1);
        assert!(ctx.take_prefetched(1, 0));
        assert!(ctx.fresh(&columns(PUSHED)));
        assert!(!ctx.take_prefetched(1, 0), "taken once");
        // The columns before the effect: given to the page, and the effect asks again (the
        // page may not have kept them).
        ctx.expect_opening(1);
        assert!(ctx.fresh(&columns(PUSHED)));
        assert!(!ctx.take_prefetched(1, 0));
        // Another trajectory opened (a deep link): the expectation is over, the columns stale.
        ctx.expect_opening(1);
        assert!(!ctx.take_prefetched(1, 5));
        let asked = ctx.ask(Asked::Columns);
        assert!(!ctx.fresh(&columns(PUSHED)));
        assert!(ctx.fresh(&columns(asked)));
        // Another file opened first: asked for, and the expected columns come too late.
        ctx.expect_opening(1);
        assert!(!ctx.take_prefetched(2, 0));
        let asked = ctx.ask(Asked::Columns);
        assert!(!ctx.fresh(&columns(PUSHED)) && ctx.fresh(&columns(asked)));
    }
}
