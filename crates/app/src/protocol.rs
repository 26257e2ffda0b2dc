//! The messages between the page and the ingest worker. The worker keeps each loaded trace as a
//! core `Session`; the page asks for what it shows (a summary, per-step columns, the text of the
//! visible steps at a grain, search hits, export text), so no trace is copied across whole. The
//! types of what is shown are the core's, only the envelopes are
//! defined here. Every answer to a request carries the request's `req` id, so the page can drop
//! an answer it no longer waits for. (The hash helper's messages are its own, in
//! `hash_helper.rs`.)

use std::rc::Rc;

use serde::{Deserialize, Serialize};
use trajscope_core::model::{IngestStats, Outcome};
use trajscope_core::redact::TraceFinding;
use trajscope_core::report::QuarantineRecord;

use crate::wire::{self, wire_enum, wire_struct};

/// Detail level of a step's text: the core's (`docs/detector.md`), bounds included.
pub use trajscope_core::views::Grain;

/// One trajectory's overview: the core's one type, the same the CLI reports.
pub use trajscope_core::report::Overview;

/// Per-step columns and a step's text at a grain, as the core's session projects them.
pub use trajscope_core::session::{StepColumns, StepView};

/// The request id of the columns the worker sends unasked with a file's first `Loaded`
/// (`Request::Load`'s `open`); the page's own ids start at 1.
pub const PUSHED: u32 = 0;

/// Page → worker, posted as message bytes ([`Request::encode`], `crate::wire`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum Request {
    /// Ingest the blob sent beside this request (the envelope's `blob` field). `open`: the page
    /// will open the file at its first trajectory (the first file of a pick, a drop, a folder
    /// or an archive): with its first `Loaded` the worker sends that trajectory's full overview
    /// and columns unasked ([`PUSHED`]), so the page shows it without a round trip.
    Load { file: u32, open: bool },
    /// Stop an ingest in progress.
    Cancel { file: u32 },
    /// Forget a loaded file.
    Forget { file: u32 },
    /// The per-step columns of one trajectory.
    Columns { req: u32, file: u32, traj: u32 },
    /// The text of some steps, each at its grain.
    Steps { req: u32, file: u32, traj: u32, items: Vec<(u32, Grain)> },
    /// Step indices whose content contains `query` (case-insensitive).
    Search { req: u32, file: u32, traj: u32, query: String },
    /// The whole quarantine as JSONL (one `QuarantineRecord` per line): the exact bytes, or
    /// with secrets masked when `redacted`.
    QuarantineJsonl {
        req: u32,
        file: u32,
        #[serde(default)]
        redacted: bool,
    },
    /// The reviewer's word on how a trajectory ended (its label's outcome): the worker sets it
    /// (`Unknown`: back to what the file says), analyses the trajectory again and answers
    /// `Analysed`, then `CasesReady` once every trajectory is analysed.
    SetOutcome { file: u32, trajectory_id: String, outcome: Outcome },
    /// Two trajectories (of one file or of two) aligned step by step by the core's `diff`
    /// (`docs/diff.md`): both are analysed first, for their critical steps.
    Compare { req: u32, left: (u32, u32), right: (u32, u32) },
    /// A benchmark dataset of the labelled trajectories of some files (`docs/dataset.md`): the
    /// worker answers `DatasetPart`s as it writes the items, then `DatasetDone`.
    Dataset {
        req: u32,
        style: trajscope_core::dataset::Style,
        /// Mask secrets (on unless the user keeps them).
        redact: bool,
        files: Vec<DatasetFile>,
        /// The labels to export (this browser's); each names its file by content hash.
        labels: Vec<trajscope_core::labels::Label>,
    },
}

wire_enum!(Request {
    Load { file, open },
    Cancel { file },
    Forget { file },
    Columns { req, file, traj },
    Steps { req, file, traj, items },
    Search { req, file, traj, query },
    QuarantineJsonl { req, file, redacted },
    SetOutcome { file, trajectory_id, outcome },
    Compare { req, left, right },
    Dataset { req, style, redact, files, labels },
});

impl Request {
    /// The request as the page posts it: its message bytes (`crate::wire`,
    /// `crate::bridge::envelope`).
    pub fn encode(&self) -> Vec<u8> {
        wire::encode(self)
    }

    /// Reads a posted request; `None` for anything else.
    pub fn decode(bytes: &[u8]) -> Option<Request> {
        wire::decode(bytes)
    }
}

/// A file whose labelled trajectories go into a dataset.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DatasetFile {
    pub file: u32,
    /// The name the queue shows (the item's `source_file`).
    pub name: String,
    /// Only these trajectories (the queue's filter), or all of them.
    pub trajectories: Option<Vec<u32>>,
}

wire_struct!(DatasetFile { file, name, trajectories });

/// Worker → page, posted as message bytes ([`Response::encode`], `crate::wire`). Serialised
/// as JSON only by the native tests (to compare every field the core's JSON carries).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum Response {
    /// The worker is up and listening.
    Ready,
    Progress {
        file: u32,
        bytes: f64,
        total: f64,
        lines: f64,
        quarantined: f64,
    },
    /// The file is readable: its first trajectory can be shown. Posted once the file is read
    /// (`summary.reading` is `None`), and before that, while it is still read, as soon as its
    /// first trajectory settled (an AWTL run whose `run_end` was read), or after the first
    /// slice when nothing settled there, with a copy of the first trajectory as read so far
    /// (`summary.growing`): then `summary.reading` says how far the read is, [`Response::Reading`] brings the trajectories that settle
    /// after it, and a second `Loaded` (the whole file) replaces it.
    Loaded {
        file: u32,
        summary: Box<TraceSummary>,
    },
    /// The read of a file shown early goes on: how far it is, and the queue rows of the
    /// trajectories settled since the last message, from index `from` on (from 0 when the
    /// first trajectory settled and replaces the growing copy the page held: a row the page
    /// holds sent again is a new one).
    Reading {
        file: u32,
        progress: ReadProgress,
        from: u32,
        rows: Vec<Row>,
        /// The trajectory still growing, as [`TraceSummary::growing`].
        #[serde(default)]
        growing: Option<u32>,
    },
    Failed {
        file: u32,
        error: String,
    },
    Cancelled {
        file: u32,
    },
    /// The file's identity (`sha256:<hex>`), after `Loaded` for a large file: its hash is
    /// computed beside the parse and never delays `Loaded`. Labels are restored when it arrives.
    Identity {
        file: u32,
        content_hash: String,
    },
    Columns {
        req: u32,
        file: u32,
        traj: u32,
        columns: StepColumns,
    },
    Steps {
        req: u32,
        file: u32,
        traj: u32,
        steps: Vec<StepView>,
    },
    SearchHits {
        req: u32,
        file: u32,
        traj: u32,
        query: String,
        hits: Vec<u32>,
    },
    QuarantineJsonl {
        req: u32,
        file: u32,
        text: String,
        #[serde(default)]
        redacted: bool,
    },
    /// The answer to `Compare`: the alignment, the first divergence, both outcomes and critical
    /// steps (`docs/diff.md`), and each side's columns (role, kind, error flag of every step, for
    /// the rows); the page then asks each side's step texts with `Steps`.
    Compared {
        req: u32,
        left: (u32, u32),
        right: (u32, u32),
        comparison: Box<trajscope_core::diff::Comparison>,
        #[serde(default)]
        left_columns: Box<StepColumns>,
        #[serde(default)]
        right_columns: Box<StepColumns>,
    },
    /// Some items of a dataset (`Request::Dataset`), JSONL, in order; `done` of `total`
    /// labelled trajectories written so far.
    DatasetPart {
        req: u32,
        text: String,
        done: u32,
        total: u32,
    },
    /// The dataset is complete: how many items, how many with no critical step and tied, and
    /// what a reader should know (a label the style's rules do not allow where it is).
    DatasetDone {
        req: u32,
        items: u32,
        no_step: u32,
        ties: u32,
        warnings: Vec<String>,
    },
    /// Full overviews, by index: of the trajectory the page opens (before its `Columns`), of
    /// one analysed on demand, of those a reviewer's outcome changed.
    Analysed {
        file: u32,
        overviews: Vec<(u32, Overview)>,
    },
    /// A background batch of analysis (after `Loaded`): the queue rows of the trajectories it
    /// analysed, by index.
    Rows {
        file: u32,
        rows: Vec<(u32, Row)>,
    },
    /// Every trajectory analysed and the identity known: the cases and the brief of the file
    /// (again after a reviewer's outcome changed an analysis).
    CasesReady {
        file: u32,
        cases: Vec<CaseView>,
        cases_jsonl: String,
        brief_markdown: String,
    },
    /// The secret scan's progress, after `Loaded` (the scan never delays it): the findings of
    /// this batch (only as many as the page still lists, see [`SECRETS_SHOWN`]), the number
    /// found so far, and how many of the `of` pieces (trajectories, then quarantined lines)
    /// are scanned; the scan is complete when `scanned == of`.
    Secrets {
        file: u32,
        found: Vec<TraceFinding>,
        total: u64,
        scanned: u32,
        of: u32,
    },
}

wire_enum!(Response {
    Ready,
    Progress { file, bytes, total, lines, quarantined },
    Loaded { file, summary },
    Reading { file, progress, from, rows, growing },
    Failed { file, error },
    Cancelled { file },
    Identity { file, content_hash },
    Columns { req, file, traj, columns },
    Steps { req, file, traj, steps },
    SearchHits { req, file, traj, query, hits },
    QuarantineJsonl { req, file, text, redacted },
    Compared { req, left, right, comparison, left_columns, right_columns },
    DatasetPart { req, text, done, total },
    DatasetDone { req, items, no_step, ties, warnings },
    Analysed { file, overviews },
    Rows { file, rows },
    CasesReady { file, cases, cases_jsonl, brief_markdown },
    Secrets { file, found, total, scanned, of },
});

impl Response {
    /// The message as the worker posts it: its bytes (`crate::wire`) cross to the page in one
    /// `Uint8Array`, which the page reads in wasm. (Posted as a JS object tree, a summary of
    /// 10,000 trajectories took seconds of calls across the wasm boundary to read back.)
    pub fn encode(&self) -> Vec<u8> {
        wire::encode(self)
    }

    /// Reads a posted message; `None` for anything else.
    pub fn decode(bytes: &[u8]) -> Option<Response> {
        wire::decode(bytes)
    }

    /// Several responses as the bytes of one message: the page handles them in one task
    /// (`crate::bridge`), so what belongs together is rendered together.
    pub fn encode_all(all: &[Response]) -> Vec<u8> {
        let mut out = Vec::new();
        all.iter().for_each(|r| wire::Wire::put(r, &mut out));
        out
    }

    /// Reads a posted message of one or more responses ([`Response::encode_all`]); `None` for
    /// anything else.
    pub fn decode_all(bytes: &[u8]) -> Option<Vec<Response>> {
        wire::decode_all(bytes)
    }
}

/// What the page keeps about a loaded file. The large parts are shared (`Rc`): the page's
/// reducer clones its state on every update, and a batch of new overviews must cost the page
/// the overviews it carries, not a copy of every other one (each trajectory's overview is its
/// own `Rc`, replaced when a batch brings a new one).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TraceSummary {
    /// `sha256:<hex>` of the file's bytes: the identity of its labels. Empty until known
    /// (`Response::Identity`).
    pub content_hash: String,
    pub format: String,
    pub stats: IngestStats,
    pub error: Option<String>,
    /// Quarantined lines, the raw preview cut to [`RAW_PREVIEW_CHARS`]; at most
    /// [`QUARANTINE_SHOWN`] entries (the export has them all).
    pub quarantine: Rc<Vec<QuarantineRecord>>,
    pub quarantine_total: u64,
    /// Each trajectory's queue row, as sent (`Loaded`); the page moves them into
    /// `trajectories` ([`TraceSummary::unpack`]).
    #[serde(default)]
    pub rows: Vec<Row>,
    /// Each trajectory's overview on the page: from its row until the page opens it (then
    /// the full one, `Response::Analysed`).
    #[serde(skip)]
    pub trajectories: Vec<Rc<Overview>>,
    /// How many of `trajectories` are analysed (the progress shown until `analysis_done`).
    #[serde(default)]
    pub analysed: u32,
    /// One failed turn case per attributed failure, valid or not.
    pub cases: Rc<Vec<CaseView>>,
    /// The valid cases as JSONL (what the cases export writes).
    pub cases_jsonl: Rc<str>,
    /// The Failure Prevention Brief built from the valid cases, as Markdown (empty: no-op).
    pub brief_markdown: Rc<str>,
    /// False until every trajectory is analysed (cases and brief come then).
    pub analysis_done: bool,
    /// Secrets found in the trace so far (at most [`SECRETS_SHOWN`]; `docs/redaction.md`).
    #[serde(default)]
    pub secrets: Vec<TraceFinding>,
    #[serde(default)]
    pub secrets_total: u64,
    /// How far the secret scan is (`Response::Secrets`): pieces scanned of `secrets_of`
    /// (trajectories, then quarantined lines). The scan runs after `Loaded`.
    #[serde(default)]
    pub secrets_scanned: u32,
    #[serde(default)]
    pub secrets_of: u32,
    /// Set while the file is still read (a summary of the trajectories settled so far, sent
    /// early): how far the read is. `None` once the file is read whole.
    #[serde(default)]
    pub reading: Option<ReadProgress>,
    /// In the summary of the whole file that replaces an early one: the trajectories the page
    /// was shown that a later line changed (their rows, overviews and step columns are new).
    #[serde(default)]
    pub revised: Vec<u32>,
    /// In the summary of the whole file that replaces an early one: the page holds the rows of
    /// trajectories `0..kept` already (the early `Loaded` and `Reading` brought them), so
    /// `rows` are only the new rows of the `revised` ones, in that order, then the rows of the
    /// trajectories from `kept` on ([`TraceSummary::unpack_over`]). 0 otherwise: `rows` are
    /// every trajectory's. (Every row again was 2.3 MB of JSON for 10,000 runs, parsed while
    /// the page was already in use.)
    #[serde(default)]
    pub kept: u32,
    /// In a summary sent while the file is read: the trajectory shown as read so far (a copy
    /// of the first one, which has not settled: one huge run, runs without an end marker),
    /// not analysed; the whole file's summary (or a `Reading` once it settled) revises it.
    #[serde(default)]
    pub growing: Option<u32>,
}

wire_struct!(TraceSummary {
    content_hash,
    format,
    stats,
    error,
    quarantine,
    quarantine_total,
    rows,
    analysed,
    cases,
    cases_jsonl,
    brief_markdown,
    analysis_done,
    secrets,
    secrets_total,
    secrets_scanned,
    secrets_of,
    reading,
    revised,
    kept,
    growing,
} skip { trajectories });

/// How far the read of a file is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ReadProgress {
    pub bytes: f64,
    pub total: f64,
    pub lines: f64,
    pub quarantined: f64,
}

wire_struct!(ReadProgress { bytes, total, lines, quarantined });

impl ReadProgress {
    /// The accounting of the file as far as it is read.
    pub fn stats(&self) -> IngestStats {
        IngestStats {
            bytes: self.bytes as u64,
            lines_total: self.lines as u64,
            lines_quarantined: self.quarantined as u64,
            ..IngestStats::default()
        }
    }

    /// Percent read, 0 to 100.
    pub fn percent(&self) -> f64 {
        if self.total > 0.0 {
            (self.bytes / self.total * 100.0).clamp(0.0, 100.0)
        } else {
            0.0
        }
    }
}

impl TraceSummary {
    /// The rows as the page keeps them: one overview each (`Row::into_overview`).
    pub fn unpack(&mut self) {
        self.unpack_over(&[]);
    }

    /// The whole file's summary over the early one the page holds (`held`, its overviews):
    /// the page's own overviews of trajectories `0..kept` (the rows it got while the file was
    /// read, and the full overviews it asked for since), the `revised` ones replaced by their
    /// new rows, then the rows of the rest. With `kept` 0 and none revised (a plain load): every
    /// row, as [`TraceSummary::unpack`].
    pub fn unpack_over(&mut self, held: &[Rc<Overview>]) {
        let mut rows = std::mem::take(&mut self.rows).into_iter();
        let kept = self.kept as usize;
        let mut trajectories = Vec::with_capacity(kept + rows.len());
        trajectories.extend(held.iter().take(kept).cloned());
        for &i in &self.revised {
            let (Some(row), Some(slot)) = (rows.next(), trajectories.get_mut(i as usize)) else {
                continue;
            };
            *slot = Rc::new(row.into_overview());
        }
        trajectories.extend(rows.map(|r| Rc::new(r.into_overview())));
        self.trajectories = trajectories;
    }

    /// Whether the secret scan is complete (the secrets listed are all there are).
    pub fn secrets_done(&self) -> bool {
        self.secrets_scanned >= self.secrets_of
    }
}

pub const SECRETS_SHOWN: usize = 200;

/// A trajectory as the queue lists it (and the filters, the label count and the compare
/// view's pairing read it): what `Loaded` and the background batches carry for every
/// trajectory. The full [`Overview`] (candidates, triggers, record, usage…) crosses only for
/// the trajectory the page opens: a full overview of every trajectory of a file of 10,000 runs
/// was 9.5 MB of JSON, seconds of parsing on the page before its first trajectory showed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Row {
    pub id: String,
    pub steps: usize,
    pub outcome: trajscope_core::model::Outcome,
    #[serde(default)]
    pub task: Option<String>,
    #[serde(default)]
    pub gold: Option<trajscope_core::model::GoldLabel>,
    #[serde(default)]
    pub errors: u32,
    pub analysed: bool,
    #[serde(default)]
    pub critical: Option<trajscope_core::attribution::Critical>,
}

wire_struct!(Row { id, steps, outcome, task, gold, errors, analysed, critical });

impl Row {
    pub fn of(o: &Overview) -> Row {
        Row {
            id: o.id.clone(),
            steps: o.steps,
            outcome: o.outcome,
            task: o.task.clone(),
            gold: o.gold.clone(),
            errors: o.errors,
            analysed: o.analysed,
            critical: o.critical.clone(),
        }
    }

    /// The overview the page keeps until it asks for the full one: these fields, the rest
    /// empty.
    pub fn into_overview(self) -> Overview {
        Overview {
            id: self.id,
            steps: self.steps,
            outcome: self.outcome,
            task: self.task,
            gold: self.gold,
            errors: self.errors,
            agents: Vec::new(),
            roles: Vec::new(),
            repeated_action: None,
            analysed: self.analysed,
            critical: self.critical,
            candidates: Vec::new(),
            classification: None,
            failure_mode: None,
            signals: Default::default(),
            triggers: Vec::new(),
            record: Default::default(),
            usage: Default::default(),
            agent_usage: Vec::new(),
            flagged_artifact_refs: Vec::new(),
        }
    }
}

/// A failed turn case and its validation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CaseView {
    pub trajectory_id: String,
    pub case_id: String,
    pub valid: bool,
    pub errors: Vec<String>,
}

wire_struct!(CaseView { trajectory_id, case_id, valid, errors });

pub const RAW_PREVIEW_CHARS: usize = 400;
pub const QUARANTINE_SHOWN: usize = 5000;

pub const ROLE_NAMES: [&str; 7] = trajscope_core::model::Role::NAMES;
pub const KIND_NAMES: [&str; 8] = trajscope_core::model::StepKind::NAMES;

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use trajscope_core::{ingest, IngestOptions, Session};

    use super::*;
    use crate::worker::Store;

    fn session(bytes: &[u8], hash: Option<&str>) -> Session {
        Session::new(ingest(bytes, IngestOptions::default()), hash.map(String::from))
    }

    /// The message as the core's JSON would carry it: every field it serialises.
    fn json(r: &Response) -> String {
        serde_json::to_string(r).unwrap()
    }

    /// A message's variant name (its JSON tag).
    fn kind(r: &Response) -> String {
        let text = json(r);
        let text = text.trim_start_matches(['{', '"']);
        text[..text.find('"').unwrap()].to_string()
    }

    /// Responses of every kind, from the worker's store on real traces where it makes them.
    fn responses() -> Vec<Response> {
        let mut out = Vec::new();
        let mut store = Store::default();
        // A trace with usage, parts and sources in its steps, one with secrets and corrupt
        // lines, a benchmark file with gold labels and two runs to compare, the sample.
        let cc = include_bytes!("../../../tests/fixtures/claude_code/hello-world-script.jsonl");
        let planted = include_bytes!("../../../tests/fixtures/redact/planted-corrupt.awtl.jsonl");
        let tau2 = include_bytes!("../../../tests/fixtures/tau2/airline_3_simulations.json");
        let ww = include_bytes!("../../../tests/fixtures/who_and_when/ag_1.json");
        let sample = include_bytes!("../../../web/samples/sample.awtl.jsonl");
        // A step too long to be sent whole: its text is elided, with its span in the file.
        let long = format!(
            "{{\"type\":\"message\",\"role\":\"user\",\"content\":\"{}\"}}\n",
            "x".repeat(300_000)
        );
        let files =
            [(1, &cc[..]), (2, planted), (3, tau2), (4, ww), (5, sample), (6, long.as_bytes())];
        for (file, bytes) in files {
            out.push(store.insert(file, session(bytes, None)));
            let mut asked = vec![
                Request::Columns { req: 1, file, traj: 0 },
                Request::Search { req: 3, file, traj: 0, query: "the".into() },
                Request::QuarantineJsonl { req: 4, file, redacted: false },
                Request::QuarantineJsonl { req: 5, file, redacted: true },
                Request::Compare { req: 6, left: (file, 0), right: (file, 1) },
            ];
            for grain in [Grain::High, Grain::Medium, Grain::Low] {
                let items = (0..40).map(|i| (i, grain)).collect();
                asked.push(Request::Steps { req: 2, file, traj: 0, items });
            }
            for req in asked {
                out.extend(store.answer_all(req));
            }
            // The secret scan, the analysis in batches, and with the identity, the cases.
            out.extend(store.set_identity(file, format!("sha256:{file}")));
            while let Some(r) = store.next_batch(file, || false) {
                out.push(r);
            }
        }
        let id = store.session(3).unwrap().trajectory(0).unwrap().id.clone();
        out.extend(store.answer_all(Request::SetOutcome {
            file: 3,
            trajectory_id: id,
            outcome: Outcome::Failed,
        }));
        let label = trajscope_core::labels::Label {
            schema_version: 1,
            content_hash: "sha256:4".into(),
            trajectory_id: store.session(4).unwrap().trajectory(0).unwrap().id.clone(),
            critical_step: Some(1),
            responsible_agent: Some("Orchestrator".into()),
            category: Some(trajscope_core::record::Category::TaskConflict),
            phase: Some(trajscope_core::record::Phase::Reasoning),
            rationale: "misread the task".into(),
            annotator: "me".into(),
            time: "2026-12-03T00:00:00Z".into(),
            outcome: Outcome::Failed,
        };
        let files = vec![DatasetFile { file: 4, name: "ww/ag_1.json".into(), trajectories: None }];
        let style = trajscope_core::dataset::Style::WhoAndWhen;
        store.dataset(7, style, true, &files, vec![label], |r| out.push(r));
        let progress = ReadProgress { bytes: 10.0, total: 1e12, lines: 3.0, quarantined: 0.5 };
        let row = Row::of(&store.session(4).unwrap().overview(0).unwrap());
        out.extend([
            Response::Ready,
            Response::Progress {
                file: 1,
                bytes: -0.0,
                total: f64::MAX,
                lines: 1.5,
                quarantined: 0.0,
            },
            Response::Reading {
                file: 2,
                progress,
                from: 3,
                rows: vec![row.clone()],
                growing: Some(4),
            },
            Response::Reading { file: 2, progress, from: 0, rows: vec![], growing: None },
            Response::Failed { file: u32::MAX, error: "ça n'a pas marché \u{202e}".into() },
            Response::Cancelled { file: 0 },
            Response::Identity { file: 9, content_hash: "sha256:ab".into() },
            Response::Rows { file: 4, rows: vec![(0, row.clone()), (7, row)] },
        ]);
        out
    }

    #[test]
    fn every_response_reads_back_with_every_field_it_carries() {
        let all = responses();
        let kinds: BTreeSet<String> = all.iter().map(kind).collect();
        // Every kind of message the worker sends is here.
        assert_eq!(kinds.len(), 18, "{kinds:?}");
        for r in &all {
            let bytes = r.encode();
            let back = Response::decode(&bytes).unwrap_or_else(|| panic!("{}", kind(r)));
            // Every field the core's JSON carries (a candidate's ranking features are not
            // sent, as they were not in JSON).
            assert_eq!(json(&back), json(r));
            assert_eq!(back.encode(), bytes);
        }
        // The fields that JSON leaves out when empty come through when they are not.
        let steps = all.iter().flat_map(|r| match r {
            Response::Steps { steps, .. } => steps.clone(),
            _ => vec![],
        });
        let steps: Vec<StepView> = steps.collect();
        assert!(steps.iter().any(|s| s.usage.is_some()));
        assert!(steps.iter().any(|s| s.source.is_some()));
        assert!(steps.iter().any(|s| s.parts.as_ref().is_some_and(|p| p.tool.is_some())));
        let overviews = all.iter().flat_map(|r| match r {
            Response::Analysed { overviews, .. } => overviews.clone(),
            _ => vec![],
        });
        let overviews: Vec<Overview> = overviews.map(|(_, o)| o).collect();
        assert!(overviews.iter().any(|o| !o.candidates.is_empty() && !o.triggers.is_empty()));
        assert!(overviews.iter().any(|o| o.gold.is_some()));
    }

    #[test]
    fn requests_read_back_whole() {
        let label = trajscope_core::labels::Label {
            schema_version: 1,
            content_hash: "sha256:x".into(),
            trajectory_id: "t\"1".into(),
            critical_step: None,
            responsible_agent: None,
            category: Some(trajscope_core::record::Category::EnvironmentAnomaly),
            phase: None,
            rationale: String::new(),
            annotator: "a".into(),
            time: String::new(),
            outcome: Outcome::Unknown,
        };
        let reqs = [
            Request::Load { file: 1, open: true },
            Request::Cancel { file: 2 },
            Request::Forget { file: u32::MAX },
            Request::Columns { req: 1, file: 2, traj: 3 },
            Request::Steps {
                req: 2,
                file: 1,
                traj: 0,
                items: vec![(3, Grain::Low), (4, Grain::High)],
            },
            Request::Search { req: 3, file: 1, traj: 9, query: "Ünïcode ✓".into() },
            Request::QuarantineJsonl { req: 4, file: 1, redacted: true },
            Request::SetOutcome { file: 1, trajectory_id: "t\"1".into(), outcome: Outcome::Failed },
            Request::Compare { req: 5, left: (1, 2), right: (3, 4) },
            Request::Dataset {
                req: 6,
                style: trajscope_core::dataset::Style::Trajerrbench,
                redact: false,
                files: vec![
                    DatasetFile { file: 1, name: "a.json".into(), trajectories: Some(vec![0, 5]) },
                    DatasetFile { file: 2, name: String::new(), trajectories: None },
                ],
                labels: vec![label],
            },
        ];
        for req in reqs {
            assert_eq!(Request::decode(&req.encode()), Some(req));
        }
    }

    #[test]
    fn anything_but_one_whole_message_is_refused() {
        let msgs = responses();
        let loaded = msgs.iter().find(|r| matches!(r, Response::Loaded { .. })).unwrap();
        let bytes = loaded.encode();
        // Cut anywhere, or with a byte more: not a message.
        for n in 0..bytes.len() {
            assert_eq!(Response::decode(&bytes[..n]), None, "cut at {n}");
        }
        assert_eq!(Response::decode(&[bytes.as_slice(), &[0]].concat()), None);
        // An unknown kind, a bool that is not 0 or 1, text that is not UTF-8, a length past
        // the end (no allocation for it), a varint longer than 64 bits.
        assert_eq!(Response::decode(&[18]), None);
        assert_eq!(Request::decode(&[6, 1, 1, 2]), None);
        assert_eq!(Response::decode(&[4, 1, 2, 0xff, 0xfe]), None);
        assert_eq!(Response::decode(&[4, 1, 0xff, 0xff, 0xff, 0xff, 0x0f, b'a']), None);
        assert_eq!(
            Response::decode(&[5, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 2]),
            None
        );
        // A JSON text (what the hash helper replies) is not a message either.
        assert_eq!(Response::decode(br#"{"hash_reply":"hashed","job":1}"#), None);
        assert_eq!(Request::decode(b"not json"), None);
        // Several in one message: each whole, in order; anything else refused.
        let two = Response::encode_all(&[loaded.clone(), Response::Cancelled { file: 3 }]);
        let back = Response::decode_all(&two).expect("two responses");
        assert_eq!(back.len(), 2);
        assert_eq!(back[0].encode(), bytes);
        assert_eq!(back[1], Response::Cancelled { file: 3 });
        assert_eq!(Response::decode(&two), None, "not one message");
        for n in [0, 1, bytes.len() - 1, bytes.len() + 1] {
            assert_eq!(Response::decode_all(&two[..n]), None, "cut at {n}");
        }
        assert_eq!(Response::decode_all(&bytes), Some(vec![back[0].clone()]));
        // And the smallest messages are what they say.
        assert_eq!(Response::decode(&[0]), Some(Response::Ready));
        assert_eq!(Response::decode(&[5, 0x80, 0x01]), Some(Response::Cancelled { file: 128 }));
    }
}
