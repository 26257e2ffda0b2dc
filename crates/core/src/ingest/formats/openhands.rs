//! OpenHands event streams: a JSON list of events (or an object whose `history` is that list, as
//! in OpenHands evaluation output). Each event has an `id`, `timestamp`, `source`
//! (`user` / `agent` / `environment`) and either an `action` with `args` or an `observation`
//! with `content`, `extras` and `cause` (the id of the action it answers).
//!
//! - `message` actions are messages (text `args.content`); `system` the system prompt;
//!   `recall` a memory read; every other action (`run`, `read`, `edit`, `browse`, `finish`, ...)
//!   is an action step whose tool is the model's function (`tool_call_metadata.function_name`)
//!   or the action name, with the command / path / arguments as args and the thought as text.
//! - Observations answer their `cause`: the exit code is `extras.metadata.exit_code`; an
//!   `error` observation or a non-zero exit code is an error. `agent_state_changed` events are
//!   environment steps whose status is the new state.
//! - The outcome: see [`final_outcome`].

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::{as_object, content_text, get, get_text, value_i64, value_text, SourceLoc};
use crate::artifact::extract;
use crate::model::{Outcome, Role, Step, StepKind, Trajectory};

/// The sandbox directory OpenHands mounts the task's workspace at: the trace root.
const WORKSPACE_ROOT: &str = "/workspace";

pub fn from_document(value: Value) -> Result<Vec<Trajectory>, String> {
    let (events, meta, base) = match &value {
        Value::Array(items) => (items, None, "$".to_string()),
        Value::Object(o) => match o.get("history") {
            Some(Value::Array(items)) => (items, Some(o), "$.history".to_string()),
            _ => return Err("the OpenHands document has no event list (`history`)".to_string()),
        },
        other => {
            return Err(format!(
                "an OpenHands event stream is a list, not {}",
                super::json_kind(other)
            ))
        }
    };
    let mut steps = Vec::with_capacity(events.len());
    let mut tools: HashMap<String, String> = HashMap::new();
    let mut final_answer = None;
    let mut task_completed = None;
    for (i, e) in events.iter().enumerate() {
        let e = as_object(e, &format!("event {i}"))?;
        let step = event_step(e, format!("{base}[{i}]"), i, &mut tools);
        if step.tool.as_deref() == Some("finish") && step.kind == StepKind::Action {
            final_answer = get(e, &["args"])
                .and_then(|a| a.get("final_thought").or_else(|| a.get("content")))
                .map(value_text)
                .filter(|t| !t.is_empty())
                .or_else(|| get_text(e, &["message"]));
            task_completed = get(e, &["args"])
                .and_then(Value::as_object)
                .and_then(|a| get_text(a, &["task_completed"]));
        }
        steps.push(step);
    }
    let task = meta
        .and_then(|o| get_text(o, &["instruction"]))
        .or_else(|| steps.iter().find(|s| s.role == Role::User).map(|s| s.text.clone()));
    let run_error = meta.and_then(|o| get_text(o, &["error"])).filter(|e| !e.trim().is_empty());
    let outcome = final_outcome(&steps, run_error.is_some(), task_completed.as_deref());
    Ok(vec![Trajectory {
        id: meta
            .and_then(|o| get_text(o, &["instance_id", "id"]))
            .unwrap_or_else(|| "openhands-1".to_string()),
        outcome,
        task,
        final_answer,
        steps,
        ..Trajectory::default()
    }])
}

/// How the run ended (docs/formats.md, "Outcome"). Failed: the evaluation output's `error` is
/// set; the final `agent_state_changed` state is `error` or `rejected`; the finish action says
/// `task_completed: "false"` or `"partial"`; or the run's last event is an error observation
/// with no finish action after it. A finish action, or a state such as `finished`, `stopped` or
/// `awaiting_user_input`, only says that the agent stopped: unknown.
fn final_outcome(steps: &[Step], run_error: bool, task_completed: Option<&str>) -> Outcome {
    if run_error {
        return Outcome::Failed;
    }
    let is_state = |s: &&Step| s.role == Role::Environment && s.kind == StepKind::Observation;
    let last_state = steps.iter().rev().find(is_state).and_then(|s| s.status.as_deref());
    if matches!(last_state, Some("error" | "rejected")) {
        return Outcome::Failed;
    }
    if matches!(task_completed.map(str::to_ascii_lowercase).as_deref(), Some("false" | "partial")) {
        return Outcome::Failed;
    }
    let last_event = steps.iter().rev().find(|s| !is_state(s));
    match last_event {
        Some(s) if s.kind == StepKind::Observation && s.is_error => Outcome::Failed,
        _ => Outcome::Unknown,
    }
}

/// The step of event `i` as a copy made while the document is read shows it
/// ([`crate::ingest`]'s document peek): `base` is `$` for a list, `$.history` for an
/// evaluation output; `tools` maps the actions read so far to their tools, as at the end.
pub(crate) fn peek_step(
    e: &Map<String, Value>,
    base: &str,
    i: usize,
    tools: &mut HashMap<String, String>,
) -> Step {
    event_step(e, format!("{base}[{i}]"), i, tools)
}

fn event_step(
    e: &Map<String, Value>,
    path: String,
    i: usize,
    tools: &mut HashMap<String, String>,
) -> Step {
    let source = get_text(e, &["source"]).unwrap_or_default();
    let empty = Map::new();
    let args = get(e, &["args"]).and_then(Value::as_object).unwrap_or(&empty);
    let extras = get(e, &["extras"]).and_then(Value::as_object).unwrap_or(&empty);
    let meta = get(e, &["tool_call_metadata"]).and_then(Value::as_object).unwrap_or(&empty);
    let message = get_text(e, &["message"]).unwrap_or_default();
    let mut step = Step {
        index: i as u32,
        loc: SourceLoc { path: path.into(), ..SourceLoc::default() },
        actor: source.clone(),
        role: match source.as_str() {
            "user" => Role::User,
            "agent" => Role::Assistant,
            "environment" => Role::Environment,
            _ => Role::Other,
        },
        timestamp: get_text(e, &["timestamp"]).map(Box::from),
        ingest_seq: i as u64,
        ..Step::default()
    };
    step.ids.event_id = get_text(e, &["id"]).map(Box::from);
    step.ids.action_id = get_text(meta, &["tool_call_id"]).map(Box::from);
    if let Some(action) = get_text(e, &["action"]) {
        match action.as_str() {
            "message" => {
                step.text = get(args, &["content"]).map(content_text).unwrap_or(message);
            }
            "system" => {
                step.role = Role::System;
                step.text = get(args, &["content"]).map(content_text).unwrap_or(message);
            }
            "recall" => {
                step.kind = StepKind::MemoryRead;
                step.text = get_text(args, &["query"]).unwrap_or(message);
            }
            _ => {
                step.kind = StepKind::Action;
                let tool = get_text(meta, &["function_name"]).unwrap_or_else(|| action.clone());
                step.args = get_text(args, &["command", "code", "url", "path"]).or_else(|| {
                    let mut rest = args.clone();
                    rest.remove("thought");
                    (!rest.is_empty()).then(|| crate::json::to_text(&Value::Object(rest)))
                });
                let thought = get_text(args, &["thought"]).unwrap_or_default();
                step.text = match (thought.is_empty(), message.is_empty()) {
                    (false, false) if thought != message => format!("{thought}\n{message}"),
                    (false, _) => thought,
                    (true, _) => message,
                };
                if let Some(id) = &step.ids.event_id {
                    tools.insert(id.to_string(), tool.clone());
                }
                let raw_refs = match action.as_str() {
                    "run" | "run_ipython" => {
                        get_text(args, &["command"]).map(|c| extract::shell_writes(&c))
                    }
                    "edit" | "write" | "read" => get_text(args, &["path"]).map(|p| vec![p]),
                    _ => None,
                };
                step.artifact_refs =
                    extract::refs(raw_refs.unwrap_or_default(), Some(WORKSPACE_ROOT));
                step.tool = Some(tool.into());
            }
        }
        step.status = (action != "message").then_some(action).map(Box::from);
    } else if let Some(obs) = get_text(e, &["observation"]) {
        let cause = get_text(e, &["cause"]);
        step.ids.parent_id = cause.clone().map(Box::from);
        step.ids.source_action_id = step.ids.action_id.take();
        step.text = get(e, &["content"]).map(content_text).unwrap_or_default();
        if step.text.trim().is_empty() {
            step.text = message; // e.g. "Command `mv a b` executed with exit code 0."
        }
        if obs == "agent_state_changed" || obs == "null" {
            step.role = Role::Environment;
            step.kind = StepKind::Observation;
            step.status = get_text(extras, &["agent_state"]).or(Some(obs)).map(Box::from);
            step.is_error = step.status.as_deref() == Some("error");
        } else {
            step.role = Role::Tool;
            step.kind = StepKind::Observation;
            step.tool = cause.as_ref().and_then(|c| tools.get(c)).cloned().map(Box::from);
            step.exit_code = get(extras, &["metadata"])
                .and_then(|m| m.get("exit_code"))
                .or_else(|| extras.get("exit_code"))
                .and_then(value_i64);
            step.is_error = obs == "error" || step.exit_code.is_some_and(|c| c != 0);
            step.status = Some(obs.into());
        }
    } else {
        step.text = message;
    }
    step
}
