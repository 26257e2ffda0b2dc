//! ATIF, the Agent Trajectory Interchange Format (Harbor's `trajectory.json`, `ATIF-v1.0` to
//! `v1.7`): `{schema_version, session_id, agent: {name, version, model_name}, steps: [...],
//! final_metrics, notes, extra}`.
//!
//! Each ATIF step (`step_id`, `source`: `system` / `user` / `agent`, `message`,
//! `reasoning_content`, `tool_calls`, `observation.results`, `metrics`, `timestamp`) becomes a
//! step; an agent step with `tool_calls` (`tool_call_id`, `function_name`, `arguments`) is an
//! action as the generic fallback makes one of an OpenAI-style message's calls, its
//! text the reasoning then the message. Each result of its `observation` follows as a tool's
//! reply (an observation of the tool its `source_call_id` names), an error when it says so (an
//! `is_error`, an `Error:` opening, a traceback); a result that delegated to a subagent names the
//! subagent's session. The step's `metrics` are its usage (`prompt_tokens` includes the cached
//! part, also given as cache reads). The trajectory is the session (`session_id`); its task the
//! first user message; its final answer the last step's message when the agent ends with one;
//! its outcome a verdict the file carries (`resolved`, `success`, `reward`, ... on the root, in
//! `extra`, in `final_metrics`), else `unknown` (Harbor writes the verifier's reward apart).

use serde_json::{Map, Value};

use super::{array_field, as_object, content_text, generic, get, get_text, json_kind, value_text};
use crate::model::{Role, SourceLoc, Step, StepIds, StepKind, Trajectory, Usage};

/// Whether a JSON object is an ATIF trajectory: its `schema_version` names ATIF, or its first
/// step has ATIF's `step_id` and `source`.
pub fn is_trajectory(o: &Map<String, Value>) -> bool {
    let named = o
        .get("schema_version")
        .and_then(Value::as_str)
        .is_some_and(|v| v.get(..4).is_some_and(|p| p.eq_ignore_ascii_case("atif")));
    named
        || o.get("steps")
            .and_then(Value::as_array)
            .and_then(|s| s.first())
            .and_then(Value::as_object)
            .is_some_and(|s| s.contains_key("step_id") && s.contains_key("source"))
}

/// One trajectory document. Its id is empty without a `session_id` (the ingest names it
/// `atif-1`, `line-N` or `atif-N` after where it was read).
pub fn from_document(value: Value) -> Result<Vec<Trajectory>, String> {
    let o = match &value {
        Value::Object(o) => o,
        other => return Err(format!("an ATIF trajectory is an object, not {}", json_kind(other))),
    };
    let raw = array_field(o, "steps", "the ATIF trajectory")?;
    let mut steps = Vec::with_capacity(raw.len() * 2);
    for (i, s) in raw.iter().enumerate() {
        let s = as_object(s, &format!("steps[{i}]"))?;
        push_steps(s, i, &mut steps);
    }
    let task = steps.iter().find(|s| s.role == Role::User).map(|s| s.text.clone());
    let final_answer = steps
        .last()
        .filter(|s| s.role == Role::Assistant && s.kind == StepKind::Message)
        .and_then(|_| raw.last().and_then(Value::as_object).and_then(|o| o.get("message")))
        .map(content_text)
        .filter(|t| !t.is_empty());
    fn inner<'a>(o: Option<&'a Map<String, Value>>, key: &str) -> Option<&'a Map<String, Value>> {
        o.and_then(|o| get(o, &[key])).and_then(Value::as_object)
    }
    let metrics = inner(Some(o), "final_metrics");
    let places = [Some(o), inner(Some(o), "extra"), metrics, inner(metrics, "extra")];
    let usage = match steps.iter().any(|s| s.usage.is_some()) {
        true => None,
        false => metrics.and_then(|m| {
            usage(m, ["total_prompt_tokens", "total_completion_tokens", "total_cached_tokens"])
        }),
    };
    Ok(vec![Trajectory {
        id: get_text(o, &["session_id"]).unwrap_or_default(),
        outcome: super::verdict(places.into_iter().flatten()),
        task,
        final_answer,
        steps,
        usage,
        ..Trajectory::default()
    }])
}

/// The steps of ATIF step `i`: the message (or action), then one observation per result.
fn push_steps(s: &Map<String, Value>, i: usize, out: &mut Vec<Step>) {
    let calls: Vec<&Map<String, Value>> = match s.get("tool_calls") {
        Some(Value::Array(c)) => c.iter().filter_map(Value::as_object).collect(),
        _ => Vec::new(),
    };
    let path = format!("$.steps[{i}]");
    let source = get_text(s, &["source"]).unwrap_or_default();
    let mut step = Step {
        index: out.len() as u32,
        loc: SourceLoc { path: path.as_str().into(), ..SourceLoc::default() },
        role: super::role_word(&source),
        text: s.get("message").map(content_text).unwrap_or_default(),
        timestamp: get_text(s, &["timestamp"]).map(Box::from),
        ingest_seq: out.len() as u64,
        ..Step::default()
    };
    // The calls as the generic reader makes an action of an OpenAI-style message's.
    let (names, args, ids) = generic::calls_of(&calls, &["tool_call_id"]);
    if !calls.is_empty() {
        generic::apply_calls(&mut step, &names, &args, &ids);
        if step.text.is_empty() {
            step.text = super::calls_text(&names, &args);
        }
    }
    let reasoning = s.get("reasoning_content").map(content_text).unwrap_or_default();
    if !reasoning.is_empty() {
        step.text = match step.text.is_empty() {
            true => reasoning,
            false => format!("{reasoning}\n\n{}", step.text),
        };
    }
    step.ids.event_id = s.get("step_id").map(|id| Box::from(value_text(id)));
    step.usage = s
        .get("metrics")
        .and_then(Value::as_object)
        .and_then(|m| usage(m, ["prompt_tokens", "completion_tokens", "cached_tokens"]));
    let timestamp = step.timestamp.clone();
    out.push(step);

    let results = match s.get("observation").and_then(|o| o.get("results")) {
        Some(Value::Array(r)) => r.iter().filter_map(Value::as_object).collect(),
        _ => Vec::new(),
    };
    for (j, r) in results.into_iter().enumerate() {
        let mut text = r.get("content").map(content_text).unwrap_or_default();
        if text.is_empty() {
            text = subagents(r);
        }
        let call = get_text(r, &["source_call_id"]);
        let tool = call.as_ref().and_then(|c| ids.iter().position(|id| id == c));
        out.push(Step {
            index: out.len() as u32,
            loc: SourceLoc {
                path: format!("{path}.observation.results[{j}]").into(),
                ..SourceLoc::default()
            },
            role: Role::Tool,
            kind: StepKind::Observation,
            is_error: super::value_bool(r.get("is_error")) == Some(true)
                || generic::says_it_failed(&text),
            tool: tool.and_then(|k| names.get(k)).map(|n| Box::from(n.as_str())),
            ids: StepIds { source_action_id: call.map(Box::from), ..StepIds::default() },
            timestamp: timestamp.clone(),
            ingest_seq: out.len() as u64,
            text,
            ..Step::default()
        });
    }
}

/// The text of a result that delegated to subagents: each one's session and where its
/// trajectory is, one a line (empty when there is none).
fn subagents(r: &Map<String, Value>) -> String {
    let Some(Value::Array(refs)) = r.get("subagent_trajectory_ref") else {
        return String::new();
    };
    let lines: Vec<String> = refs
        .iter()
        .filter_map(Value::as_object)
        .map(|s| {
            let session = get_text(s, &["session_id"]).unwrap_or_default();
            match get_text(s, &["trajectory_path"]) {
                Some(p) => format!("subagent session {session} ({p})"),
                None => format!("subagent session {session}"),
            }
        })
        .collect();
    lines.join("\n")
}

/// Usage from ATIF metrics: `[prompt, completion, cached]` keys (per step or the totals), and
/// the cost (`cost_usd` / `total_cost_usd`).
fn usage(m: &Map<String, Value>, keys: [&str; 3]) -> Option<Box<Usage>> {
    let count = |k: &str| get(m, &[k]).and_then(Value::as_u64);
    Usage {
        input_tokens: count(keys[0]),
        output_tokens: count(keys[1]),
        cache_read_tokens: count(keys[2]),
        cost_usd: get(m, &["cost_usd", "total_cost_usd"]).and_then(Value::as_f64),
        ..Usage::default()
    }
    .non_empty()
}
