//! tau2-bench results JSON: `{"info", "tasks": [...], "simulations": [...]}`; one trajectory per
//! simulation, its outcome from `reward_info.reward` (full reward passes, less fails).
//!
//! A simulation's `policy` (the agent's system prompt), when present, is step 0, as TRAJERRBENCH
//! does when it converts tau2 runs (so its `critical_error_step` indices line up); then one step
//! per entry of `messages`: assistant / user messages, an assistant message with `tool_calls` an
//! action (tool = the called function, or the names joined by `,` for parallel calls), a `tool`
//! message an observation answering the call `id`, `"error": true` flagging a tool error.
//! A message's `usage` (`prompt_tokens`, `completion_tokens`), `cost` and
//! `generation_time_seconds` are its step's usage; the simulation's `agent_cost` + `user_cost`
//! and `duration` (seconds) the run's.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::{
    array_field, as_object, content_text, get, get_text, object_or, reward_outcome, role_word,
};
use crate::artifact::extract;
use crate::model::{Outcome, Role, SourceLoc, Step, StepKind, Trajectory, Usage};
use crate::usage::{cost, count, seconds_ms};

pub fn from_document(value: Value) -> Result<Vec<Trajectory>, String> {
    let o = as_object(&value, "the tau2 results file")?;
    let sims = array_field(o, "simulations", "the tau2 results file")?;
    let mut tasks: HashMap<String, &Map<String, Value>> = HashMap::new();
    if let Some(Value::Array(ts)) = o.get("tasks") {
        for t in ts.iter().filter_map(Value::as_object) {
            if let Some(id) = get_text(t, &["id"]) {
                tasks.insert(id, t);
            }
        }
    }
    let mut out = Vec::with_capacity(sims.len());
    for (si, sim) in sims.iter().enumerate() {
        let sim = as_object(sim, &format!("simulations[{si}]"))?;
        out.push(simulation(sim, si, &tasks)?);
    }
    Ok(out)
}

/// The first simulation as a copy made while the document is read shows it
/// ([`crate::ingest`]'s document peek): without the task list (its tasks' descriptions and
/// criteria), which the whole document gives at the end.
pub(crate) fn peek_simulation(sim: &Map<String, Value>) -> Result<Trajectory, String> {
    simulation(sim, 0, &HashMap::new())
}

fn simulation(
    sim: &Map<String, Value>,
    si: usize,
    tasks: &HashMap<String, &Map<String, Value>>,
) -> Result<Trajectory, String> {
    let base_path = format!("$.simulations[{si}]");
    let messages = array_field(sim, "messages", &format!("simulations[{si}]"))?;
    let id = get_text(sim, &["id"]).unwrap_or_else(|| format!("simulation-{}", si + 1));
    let mut steps = Vec::with_capacity(messages.len() + 1);
    if let Some(policy) = get(sim, &["policy"]).and_then(Value::as_str).filter(|p| !p.is_empty()) {
        steps.push(Step {
            loc: SourceLoc { path: format!("{base_path}.policy").into(), ..SourceLoc::default() },
            role: Role::System,
            text: policy.to_string(),
            ..Step::default()
        });
    }
    let mut call_names: HashMap<String, String> = HashMap::new();
    for (mi, m) in messages.iter().enumerate() {
        let m = object_or(m, || format!("simulations[{si}].messages[{mi}]"))?;
        let role = role_word(&get_text(m, &["role"]).unwrap_or_default());
        let mut step = Step {
            loc: SourceLoc {
                path: format!("{base_path}.messages[{mi}]").into(),
                ..SourceLoc::default()
            },
            role,
            text: m.get("content").map(content_text).unwrap_or_default(),
            timestamp: get_text(m, &["timestamp"]).map(Box::from),
            ..Step::default()
        };
        step.ids.run_id = Some(id.as_str().into());
        step.ids.turn_id = get_text(m, &["turn_idx"]).map(Box::from);
        let u = m.get("usage").and_then(Value::as_object);
        step.usage = Usage {
            input_tokens: count(u.and_then(|u| u.get("prompt_tokens"))),
            output_tokens: count(u.and_then(|u| u.get("completion_tokens"))),
            cost_usd: cost(m.get("cost")),
            duration_ms: seconds_ms(m.get("generation_time_seconds")),
            ..Usage::default()
        }
        .non_empty();
        if let Some(Value::Array(calls)) = m.get("tool_calls") {
            let calls: Vec<&Map<String, Value>> =
                calls.iter().filter_map(Value::as_object).collect();
            if !calls.is_empty() {
                let names: Vec<String> =
                    calls.iter().map(|c| get_text(c, &["name"]).unwrap_or_default()).collect();
                for (c, n) in calls.iter().zip(&names) {
                    if let Some(cid) = get_text(c, &["id"]) {
                        call_names.insert(cid, n.clone());
                    }
                }
                let args: Vec<String> = calls
                    .iter()
                    .map(|c| get(c, &["arguments"]).map(crate::json::to_text).unwrap_or_default())
                    .collect();
                let call_lines: Vec<String> =
                    names.iter().zip(&args).map(|(n, a)| format!("{n}({a})")).collect();
                step.kind = StepKind::Action;
                let raw_refs = calls.iter().zip(&names).flat_map(|(c, n)| {
                    extract::tool_call(n, c.get("arguments").unwrap_or(&Value::Null))
                });
                step.artifact_refs = extract::refs(raw_refs, None);
                step.tool = Some(Box::from(names.join(",")));
                step.args = Some(args.join("\n"));
                let ids: Vec<String> = calls.iter().filter_map(|c| get_text(c, &["id"])).collect();
                step.ids.action_id = (!ids.is_empty()).then(|| ids.join(",")).map(Box::from);
                let mut text = std::mem::take(&mut step.text);
                for l in call_lines {
                    if !text.is_empty() {
                        text.push('\n');
                    }
                    text.push_str(&l);
                }
                step.text = text;
            }
        }
        if role == Role::Tool {
            step.kind = StepKind::Observation;
            let cid = get_text(m, &["id", "tool_call_id"]);
            step.tool = cid.as_ref().and_then(|c| call_names.get(c)).cloned().map(Box::from);
            step.ids.source_action_id = cid.map(Box::from);
            step.is_error = matches!(m.get("error"), Some(Value::Bool(true)));
        }
        steps.push(step);
    }
    for (i, s) in steps.iter_mut().enumerate() {
        s.index = i as u32;
        s.ingest_seq = i as u64;
    }
    let outcome = match get(sim, &["reward_info"]).and_then(|r| r.get("reward")) {
        Some(r) => reward_outcome(r),
        None => Outcome::Unknown,
    };
    let task = get_text(sim, &["task_id"]).and_then(|tid| {
        let t = tasks.get(&tid)?;
        let instr = t.get("user_scenario").and_then(|u| u.get("instructions"));
        instr
            .and_then(|i| i.get("reason_for_call"))
            .and_then(Value::as_str)
            .or_else(|| t.get("description")?.get("purpose")?.as_str())
            .map(str::to_string)
    });
    let run_cost = match (cost(sim.get("agent_cost")), cost(sim.get("user_cost"))) {
        (Some(a), Some(u)) => Some(a + u),
        (a, u) => a.or(u),
    };
    let usage = Usage {
        cost_usd: run_cost,
        duration_ms: seconds_ms(sim.get("duration")),
        ..Usage::default()
    }
    .non_empty();
    Ok(Trajectory { id, outcome, task, steps, usage, ..Trajectory::default() })
}
