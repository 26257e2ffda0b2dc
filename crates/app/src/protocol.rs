//! The messages between the page and the ingest worker. The worker keeps each loaded trace; the
//! page asks for what it shows (a summary, per-step columns, the text of the visible steps at a
//! grain, search hits, export text), so no trace is copied across whole.

use serde::{Deserialize, Serialize};
use trajscope_core::attribution::{Candidate, Critical};
use trajscope_core::classify::Signals;
use trajscope_core::model::{GoldLabel, IngestStats, Outcome};
use trajscope_core::record::{FailureClass, FailureMode};
use trajscope_core::redact::TraceFinding;
use trajscope_core::report::QuarantineRecord;
use trajscope_core::usage::{AgentUsage, UsageSummary};

/// Detail level of a step's text (SPEC §2.4): high 3000, medium 1200, low 600 characters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Grain {
    High,
    #[default]
    Medium,
    Low,
}

impl Grain {
    pub const ALL: [Grain; 3] = [Grain::High, Grain::Medium, Grain::Low];

    /// The most characters a step's text may have at this grain.
    pub fn limit(self) -> usize {
        match self {
            Grain::High => 3000,
            Grain::Medium => 1200,
            Grain::Low => 600,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Grain::High => "high",
            Grain::Medium => "medium",
            Grain::Low => "low",
        }
    }

    pub fn from_name(s: &str) -> Option<Grain> {
        Grain::ALL.into_iter().find(|g| g.name() == s)
    }

    pub fn core(self) -> trajscope_core::views::Grain {
        match self {
            Grain::High => trajscope_core::views::Grain::High,
            Grain::Medium => trajscope_core::views::Grain::Medium,
            Grain::Low => trajscope_core::views::Grain::Low,
        }
    }
}

/// Page → worker.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Request {
    /// Ingest the blob sent beside this request (the envelope's `blob` field).
    Load { file: u32 },
    /// Stop an ingest in progress.
    Cancel { file: u32 },
    /// Forget a loaded file.
    Forget { file: u32 },
    /// The per-step columns of one trajectory.
    Columns { file: u32, traj: u32 },
    /// The text of some steps, each at its grain.
    Steps { req: u32, file: u32, traj: u32, items: Vec<(u32, Grain)> },
    /// Step indices whose content contains `query` (case-insensitive).
    Search { req: u32, file: u32, traj: u32, query: String },
    /// The whole quarantine as JSONL (one `QuarantineRecord` per line): the exact bytes, or
    /// with secrets masked when `redacted`.
    QuarantineJsonl {
        file: u32,
        #[serde(default)]
        redacted: bool,
    },
    /// The reviewer's word on how a trajectory ended (its label's outcome): the worker sets it
    /// (`Unknown`: back to what the file says), analyses the trajectory again and answers
    /// `Analysed`, then `CasesReady` once every trajectory is analysed.
    SetOutcome { file: u32, trajectory_id: String, outcome: Outcome },
    /// Hash the blob sent beside this request (the trace identity, SHA-256) and answer
    /// `Hashed`. The ingest worker sends it to a second instance of itself for a large file, so
    /// the hash is computed beside the parse instead of after it.
    Hash { file: u32 },
}

/// Worker → page.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
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
    Loaded {
        file: u32,
        summary: Box<TraceSummary>,
    },
    Failed {
        file: u32,
        error: String,
    },
    Cancelled {
        file: u32,
    },
    /// The answer to `Hash`: `sha256:<hex>` of the blob.
    Hashed {
        file: u32,
        content_hash: String,
    },
    Columns {
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
        file: u32,
        text: String,
        #[serde(default)]
        redacted: bool,
    },
    /// One more trajectory analysed (after `Loaded`, in the background or on demand).
    Analysed {
        file: u32,
        traj: u32,
        info: Box<TrajectoryInfo>,
    },
    /// Every trajectory analysed: the cases and the brief of the file.
    CasesReady {
        file: u32,
        cases: Vec<CaseView>,
        cases_jsonl: String,
        brief_markdown: String,
    },
}

/// What the page keeps about a loaded file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TraceSummary {
    /// `sha256:<hex>` of the file's bytes: the identity of its labels.
    pub content_hash: String,
    pub format: String,
    pub stats: IngestStats,
    pub error: Option<String>,
    /// Quarantined lines, the raw preview cut to [`RAW_PREVIEW_CHARS`]; at most
    /// [`QUARANTINE_SHOWN`] entries (the export has them all).
    pub quarantine: Vec<QuarantineRecord>,
    pub quarantine_total: u64,
    pub trajectories: Vec<TrajectoryInfo>,
    /// One failed turn case per attributed failure, valid or not.
    pub cases: Vec<CaseView>,
    /// The valid cases as JSONL (what the cases export writes).
    pub cases_jsonl: String,
    /// The Failure Prevention Brief built from the valid cases, as Markdown (empty: no-op).
    pub brief_markdown: String,
    /// False until every trajectory is analysed (cases and brief come then).
    pub analysis_done: bool,
    /// Secrets found in the trace (at most [`SECRETS_SHOWN`]; `docs/redaction.md`).
    #[serde(default)]
    pub secrets: Vec<TraceFinding>,
    #[serde(default)]
    pub secrets_total: u64,
}

pub const SECRETS_SHOWN: usize = 200;

/// A failed turn case and its validation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CaseView {
    pub trajectory_id: String,
    pub case_id: String,
    pub valid: bool,
    pub errors: Vec<String>,
}

pub const RAW_PREVIEW_CHARS: usize = 400;
pub const QUARANTINE_SHOWN: usize = 5000;

/// One trajectory's overview.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrajectoryInfo {
    pub id: String,
    pub steps: u32,
    pub outcome: Outcome,
    pub task: Option<String>,
    pub gold: Option<GoldLabel>,
    pub errors: u32,
    /// Distinct actors, in order of first appearance.
    pub agents: Vec<String>,
    /// Steps per role name.
    pub roles: Vec<(String, u32)>,
    /// Loop signals: the most repeated identical action and its count (2 or more).
    pub repeated_action: Option<(String, u32)>,
    /// The analysis fields below are filled (trajectories are analysed one by one after load).
    pub analysed: bool,
    /// The ranked candidate critical steps (core attribution).
    pub candidates: Vec<Candidate>,
    pub critical: Option<Critical>,
    pub classification: Option<FailureClass>,
    pub failure_mode: Option<FailureMode>,
    pub signals: Signals,
    /// Tokens, cost and duration as recorded (`docs/usage.md`).
    #[serde(default)]
    pub usage: UsageSummary,
    /// The same per agent (actor), in order of first appearance.
    #[serde(default)]
    pub agent_usage: Vec<AgentUsage>,
}

/// Per-step facts of one trajectory, column-wise (compact for 100,000 steps).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StepColumns {
    pub line: Vec<u32>,
    pub is_error: Vec<bool>,
    /// Index into [`role_names`](crate::protocol::ROLE_NAMES).
    pub role: Vec<u8>,
    /// Index into `actors` (`u16::MAX` when the step has no actor).
    pub actor: Vec<u16>,
    pub actors: Vec<String>,
    pub kind: Vec<u8>,
    /// Tokens each step records (input + output + cache), 0 where none; empty when no step
    /// of the trajectory records usage.
    #[serde(default)]
    pub tokens: Vec<u64>,
    /// Steps followed by a gap of at least `usage::STALL_MS` before the next step.
    #[serde(default)]
    pub stalls: Vec<u32>,
}

pub const ROLE_NAMES: [&str; 7] = trajscope_core::model::Role::NAMES;
pub const KIND_NAMES: [&str; 8] = trajscope_core::model::StepKind::NAMES;

/// One step's text at a grain, as shown in the step list.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StepView {
    pub index: u32,
    pub grain: Grain,
    pub text: String,
    /// Characters of the full text (before elision).
    pub full_chars: u32,
    pub timestamp: Option<String>,
    /// The usage the step records (tokens, cost, call time).
    #[serde(default)]
    pub usage: Option<trajscope_core::model::Usage>,
    /// The same step in parts for the transcript: tool, arguments, text and identifiers apart
    /// (together within the grain's bound).
    #[serde(default)]
    pub parts: Option<trajscope_core::views::StepParts>,
}
