//! mini-swe-agent trajectories: `{"info", "messages": [...], "trajectory_format",
//! "instance_id"}` (format 1.x), and the older bare list of `{role, content}` messages.
//!
//! Messages become steps one to one. An assistant message is an action when it calls a tool
//! (`tool_calls`, the command in the `command` argument) or, in the older text protocol, when its
//! content holds a ```` ```bash ```` / ```` ```mswea_bash_command ```` block. The environment's
//! answer (`role: tool`, or in the older format a user message starting `<returncode>`) is an
//! observation with the exit code from `extra.returncode` or the `<returncode>N</returncode>`
//! tag. The final `role: exit` message is the run end with `extra.exit_status`; the outcome
//! follows `info.exit_status` and `info.submission` (or the exit message's), as for SWE-agent.

use serde_json::{Map, Value};

use super::{content_text, get, get_text, object_or, value_i64, value_text, SourceLoc};
use crate::artifact::extract;
use crate::model::{Role, Step, StepKind, Trajectory};

pub fn from_document(value: Value) -> Result<Vec<Trajectory>, String> {
    let (messages, meta) = match &value {
        Value::Array(items) => (items, None),
        Value::Object(o) => match o.get("messages") {
            Some(Value::Array(items)) => (items, Some(o)),
            _ => return Err("the mini-swe-agent trajectory has no `messages` list".to_string()),
        },
        other => {
            return Err(format!(
                "a mini-swe-agent trajectory is an object or a list, not {}",
                super::json_kind(other)
            ))
        }
    };
    let base = if meta.is_some() { "$.messages" } else { "$" };
    let mut steps = Vec::with_capacity(messages.len());
    let (mut exit_status, mut exit_submission) = (None, None);
    // The repository root: the first absolute directory a command changes into (`cd /testbed`).
    let mut root: Option<String> = None;
    for (i, m) in messages.iter().enumerate() {
        let m = object_or(m, || format!("messages[{i}]"))?;
        let mut step = message_step(m, format!("{base}[{i}]"), i);
        if let (StepKind::Action, Some(cmd)) = (step.kind, step.args.as_deref()) {
            root = root.or_else(|| first_cd(cmd));
            // A message of tool blocks was read with what its calls act on (their `path`
            // arguments, a shell call's writes); the text protocol's command is read here.
            if step.artifact_refs.is_empty() {
                step.artifact_refs = extract::refs(extract::shell_writes(cmd), root.as_deref());
            }
        } else if step.kind == StepKind::RunEnd {
            let patch = get(m, &["extra"]).and_then(|e| e.get("submission")).map(value_text);
            let files = extract::patch_files(patch.as_deref().unwrap_or(&step.text));
            step.artifact_refs = extract::refs(files, root.as_deref());
        }
        if step.kind == StepKind::RunEnd {
            exit_status = step.status.as_deref().map(str::to_owned);
            let extra = get(m, &["extra"]).and_then(Value::as_object);
            exit_submission = extra.and_then(|e| get_text(e, &["submission"]));
        }
        steps.push(step);
    }
    let empty = Map::new();
    let info = meta.and_then(|o| get(o, &["info"])).and_then(Value::as_object).unwrap_or(&empty);
    let exit_status = get_text(info, &["exit_status"]).or(exit_status);
    let submission = get_text(info, &["submission"]).or(exit_submission);
    let task = steps.iter().find(|s| s.role == Role::User).map(|s| s.text.clone());
    Ok(vec![Trajectory {
        id: meta
            .and_then(|o| get_text(o, &["instance_id"]))
            .unwrap_or_else(|| "mini-swe-agent-1".to_string()),
        outcome: super::swe_agent::exit_status_outcome(
            exit_status.as_deref(),
            submission.as_deref(),
        ),
        task,
        final_answer: submission,
        gold: None,
        steps,
        usage: None,
    }])
}

/// The absolute directory of a leading `cd DIR` in a command.
fn first_cd(cmd: &str) -> Option<String> {
    let rest = cmd.trim_start().strip_prefix("cd ")?;
    let dir = rest.split(|c: char| c.is_whitespace() || c == '&' || c == ';').next()?;
    dir.starts_with('/').then(|| dir.trim_end_matches('/').to_string()).filter(|d| !d.is_empty())
}

/// `<returncode>N</returncode>` at the start of an environment reply.
fn returncode_tag(text: &str) -> Option<i64> {
    let rest = text.trim_start().strip_prefix("<returncode>")?;
    rest.split("</returncode>").next()?.trim().parse().ok()
}

/// The command in a fenced ```bash / ```mswea_bash_command block.
fn fenced_command(text: &str) -> Option<String> {
    for fence in ["```mswea_bash_command", "```bash", "```sh"] {
        if let Some(start) = text.find(fence) {
            let body = &text[start + fence.len()..];
            let body = body.strip_prefix('\n').unwrap_or(body);
            let end = body.find("```")?;
            return Some(body[..end].trim_end().to_string());
        }
    }
    None
}

/// The step of `messages[i]` as a copy made while the document is read shows it
/// ([`crate::ingest`]'s document peek): the message alone, without the files its command
/// writes (the repository root is known from the whole list).
pub(crate) fn peek_step(m: &Map<String, Value>, i: usize) -> Step {
    message_step(m, format!("$.messages[{i}]"), i)
}

fn message_step(m: &Map<String, Value>, path: String, i: usize) -> Step {
    if super::generic::has_tool_blocks(m) {
        // A list of Anthropic messages (`tool_use` / `tool_result` blocks), not the text
        // protocol: read as the generic fallback reads them.
        let loc = SourceLoc { path: path.into(), ..SourceLoc::default() };
        return super::generic::generic_step(m, i as u32, loc, i as u64);
    }
    let role_text = get_text(m, &["role"]).unwrap_or_default();
    let text = m.get("content").map(content_text).unwrap_or_default();
    let empty = Map::new();
    let extra = get(m, &["extra"]).and_then(Value::as_object).unwrap_or(&empty);
    let mut step = Step {
        index: i as u32,
        loc: SourceLoc { path: path.into(), ..SourceLoc::default() },
        role: super::role_word(&role_text),
        ingest_seq: i as u64,
        timestamp: get_text(extra, &["timestamp"]).map(Box::from),
        ..Step::default()
    };
    match role_text.as_str() {
        "exit" => {
            step.role = Role::Environment;
            step.kind = StepKind::RunEnd;
            step.status = get_text(extra, &["exit_status"]).map(Box::from);
        }
        "assistant" => {
            let calls: Vec<&Map<String, Value>> = match m.get("tool_calls") {
                Some(Value::Array(c)) => c.iter().filter_map(Value::as_object).collect(),
                _ => Vec::new(),
            };
            if let Some(call) = calls.first() {
                let f = call.get("function").and_then(Value::as_object).unwrap_or(call);
                step.kind = StepKind::Action;
                step.tool = get_text(f, &["name"]).map(Box::from);
                step.args = get(f, &["arguments"]).map(|a| {
                    let parsed = match a {
                        Value::String(s) => crate::json::from_str::<Value>(s).ok(),
                        other => Some(other.clone()),
                    };
                    match parsed.as_ref().and_then(|p| p.get("command")) {
                        Some(Value::String(c)) => c.clone(),
                        _ => super::value_text(a),
                    }
                });
                let ids: Vec<String> = calls.iter().filter_map(|c| get_text(c, &["id"])).collect();
                step.ids.action_id = (!ids.is_empty()).then(|| ids.join(",")).map(Box::from);
            } else if let Some(cmd) = fenced_command(&text) {
                step.kind = StepKind::Action;
                step.tool = Some("bash".into());
                step.args = Some(cmd);
            }
        }
        "tool" | "user" => {
            let code = get(extra, &["returncode"]).and_then(value_i64).or(returncode_tag(&text));
            if role_text == "tool" || code.is_some() {
                step.role = Role::Tool;
                step.kind = StepKind::Observation;
                step.exit_code = code;
                let exception = get_text(extra, &["exception_info"]).filter(|e| !e.is_empty());
                step.is_error = code.is_some_and(|c| c != 0) || exception.is_some();
                step.ids.source_action_id = get_text(m, &["tool_call_id"]).map(Box::from);
            }
        }
        _ => {}
    }
    step.text = text;
    step
}
