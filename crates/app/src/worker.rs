//! The ingest worker: reads a `File` in slices into the core's [`Ingestor`], reports progress,
//! keeps the loaded traces and answers the page's requests (see [`crate::protocol`]).
//!
//! [`Store`] is the plain-Rust part (tested natively); [`run`] wires it to the worker's
//! `onmessage` / `postMessage`.

use std::collections::{HashMap, HashSet};

use trajscope_core::attribution::{self, AnalysisOptions, TrajectoryAnalysis};
use trajscope_core::model::{Outcome, Role, StepKind, Trace, Trajectory};
use trajscope_core::outcome::ReviewerOutcome;
use trajscope_core::report::QuarantineRecord;
use trajscope_core::{brief, cases, views};

use crate::protocol::{
    CaseView, Request, Response, StepColumns, StepView, TraceSummary, TrajectoryInfo,
    QUARANTINE_SHOWN, RAW_PREVIEW_CHARS,
};
use crate::text;

/// The traces this worker holds, by file id.
#[derive(Default)]
pub struct Store {
    traces: HashMap<u32, Loaded>,
    cancelled: HashSet<u32>,
}

/// A loaded trace with the analysis of its trajectories (filled one by one: the first at load,
/// the others in the background or when the page asks for them).
struct Loaded {
    trace: Trace,
    analyses: Vec<Option<TrajectoryAnalysis>>,
    content_hash: String,
    done: bool,
    /// Each trajectory's outcome as the file says (a reviewer's outcome replaces it in `trace`).
    file_outcomes: Vec<Outcome>,
}

impl Loaded {
    /// Analyses trajectory `i` if not done yet; true if it did.
    fn analyse(&mut self, i: usize) -> bool {
        match (self.analyses.get(i), self.trace.trajectories.get(i)) {
            (Some(None), Some(t)) => {
                let a = attribution::analyze_trajectory(t, &AnalysisOptions::default());
                self.analyses[i] = Some(a);
                true
            }
            _ => false,
        }
    }

    fn info(&self, i: usize) -> Option<TrajectoryInfo> {
        let t = self.trace.trajectories.get(i)?;
        Some(trajectory_info(t, self.analyses.get(i).and_then(Option::as_ref)))
    }
}

impl Store {
    /// Keeps `trace` and analyses its first trajectory; answers with the summary. The other
    /// trajectories follow through [`Store::analyse_next`].
    pub fn insert(&mut self, file: u32, trace: Trace, content_hash: String) -> Response {
        let n = trace.trajectories.len();
        let file_outcomes = trace.trajectories.iter().map(|t| t.outcome).collect();
        let mut loaded =
            Loaded { trace, analyses: vec![None; n], content_hash, done: false, file_outcomes };
        loaded.analyse(0);
        let summary = summarize(&loaded.trace, &loaded.analyses, loaded.content_hash.clone());
        self.traces.insert(file, loaded);
        Response::Loaded { file, summary: Box::new(summary) }
    }

    /// Analyses the next trajectory of `file` not analysed yet and answers with its info; once
    /// all are, answers once with the cases and the brief; then `None`.
    pub fn analyse_next(&mut self, file: u32) -> Option<Response> {
        let l = self.traces.get_mut(&file)?;
        if l.done {
            return None;
        }
        match l.analyses.iter().position(Option::is_none) {
            Some(i) => {
                l.analyse(i);
                let info = Box::new(l.info(i)?);
                Some(Response::Analysed { file, traj: i as u32, info })
            }
            None => {
                l.done = true;
                let analyses: Vec<TrajectoryAnalysis> =
                    l.analyses.iter().flatten().cloned().collect();
                let (cases, cases_jsonl, brief_markdown) =
                    cases_and_brief(&l.trace, &analyses, &l.content_hash);
                Some(Response::CasesReady { file, cases, cases_jsonl, brief_markdown })
            }
        }
    }

    /// Analyses `traj` now if the page needs it before the background got there.
    fn ensure_analysed(&mut self, file: u32, traj: u32) -> Option<Response> {
        let l = self.traces.get_mut(&file)?;
        if l.analyse(traj as usize) {
            let info = Box::new(l.info(traj as usize)?);
            return Some(Response::Analysed { file, traj, info });
        }
        None
    }

    /// Sets the reviewer's outcome on a trajectory (`Unknown`: the file's own again) with the
    /// core's [`ReviewerOutcome`], and analyses it again when that changed its outcome: its new
    /// info, and the cases and brief again if they were already made.
    pub fn set_outcome(&mut self, file: u32, id: &str, outcome: Outcome) -> Vec<Response> {
        let Some(l) = self.traces.get_mut(&file) else { return Vec::new() };
        let Some(i) = l.trace.trajectories.iter().position(|t| t.id == id) else {
            return Vec::new();
        };
        let t = &mut l.trace.trajectories[i];
        let before = t.outcome;
        t.outcome = l.file_outcomes[i];
        ReviewerOutcome::new(outcome, None).apply(t);
        if t.outcome == before {
            return Vec::new();
        }
        l.analyses[i] = None;
        l.analyse(i);
        let mut out: Vec<Response> = l
            .info(i)
            .map(|info| Response::Analysed { file, traj: i as u32, info: Box::new(info) })
            .into_iter()
            .collect();
        if l.done {
            let analyses: Vec<TrajectoryAnalysis> = l.analyses.iter().flatten().cloned().collect();
            let (cases, cases_jsonl, brief_markdown) =
                cases_and_brief(&l.trace, &analyses, &l.content_hash);
            out.push(Response::CasesReady { file, cases, cases_jsonl, brief_markdown });
        }
        out
    }

    pub fn cancel(&mut self, file: u32) {
        self.cancelled.insert(file);
    }

    /// True (once) if the load of `file` was cancelled.
    pub fn take_cancelled(&mut self, file: u32) -> bool {
        self.cancelled.remove(&file)
    }

    fn trajectory(&self, file: u32, traj: u32) -> Option<&Trajectory> {
        self.traces.get(&file)?.trace.trajectories.get(traj as usize)
    }

    /// Answers a request that needs no I/O (everything but `Load`): an `Analysed` first when
    /// the request made the worker analyse a trajectory, then the answer.
    pub fn answer_all(&mut self, req: Request) -> Vec<Response> {
        if let Request::SetOutcome { file, trajectory_id, outcome } = &req {
            return self.set_outcome(*file, trajectory_id, *outcome);
        }
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
            Request::Load { .. } | Request::Hash { .. } | Request::SetOutcome { .. } => None,
            Request::Cancel { file } => {
                self.cancel(file);
                None
            }
            Request::Forget { file } => {
                self.traces.remove(&file);
                None
            }
            Request::Columns { file, traj } => {
                let t = self.trajectory(file, traj)?;
                Some(Response::Columns { file, traj, columns: columns(t) })
            }
            Request::Steps { req, file, traj, items } => {
                let loaded = self.traces.get(&file)?;
                let t = loaded.trace.trajectories.get(traj as usize)?;
                let triggers = loaded
                    .analyses
                    .get(traj as usize)
                    .and_then(Option::as_ref)
                    .map(|a| a.triggers.as_slice());
                let opts = views::ViewOptions::default();
                let steps = items
                    .into_iter()
                    .filter_map(|(i, g)| t.steps.get(i as usize).map(|s| (i, s, g)))
                    .map(|(i, s, grain)| {
                        let quotes =
                            triggers.map(|tr| attribution::quotes_on(tr, i)).unwrap_or_default();
                        StepView {
                            index: i,
                            grain,
                            text: views::step_view_with_quotes(s, grain.core(), &opts, &quotes),
                            full_chars: text::full_text(s).chars().count() as u32,
                            timestamp: s.timestamp.clone(),
                            usage: s.usage.as_deref().cloned(),
                            parts: Some(views::step_parts_with_quotes(
                                s,
                                grain.core(),
                                &opts,
                                &quotes,
                            )),
                        }
                    })
                    .collect();
                Some(Response::Steps { req, file, traj, steps })
            }
            Request::Search { req, file, traj, query } => {
                let t = self.trajectory(file, traj)?;
                let hits = t
                    .steps
                    .iter()
                    .enumerate()
                    .filter(|(_, s)| text::step_matches(s, &query))
                    .map(|(i, _)| i as u32)
                    .collect();
                Some(Response::SearchHits { req, file, traj, query, hits })
            }
            Request::QuarantineJsonl { file, redacted } => {
                let loaded = self.traces.get(&file)?;
                let text = match redacted {
                    true => quarantine_jsonl_redacted(&loaded.trace),
                    false => quarantine_jsonl(&loaded.trace),
                };
                Some(Response::QuarantineJsonl { file, text, redacted })
            }
        }
    }
}

/// The quarantine as JSONL: one [`QuarantineRecord`] per line (the CLI's `quarantine` shape).
pub fn quarantine_jsonl(trace: &Trace) -> String {
    let mut out = String::new();
    for q in &trace.quarantine {
        if let Ok(line) = serde_json::to_string(&QuarantineRecord::from_entry(q)) {
            out.push_str(&line);
            out.push('\n');
        }
    }
    out
}

/// The quarantine as JSONL with secrets masked (each record `"redacted": true`).
pub fn quarantine_jsonl_redacted(trace: &Trace) -> String {
    let mut out = String::new();
    for q in &trace.quarantine {
        if let Ok(line) = serde_json::to_string(&trajscope_core::redact::quarantine_record(q)) {
            out.push_str(&line);
            out.push('\n');
        }
    }
    out
}

/// Index into [`crate::protocol::ROLE_NAMES`] (the enum's declaration order).
fn role_code(r: Role) -> u8 {
    r as u8
}

/// Index into [`crate::protocol::KIND_NAMES`] (the enum's declaration order).
fn kind_code(k: StepKind) -> u8 {
    k as u8
}

pub fn columns(t: &Trajectory) -> StepColumns {
    let mut c = StepColumns::default();
    let mut actor_ids: HashMap<&str, u16> = HashMap::new();
    for s in &t.steps {
        c.line.push(s.loc.line);
        c.is_error.push(s.is_error);
        c.role.push(role_code(s.role));
        c.kind.push(kind_code(s.kind));
        let actor = if s.actor.is_empty() {
            u16::MAX
        } else if let Some(&id) = actor_ids.get(s.actor.as_str()) {
            id
        } else if c.actors.len() < usize::from(u16::MAX) {
            let id = c.actors.len() as u16;
            c.actors.push(s.actor.clone());
            actor_ids.insert(&s.actor, id);
            id
        } else {
            u16::MAX
        };
        c.actor.push(actor);
    }
    if t.steps.iter().any(|s| s.usage.is_some()) {
        c.tokens = t
            .steps
            .iter()
            .map(|s| {
                s.usage.as_ref().map_or(0, |u| {
                    [u.input_tokens, u.output_tokens, u.cache_read_tokens, u.cache_write_tokens]
                        .iter()
                        .flatten()
                        .sum()
                })
            })
            .collect();
    }
    c.stalls = trajscope_core::usage::step_timings(t)
        .iter()
        .enumerate()
        .filter(|(_, s)| s.stall)
        .map(|(i, _)| i as u32)
        .collect();
    c
}

pub fn summarize(
    trace: &Trace,
    analyses: &[Option<TrajectoryAnalysis>],
    content_hash: String,
) -> TraceSummary {
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
    let secrets = trajscope_core::redact::scan_trace(trace);
    TraceSummary {
        content_hash,
        format: trace.format.name().to_string(),
        stats: trace.stats.clone(),
        error: trace.error.clone(),
        quarantine,
        quarantine_total: trace.quarantine.len() as u64,
        trajectories: trace
            .trajectories
            .iter()
            .enumerate()
            .map(|(i, t)| trajectory_info(t, analyses.get(i).and_then(Option::as_ref)))
            .collect(),
        cases: Vec::new(),
        cases_jsonl: String::new(),
        brief_markdown: String::new(),
        analysis_done: false,
        secrets_total: secrets.len() as u64,
        secrets: secrets.into_iter().take(crate::protocol::SECRETS_SHOWN).collect(),
    }
}

/// The failed turn cases of a fully analysed trace (valid or not), the valid ones as JSONL,
/// and the brief built from them as Markdown.
pub fn cases_and_brief(
    trace: &Trace,
    analyses: &[TrajectoryAnalysis],
    content_hash: &str,
) -> (Vec<CaseView>, String, String) {
    // The CLI's rule: one case per failing trajectory (outcome failed, or a critical step).
    let built = cases::from_trace_analyses(trace, content_hash, |i, _| analyses.get(i).cloned());
    let valid: Vec<cases::FailedTurnCase> =
        built.iter().filter(|c| c.valid).map(|c| c.case.clone()).collect();
    let (cases_jsonl, _) = cases::export_jsonl(&valid);
    let brief = brief::build(&valid, &[], &brief::BriefContext::default());
    let views = built
        .iter()
        .map(|c| CaseView {
            trajectory_id: c.trajectory_id.clone(),
            case_id: c.case_id.clone(),
            valid: c.valid,
            errors: c.errors.clone(),
        })
        .collect();
    (views, cases_jsonl, brief::to_markdown(&brief))
}

fn trajectory_info(t: &Trajectory, a: Option<&TrajectoryAnalysis>) -> TrajectoryInfo {
    let mut agents: Vec<String> = Vec::new();
    let mut seen: HashSet<&str> = HashSet::new();
    let mut roles: Vec<(String, u32)> = Vec::new();
    let mut actions: HashMap<(Option<&str>, Option<&str>), u32> = HashMap::new();
    let mut errors = 0;
    for s in &t.steps {
        if !s.actor.is_empty() && seen.insert(&s.actor) {
            agents.push(s.actor.clone());
        }
        let role = crate::protocol::ROLE_NAMES[usize::from(role_code(s.role))];
        match roles.iter_mut().find(|(r, _)| r == role) {
            Some((_, n)) => *n += 1,
            None => roles.push((role.to_string(), 1)),
        }
        if s.is_error {
            errors += 1;
        }
        if s.kind == StepKind::Action && (s.tool.is_some() || s.args.is_some()) {
            *actions.entry((s.tool.as_deref(), s.args.as_deref())).or_default() += 1;
        }
    }
    let repeated_action = actions
        .into_iter()
        .filter(|(_, n)| *n >= 2)
        .max_by(|a, b| a.1.cmp(&b.1).then_with(|| b.0.cmp(&a.0)))
        .map(|((tool, args), n)| {
            let what = [tool, args].into_iter().flatten().collect::<Vec<_>>().join(" ");
            (text::elide(&what, 120), n)
        });
    TrajectoryInfo {
        id: t.id.clone(),
        steps: t.steps.len() as u32,
        outcome: t.outcome,
        task: t.task.as_ref().map(|x| text::elide(x, 600)),
        gold: t.gold.clone(),
        errors,
        agents,
        roles,
        repeated_action,
        analysed: a.is_some(),
        candidates: a.map(|a| a.candidates.clone()).unwrap_or_default(),
        critical: a.and_then(|a| a.critical.clone()),
        classification: a.and_then(|a| a.classification),
        failure_mode: a.and_then(|a| a.failure_mode),
        signals: a.map(|a| a.signals.clone()).unwrap_or_default(),
        usage: trajscope_core::usage::trajectory_usage(t),
        agent_usage: trajscope_core::usage::by_agent(t),
    }
}

/// Files bigger than this are refused before reading: a trace in memory takes a few times its
/// file size and a browser tab's WebAssembly memory is capped at 4 GiB.
pub const MAX_FILE_BYTES: f64 = 1024.0 * 1024.0 * 1024.0;

#[cfg(target_arch = "wasm32")]
pub use glue::run;

#[cfg(target_arch = "wasm32")]
mod glue {
    use std::cell::RefCell;
    use std::rc::Rc;

    use trajscope_core::{IngestOptions, Ingestor};
    use wasm_bindgen::prelude::*;
    use wasm_bindgen_futures::JsFuture;
    use web_sys::DedicatedWorkerGlobalScope;

    use super::Store;
    use crate::load::Slices;
    use crate::protocol::{Request, Response};

    fn post(scope: &DedicatedWorkerGlobalScope, resp: &Response) {
        let ser = serde_wasm_bindgen::Serializer::json_compatible();
        if let Ok(v) = serde::Serialize::serialize(resp, &ser) {
            scope.post_message(&v).ok();
        }
    }

    /// Starts listening for the page's requests.
    pub fn run() {
        let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
        let store = Rc::new(RefCell::new(Store::default()));
        let s2 = scope.clone();
        let onmessage =
            Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |e: web_sys::MessageEvent| {
                let data = e.data();
                let req = js_sys::Reflect::get(&data, &JsValue::from_str("req")).ok();
                let Some(req) = req.and_then(|r| serde_wasm_bindgen::from_value::<Request>(r).ok())
                else {
                    return;
                };
                match req {
                    Request::Load { file } => {
                        let blob = js_sys::Reflect::get(&data, &JsValue::from_str("blob"))
                            .ok()
                            .and_then(|b| b.dyn_into::<web_sys::Blob>().ok());
                        match blob {
                            Some(blob) => {
                                let (scope, store) = (s2.clone(), store.clone());
                                wasm_bindgen_futures::spawn_local(load(scope, store, file, blob));
                            }
                            None => post(
                                &s2,
                                &Response::Failed { file, error: "no file was sent".into() },
                            ),
                        }
                    }
                    Request::Hash { file } => {
                        let blob = js_sys::Reflect::get(&data, &JsValue::from_str("blob"))
                            .ok()
                            .and_then(|b| b.dyn_into::<web_sys::Blob>().ok());
                        let scope = s2.clone();
                        wasm_bindgen_futures::spawn_local(async move {
                            let resp = match blob {
                                Some(blob) => match hash_blob(&blob).await {
                                    Some(content_hash) => Response::Hashed { file, content_hash },
                                    None => Response::Failed { file, error: "unreadable".into() },
                                },
                                None => Response::Failed { file, error: "no file was sent".into() },
                            };
                            post(&scope, &resp);
                        });
                    }
                    other => {
                        let resps = store.borrow_mut().answer_all(other);
                        for resp in &resps {
                            post(&s2, resp);
                        }
                    }
                }
            });
        scope.set_onmessage(Some(onmessage.as_ref().unchecked_ref()));
        onmessage.forget();
        post(&scope, &Response::Ready);
    }

    /// A file at least this large is hashed by a helper worker beside the parse; a smaller one
    /// inline (starting a second wasm instance costs more than hashing it).
    const HELPER_MIN_BYTES: f64 = 16.0 * 1024.0 * 1024.0;

    /// A helper that has not said `Ready` by then is given up (the hash is then computed here).
    const HELPER_START_MS: u32 = 10_000;

    /// Reads a blob in slices into the trace identity hasher; `None` if the browser cannot read
    /// it.
    async fn hash_blob(blob: &web_sys::Blob) -> Option<String> {
        let mut slices = Slices::new(blob);
        let mut hasher = trajscope_core::labels::ContentHasher::new();
        while let Some(bytes) = slices.next().await {
            hasher.update(&bytes.ok()?);
        }
        Some(hasher.finish())
    }

    /// A second instance of this worker hashing the same blob while this one parses it: the
    /// SHA-256 of a large file takes about as long as its parse. Its result is `None` when it
    /// could not start or failed; the caller then hashes the file itself.
    struct HashHelper {
        worker: web_sys::Worker,
        result: JsFuture,
        _onmessage: Closure<dyn FnMut(web_sys::MessageEvent)>,
        _onerror: Closure<dyn FnMut(web_sys::Event)>,
        _give_up: gloo::timers::callback::Timeout,
    }

    impl HashHelper {
        fn start(blob: &web_sys::Blob) -> Option<HashHelper> {
            // This worker's own script: the same loader the page started.
            let worker = web_sys::Worker::new(&crate::worker_url::own()).ok()?;
            let mut resolve = None;
            let promise = js_sys::Promise::new(&mut |ok, _| resolve = Some(ok));
            let resolve = Rc::new(resolve?);
            let done = {
                let resolve = resolve.clone();
                move |v: &JsValue| {
                    resolve.call1(&JsValue::NULL, v).ok();
                }
            };
            let ready = Rc::new(std::cell::Cell::new(false));
            let onmessage = {
                let (worker, blob, done, ready) =
                    (worker.clone(), blob.clone(), done.clone(), ready.clone());
                Closure::<dyn FnMut(_)>::new(move |e: web_sys::MessageEvent| {
                    match serde_wasm_bindgen::from_value::<Response>(e.data()) {
                        Ok(Response::Ready) => {
                            ready.set(true);
                            if send_hash(&worker, &blob).is_none() {
                                done(&JsValue::NULL);
                            }
                        }
                        Ok(Response::Hashed { content_hash, .. }) => {
                            done(&JsValue::from_str(&content_hash))
                        }
                        Ok(Response::Failed { .. }) => done(&JsValue::NULL),
                        _ => {}
                    }
                })
            };
            let onerror = {
                let done = done.clone();
                Closure::<dyn FnMut(_)>::new(move |_: web_sys::Event| done(&JsValue::NULL))
            };
            let give_up = gloo::timers::callback::Timeout::new(HELPER_START_MS, move || {
                if !ready.get() {
                    done(&JsValue::NULL);
                }
            });
            worker.set_onmessage(Some(onmessage.as_ref().unchecked_ref()));
            worker.set_onerror(Some(onerror.as_ref().unchecked_ref()));
            Some(HashHelper {
                worker,
                result: JsFuture::from(promise),
                _onmessage: onmessage,
                _onerror: onerror,
                _give_up: give_up,
            })
        }

        /// The helper's hash (resolving a promise twice keeps the first value).
        async fn hash(&mut self) -> Option<String> {
            (&mut self.result).await.ok()?.as_string()
        }
    }

    impl Drop for HashHelper {
        fn drop(&mut self) {
            self.worker.terminate();
        }
    }

    /// Posts `Hash` with the blob beside it, as the page posts `Load`.
    fn send_hash(worker: &web_sys::Worker, blob: &web_sys::Blob) -> Option<()> {
        let env = crate::bridge::envelope(&Request::Hash { file: 0 }, Some(blob))?;
        worker.post_message(&env).ok()
    }

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
        let mut ingestor = Ingestor::new(IngestOptions::default());
        let mut helper = (total >= HELPER_MIN_BYTES).then(|| HashHelper::start(&blob)).flatten();
        let mut hasher = helper.is_none().then(trajscope_core::labels::ContentHasher::new);
        let now = js_sys::Date::now;
        let (t_start, mut t_read, mut t_feed, mut t_hash) = (now(), 0.0, 0.0, 0.0);
        // Reading the next slice overlaps with parsing and hashing this one.
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
            ingestor.feed(&bytes);
            let t2 = now();
            if let Some(h) = hasher.as_mut() {
                h.update(&bytes);
            }
            let t3 = now();
            (t_read, t_feed, t_hash) = (t_read + t1 - t0, t_feed + t2 - t1, t_hash + t3 - t2);
            let p = ingestor.progress();
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
        let trace = ingestor.finish();
        let t_finished = now();
        // The helper's hash (awaited: it usually finishes with the parse), else this worker's.
        let content_hash = match (hasher, helper.as_mut()) {
            (Some(h), _) => Some(h.finish()),
            (None, Some(helper)) => match helper.hash().await {
                Some(h) => Some(h),
                None => hash_blob(&blob).await,
            },
            (None, None) => hash_blob(&blob).await,
        };
        drop(helper);
        let Some(content_hash) = content_hash else {
            let error = "the browser could not read the file (was it moved or deleted?)";
            return post(&scope, &Response::Failed { file, error: error.into() });
        };
        if store.borrow_mut().take_cancelled(file) {
            return post(&scope, &Response::Cancelled { file });
        }
        t_hash += now() - t_finished;
        let t1 = now();
        let resp = store.borrow_mut().insert(file, trace, content_hash);
        let t2 = now();
        post(&scope, &resp);
        // Where the time went (the app benchmark reads this line from the console).
        let t_posted = now();
        gloo::console::log!(format!(
            "trajscope-timing read={t_read:.0} feed={t_feed:.0} hash={t_hash:.0} finish={:.0} analyse={:.0} post={:.0} total={:.0}",
            t_finished - t0,
            t2 - t1,
            t_posted - t2,
            t_posted - t_start
        ));
        // The other trajectories, one at a time, yielding so the page's requests are answered.
        loop {
            gloo::timers::future::TimeoutFuture::new(0).await;
            let next = store.borrow_mut().analyse_next(file);
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

    fn store_with(bytes: &[u8]) -> Store {
        let mut store = Store::default();
        store.insert(1, ingest(bytes, IngestOptions::default()), "sha256:test".into());
        store
    }

    const SAMPLE: &[u8] = include_bytes!("../../../web/samples/sample.awtl.jsonl");
    /// A real mini-swe-agent run that submitted a patch: its outcome is unknown.
    const UNKNOWN_RUN: &[u8] = include_bytes!(
        "../../../tests/fixtures/mini_swe_agent/django__django-10914.trimmed.traj.json"
    );

    #[test]
    fn the_reviewers_outcome_turns_the_diagnosis_on_and_back_off() {
        let mut store = store_with(UNKNOWN_RUN);
        let id = "django__django-10914";
        assert_eq!(store.traces[&1].trace.trajectories[0].outcome, Outcome::Unknown);
        assert!(store.traces[&1].analyses[0].as_ref().unwrap().critical.is_none());
        let Some(Response::CasesReady { cases, .. }) = store.analyse_next(1) else {
            panic!("no cases")
        };
        assert!(cases.is_empty(), "no failure, no case");

        let out = store.set_outcome(1, id, Outcome::Failed);
        let [Response::Analysed { traj: 0, info, .. }, Response::CasesReady { cases, .. }] =
            out.as_slice()
        else {
            panic!("{out:?}")
        };
        assert_eq!(info.outcome, Outcome::Failed);
        assert!(info.critical.is_some() && info.classification.is_some());
        assert_eq!(cases.len(), 1);
        // The same word again changes nothing; an unknown trajectory or file is ignored.
        assert!(store.set_outcome(1, id, Outcome::Failed).is_empty());
        assert!(store.set_outcome(1, "nope", Outcome::Passed).is_empty());
        assert!(store.set_outcome(9, id, Outcome::Passed).is_empty());

        // Taken back: what the file says again.
        let out = store.answer_all(Request::SetOutcome {
            file: 1,
            trajectory_id: id.into(),
            outcome: Outcome::Unknown,
        });
        let [Response::Analysed { info, .. }, Response::CasesReady { cases, .. }] = out.as_slice()
        else {
            panic!("{out:?}")
        };
        assert_eq!(info.outcome, Outcome::Unknown);
        assert!(info.critical.is_none());
        assert!(cases.is_empty());

        // "This run passed" on a run the file says failed: no critical step.
        let mut store = store_with(SAMPLE);
        let id = store.traces[&1].trace.trajectories[0].id.clone();
        let out = store.set_outcome(1, &id, Outcome::Passed);
        let [Response::Analysed { info, .. }] = out.as_slice() else { panic!("{out:?}") };
        assert_eq!((info.outcome, info.critical.is_none()), (Outcome::Passed, true));
    }

    #[test]
    fn summary_counts_steps_errors_and_quarantine() {
        let mut store = Store::default();
        let Response::Loaded { summary: s, .. } =
            store.insert(3, ingest(SAMPLE, IngestOptions::default()), "sha256:x".into())
        else {
            panic!("not loaded");
        };
        // The sample run failed: the first trajectory is analysed at once, with candidates.
        assert!(s.trajectories[0].analysed);
        assert!(!s.trajectories[0].candidates.is_empty());
        assert!(!s.analysis_done);
        // Then the cases and the brief, once; then nothing.
        let Some(Response::CasesReady { cases, cases_jsonl, brief_markdown, .. }) =
            store.analyse_next(3)
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
        assert!(store.analyse_next(3).is_none());
        let trace = ingest(SAMPLE, IngestOptions::default());
        let s = summarize(&trace, &[None], "sha256:x".into());
        assert_eq!(s.format, "awtl");
        assert_eq!(s.quarantine_total, 1);
        assert_eq!(s.quarantine[0].line, 10);
        assert!(s.quarantine[0].raw_base64.is_empty(), "the page preview does not carry the bytes");
        assert_eq!(s.trajectories.len(), 1);
        assert_eq!(s.trajectories[0].steps, 12);
        assert!(s.trajectories[0].agents.contains(&"coder".to_string()));
    }

    #[test]
    fn secrets_are_listed_and_the_quarantine_export_comes_exact_or_redacted() {
        let planted = include_bytes!("../../../tests/fixtures/redact/planted-secrets.awtl.jsonl");
        let trace = ingest(planted, IngestOptions::default());
        let s = summarize(&trace, &[None], "sha256:x".into());
        assert!(s.secrets_total >= 12, "{}", s.secrets_total);
        assert!(s.secrets.iter().any(|f| f.kind == "github-token" && f.step == Some(2)));
        let corrupt = include_bytes!("../../../tests/fixtures/redact/planted-corrupt.awtl.jsonl");
        let mut store = store_with(corrupt);
        let ask = |store: &mut Store, redacted| match store
            .answer(Request::QuarantineJsonl { file: 1, redacted })
        {
            Some(Response::QuarantineJsonl { text, redacted: r, .. }) => {
                assert_eq!(r, redacted);
                text
            }
            _ => panic!("no quarantine export"),
        };
        let exact = ask(&mut store, false);
        let masked = ask(&mut store, true);
        // The exact export's `raw` text shows the line as it is, secret and all.
        assert!(exact.contains("sk_live_51Hq8ZxLm3Np7Rt2Vw9Yb4Kc"));
        assert!(!masked.contains("sk_live_51Hq8ZxLm3Np7Rt2Vw9Yb4Kc"));
        assert!(masked.contains("\"redacted\":true") && !exact.contains("\"redacted\""));
    }

    #[test]
    fn usage_reaches_the_overview_and_the_steps() {
        let cc = include_bytes!("../../../tests/fixtures/claude_code/hello-world-script.jsonl");
        let trace = ingest(cc, IngestOptions::default());
        let s = summarize(&trace, &[None], "sha256:x".into());
        let t = &s.trajectories[0];
        assert!(t.usage.input_tokens.is_some() && t.usage.steps_with_usage > 0);
        assert_eq!(t.agent_usage.iter().map(|a| a.steps as u32).sum::<u32>(), t.steps);
        let mut store = store_with(cc);
        let Some(Response::Steps { steps, .. }) = store.answer(Request::Steps {
            req: 1,
            file: 1,
            traj: 0,
            items: (0..t.steps).map(|i| (i, Grain::High)).collect(),
        }) else {
            panic!("no steps");
        };
        assert_eq!(steps.iter().filter(|v| v.usage.is_some()).count(), t.usage.steps_with_usage);
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
    }

    #[test]
    fn later_trajectories_are_analysed_in_the_background_or_on_demand() {
        let two = "{\"type\":\"run_start\",\"run_id\":\"a\"}\n{\"type\":\"run_end\",\"run_id\":\"a\",\"status\":\"failed\"}\n\
                   {\"type\":\"run_start\",\"run_id\":\"b\"}\n{\"type\":\"run_end\",\"run_id\":\"b\",\"status\":\"failed\"}\n";
        let mut store = Store::default();
        let Response::Loaded { summary, .. } =
            store.insert(1, ingest(two.as_bytes(), IngestOptions::default()), "h".into())
        else {
            panic!("not loaded");
        };
        assert_eq!(summary.trajectories.len(), 2);
        assert!(summary.trajectories[0].analysed && !summary.trajectories[1].analysed);
        // Asking for the second trajectory's steps analyses it first.
        let out = store.answer_all(Request::Steps {
            req: 1,
            file: 1,
            traj: 1,
            items: vec![(0, Grain::Low)],
        });
        assert!(matches!(&out[0], Response::Analysed { traj: 1, info, .. } if info.analysed));
        assert!(matches!(&out[1], Response::Steps { .. }));
        // Nothing left but the cases.
        assert!(matches!(store.analyse_next(1), Some(Response::CasesReady { .. })));
        assert!(store.analyse_next(1).is_none());
    }

    #[test]
    fn quarantine_export_has_the_exact_bytes() {
        let trace = ingest(b"{\"type\":\"message\"}\n{broken\xff\n", IngestOptions::default());
        let text = quarantine_jsonl(&trace);
        let rec: QuarantineRecord = serde_json::from_str(text.lines().next().unwrap()).unwrap();
        assert_eq!(rec.line, 2);
        assert_eq!(rec.raw_base64, "e2Jyb2tlbv8=");
    }

    #[test]
    fn columns_carry_tokens_per_step_only_where_recorded() {
        let cc = include_bytes!("../../../tests/fixtures/claude_code/hello-world-script.jsonl");
        let t = &ingest(cc, IngestOptions::default()).trajectories[0];
        let c = columns(t);
        assert_eq!(c.tokens.len(), t.steps.len());
        let u = trajscope_core::usage::trajectory_usage(t);
        let want: u64 =
            [u.input_tokens, u.output_tokens, u.cache_read_tokens, u.cache_write_tokens]
                .iter()
                .flatten()
                .sum();
        assert_eq!(c.tokens.iter().sum::<u64>(), want);
        let none = columns(&ingest(SAMPLE, IngestOptions::default()).trajectories[0]);
        assert!(none.tokens.is_empty(), "the AWTL sample records no usage");
    }

    #[test]
    fn columns_intern_actors() {
        let trace = ingest(SAMPLE, IngestOptions::default());
        let c = columns(&trace.trajectories[0]);
        assert_eq!(c.line.len(), 12);
        assert!(c.actors.len() < 12);
        assert!(c.actor.contains(&u16::MAX));
    }
}
