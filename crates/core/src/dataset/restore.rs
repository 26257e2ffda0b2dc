//! What a benchmark style has no field for, kept beside each item so that reading an exported
//! item back gives the trajectory that was exported (docs/dataset.md, "Reading an export back").
//!
//! Each message (`messages[i]`, `history[i]`) carries a `trajscope` object with the canonical
//! step's fields that the style's `role` / `name` / `content` do not hold; the item's
//! `metadata.extra.trajscope_trajectory` holds the run's outcome, task, final answer and usage.
//! The Who&When and TRAJERRBENCH adapters apply them when present, so the detector sees the same
//! steps in an export as in the source file. A malformed object is ignored (the message reads
//! as the style's fields say).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::model::{
    ArtifactRef, Outcome, Role, Step, StepIds, StepKind, TextElision, Trajectory, Usage,
};

/// The key of the per-message object.
pub const STEP_KEY: &str = "trajscope";
/// The key, in `metadata.extra`, of the per-trajectory object.
pub const TRAJECTORY_KEY: &str = "trajscope_trajectory";

/// A step's canonical fields beside the style's own.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StepExtra {
    pub role: Role,
    pub kind: StepKind,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub actor: String,
    /// The step's text when the message's `content` is not it (a tool call without text is
    /// written as `[tool_calls]` content).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub args: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i64>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub is_error: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    #[serde(default, skip_serializing_if = "StepIds::is_empty")]
    pub ids: StepIds,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub artifact_refs: Vec<ArtifactRef>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub memory_node_ids: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub writer_seq: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text_elided: Option<TextElision>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub args_elided: Option<TextElision>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Box<Usage>>,
}

impl StepExtra {
    /// The fields of `step` that go beside a message whose content is `content`.
    pub fn of(step: &Step, content: &str) -> StepExtra {
        StepExtra {
            role: step.role,
            kind: step.kind,
            actor: step.actor.clone(),
            text: (step.text != content).then(|| step.text.clone()),
            tool: step.tool.as_deref().map(str::to_owned),
            args: step.args.clone(),
            exit_code: step.exit_code,
            is_error: step.is_error,
            status: step.status.as_deref().map(str::to_owned),
            ids: step.ids.clone(),
            artifact_refs: step.artifact_refs.clone(),
            memory_node_ids: step.memory_node_ids.clone(),
            timestamp: step.timestamp.as_deref().map(str::to_owned),
            writer_seq: step.writer_seq,
            text_elided: step.text_elided.as_deref().cloned(),
            args_elided: step.args_elided.as_deref().cloned(),
            usage: step.usage.clone(),
        }
    }
}

/// A run's fields beside the style's own.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TrajectoryExtra {
    #[serde(default)]
    pub outcome: Outcome,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub final_answer: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Box<Usage>>,
}

impl TrajectoryExtra {
    pub fn of(t: &Trajectory) -> TrajectoryExtra {
        TrajectoryExtra {
            outcome: t.outcome,
            task: t.task.clone(),
            final_answer: t.final_answer.clone(),
            usage: t.usage.clone(),
        }
    }
}

/// Applies a message's `trajscope` object (if any, and well-formed) to the step read from it.
pub(crate) fn restore_step(step: &mut Step, message: &serde_json::Map<String, Value>) {
    let Some(v) = message.get(STEP_KEY) else { return };
    let Ok(x) = StepExtra::deserialize(v) else { return };
    step.role = x.role;
    step.kind = x.kind;
    step.actor = x.actor;
    if let Some(text) = x.text {
        step.text = text;
    }
    step.tool = x.tool.map(Box::from);
    step.args = x.args;
    step.exit_code = x.exit_code;
    step.is_error = x.is_error;
    step.status = x.status.map(Box::from);
    step.ids = x.ids;
    step.artifact_refs = x.artifact_refs;
    step.memory_node_ids = x.memory_node_ids;
    step.timestamp = x.timestamp.map(Box::from);
    step.writer_seq = x.writer_seq;
    step.text_elided = x.text_elided.map(Box::new);
    step.args_elided = x.args_elided.map(Box::new);
    step.usage = x.usage;
}

/// Applies `metadata.extra.trajscope_trajectory` (if any, and well-formed) to the run.
pub(crate) fn restore_trajectory(t: &mut Trajectory, extra: Option<&Value>) {
    let Some(v) = extra.and_then(|e| e.get(TRAJECTORY_KEY)) else { return };
    let Ok(x) = TrajectoryExtra::deserialize(v) else { return };
    t.outcome = x.outcome;
    t.task = x.task;
    t.final_answer = x.final_answer;
    t.usage = x.usage;
}
