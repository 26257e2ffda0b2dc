//! The analysis report: the JSON contract of `trajscope analyze --json`, also what the app shows.
//!
//! Field names here are a public contract (other tools and tests rely on them); add fields,
//! never rename them.

use serde::{Deserialize, Serialize};

use crate::attribution::{self, AnalysisOptions, Candidate, Critical, Trigger};
use crate::classify::Signals;
use crate::model::{Format, IngestStats, Outcome, QuarantineEntry, Trace, Trajectory};
use crate::record::{AttributionRecord, FailureClass, FailureMode};

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
    /// The seed-001 attribution record (empty fields when the run did not fail). Its
    /// `failed_artifact_refs` never hold a ref that escapes the trace root.
    pub record: AttributionRecord,
    /// Every artifact ref of the trajectory that escapes the trace root, with the reason it was
    /// flagged (never followed, never in a case or a brief).
    #[serde(default)]
    pub flagged_artifact_refs: Vec<FlaggedRef>,
}

/// An artifact ref flagged because it escapes the trace root.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlaggedRef {
    /// The ref as written in the trace.
    #[serde(rename = "ref")]
    pub reference: String,
    pub reason: String,
    /// The step that names it.
    pub step: u32,
}

/// The flagged refs of a trajectory, in step order.
pub fn flagged_refs(t: &Trajectory) -> Vec<FlaggedRef> {
    t.steps
        .iter()
        .flat_map(|s| {
            s.artifact_refs.iter().filter(|a| a.escapes_root).map(|a| FlaggedRef {
                reference: a.raw.clone(),
                reason: a.reason.clone().unwrap_or_else(|| "escapes the trace root".into()),
                step: s.index,
            })
        })
        .collect()
}

impl TrajectorySummary {
    pub fn new(t: &Trajectory) -> TrajectorySummary {
        TrajectorySummary::with_options(t, &AnalysisOptions::default())
    }

    pub fn with_options(t: &Trajectory, opts: &AnalysisOptions) -> TrajectorySummary {
        let mut a = attribution::analyze_trajectory(t, opts);
        a.record.failed_artifact_refs.retain(|r| !crate::artifact::escapes(r));
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
            flagged_artifact_refs: flagged_refs(t),
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
