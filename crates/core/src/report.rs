//! The analysis report: the JSON contract of `trajscope analyze --json`, also what the app shows.
//!
//! Field names here are a public contract (other tools and tests rely on them); add fields,
//! never rename them.

use serde::{Deserialize, Serialize};

use crate::attribution::{self, AnalysisOptions, Candidate, Critical, Trigger};
use crate::classify::Signals;
use crate::model::{Format, IngestStats, Outcome, QuarantineEntry, Trace, Trajectory};
use crate::record::{AttributionRecord, FailureClass, FailureMode};
use crate::usage::{self, UsageSummary};

/// One quarantined line as exported (`trajscope quarantine`, the app's quarantine export).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct QuarantineRecord {
    pub line: u32,
    pub offset: u64,
    pub reason: String,
    pub truncated_tail: bool,
    /// The exact bytes, base64.
    pub raw_base64: String,
    /// The bytes as text, invalid UTF-8 replaced (for display only).
    pub raw: String,
    /// True in the redacted export (`crate::redact::quarantine_record`): the bytes are the
    /// line with its secrets masked, not the exact bytes. Absent in the exact export.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub redacted: bool,
}

impl QuarantineRecord {
    pub fn from_entry(q: &QuarantineEntry) -> QuarantineRecord {
        use base64::Engine as _;
        QuarantineRecord {
            line: q.line,
            offset: q.offset,
            reason: q.reason.clone(),
            truncated_tail: q.truncated_tail,
            raw_base64: base64::engine::general_purpose::STANDARD.encode(&q.raw),
            raw: String::from_utf8_lossy(&q.raw).into_owned(),
            redacted: false,
        }
    }
}

/// The summary of one trajectory, with its analysis (SPEC §2.5–2.6).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrajectorySummary {
    pub id: String,
    /// Number of steps.
    pub steps: usize,
    pub outcome: Outcome,
    /// The predicted critical step; null when the run did not fail.
    pub critical: Option<Critical>,
    /// Ranked candidate critical steps (best first).
    pub candidates: Vec<Candidate>,
    pub classification: Option<FailureClass>,
    pub failure_mode: Option<FailureMode>,
    pub signals: Signals,
    /// Every trigger found, with its verbatim quotes.
    pub triggers: Vec<Trigger>,
    /// The seed-001 attribution record (empty fields when the run did not fail).
    pub record: AttributionRecord,
    /// Tokens, cost and duration as the format records them, `null` where it records none
    /// (`docs/usage.md`).
    #[serde(default)]
    pub usage: UsageSummary,
}

impl TrajectorySummary {
    pub fn new(t: &Trajectory) -> TrajectorySummary {
        TrajectorySummary::with_options(t, &AnalysisOptions::default())
    }

    pub fn with_options(t: &Trajectory, opts: &AnalysisOptions) -> TrajectorySummary {
        let a = attribution::analyze_trajectory(t, opts);
        TrajectorySummary {
            id: t.id.clone(),
            steps: t.steps.len(),
            outcome: t.outcome,
            critical: a.critical,
            candidates: a.candidates,
            classification: a.classification,
            failure_mode: a.failure_mode,
            signals: a.signals,
            triggers: a.triggers,
            record: a.record,
            usage: usage::trajectory_usage(t),
        }
    }
}

/// The whole report of `analyze`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub format: Format,
    pub stats: IngestStats,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub quarantine: Vec<QuarantineRecord>,
    pub trajectories: Vec<TrajectorySummary>,
}

impl Report {
    pub fn new(trace: &Trace) -> Report {
        Report::with_summaries(
            trace,
            trace.trajectories.iter().map(TrajectorySummary::new).collect(),
        )
    }

    /// The report with trajectory summaries computed by the caller (in trajectory order), e.g.
    /// the CLI analysing independent trajectories on several threads.
    pub fn with_summaries(trace: &Trace, trajectories: Vec<TrajectorySummary>) -> Report {
        Report {
            format: trace.format,
            stats: trace.stats.clone(),
            error: trace.error.clone(),
            quarantine: trace.quarantine.iter().map(QuarantineRecord::from_entry).collect(),
            trajectories,
        }
    }
}
