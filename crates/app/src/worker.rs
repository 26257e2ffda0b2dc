//! The ingest worker: dispatch plus the load loop over the core's session. It moves a `File`'s
//! slices into the core's [`Loader`], keeps each loaded [`Session`] and answers the page's
//! requests with the session's projections (see [`crate::protocol`]). The SHA-256 identity of a
//! large file comes from a helper worker ([`crate::hash_helper`]) and never delays `Loaded`.
//!
//! [`Store`] is the plain-Rust part (tested natively); `glue::run` wires it to the worker's
//! `onmessage` / `postMessage`.

use std::collections::{HashMap, HashSet};

use trajscope_core::report::QuarantineRecord;
use trajscope_core::Session;

use crate::protocol::{
    CaseView, Request, Response, TraceSummary, QUARANTINE_SHOWN, RAW_PREVIEW_CHARS,
};

/// The sessions this worker holds, by file id.
#[derive(Default)]
pub struct Store {
    sessions: HashMap<u32, Session>,
    cancelled: HashSet<u32>,
    /// Files whose cases and brief were sent.
    cases_sent: HashSet<u32>,
}

impl Store {
    /// Keeps `session` and analyses its first trajectory, so the first trajectory can be read
    /// at once; answers with the summary. The others follow through [`Store::analyse_batch`].
    pub fn insert(&mut self, file: u32, mut session: Session) -> Response {
        session.analyse(0);
        let summary = summarize(&session);
        self.sessions.insert(file, session);
        Response::Loaded { file, summary: Box::new(summary) }
    }

    /// Analyses trajectories of `file` not analysed yet while `more()` says so (at least one)
    /// and answers with their overviews in one message. Once all are analysed and the identity
    /// is known, answers once with the cases and the brief; then `None`.
    pub fn analyse_batch(&mut self, file: u32, mut more: impl FnMut() -> bool) -> Option<Response> {
        let s = self.sessions.get_mut(&file)?;
        let mut overviews = Vec::new();
        while let Some(i) = s.analyse_next() {
            overviews.extend(s.overview(i).map(|o| (i as u32, o)));
            if !more() {
                break;
            }
        }
        if !overviews.is_empty() {
            return Some(Response::Analysed { file, overviews });
        }
        self.cases_ready(file)
    }

    /// The cases and the brief, once, when every trajectory is analysed and the identity known.
    fn cases_ready(&mut self, file: u32) -> Option<Response> {
        let s = self.sessions.get_mut(&file)?;
        if !s.all_analysed() || s.identity().is_none() || self.cases_sent.contains(&file) {
            return None;
        }
        let cases = s.cases()?;
        self.cases_sent.insert(file);
        let views = cases
            .built
            .iter()
            .map(|c| CaseView {
                trajectory_id: c.trajectory_id.clone(),
                case_id: c.case_id.clone(),
                valid: c.valid,
                errors: c.errors.clone(),
            })
            .collect();
        Some(Response::CasesReady {
            file,
            cases: views,
            cases_jsonl: cases.jsonl(),
            brief_markdown: trajscope_core::brief::to_markdown(&cases.brief()),
        })
    }

    /// The identity arrived: the page gets it (to restore labels), then the cases if the
    /// analysis was already done.
    pub fn set_identity(&mut self, file: u32, content_hash: String) -> Vec<Response> {
        let Some(s) = self.sessions.get_mut(&file) else { return Vec::new() };
        s.set_identity(content_hash.clone());
        let mut out = vec![Response::Identity { file, content_hash }];
        out.extend(self.cases_ready(file));
        out
    }

    /// Analyses `traj` now if the page needs it before the background got there.
    fn ensure_analysed(&mut self, file: u32, traj: u32) -> Option<Response> {
        let s = self.sessions.get_mut(&file)?;
        if s.analyse(traj as usize) {
            let o = s.overview(traj as usize)?;
            return Some(Response::Analysed { file, overviews: vec![(traj, o)] });
        }
        None
    }

    pub fn cancel(&mut self, file: u32) {
        self.cancelled.insert(file);
    }

    /// True (once) if the load of `file` was cancelled.
    pub fn take_cancelled(&mut self, file: u32) -> bool {
        self.cancelled.remove(&file)
    }

    /// Answers a request that needs no I/O (everything but `Load`): an `Analysed` first when
    /// the request made the worker analyse a trajectory, then the answer.
    pub fn answer_all(&mut self, req: Request) -> Vec<Response> {
        let mut out = Vec::new();
        if let Request::Steps { file, traj, .. } | Request::Columns { file, traj } = &req {
            out.extend(self.ensure_analysed(*file, *traj));
        }
        out.extend(self.answer(req));
        out
    }

    /// Answers a request that needs no I/O (everything but `Load`).
    pub fn answer(&mut self, req: Request) -> Option<Response> {
        match req {
            Request::Load { .. } => None,
            Request::Cancel { file } => {
                self.cancel(file);
                None
            }
            Request::Forget { file } => {
                self.sessions.remove(&file);
                self.cases_sent.remove(&file);
                None
            }
            Request::Columns { file, traj } => {
                let columns = self.sessions.get(&file)?.columns(traj as usize)?;
                Some(Response::Columns { file, traj, columns })
            }
            Request::Steps { req, file, traj, items } => {
                let s = self.sessions.get(&file)?;
                s.trajectory(traj as usize)?;
                let steps = s.steps(traj as usize, &items);
                Some(Response::Steps { req, file, traj, steps })
            }
            Request::Search { req, file, traj, query } => {
                let s = self.sessions.get(&file)?;
                s.trajectory(traj as usize)?;
                let hits = s.search(traj as usize, &query);
                Some(Response::SearchHits { req, file, traj, query, hits })
            }
            Request::QuarantineJsonl { file } => {
                let text = self.sessions.get(&file)?.quarantine_jsonl();
                Some(Response::QuarantineJsonl { file, text })
            }
        }
    }
}

/// What the page keeps about a loaded file: the overviews as far as analysed, the quarantine
/// preview (at most [`QUARANTINE_SHOWN`] lines, each cut to [`RAW_PREVIEW_CHARS`]; the export
/// has them all, exactly).
pub fn summarize(s: &Session) -> TraceSummary {
    let trace = s.trace();
    let quarantine = trace
        .quarantine
        .iter()
        .take(QUARANTINE_SHOWN)
        .map(|q| {
            let mut r = QuarantineRecord::from_entry(q);
            if r.raw.chars().count() > RAW_PREVIEW_CHARS {
                r.raw = r.raw.chars().take(RAW_PREVIEW_CHARS).collect::<String>() + "…";
            }
            // The page shows the preview; the export carries the exact bytes.
            r.raw_base64 = String::new();
            r
        })
        .collect();
    let trajectories = s.overviews();
    TraceSummary {
        content_hash: s.identity().unwrap_or_default().to_string(),
        format: trace.format.name().to_string(),
        stats: trace.stats.clone(),
        error: trace.error.clone(),
        quarantine,
        quarantine_total: trace.quarantine.len() as u64,
        analysed: trajectories.iter().filter(|o| o.analysed).count() as u32,
        trajectories,
        cases: Vec::new(),
        cases_jsonl: String::new(),
        brief_markdown: String::new(),
        analysis_done: false,
    }
}

/// Files bigger than this are refused before reading: a trace in memory takes a few times its
/// file size and a browser tab's WebAssembly memory is capped at 4 GiB.
pub const MAX_FILE_BYTES: f64 = 1024.0 * 1024.0 * 1024.0;

#[cfg(target_arch = "wasm32")]
pub use glue::run;

/// Posts a message from this worker (to the page, or a helper's reply to its ingest worker).
#[cfg(target_arch = "wasm32")]
pub(crate) fn post_to(scope: &web_sys::DedicatedWorkerGlobalScope, msg: &impl serde::Serialize) {
    let ser = serde_wasm_bindgen::Serializer::json_compatible();
    if let Ok(v) = msg.serialize(&ser) {
        scope.post_message(&v).ok();
    }
}

#[cfg(target_arch = "wasm32")]
mod glue {
    use std::cell::RefCell;
    use std::rc::Rc;

    use trajscope_core::{IngestOptions, Loader};
    use wasm_bindgen::prelude::*;
    use web_sys::DedicatedWorkerGlobalScope;

    use super::Store;
    use crate::hash_helper::{self, HashHelper};
    use crate::load::Slices;
    use crate::protocol::{Request, Response};

    use super::post_to as post;

    fn blob_of(data: &JsValue) -> Option<web_sys::Blob> {
        js_sys::Reflect::get(data, &JsValue::from_str("blob")).ok()?.dyn_into().ok()
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
                let Some(req) = req.and_then(|r| serde_wasm_bindgen::from_value::<Request>(r).ok())
                else {
                    return;
                };
                match req {
                    Request::Load { file } => match blob_of(&data) {
                        Some(blob) => {
                            let (scope, store) = (s2.clone(), store.clone());
                            wasm_bindgen_futures::spawn_local(load(scope, store, file, blob));
                        }
                        None => {
                            post(&s2, &Response::Failed { file, error: "no file was sent".into() })
                        }
                    },
                    other => {
                        for resp in store.borrow_mut().answer_all(other) {
                            post(&s2, &resp);
                        }
                    }
                }
            });
        scope.set_onmessage(Some(onmessage.as_ref().unchecked_ref()));
        onmessage.forget();
        post(&scope, &Response::Ready);
    }

    /// How long one background batch of analysis may run before its overviews are posted (and
    /// the page's requests get their turn): one message per batch, not per trajectory.
    const BATCH_MS: f64 = 50.0;

    async fn load(
        scope: DedicatedWorkerGlobalScope,
        store: Rc<RefCell<Store>>,
        file: u32,
        blob: web_sys::Blob,
    ) {
        let total = blob.size();
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
        let helper = (total >= hash_helper::HELPER_MIN_BYTES).then(|| HashHelper::start(&blob));
        let helper = helper.flatten();
        let mut loader = Loader::new(IngestOptions::default(), helper.is_none());
        let now = js_sys::Date::now;
        let (t_start, mut t_read, mut t_feed) = (now(), 0.0, 0.0);
        // Reading the next slice overlaps with parsing this one.
        let mut slices = Slices::new(&blob);
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
            post(
                &scope,
                &Response::Progress {
                    file,
                    bytes: slices.pos(),
                    total,
                    lines: p.lines as f64,
                    quarantined: p.quarantined as f64,
                },
            );
        }
        if store.borrow_mut().take_cancelled(file) {
            return post(&scope, &Response::Cancelled { file });
        }
        let t0 = now();
        let session = loader.finish();
        let t_finished = now();
        let resp = store.borrow_mut().insert(file, session);
        let t_inserted = now();
        // `ready`: the first trajectory can be read now, whether or not the hash has arrived.
        post(&scope, &resp);
        let t_posted = now();
        // Where the time went (the app benchmark reads this line from the console).
        gloo::console::log!(format!(
            "trajscope-timing read={t_read:.0} feed={t_feed:.0} hash=0 finish={:.0} analyse={:.0} post={:.0} total={:.0}",
            t_finished - t0,
            t_inserted - t_finished,
            t_posted - t_inserted,
            t_posted - t_start
        ));
        // The identity, when the helper has it (or, failing the helper, hashed here).
        if let Some(mut helper) = helper {
            let (scope, store, blob) = (scope.clone(), store.clone(), blob.clone());
            wasm_bindgen_futures::spawn_local(async move {
                let hash = match helper.hash().await {
                    Some(h) => Some(h),
                    None => hash_helper::hash_blob(&blob).await,
                };
                drop(helper);
                match hash {
                    Some(h) => {
                        for resp in store.borrow_mut().set_identity(file, h) {
                            post(&scope, &resp);
                        }
                    }
                    None => {
                        let error =
                            "the browser could not read the file (was it moved or deleted?)";
                        post(&scope, &Response::Failed { file, error: error.into() });
                    }
                }
            });
        }
        // (Hashed here, the identity was already in `Loaded`.)
        // The other trajectories in batches, yielding between them so the page's requests are
        // answered.
        loop {
            gloo::timers::future::TimeoutFuture::new(0).await;
            let until = now() + BATCH_MS;
            let next = store.borrow_mut().analyse_batch(file, || now() < until);
            match next {
                Some(resp) => post(&scope, &resp),
                None => break,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Grain;
    use trajscope_core::{ingest, IngestOptions};

    fn session(bytes: &[u8], hash: Option<&str>) -> Session {
        Session::new(ingest(bytes, IngestOptions::default()), hash.map(String::from))
    }

    fn store_with(bytes: &[u8]) -> Store {
        let mut store = Store::default();
        store.insert(1, session(bytes, Some("sha256:test")));
        store
    }

    const SAMPLE: &[u8] = include_bytes!("../../../web/samples/sample.awtl.jsonl");

    #[test]
    fn summary_counts_steps_errors_and_quarantine() {
        let mut store = Store::default();
        let Response::Loaded { summary: s, .. } =
            store.insert(3, session(SAMPLE, Some("sha256:x")))
        else {
            panic!("not loaded");
        };
        // The sample run failed: the first trajectory is analysed at once, with candidates.
        assert!(s.trajectories[0].analysed);
        assert_eq!(s.analysed, 1);
        assert!(!s.trajectories[0].candidates.is_empty());
        assert!(!s.analysis_done);
        assert_eq!(s.content_hash, "sha256:x");
        // Then the cases and the brief, once; then nothing.
        let Some(Response::CasesReady { cases, cases_jsonl, brief_markdown, .. }) =
            store.analyse_batch(3, || true)
        else {
            panic!("no cases");
        };
        assert_eq!(cases.len(), 1);
        if cases[0].valid {
            assert_eq!(cases_jsonl.lines().count(), 1);
            assert!(brief_markdown.contains("Failure Prevention Brief"));
        } else {
            assert!(!cases[0].errors.is_empty());
        }
        assert!(store.analyse_batch(3, || true).is_none());
        let s = summarize(&session(SAMPLE, None));
        assert_eq!(s.format, "awtl");
        assert_eq!(s.content_hash, "", "no identity yet");
        assert_eq!(s.quarantine_total, 1);
        assert_eq!(s.quarantine[0].line, 10);
        assert!(s.quarantine[0].raw_base64.is_empty(), "the page preview does not carry the bytes");
        assert_eq!(s.trajectories.len(), 1);
        assert_eq!(s.trajectories[0].steps, 12);
        assert!(s.trajectories[0].agents.contains(&"coder".to_string()));
    }

    #[test]
    fn steps_come_back_at_their_grain_within_the_limit() {
        let long = "x".repeat(10_000);
        let jsonl = format!("{{\"type\":\"message\",\"role\":\"user\",\"content\":\"{long}\"}}\n");
        let mut store = store_with(jsonl.as_bytes());
        for g in Grain::ALL {
            let Some(Response::Steps { steps, .. }) =
                store.answer(Request::Steps { req: 7, file: 1, traj: 0, items: vec![(0, g)] })
            else {
                panic!("no steps answer");
            };
            assert_eq!(steps.len(), 1);
            assert!(steps[0].text.chars().count() <= g.limit());
            assert_eq!(steps[0].full_chars, 10_000);
        }
    }

    #[test]
    fn search_finds_steps_anywhere_and_unknown_ids_get_no_answer() {
        let mut store = store_with(SAMPLE);
        let Some(Response::SearchHits { hits, .. }) =
            store.answer(Request::Search { req: 1, file: 1, traj: 0, query: "NPM TEST".into() })
        else {
            panic!("no search answer");
        };
        assert!(!hits.is_empty());
        assert!(store.answer(Request::Columns { file: 9, traj: 0 }).is_none());
        assert!(store.answer(Request::Columns { file: 1, traj: 5 }).is_none());
        assert!(store
            .answer(Request::Search { req: 1, file: 1, traj: 5, query: "x".into() })
            .is_none());
    }

    const TWO: &str = "{\"type\":\"run_start\",\"run_id\":\"a\"}\n{\"type\":\"run_end\",\"run_id\":\"a\",\"status\":\"failed\"}\n\
                       {\"type\":\"run_start\",\"run_id\":\"b\"}\n{\"type\":\"run_end\",\"run_id\":\"b\",\"status\":\"failed\"}\n\
                       {\"type\":\"run_start\",\"run_id\":\"c\"}\n{\"type\":\"run_end\",\"run_id\":\"c\",\"status\":\"failed\"}\n";

    #[test]
    fn later_trajectories_are_analysed_in_batches_or_on_demand() {
        let mut store = Store::default();
        let Response::Loaded { summary, .. } = store.insert(1, session(TWO.as_bytes(), Some("h")))
        else {
            panic!("not loaded");
        };
        assert_eq!(summary.trajectories.len(), 3);
        assert!(summary.trajectories[0].analysed && !summary.trajectories[1].analysed);
        // Asking for the second trajectory's steps analyses it first.
        let out = store.answer_all(Request::Steps {
            req: 1,
            file: 1,
            traj: 1,
            items: vec![(0, Grain::Low)],
        });
        assert!(
            matches!(&out[0], Response::Analysed { overviews, .. } if overviews.len() == 1 && overviews[0].0 == 1 && overviews[0].1.analysed)
        );
        assert!(matches!(&out[1], Response::Steps { .. }));
        // The rest in one batch, not one message each.
        let Some(Response::Analysed { overviews, .. }) = store.analyse_batch(1, || true) else {
            panic!("no batch");
        };
        assert_eq!(overviews.iter().map(|o| o.0).collect::<Vec<_>>(), [2]);
        // Nothing left but the cases.
        assert!(matches!(store.analyse_batch(1, || true), Some(Response::CasesReady { .. })));
        assert!(store.analyse_batch(1, || true).is_none());
    }

    #[test]
    fn a_batch_stops_when_its_budget_runs_out_but_makes_progress() {
        let mut store = Store::default();
        store.insert(1, session(TWO.as_bytes(), Some("h")));
        let Some(Response::Analysed { overviews, .. }) = store.analyse_batch(1, || false) else {
            panic!("no batch");
        };
        assert_eq!(overviews.len(), 1, "at least one per batch, however short the budget");
    }

    #[test]
    fn the_cases_wait_for_the_identity_and_it_never_delays_loading() {
        let mut store = Store::default();
        let Response::Loaded { summary, .. } = store.insert(1, session(SAMPLE, None)) else {
            panic!("not loaded");
        };
        assert!(summary.trajectories[0].analysed, "readable before the hash");
        assert!(store.analyse_batch(1, || true).is_none(), "no cases without an identity");
        let out = store.set_identity(1, "sha256:late".into());
        assert!(
            matches!(&out[0], Response::Identity { content_hash, .. } if content_hash == "sha256:late")
        );
        assert!(matches!(&out[1], Response::CasesReady { cases, .. } if !cases.is_empty()));
        assert!(store.analyse_batch(1, || true).is_none(), "the cases come once");
    }

    /// The worker answers with exactly the session's projections (the CLI's too), for the
    /// fixtures: the overviews, the cases and the brief. (Natively: it lists the fixture folder.)
    #[test]
    #[cfg(not(target_arch = "wasm32"))]
    fn the_worker_answers_what_the_session_projects_for_every_awtl_fixture() {
        let dir =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/awtl");
        let mut n = 0;
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if !p.to_string_lossy().ends_with(".awtl.jsonl") {
                continue;
            }
            n += 1;
            let bytes = std::fs::read(&p).unwrap();
            let hash = trajscope_core::labels::content_hash(&bytes);
            let mut expected = session(&bytes, Some(&hash));
            let report = expected.report();
            let cases = expected.cases().unwrap();
            let mut store = Store::default();
            let Response::Loaded { summary, .. } = store.insert(1, session(&bytes, Some(&hash)))
            else {
                panic!("not loaded");
            };
            let mut overviews = summary.trajectories.clone();
            loop {
                match store.analyse_batch(1, || true) {
                    Some(Response::Analysed { overviews: batch, .. }) => {
                        for (i, o) in batch {
                            overviews[i as usize] = o;
                        }
                    }
                    Some(Response::CasesReady {
                        cases: got, cases_jsonl, brief_markdown, ..
                    }) => {
                        let ids: Vec<&str> = got.iter().map(|c| c.case_id.as_str()).collect();
                        let want: Vec<&str> =
                            cases.built.iter().map(|c| c.case_id.as_str()).collect();
                        assert_eq!(ids, want, "{p:?}");
                        assert_eq!(cases_jsonl, cases.jsonl(), "{p:?}");
                        let brief = trajscope_core::brief::to_markdown(&cases.brief());
                        assert_eq!(brief_markdown, brief, "{p:?}");
                    }
                    None => break,
                    Some(other) => panic!("unexpected {other:?}"),
                }
            }
            assert_eq!(overviews, report.trajectories, "{p:?}");
        }
        assert!(n > 3);
    }
}
