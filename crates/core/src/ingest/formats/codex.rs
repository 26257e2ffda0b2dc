//! Codex CLI rollout JSONL (`~/.codex/sessions/.../rollout-*.jsonl`): every line is
//! `{"timestamp", "type", "payload"}` with `type` one of `session_meta`, `turn_context`,
//! `response_item`, `event_msg`, `compacted`.
//!
//! - `session_meta` is the run start (its `id` is the run id; `base_instructions` the system
//!   prompt);
//! - `response_item` carries the model conversation: `message` (user / developer / assistant),
//!   `reasoning`, `function_call` / `custom_tool_call` / `local_shell_call` / `web_search_call`
//!   (actions, `call_id` as action id) and `function_call_output` / `custom_tool_call_output`
//!   (observations answering that `call_id`);
//! - `event_msg` mirrors the UI: `user_message` / `agent_message` repeat a `message` item and are
//!   only a step when no such item was written; `exec_command_end` gives the exit code of a call
//!   (`exit_code`) and `patch_apply_end` its success, both folded into the call's observation;
//!   `error` is an error step; `task_complete` holds the final answer; the rest (token counts,
//!   task start) is bookkeeping;
//! - `turn_context` / `task_started` set the `turn_id` of the steps that follow.
//!
//! Exit codes also come from the output text (`Process exited with code N`, or the older JSON
//! output `{"output": ..., "metadata": {"exit_code": N}}`).

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::{content_text, get, get_text, parse_object, value_i64, value_text, JsonlAdapter};
use crate::artifact::extract;
use crate::model::{Role, SourceLoc, Step, StepIds, StepKind, Trajectory};

/// How many recent steps are searched for the mirror of a UI message.
const MIRROR_WINDOW: usize = 16;

#[derive(Default)]
pub struct Codex {
    run_id: Option<String>,
    turn_id: Option<String>,
    task: Option<String>,
    final_answer: Option<String>,
    steps: Vec<Step>,
    /// call_id → tool name.
    calls: HashMap<String, String>,
    /// call_id → index of its observation step.
    results: HashMap<String, usize>,
    /// Exit status reported by an `*_end` event before the call's output item arrived.
    pending_exit: HashMap<String, (Option<i64>, bool)>,
    /// The session's working directory (`session_meta` / `turn_context` `cwd`): the trace root.
    cwd: Option<String>,
}

impl JsonlAdapter for Codex {
    fn push_line(&mut self, line: &str, loc: SourceLoc, ingest_seq: u64) -> Result<(), String> {
        let o = parse_object(line)?;
        let ty = get(&o, &["type"]).and_then(Value::as_str).unwrap_or("").to_string();
        let empty = Map::new();
        let p = match o.get("payload") {
            Some(Value::Object(p)) => p,
            None | Some(Value::Null) => &empty,
            Some(_) => return Err("a Codex record whose `payload` is not an object".to_string()),
        };
        let pty = get(p, &["type"]).and_then(Value::as_str).unwrap_or("").to_string();
        if let (true, Some(cwd)) =
            (ty == "session_meta" || ty == "turn_context", get_text(p, &["cwd"]))
        {
            self.cwd = Some(cwd);
        }
        if let Some(turn) = get_text(p, &["turn_id"]) {
            if ty == "turn_context" || pty == "task_started" {
                self.turn_id = Some(turn);
            }
        }
        let base = Step {
            loc,
            timestamp: get_text(&o, &["timestamp"]),
            ingest_seq,
            ids: StepIds {
                run_id: self.run_id.clone(),
                turn_id: self.turn_id.clone(),
                ..StepIds::default()
            },
            ..Step::default()
        };
        match (ty.as_str(), pty.as_str()) {
            ("session_meta", _) => {
                self.run_id = get_text(p, &["id"]).or(self.run_id.take());
                let text = get(p, &["base_instructions"])
                    .map(content_text)
                    .or_else(|| get_text(p, &["instructions"]))
                    .unwrap_or_default();
                let mut s = Step { role: Role::System, kind: StepKind::RunStart, text, ..base };
                s.ids.run_id = self.run_id.clone();
                s.status = get_text(p, &["originator"]);
                self.push(s);
            }
            ("turn_context", _) => {}
            ("compacted", _) => {
                let text = get_text(p, &["message"]).unwrap_or_default();
                let status = Some("compacted".to_string());
                self.push(Step { role: Role::System, text, status, ..base });
            }
            ("response_item", _) => self.response_item(p, &pty, base),
            ("event_msg", _) => self.event(p, &pty, base),
            // A record type this reader does not know (newer versions add some): kept visible.
            (other, _) => {
                let text = Value::Object(p.clone()).to_string();
                let status = Some(other.to_string());
                self.push(Step { role: Role::Other, text, status, ..base });
            }
        }
        Ok(())
    }

    fn finish(self: Box<Self>) -> Vec<Trajectory> {
        if self.steps.is_empty() {
            return Vec::new();
        }
        let mut steps = self.steps;
        for (i, s) in steps.iter_mut().enumerate() {
            s.index = i as u32;
        }
        vec![Trajectory {
            id: self.run_id.unwrap_or_else(|| "codex-1".to_string()),
            task: self.task,
            final_answer: self.final_answer,
            steps,
            ..Trajectory::default()
        }]
    }
}

impl Codex {
    fn push(&mut self, step: Step) {
        if self.task.is_none() && step.role == Role::User && step.kind == StepKind::Message {
            self.task = Some(step.text.clone());
        }
        self.steps.push(step);
    }

    /// Whether the same message was already taken from its mirror record in this turn.
    fn is_mirror(&self, role: Role, text: &str) -> bool {
        let text = text.trim();
        // A mirror is written right next to its item: a short look back suffices (and keeps a
        // long rollout linear).
        self.steps
            .iter()
            .rev()
            .take(MIRROR_WINDOW)
            .take_while(|s| s.ids.turn_id == self.turn_id)
            .filter(|s| s.role == role && s.kind == StepKind::Message)
            .any(|s| s.text.trim() == text)
    }

    fn response_item(&mut self, p: &Map<String, Value>, pty: &str, base: Step) {
        match pty {
            "message" => {
                let role = match get_text(p, &["role"]).as_deref() {
                    Some("assistant") => Role::Assistant,
                    Some("user") => Role::User,
                    Some("developer") | Some("system") => Role::System,
                    _ => Role::Other,
                };
                let text = p.get("content").map(content_text).unwrap_or_default();
                if matches!(role, Role::User | Role::Assistant) && self.is_mirror(role, &text) {
                    return;
                }
                self.push(Step { role, text, ..base });
            }
            "reasoning" => {
                let mut text = p.get("summary").map(content_text).unwrap_or_default();
                if text.is_empty() {
                    text = p.get("content").map(content_text).unwrap_or_default();
                }
                let status = Some("reasoning".to_string());
                self.push(Step { role: Role::Assistant, text, status, ..base });
            }
            "function_call" | "custom_tool_call" | "local_shell_call" | "web_search_call"
            | "tool_search_call" => {
                let name = get_text(p, &["name"]).unwrap_or_else(|| match pty {
                    "local_shell_call" => "shell".to_string(),
                    "web_search_call" => "web_search".to_string(),
                    other => other.to_string(),
                });
                let args = call_args(p);
                let call_id = get_text(p, &["call_id", "id"]);
                if let Some(id) = &call_id {
                    self.calls.insert(id.clone(), name.clone());
                }
                let raw_refs = call_refs(p, &name, args.as_deref());
                let mut s = Step {
                    role: Role::Assistant,
                    kind: StepKind::Action,
                    artifact_refs: extract::refs(raw_refs, self.cwd.as_deref()),
                    tool: Some(name),
                    text: args.clone().unwrap_or_default(),
                    args,
                    status: get_text(p, &["status"]),
                    ..base
                };
                s.ids.action_id = call_id;
                self.push(s);
            }
            "function_call_output" | "custom_tool_call_output" | "local_shell_call_output" => {
                let call_id = get_text(p, &["call_id"]);
                let (text, mut exit_code) = output_text(p.get("output").unwrap_or(&Value::Null));
                let mut failed = false;
                if let Some((code, f)) = call_id.as_ref().and_then(|c| self.pending_exit.remove(c))
                {
                    exit_code = code.or(exit_code);
                    failed = f;
                }
                let mut s = Step {
                    role: Role::Tool,
                    kind: StepKind::Observation,
                    tool: call_id.as_ref().and_then(|c| self.calls.get(c)).cloned(),
                    text,
                    exit_code,
                    is_error: failed || exit_code.is_some_and(|c| c != 0),
                    ..base
                };
                s.ids.source_action_id = call_id.clone();
                if let Some(c) = call_id {
                    self.results.insert(c, self.steps.len());
                }
                self.push(s);
            }
            _ => {
                let text = content_text(&Value::Object(p.clone()));
                let status = Some(pty.to_string());
                self.push(Step { role: Role::Other, text, status, ..base });
            }
        }
    }

    fn event(&mut self, p: &Map<String, Value>, pty: &str, base: Step) {
        match pty {
            "user_message" | "agent_message" => {
                let role = if pty == "user_message" { Role::User } else { Role::Assistant };
                let text = get_text(p, &["message"]).unwrap_or_default();
                if !self.is_mirror(role, &text) {
                    self.push(Step { role, text, ..base });
                }
            }
            "exec_command_end" | "patch_apply_end" | "mcp_tool_call_end" => {
                let Some(call_id) = get_text(p, &["call_id"]) else { return };
                let code = get(p, &["exit_code"]).and_then(value_i64);
                let failed = matches!(p.get("success"), Some(Value::Bool(false)))
                    || code.is_some_and(|c| c != 0);
                match self.results.get(&call_id).and_then(|&i| self.steps.get_mut(i)) {
                    Some(s) => {
                        s.exit_code = code.or(s.exit_code);
                        s.is_error |= failed;
                    }
                    None => {
                        self.pending_exit.insert(call_id, (code, failed));
                    }
                }
            }
            "task_complete" => {
                if let Some(m) = get_text(p, &["last_agent_message"]) {
                    self.final_answer = Some(m);
                }
            }
            "error" | "stream_error" | "turn_aborted" => {
                let text = get_text(p, &["message", "reason"]).unwrap_or_default();
                let status = Some(pty.to_string());
                self.push(Step { role: Role::System, text, is_error: true, status, ..base });
            }
            _ => {} // token counts, task start, reasoning deltas: bookkeeping
        }
    }
}

/// What a call acts on: the files of an `apply_patch` patch, the files a shell command writes,
/// else the file arguments.
fn call_refs(p: &Map<String, Value>, name: &str, command: Option<&str>) -> Vec<String> {
    let input = get(p, &["arguments", "input", "action"]).map(extract::parse_args);
    if name == "apply_patch" {
        let patch = match (get(p, &["input"]), &input) {
            (Some(Value::String(s)), _) => Some(s.clone()),
            (_, Some(v)) => v.as_object().and_then(|o| get_text(o, &["input", "patch"])),
            _ => None,
        };
        return patch.map(|t| extract::patch_files(&t)).unwrap_or_default();
    }
    if extract::is_shell_tool(name)
        || p.get("type").and_then(Value::as_str) == Some("local_shell_call")
    {
        return command.map(extract::shell_writes).unwrap_or_default();
    }
    input.map(|i| extract::file_args(&i)).unwrap_or_default()
}

/// The command or arguments of a call: the `cmd` / `command` of a shell call, else the text.
fn call_args(p: &Map<String, Value>) -> Option<String> {
    let raw = get(p, &["arguments", "input", "action"])?;
    let parsed;
    let v = match raw {
        Value::String(s) => match serde_json::from_str::<Value>(s) {
            Ok(v @ Value::Object(_)) => {
                parsed = v;
                &parsed
            }
            _ => return Some(s.clone()),
        },
        other => other,
    };
    let command = v.get("cmd").or_else(|| v.get("command")).or_else(|| v.get("query"));
    Some(match command {
        Some(Value::String(c)) => c.clone(),
        Some(Value::Array(parts)) => {
            let parts: Vec<String> = parts.iter().map(value_text).collect();
            parts.join(" ")
        }
        _ => match raw {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        },
    })
}

/// The output text and exit code of a call output.
fn output_text(v: &Value) -> (String, Option<i64>) {
    let text = match v {
        Value::String(s) => s.clone(),
        other => content_text(other),
    };
    // Older rollouts: `{"output": "...", "metadata": {"exit_code": 0}}` as a string.
    if let Ok(Value::Object(o)) = serde_json::from_str::<Value>(&text) {
        if let Some(out) = o.get("output") {
            let code = o.get("metadata").and_then(|m| m.get("exit_code")).and_then(value_i64);
            return (value_text(out), code);
        }
    }
    let code = text.lines().take(6).find_map(|l| {
        l.trim().strip_prefix("Process exited with code ").and_then(|c| c.trim().parse().ok())
    });
    (text, code)
}
