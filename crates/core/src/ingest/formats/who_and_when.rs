//! Who&When items (ICML 2025, "Which Agent Causes Task Failures and When?"): one JSON document
//! per item with `question`, `history[]`, `mistake_step` / `mistake_agent` / `mistake_reason`.
//!
//! Two speaker conventions exist:
//! - Algorithm-Generated (CaptainAgent / AutoGen group chat): the agent is in `name`; `role` is
//!   only AutoGen's "assistant" / "user" relative to the current speaker, so it is not kept. The
//!   code executor (`Computer_terminal`) answers with `exitcode: N (...)`: a tool observation;
//!   the agent message just before it, whose last fenced code block was run, is an action
//!   (tool = the block's language, args = the code).
//! - Hand-Crafted (Magentic-One): the speaker is in `role`: `human`, `Orchestrator (thought)`,
//!   `Orchestrator (-> WebSurfer)`, `WebSurfer`, ... The agent is the part before ` (`; an
//!   instruction `(-> X)` is the orchestrator acting on agent X (kind action, tool X).
//!
//! `mistake_step` (often a string) is a 0-based index into `history`, the same index space as
//! [`Step::index`] since every history entry becomes exactly one step.

use serde_json::{Map, Value};

use super::{array_field, as_object, content_text, get, get_text, path_at, value_index};
use crate::artifact::extract;
use crate::dataset::restore;
use crate::model::{GoldLabel, Outcome, Role, Step, StepKind, Trajectory};

pub fn from_document(value: Value) -> Result<Vec<Trajectory>, String> {
    let o = as_object(&value, "the Who&When item")?;
    let history = array_field(o, "history", "the Who&When item")?;
    let mut steps = Vec::with_capacity(history.len());
    for (i, entry) in history.iter().enumerate() {
        let e = as_object(entry, &format!("history[{i}]"))?;
        steps.push(step(e, i));
    }
    mark_executed_code(&mut steps);
    for s in &mut steps {
        s.artifact_refs = extract::refs(extract::message(s.index, &s.text), None);
    }
    // An item exported by trajscope keeps each step's canonical fields beside it.
    for (s, entry) in steps.iter_mut().zip(history) {
        if let Some(e) = entry.as_object() {
            restore::restore_step(s, e);
        }
    }
    let gold = gold_label(o);
    // `true` / `false`, or their text in any case (`"False"`).
    let outcome = match super::value_bool(o.get("is_correct")) {
        Some(true) => Outcome::Passed,
        Some(false) => Outcome::Failed,
        // Every labelled item is a failed run: a mistake was annotated in it.
        _ if gold.is_some() => Outcome::Failed,
        _ => Outcome::Unknown,
    };
    let id = get_text(o, &["question_ID", "question_id", "id"])
        // Without one, named where it was read (`line-N` on a line, `{format}-N` in a list or
        // as the whole file), as a chat record is.
        .unwrap_or_default();
    let mut t = Trajectory {
        id,
        outcome,
        task: get_text(o, &["question", "task"]),
        final_answer: None,
        gold,
        steps,
        usage: None,
    };
    restore::restore_trajectory(&mut t, o.get("metadata").and_then(|m| m.get("extra")));
    Ok(vec![t])
}

fn gold_label(o: &Map<String, Value>) -> Option<GoldLabel> {
    let step = get(o, &["mistake_step"]).and_then(value_index);
    let agent = get_text(o, &["mistake_agent"]);
    let reason = get_text(o, &["mistake_reason"]);
    let category = get_text(o, &["mistake_type"]);
    if step.is_none() && agent.is_none() && reason.is_none() {
        return None;
    }
    Some(GoldLabel { step, agent, reason, category })
}

/// An agent message whose code block the executor ran next (it answered with an exit code) is
/// the agent's action: tool = the block's language, args = the code.
fn mark_executed_code(steps: &mut [Step]) {
    for i in 1..steps.len() {
        if steps[i].kind != StepKind::Observation || steps[i].exit_code.is_none() {
            continue;
        }
        let prev = &mut steps[i - 1];
        if prev.kind != StepKind::Message || prev.role != Role::Assistant {
            continue;
        }
        if let Some((lang, code)) = last_code_block(&prev.text) {
            prev.kind = StepKind::Action;
            prev.tool = Some(lang.into());
            prev.args = Some(code);
        }
    }
}

/// The last fenced code block of a message: (language, code).
fn last_code_block(text: &str) -> Option<(String, String)> {
    let start = text.rfind("```")?;
    let before = &text[..start];
    let open = before.rfind("```")?;
    let block = &text[open + 3..start];
    let (lang, code) = block.split_once('\n').unwrap_or(("", block));
    let lang = lang.trim();
    let lang = if lang.is_empty() { "code" } else { lang };
    Some((lang.to_string(), code.trim_end().to_string()))
}

/// `exitcode: 1 (execution failed)` at the start of a code executor's reply.
fn exit_code_prefix(text: &str) -> Option<i64> {
    let rest = text.trim_start().strip_prefix("exitcode:")?;
    let digits: String =
        rest.trim_start().chars().take_while(|c| c.is_ascii_digit() || *c == '-').collect();
    digits.parse().ok()
}

fn step(e: &Map<String, Value>, i: usize) -> Step {
    let text = e.get("content").map(content_text).unwrap_or_default();
    let role_field = get_text(e, &["role"]).unwrap_or_default();
    let name = get_text(e, &["name"]).filter(|n| !n.is_empty());
    let mut step = Step {
        index: i as u32,
        loc: path_at("$", "history", i),
        text,
        ingest_seq: i as u64,
        ..Step::default()
    };
    match name {
        // Algorithm-Generated: the agent is in `name`.
        Some(name) => {
            let exit_code = exit_code_prefix(&step.text);
            let is_executor =
                exit_code.is_some() || name.to_ascii_lowercase().ends_with("terminal");
            if is_executor {
                step.role = Role::Tool;
                step.kind = StepKind::Observation;
                step.exit_code = exit_code;
                step.is_error = exit_code.is_some_and(|c| c != 0);
            } else {
                step.role = match role_field.as_str() {
                    "system" => Role::System,
                    _ => Role::Assistant,
                };
            }
            step.actor = name;
        }
        // Hand-Crafted: the speaker is in `role`.
        None => {
            let (agent, channel) = match role_field.split_once(" (") {
                Some((agent, rest)) => (agent.trim(), Some(rest.trim_end_matches(')').trim())),
                None => (role_field.trim(), None),
            };
            step.actor = agent.to_string();
            step.role = match agent.to_ascii_lowercase().as_str() {
                "human" | "user" => Role::User,
                "system" => Role::System,
                _ => Role::Assistant,
            };
            if let Some(target) = channel.and_then(|c| c.strip_prefix("->")) {
                step.kind = StepKind::Action;
                step.tool = Some(target.trim().into());
            }
        }
    }
    step
}
