//! Shared vocabularies and the attribution record (docs/detector.md): the contract between the
//! analysis (which fills them), the learning loop (cases, brief, promotion) and the app
//! (annotation pick lists). Field names follow the source articles.

use serde::{Deserialize, Serialize};

/// Error category of a trigger or a label (TRAJDEBUG's four conflict types).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    TaskConflict,
    HistoryConflict,
    IntraStepConflict,
    EnvironmentAnomaly,
}

impl Category {
    pub const ALL: [Category; 4] = [
        Category::TaskConflict,
        Category::HistoryConflict,
        Category::IntraStepConflict,
        Category::EnvironmentAnomaly,
    ];
    pub fn name(self) -> &'static str {
        match self {
            Category::TaskConflict => "task_conflict",
            Category::HistoryConflict => "history_conflict",
            Category::IntraStepConflict => "intra_step_conflict",
            Category::EnvironmentAnomaly => "environment_anomaly",
        }
    }
}

/// The phase of the agent's work a step belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    Planning,
    Reasoning,
    Action,
    Observation,
    Verification,
}

impl Phase {
    pub const ALL: [Phase; 5] =
        [Phase::Planning, Phase::Reasoning, Phase::Action, Phase::Observation, Phase::Verification];
    pub fn name(self) -> &'static str {
        match self {
            Phase::Planning => "planning",
            Phase::Reasoning => "reasoning",
            Phase::Action => "action",
            Phase::Observation => "observation",
            Phase::Verification => "verification",
        }
    }
}

/// Failure class (docs/detector.md). Environment, flaky and harness failures never become memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureClass {
    AgentFailure,
    VerificationFailure,
    EnvironmentBlocker,
    FlakyBlocker,
    HarnessBlocker,
}

impl FailureClass {
    /// True for the classes that are not the agent's doing.
    pub fn is_blocker(self) -> bool {
        matches!(
            self,
            FailureClass::EnvironmentBlocker
                | FailureClass::FlakyBlocker
                | FailureClass::HarnessBlocker
        )
    }
}

/// Failure mode (docs/detector.md): what the next attempt should do about it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureMode {
    /// Retry after a wait; do not change approach.
    Transient,
    Deterministic,
    /// Reflect: what was tried, why it failed, what to try, the constraint for the next attempt.
    Reasoning,
}

/// The attribution record (docs/detector.md) for one failed trajectory.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AttributionRecord {
    /// Id of the failure event (a failed judge result's id, else the failing step's id).
    pub failure_event: Option<String>,
    /// Step index of the failure event.
    pub failure_event_step: Option<u32>,
    /// Turn id of the failure (or `step-N` when the trace has no turn ids).
    pub failure_turn_id: Option<String>,
    pub failed_artifact_refs: Vec<String>,
    pub source_action_ids: Vec<String>,
    pub verifier_action_id: Option<String>,
    pub touched_action_ids: Vec<String>,
    pub memory_read_node_ids: Vec<String>,
    pub evidence_refs: Vec<String>,
    pub root_cause_summary: String,
    pub verification_probe_candidate: Option<String>,
    pub classification: Option<FailureClass>,
    pub failure_mode: Option<FailureMode>,
    /// Which rules produced this record (for traceability).
    pub attribution_heuristics: Vec<String>,
}
