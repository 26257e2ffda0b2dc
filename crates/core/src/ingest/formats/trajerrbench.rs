//! TRAJERRBENCH unified records (THU-KEG/TrajDebug): `messages[]` of `{step, role, name,
//! content}` and `metadata` with `task_id`, `task_description`, `reward` and
//! `annotation.critical_error_step` / `critical_error_type` / `human_rationale`.
//!
//! `step` is the 0-based position of the message in `messages`, so the gold step is directly a
//! [`Step::index`]. An assistant message that is a tool call is written
//! `[tool_calls]\n- name({json args})`: it becomes an action with that tool and arguments.

use serde_json::{Map, Value};

use super::{
    array_field, as_object, content_text, get, get_text, object_or, reward_outcome, value_index,
};
use crate::artifact::extract;
use crate::dataset::restore;
use crate::model::{GoldLabel, Outcome, Role, SourceLoc, Step, StepKind, Trajectory};

pub fn from_document(value: Value) -> Result<Vec<Trajectory>, String> {
    let o = as_object(&value, "the TRAJERRBENCH record")?;
    let messages = array_field(o, "messages", "the TRAJERRBENCH record")?;
    let empty = Map::new();
    let meta = get(o, &["metadata"]).and_then(Value::as_object).unwrap_or(&empty);
    let mut steps = Vec::with_capacity(messages.len());
    for (i, m) in messages.iter().enumerate() {
        let m = object_or(m, || format!("messages[{i}]"))?;
        let mut s = step(m, i);
        // An item exported by trajscope keeps each step's canonical fields beside it.
        restore::restore_step(&mut s, m);
        steps.push(s);
    }
    let gold = get(meta, &["annotation"]).and_then(Value::as_object).and_then(|a| {
        let label = GoldLabel {
            step: get(a, &["critical_error_step"]).and_then(value_index),
            agent: get_text(a, &["critical_error_agent", "mistake_agent", "agent"]),
            reason: get_text(a, &["human_rationale", "rationale"]),
            category: get_text(a, &["critical_error_type"]),
        };
        (label != GoldLabel::default()).then_some(label)
    });
    let outcome = match get(meta, &["reward"]) {
        Some(r) => reward_outcome(r),
        None => Outcome::Unknown,
    };
    let id = get_text(meta, &["task_id", "original_task_id"])
        .or_else(|| get_text(o, &["id", "task_id"]))
        // Without one, named where it was read (`line-N` on a line, `{format}-N` in a list or
        // as the whole file), as a chat record is.
        .unwrap_or_default();
    let mut t = Trajectory {
        id,
        outcome,
        task: get_text(meta, &["task_description"]),
        final_answer: None,
        gold,
        steps,
        usage: None,
    };
    restore::restore_trajectory(&mut t, meta.get("extra"));
    Ok(vec![t])
}

/// `[tool_calls]\n- name({...})\n- other({...})`: the first tool's name and all the calls' text.
fn tool_calls(text: &str) -> Option<(String, String)> {
    let rest = text.trim_start().strip_prefix("[tool_calls]")?;
    let calls: Vec<&str> = rest
        .lines()
        .map(str::trim)
        .filter_map(|l| l.strip_prefix("- ").or_else(|| l.strip_prefix('-')))
        .collect();
    let first = calls.first()?;
    let name = first.split('(').next()?.trim();
    if name.is_empty() {
        return None;
    }
    let args = match calls.len() {
        1 => first.strip_prefix(name).unwrap_or(first).trim().to_string(),
        _ => calls.join("\n"),
    };
    let args = args
        .strip_prefix('(')
        .and_then(|a| a.strip_suffix(')'))
        .map(str::to_string)
        .filter(|_| calls.len() == 1)
        .unwrap_or(args);
    Some((name.to_string(), args))
}

fn step(m: &Map<String, Value>, i: usize) -> Step {
    let text = m.get("content").map(content_text).unwrap_or_default();
    let role = super::role_word(&get_text(m, &["role"]).unwrap_or_default());
    let mut step = Step {
        index: i as u32,
        loc: SourceLoc { line: 0, offset: 0, path: format!("$.messages[{i}]").into() },
        actor: get_text(m, &["name"]).unwrap_or_default(),
        role,
        ingest_seq: i as u64,
        ..Step::default()
    };
    if let Some(s) = get(m, &["step"]).and_then(value_index) {
        step.writer_seq = Some(u64::from(s));
    }
    match role {
        Role::Tool => step.kind = StepKind::Observation,
        Role::Assistant => {
            if let Some((tool, args)) = tool_calls(&text) {
                step.kind = StepKind::Action;
                step.tool = Some(tool.into());
                step.args = Some(args);
            }
        }
        _ => {}
    }
    if role == Role::Tool {
        let lower = text.trim_start().to_ascii_lowercase();
        step.is_error = lower.starts_with("error") || lower.starts_with("{\"error\"");
    }
    step.artifact_refs = extract::refs(extract::message(step.index, &text), None);
    step.text = text;
    step
}
