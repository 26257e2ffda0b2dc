//! SWE-agent `.traj` files: `{"environment", "trajectory": [...], "history": [...], "info"}`.
//!
//! Each `trajectory[]` entry is one turn of the agent: `thought` (its reasoning), `action` (the
//! command it ran, e.g. `edit 1:1 ...`, `python reproduce.py`, `submit`) and `observation` (what
//! the environment answered; the edit tool's rejection "Your proposed edit has introduced new
//! syntax error(s)" is flagged as an error). A turn becomes two steps: an action (text = the thought, args = the
//! command, tool = the command's first word) and its observation. The task is the first
//! non-demonstration user message of `history`; `info.exit_status` says how the run ended and
//! `info.submission` is the final patch.

use serde_json::{Map, Value};

use super::{array_field, as_object, get, get_text, SourceLoc};
use crate::artifact::extract;
use crate::model::{Outcome, Role, Step, StepKind, Trajectory};

pub fn from_document(value: Value) -> Result<Vec<Trajectory>, String> {
    let o = as_object(&value, "the SWE-agent trajectory")?;
    let entries = array_field(o, "trajectory", "the SWE-agent trajectory")?;
    let mut steps = Vec::with_capacity(entries.len() * 2);
    let submission = get(o, &["info"]).and_then(|i| i.get("submission")).and_then(Value::as_str);
    for (i, e) in entries.iter().enumerate() {
        let e = as_object(e, &format!("trajectory[{i}]"))?;
        turn_steps(i, e, submission, &mut steps);
    }
    for (i, s) in steps.iter_mut().enumerate() {
        s.index = i as u32;
        s.ingest_seq = i as u64;
    }
    let empty = Map::new();
    let info = get(o, &["info"]).and_then(Value::as_object).unwrap_or(&empty);
    let task = match o.get("history") {
        Some(Value::Array(h)) => h
            .iter()
            .filter_map(Value::as_object)
            .filter(|m| get_text(m, &["role"]).as_deref() == Some("user"))
            .find(|m| !matches!(m.get("is_demo"), Some(Value::Bool(true))))
            .and_then(|m| m.get("content"))
            .map(super::content_text),
        _ => None,
    };
    Ok(vec![Trajectory {
        id: get_text(o, &["instance_id"])
            .or_else(|| get_text(info, &["instance_id"]))
            .unwrap_or_else(|| "swe-agent-1".to_string()),
        outcome: exit_status_outcome(
            get_text(info, &["exit_status"]).as_deref(),
            get_text(info, &["submission"]).as_deref(),
        ),
        task,
        final_answer: get_text(info, &["submission"]),
        gold: None,
        steps,
        usage: None,
    }])
}

/// The steps of one `trajectory[i]` entry (a turn): its action and, if any, its observation.
/// `submission` is the final patch, for the files an action wrote; a copy made while the
/// document is read ([`crate::ingest`]'s document peek) passes `None`.
pub(crate) fn turn_steps(
    i: usize,
    e: &Map<String, Value>,
    submission: Option<&str>,
    steps: &mut Vec<Step>,
) {
    let path = format!("$.trajectory[{i}]");
    let action = get_text(e, &["action"]).map(|a| a.trim_end().to_string());
    let tool = action.as_deref().and_then(|a| a.split_whitespace().next()).map(str::to_string);
    let thought = get_text(e, &["thought", "response"]).unwrap_or_default();
    let ts = get_text(e, &["timestamp"]);
    // `state` (a JSON string) holds the open file and the working directory: the root.
    let state = get_text(e, &["state"]).map(|s| extract::parse_args(&Value::String(s)));
    let state_text = |k: &str| state.as_ref().and_then(|s| s.get(k)).and_then(Value::as_str);
    let raw_refs = action
        .as_deref()
        .map(|a| extract::swe_agent(a, state_text("open_file"), submission))
        .unwrap_or_default();
    steps.push(Step {
        loc: SourceLoc { path: format!("{path}.action").into(), ..SourceLoc::default() },
        artifact_refs: extract::refs(raw_refs, state_text("working_dir")),
        role: Role::Assistant,
        kind: StepKind::Action,
        text: thought,
        tool: tool.clone().map(Box::from),
        args: action,
        timestamp: ts.clone().map(Box::from),
        ..Step::default()
    });
    if let Some(obs) = get(e, &["observation"]) {
        let text = super::value_text(obs);
        // SWE-agent's own edit tool rejects an edit that breaks the file with this message.
        let is_error = text.trim_start().starts_with("Your proposed edit has introduced new");
        steps.push(Step {
            loc: SourceLoc { path: format!("{path}.observation").into(), ..SourceLoc::default() },
            role: Role::Tool,
            kind: StepKind::Observation,
            text,
            is_error,
            tool: tool.map(Box::from),
            timestamp: ts.map(Box::from),
            ..Step::default()
        });
    }
}

/// The outcome from `info.exit_status` and `info.submission` (see docs/formats.md, "Outcome"):
/// a run that submitted a patch is not judged yet (the tests decide), so it stays unknown; one
/// that submitted an empty patch, or stopped without submitting (cost or step limit, context
/// overflow, format errors, an exception), failed. A run the user interrupted only says that it
/// stopped: unknown.
pub(crate) fn exit_status_outcome(status: Option<&str>, submission: Option<&str>) -> Outcome {
    let Some(s) = status.map(|s| s.trim().to_ascii_lowercase()) else { return Outcome::Unknown };
    if s.is_empty() || s.contains("interrupt") {
        Outcome::Unknown
    } else if s.starts_with("submitted") {
        match submission {
            Some(patch) if patch.trim().is_empty() => Outcome::Failed,
            _ => Outcome::Unknown,
        }
    } else {
        Outcome::Failed
    }
}
