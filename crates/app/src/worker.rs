//! The ingest worker: dispatch plus the load loop over the core's session. It moves a `File`'s
//! slices into the core's [`Loader`](trajscope_core::Loader), keeps each loaded
//! [`Session`](trajscope_core::Session) in its [`Store`] and answers the page's requests with the
//! session's projections (see [`crate::protocol`]). The SHA-256 identity of a large file comes
//! from a helper worker ([`crate::hash_helper`]) and never delays `Loaded`.
//!
//! [`Store`] is the plain-Rust part (`worker/store.rs`, tested natively); `glue::run` wires it to
//! the worker's `onmessage` / `postMessage`.

mod dataset;
pub(crate) mod files;
mod store;

pub use store::{summarize, Store};

/// Files of at least this size log where their load's time went (`trajscope-timing` lines).
pub const TIMED_MIN_BYTES: f64 = 1024.0 * 1024.0;

/// Files bigger than this are refused before reading: a trace in memory takes a few times its
/// file size and a browser tab's WebAssembly memory is capped at 4 GiB.
pub const MAX_FILE_BYTES: f64 = 1024.0 * 1024.0 * 1024.0;

#[cfg(target_arch = "wasm32")]
pub use glue::run;

/// Posts a message from this worker to the page: its bytes ([`Response::encode`]) in a
/// `Uint8Array` whose buffer is transferred, not copied.
///
/// [`Response::encode`]: crate::protocol::Response::encode
#[cfg(target_arch = "wasm32")]
pub(crate) fn post_to(
    scope: &web_sys::DedicatedWorkerGlobalScope,
    msg: &crate::protocol::Response,
) {
    post_all_to(scope, std::slice::from_ref(msg))
}

/// Posts `msgs` as one message ([`Response::encode_all`]): the page handles them in one task.
///
/// [`Response::encode_all`]: crate::protocol::Response::encode_all
#[cfg(target_arch = "wasm32")]
pub(crate) fn post_all_to(
    scope: &web_sys::DedicatedWorkerGlobalScope,
    msgs: &[crate::protocol::Response],
) {
    if msgs.is_empty() {
        return;
    }
    let bytes = crate::protocol::Response::encode_all(msgs);
    let bytes = js_sys::Uint8Array::from(bytes.as_slice());
    scope.post_message_with_transfer(&bytes, &js_sys::Array::of1(&bytes.buffer())).ok();
}

#[cfg(target_arch = "wasm32")]
mod glue {
    use std::cell::RefCell;
    use std::rc::Rc;

    use js_sys::Uint8Array;
    use trajscope_core::{IngestOptions, Loader};
    use wasm_bindgen::prelude::*;
    use web_sys::DedicatedWorkerGlobalScope;

    use super::store::GROWING_STEPS;
    use super::Store;
    use super::TIMED_MIN_BYTES;
    use crate::hash_helper::{self, HashHelper};
    use crate::load::Slices;
    use crate::protocol::{ReadProgress, Request, Response, PUSHED};

    use super::{post_all_to as post_all, post_to as post};

    /// The file a `Load` came with: a blob, or a small archive member's bytes
    /// (`gather::Item::Member`).
    fn blob_of(data: &JsValue) -> Option<JsValue> {
        let v = js_sys::Reflect::get(data, &JsValue::from_str("blob")).ok()?;
        (v.is_instance_of::<web_sys::Blob>() || v.is_instance_of::<Uint8Array>()).then_some(v)
    }

    /// Starts listening: the page's requests, or (in a helper instance) a hash job.
    pub fn run() {
        let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
        let store = Rc::new(RefCell::new(Store::default()));
        let s2 = scope.clone();
        let onmessage =
            Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |e: web_sys::MessageEvent| {
                let data = e.data();
                if hash_helper::serve(&s2, &data) {
                    return;
                }
                let req = js_sys::Reflect::get(&data, &JsValue::from_str("req")).ok();
                let req = req.and_then(|r| r.dyn_into::<js_sys::Uint8Array>().ok());
                let Some(req) = req.and_then(|r| Request::decode(&r.to_vec())) else {
                    return;
                };
                match req {
                    Request::Load { file, open } => match blob_of(&data) {
                        Some(blob) => {
                            let (scope, store) = (s2.clone(), store.clone());
                            let head = js_sys::Reflect::get(&data, &JsValue::from_str("head"));
                            let head =
                                head.ok().filter(|h| !h.is_undefined()).map(Uint8Array::from);
                            let loading = load(scope, store, file, open, blob, head);
                            wasm_bindgen_futures::spawn_local(loading);
                        }
                        None => {
                            post(&s2, &Response::Failed { file, error: "no file was sent".into() })
                        }
                    },
                    Request::Dataset { req, style, redact, files, labels } => {
                        let post_part = |r: Response| post(&s2, &r);
                        store.borrow().dataset(req, style, redact, &files, labels, post_part);
                    }
                    // (An opened trajectory's overview and columns rendered together.)
                    other => post_all(&s2, &store.borrow_mut().answer_all(other)),
                }
            });
        scope.set_onmessage(Some(onmessage.as_ref().unchecked_ref()));
        onmessage.forget();
        post(&scope, &Response::Ready);
    }

    /// The first trajectory of `file` as the page opens it, unasked: its full overview and its
    /// columns (the answers to `Request::Columns`, with the id [`PUSHED`]). Worked out before
    /// the file's first `Loaded` is posted and posted right after it, they reach the page
    /// together with it: the page renders the trajectory once, its steps listed, instead of
    /// rendering the file, asking, and rendering again.
    fn opening(store: &RefCell<Store>, file: u32) -> Vec<Response> {
        store.borrow_mut().answer_all(Request::Columns { req: PUSHED, file, traj: 0 })
    }

    /// How long the first background batch of analysis may run before its overviews are posted
    /// (and the page's requests get their turn): one message per batch, not per trajectory.
    /// Each batch may run twice as long as the one before, up to [`BATCH_MAX_MS`]: every
    /// message costs the page an update (a re-render of what it changed), so a file of 12,000
    /// trajectories gets a few dozen updates, not hundreds, while the first ones still come
    /// quickly.
    const BATCH_MS: f64 = 50.0;
    /// The longest a batch runs (how long a page request can wait behind one).
    const BATCH_MAX_MS: f64 = 500.0;
    /// The least time between two progress reports while a file is read.
    const PROGRESS_MS: f64 = 400.0;
    /// How long after an early `Loaded` the file is read in small slices while the page has
    /// not asked for the open trajectory's steps yet.
    const EARLY_SMALL_MS: f64 = 2000.0;

    /// The load loop: the file's slices into the loader; as soon as the first trajectory has
    /// settled (an AWTL run whose `run_end` was read, a record of a record-per-line file), or
    /// after the first slice with a growing copy of it if nothing settled (AWTL, Claude Code,
    /// Codex), an early `Loaded` of the trajectories settled so far
    /// while the rest is read (`Reading` messages bring the next ones); once
    /// the file is read, its whole `Loaded` (the first trajectory readable at once), the
    /// identity when a helper has it, the secret scan and the rest's analysis in batches.
    /// With the first `Loaded` of a file the page will `open`, what the page would ask for
    /// first ([`opening`]). `head`: the file's first bytes when the page read them
    /// already (`bridge::envelope`), parsed while the browser reads the next slice.
    async fn load(
        scope: DedicatedWorkerGlobalScope,
        store: Rc<RefCell<Store>>,
        file: u32,
        mut open: bool,
        blob: JsValue,
        head: Option<Uint8Array>,
    ) {
        let total = crate::load::size_of(&blob);
        let blob = blob.dyn_into::<web_sys::Blob>();
        if total > super::MAX_FILE_BYTES {
            let error = format!(
                "This file is {:.0} MB: over the {:.0} MB a browser tab can analyse. \
                 Use the trajscope CLI for it, or split the file.",
                total / 1e6,
                super::MAX_FILE_BYTES / 1e6
            );
            return post(&scope, &Response::Failed { file, error });
        }
        // A large file is hashed by a helper beside the parse; a small one here, as it is fed.
        let helper = (total >= hash_helper::HELPER_MIN_BYTES)
            .then(|| blob.as_ref().ok().and_then(HashHelper::start))
            .flatten();
        // A document's first steps are copied while it is read, to be shown before its end.
        let opts = IngestOptions { copy_document_steps: GROWING_STEPS, ..IngestOptions::default() };
        let mut loader = Loader::new(opts, helper.is_none());
        let now = js_sys::Date::now;
        let (t_start, mut t_read, mut t_feed) = (now(), 0.0, 0.0);
        // (The first report comes after the first slice: the page counts lines at once.)
        let (mut t_progress, mut t_early) = (t_start - PROGRESS_MS, None);
        // Whether what was shown early is a document's copy (`Loader::copies_document`).
        let mut document = false;
        store.borrow_mut().begin(file);
        // Reading the next slice overlaps with parsing this one.
        let mut slices = match &blob {
            Ok(b) => Slices::new(b, head.map(|h| h.to_vec())),
            Err(bytes) => Slices::of_bytes(bytes.unchecked_ref::<Uint8Array>().to_vec()),
        };
        loop {
            if store.borrow_mut().take_cancelled(file) {
                return post(&scope, &Response::Cancelled { file });
            }
            let t0 = now();
            let bytes = match slices.next().await {
                None => break,
                Some(Ok(bytes)) => bytes,
                Some(Err(error)) => {
                    return post(&scope, &Response::Failed { file, error: error.into() })
                }
            };
            let t1 = now();
            loader.feed(&bytes);
            (t_read, t_feed) = (t_read + t1 - t0, t_feed + now() - t1);
            let p = loader.progress();
            let (lines, quarantined) = (p.lines as f64, p.quarantined as f64);
            let progress = ReadProgress { bytes: slices.pos(), total, lines, quarantined };
            // The trajectories that settled in this slice go to the store: the first one makes
            // the file readable before its end (unless this was the last slice). Nothing
            // settled: a copy of the first trajectory as read so far does (one huge run, runs
            // without an end marker), revised when it settles or the file is read.
            let settled = loader.take_settled();
            let early = slices.pos() < total;
            let mut resp = None;
            if !settled.is_empty() {
                let format = loader.format();
                resp = store.borrow_mut().settle(file, settled, format, progress, early);
            }
            if resp.is_none() && t_early.is_none() {
                let copy_of_document = loader.copies_document();
                resp = store.borrow_mut().grow(file, &mut loader, progress, early);
                document = resp.is_some() && copy_of_document;
            }
            if let Some(resp) = resp {
                let loaded = matches!(resp, Response::Loaded { .. });
                if loaded {
                    t_early = Some(now() - t_start);
                }
                let mut resps = vec![resp];
                if loaded && open {
                    resps.extend(opening(&store, file));
                }
                open &= !loaded;
                post_all(&scope, &resps);
                t_progress = now();
            }
            // Shown early, the page asks for the open trajectory's columns and steps: small
            // slices meanwhile (it is answered between two), for a while at most. A document
            // shown by its copy is only appended slice by slice until its end: large slices
            // delay no answer.
            let waiting = t_early.is_some_and(|t| now() - t_start - t < EARLY_SMALL_MS)
                && !store.borrow().stepped(file)
                && !document;
            slices.set_small(waiting);
            // At most one progress report per `PROGRESS_MS`: each one re-renders the page,
            // which shares the machine's cores with this parse. (None after the last slice:
            // the whole file's `Loaded` follows, and brings what changed since the last.)
            if early && now() - t_progress >= PROGRESS_MS {
                t_progress = now();
                let resp = store.borrow_mut().read_progress(file, progress);
                post(&scope, &resp);
            }
        }
        if store.borrow_mut().take_cancelled(file) {
            return post(&scope, &Response::Cancelled { file });
        }
        let t0 = now();
        // The whole file: the settled trajectories given back, the session kept, its first
        // trajectory analysed (and, for a file shown early, what changed since).
        let mut resps = store.borrow_mut().finish(file, loader);
        if open {
            resps.extend(opening(&store, file));
        }
        let t_inserted = now();
        // `ready` (unless it came early): the first trajectory can be read now, whether or not
        // the hash has arrived.
        post_all(&scope, &resps);
        let t_posted = now();
        // Where the time went (the app benchmark, `bench/app/run.mjs`, reads this line), for a
        // file of a size worth timing: not once for each of an archive's thousands of members.
        let timed = total >= TIMED_MIN_BYTES;
        let early = t_early.map(|t| format!(" early={t:.0}")).unwrap_or_default();
        if timed {
            gloo::console::log!(format!(
            "trajscope-timing at={t_start:.0} read={t_read:.0} feed={t_feed:.0} finish+analyse={:.0} post={:.0} total={:.0}{early}",
            t_inserted - t0,
            t_posted - t_inserted,
            t_posted - t_start
            ));
        }
        // (Hashed here, the identity was already in `Loaded`.)
        if let (Some(helper), Ok(blob)) = (helper, blob) {
            let (scope, store) = (scope.clone(), store.clone());
            wasm_bindgen_futures::spawn_local(async move {
                let resps = match helper.identity(&blob).await {
                    Some(h) => store.borrow_mut().set_identity(file, h),
                    None => {
                        let error =
                            "the browser could not read the file (was it moved or deleted?)";
                        vec![Response::Failed { file, error: error.into() }]
                    }
                };
                post_all(&scope, &resps);
            });
        }
        // The background work in batches, yielding between them so the page's requests are
        // answered: the secret scan, then the other trajectories' analysis.
        let mut budget = BATCH_MS;
        let (mut t_scanned, mut t_work) = (None, 0.0);
        loop {
            gloo::timers::future::TimeoutFuture::new(0).await;
            let t0 = now();
            let until = t0 + budget;
            // Short batches until the page shows the file (asked for a trajectory's columns):
            // its first request is not kept waiting behind a long one.
            if store.borrow().shown(file) {
                budget = (budget * 2.0).min(BATCH_MAX_MS);
            }
            let next = store.borrow_mut().next_batch(file, || now() < until);
            t_work += now() - t0;
            match next {
                Some(resp) => {
                    if matches!(&resp, Response::Secrets { scanned, of, .. } if scanned == of) {
                        t_scanned = Some(t_work);
                    }
                    post(&scope, &resp)
                }
                None => break,
            }
        }
        let scan = t_scanned.unwrap_or(0.0);
        if timed {
            gloo::console::log!(format!(
                "trajscope-timing-background scan={scan:.0} analyse={:.0} after_ready={:.0}",
                t_work - scan,
                now() - t_posted
            ));
        }
    }
}
