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
//! Usage: `token_count` events carry the session's cumulative `total_token_usage`; each event's
//! increase over the previous one (the same totals are often written twice) goes on the latest
//! assistant step, so the steps add up to the last cumulative count. `input_tokens` includes
//! the cached part (`cached_input_tokens`, kept as cache reads).
//!
//! The outcome is the way the last turn ended: failed after an `error` event or a `turn_aborted`
//! (reason `interrupted`, or none) with no `task_complete` or new turn after it; otherwise
//! unknown (`task_complete` only says the agent stopped).
//!
//! `codex exec --json` writes another stream, read by the same reader: `thread.started` (its
//! `thread_id` is the run id), `turn.started` / `turn.completed` (the turn's `usage`, on its
//! latest assistant step) / `turn.failed` (an error step; the outcome is failed), `error`, and
//! `item.started` / `item.updated` / `item.completed` of an `item`: an `agent_message` (the last
//! is the final answer), `reasoning`, a `command_execution` (an action and its output), a
//! `file_change`, an `mcp_tool_call` (an action and its result or error), a `web_search`, a
//! `todo_list`, an `error`. An item's steps are put where it started and replaced by its later
//! states, so a stream cut mid-command keeps the command, `in_progress`. Native builds only (the
//! web bundle has no room for it: docs/formats.md); the web build reads such a file with the
//! generic fallback, one step a line.
//!
//! Exit codes also come from the output text (`Process exited with code N`, or the older JSON
//! output `{"output": ..., "metadata": {"exit_code": N}}`).

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::{content_text, get, get_text, parse_object, value_i64, value_text, JsonlAdapter};
use crate::artifact::extract;
use crate::model::{Outcome, Role, SourceLoc, Step, StepIds, StepKind, Trajectory, Usage};
use crate::usage::count;

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
    /// The last cumulative `total_token_usage` read.
    usage_total: Option<Usage>,
    /// Usage read before any step it could go on.
    usage_pending: Option<Usage>,
    /// How the latest turn ended: failed by an `error` event or a user's interruption
    /// (`turn_aborted`), `Unknown` after `task_complete` or once a new turn starts.
    last_turn: Outcome,
    /// The session's working directory (`session_meta` / `turn_context` `cwd`): the trace root.
    cwd: Option<String>,
    /// `codex exec --json`: an item's id → where its steps start (an action's result, when it
    /// has one, is the step after it, naming the item as its source).
    items: HashMap<String, usize>,
    /// `codex exec --json`: the turns started.
    turns: u32,
}

impl JsonlAdapter for Codex {
    fn push_line(&mut self, line: &str, loc: SourceLoc, ingest_seq: u64) -> Result<(), String> {
        let o = parse_object(line)?;
        let ty = get(&o, &["type"]).and_then(Value::as_str).unwrap_or("").to_string();
        if !o.contains_key("payload") && (ty.contains('.') || ty == "error") {
            self.exec_event(&o, &ty, loc, ingest_seq);
            return Ok(());
        }
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
        if pty == "task_started" {
            self.last_turn = Outcome::Unknown;
        }
        let mut base = self.base(loc, ingest_seq);
        base.timestamp = get_text(&o, &["timestamp"]).map(Box::from);
        match (ty.as_str(), pty.as_str()) {
            ("session_meta", _) => {
                self.run_id = get_text(p, &["id"]).or(self.run_id.take());
                let text = get(p, &["base_instructions"])
                    .map(content_text)
                    .or_else(|| get_text(p, &["instructions"]))
                    .unwrap_or_default();
                let mut s = Step { role: Role::System, kind: StepKind::RunStart, text, ..base };
                s.ids.run_id = self.run_id.as_deref().map(Box::from);
                s.status = get_text(p, &["originator"]).map(Box::from);
                self.push(s);
            }
            ("turn_context", _) => {}
            ("compacted", _) => {
                let text = get_text(p, &["message"]).unwrap_or_default();
                let status = Some("compacted".to_string());
                self.push(Step { role: Role::System, text, status: status.map(Box::from), ..base });
            }
            ("response_item", _) => self.response_item(p, &pty, base),
            ("event_msg", _) => self.event(p, &pty, base),
            // A record type this reader does not know (newer versions add some): kept visible.
            (other, _) => {
                let text = crate::json::to_text(&Value::Object(p.clone()));
                let status = Some(other.to_string());
                self.push(Step { role: Role::Other, text, status: status.map(Box::from), ..base });
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
            outcome: self.last_turn,
            task: self.task,
            final_answer: self.final_answer,
            steps,
            ..Trajectory::default()
        }]
    }

    /// The file is one session, ending only with the file: a copy of it as read so far, its
    /// first steps numbered from 0, its id, task, answer and outcome as far as read.
    /// Provisional: an observation's exit code (`exec_command_end`) and usage that come later,
    /// a later `session_meta`'s id, are only in the trajectory the file ends with.
    fn snapshot_first(&self, max_steps: usize) -> Option<Trajectory> {
        if self.steps.is_empty() {
            return None;
        }
        let mut steps = self.steps[..self.steps.len().min(max_steps)].to_vec();
        for (i, s) in steps.iter_mut().enumerate() {
            s.index = i as u32;
        }
        Some(Trajectory {
            id: self.run_id.clone().unwrap_or_else(|| "codex-1".to_string()),
            outcome: self.last_turn,
            task: self.task.clone(),
            final_answer: self.final_answer.clone(),
            steps,
            ..Trajectory::default()
        })
    }
}

impl Codex {
    /// A step of the line at `loc`, in the run and turn read so far.
    fn base(&self, loc: SourceLoc, ingest_seq: u64) -> Step {
        Step {
            loc,
            ingest_seq,
            ids: StepIds {
                run_id: self.run_id.as_deref().map(Box::from),
                turn_id: self.turn_id.as_deref().map(Box::from),
                ..StepIds::default()
            },
            ..Step::default()
        }
    }

    fn push(&mut self, mut step: Step) {
        if let Some(u) = self.usage_pending.take() {
            step.usage = Some(Box::new(u));
        }
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
            .take_while(|s| s.ids.turn_id.as_deref() == self.turn_id.as_deref())
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
                self.push(Step {
                    role: Role::Assistant,
                    text,
                    status: status.map(Box::from),
                    ..base
                });
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
                    tool: Some(name.into()),
                    text: args.clone().unwrap_or_default(),
                    args,
                    status: get_text(p, &["status"]).map(Box::from),
                    ..base
                };
                s.ids.action_id = call_id.map(Box::from);
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
                    tool: call_id.as_ref().and_then(|c| self.calls.get(c)).cloned().map(Box::from),
                    text,
                    exit_code,
                    is_error: failed || exit_code.is_some_and(|c| c != 0),
                    ..base
                };
                s.ids.source_action_id = call_id.clone().map(Box::from);
                if let Some(c) = call_id {
                    self.results.insert(c, self.steps.len());
                }
                self.push(s);
            }
            _ => {
                let text = content_text(&Value::Object(p.clone()));
                let status = Some(pty.to_string());
                self.push(Step { role: Role::Other, text, status: status.map(Box::from), ..base });
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
                self.last_turn = Outcome::Unknown;
                if let Some(m) = get_text(p, &["last_agent_message"]) {
                    self.final_answer = Some(m);
                }
            }
            "error" | "stream_error" | "turn_aborted" => {
                let text = get_text(p, &["message", "reason"]).unwrap_or_default();
                // A stream error is retried; a turn aborted to be replaced or at the end of a
                // review goes on elsewhere. An error or an interruption ends the turn failed.
                let reason = get_text(p, &["reason"]);
                if pty == "error"
                    || (pty == "turn_aborted"
                        && reason.as_deref().is_none_or(|r| r.eq_ignore_ascii_case("interrupted")))
                {
                    self.last_turn = Outcome::Failed;
                }
                let status = Some(pty.to_string());
                self.push(Step {
                    role: Role::System,
                    text,
                    is_error: true,
                    status: status.map(Box::from),
                    ..base
                });
            }
            "token_count" => self.token_count(p),
            _ => {} // task start, reasoning deltas: bookkeeping
        }
    }

    /// A `token_count` event: the increase of the cumulative totals since the previous one
    /// (or, without totals, the event's `last_token_usage`) goes on the latest assistant step.
    fn token_count(&mut self, p: &Map<String, Value>) {
        let Some(info) = p.get("info").and_then(Value::as_object) else { return };
        let read = |k: &str| info.get(k).and_then(Value::as_object).map(codex_usage);
        let delta = match read("total_token_usage") {
            Some(total) => {
                let delta = match &self.usage_total {
                    Some(prev) => minus(&total, prev).or_else(|| read("last_token_usage")),
                    None => Some(total.clone()),
                };
                self.usage_total = Some(total);
                delta
            }
            None => read("last_token_usage"),
        };
        let Some(delta) = delta.filter(|d| {
            [d.input_tokens, d.output_tokens, d.cache_read_tokens, d.cache_write_tokens]
                .iter()
                .any(|v| v.is_some_and(|n| n > 0))
        }) else {
            return;
        };
        self.add_usage(&delta);
    }

    /// Usage on the latest assistant step (else the latest step, else the next one).
    fn add_usage(&mut self, delta: &Usage) {
        let target = self.steps.iter().rposition(|s| s.role == Role::Assistant);
        match target.or(self.steps.len().checked_sub(1)) {
            Some(i) => self.steps[i].usage.get_or_insert_with(Box::default).add(delta),
            None => self.usage_pending.get_or_insert_with(Usage::default).add(delta),
        }
    }

    /// A line of `codex exec --json` (see the module's notes).
    fn exec_event(&mut self, o: &Map<String, Value>, ty: &str, loc: SourceLoc, ingest_seq: u64) {
        let base = self.base(loc, ingest_seq);
        let error = |text: String, status: &str| Step {
            role: Role::System,
            text,
            is_error: true,
            status: Some(status.into()),
            ..base.clone()
        };
        match ty {
            "thread.started" => self.run_id = get_text(o, &["thread_id"]).or(self.run_id.take()),
            "turn.started" => {
                self.turns += 1;
                self.turn_id = Some(format!("turn-{}", self.turns));
                self.last_turn = Outcome::Unknown;
            }
            "turn.completed" => {
                if let Some(u) = o.get("usage").and_then(Value::as_object) {
                    self.add_usage(&codex_usage(u));
                }
            }
            "turn.failed" | "error" => {
                let e = o.get("error").and_then(Value::as_object).unwrap_or(o);
                let text = get_text(e, &["message"]).unwrap_or_default();
                // A turn failed by the error just written is one error, not two.
                if self.steps.last().is_none_or(|s| !s.is_error || s.text != text) {
                    self.push(error(text, ty));
                }
                self.last_turn = Outcome::Failed;
            }
            _ => {
                let Some(item) = o.get("item").and_then(Value::as_object) else {
                    // A type this reader does not know (newer versions add some): kept visible.
                    let text = crate::json::to_text(&Value::Object(o.clone()));
                    return self.push(Step {
                        role: Role::Other,
                        text,
                        status: Some(ty.into()),
                        ..base
                    });
                };
                let steps = self.exec_item(item, base);
                // An item without an id is its own: never replaced by another.
                let id = get_text(item, &["id"]);
                let had = |at: usize| {
                    let result =
                        self.steps.get(at + 1).and_then(|s| s.ids.source_action_id.as_deref());
                    1 + usize::from(result == id.as_deref())
                };
                match id.as_ref().and_then(|id| self.items.get(id)).copied() {
                    Some(at) if had(at) == steps.len() => {
                        for (k, mut step) in steps.into_iter().enumerate() {
                            let old = &mut self.steps[at + k];
                            step.usage = step.usage.or(old.usage.take());
                            *old = step;
                        }
                    }
                    _ => {
                        if let Some(id) = id {
                            self.items.insert(id, self.steps.len());
                        }
                        for step in steps {
                            self.push(step);
                        }
                    }
                }
            }
        }
    }

    /// An exec item's steps (an action and its result for a command or an MCP call).
    fn exec_item(&mut self, item: &Map<String, Value>, base: Step) -> Vec<Step> {
        let ity = get_text(item, &["type"]).unwrap_or_default();
        let status = get_text(item, &["status"]);
        let failed = status.as_deref() == Some("failed");
        let text = |k: &str| item.get(k).map(value_text).unwrap_or_default();
        let mut said =
            Step { role: Role::Assistant, status: status.as_deref().map(Box::from), ..base };
        match ity.as_str() {
            "agent_message" => {
                said.text = text("text");
                self.final_answer = Some(said.text.clone());
            }
            "reasoning" => {
                said.text = text("text");
                said.status = Some("reasoning".into());
            }
            "todo_list" => {
                let items = item.get("items").and_then(Value::as_array).map_or(&[][..], |v| v);
                let line = |t: &Value| {
                    let done = t.get("completed").and_then(Value::as_bool) == Some(true);
                    format!(
                        "[{}] {}",
                        if done { "x" } else { " " },
                        t.get("text").map(value_text).unwrap_or_default()
                    )
                };
                said.text = items.iter().map(line).collect::<Vec<_>>().join("\n");
                said.status = Some("plan".into());
            }
            "error" => {
                said = Step { role: Role::System, text: text("message"), is_error: true, ..said };
            }
            "command_execution" | "mcp_tool_call" | "file_change" | "web_search" => {
                let mcp = ity == "mcp_tool_call";
                let (tool, args, raw_refs) = match ity.as_str() {
                    "command_execution" => {
                        let command = text("command");
                        ("shell".to_string(), command.clone(), extract::shell_writes(&command))
                    }
                    "file_change" => {
                        let changes =
                            item.get("changes").and_then(Value::as_array).map_or(&[][..], |v| v);
                        let paths: Vec<String> =
                            changes.iter().filter_map(|c| c.get("path")).map(value_text).collect();
                        let kinds = changes
                            .iter()
                            .map(|c| c.get("kind").map(value_text).unwrap_or_default());
                        let lines: Vec<String> =
                            kinds.zip(&paths).map(|(k, p)| format!("{k} {p}")).collect();
                        ("apply_patch".to_string(), lines.join("\n"), paths)
                    }
                    "web_search" => ("web_search".to_string(), text("query"), Vec::new()),
                    _ => {
                        let name =
                            [text("server"), text("tool")].into_iter().filter(|t| !t.is_empty());
                        let args = item.get("arguments").map(extract::parse_args);
                        let refs = args.as_ref().map(extract::file_args).unwrap_or_default();
                        (
                            name.collect::<Vec<_>>().join("."),
                            args.map(|a| value_text(&a)).unwrap_or_default(),
                            refs,
                        )
                    }
                };
                let id = get_text(item, &["id"]).map(Box::<str>::from);
                let mut call = Step {
                    kind: StepKind::Action,
                    tool: Some(tool.as_str().into()),
                    text: args.clone(),
                    args: Some(args),
                    artifact_refs: extract::refs(raw_refs, self.cwd.as_deref()),
                    is_error: failed && ity == "file_change",
                    ..said
                };
                call.ids.action_id = id.clone();
                if !matches!(ity.as_str(), "command_execution" | "mcp_tool_call") {
                    return vec![call];
                }
                let exit_code = item.get("exit_code").and_then(value_i64);
                let out = match mcp {
                    true => match item.get("error").and_then(|e| e.get("message")) {
                        Some(m) => value_text(m),
                        None => item
                            .get("result")
                            .and_then(|r| r.get("content"))
                            .map(content_text)
                            .unwrap_or_default(),
                    },
                    false => text("aggregated_output"),
                };
                let mut result = Step {
                    role: Role::Tool,
                    kind: StepKind::Observation,
                    text: out,
                    exit_code,
                    is_error: failed || exit_code.is_some_and(|c| c != 0),
                    ..call.clone()
                };
                (result.args, result.artifact_refs) = (None, Vec::new());
                result.ids.action_id = None;
                result.ids.source_action_id = id;
                return vec![call, result];
            }
            _ => {
                said = Step {
                    role: Role::Other,
                    text: crate::json::to_text(&Value::Object(item.clone())),
                    ..said
                };
                said.status = Some(ity.into());
            }
        }
        vec![said]
    }
}

/// Codex token names as [`Usage`].
fn codex_usage(o: &Map<String, Value>) -> Usage {
    Usage {
        input_tokens: count(o.get("input_tokens")),
        output_tokens: count(o.get("output_tokens")),
        cache_read_tokens: count(o.get("cached_input_tokens")),
        cache_write_tokens: count(o.get("cache_write_input_tokens")),
        ..Usage::default()
    }
}

/// `total − prev` field by field; `None` when a count went down (the totals were reset).
fn minus(total: &Usage, prev: &Usage) -> Option<Usage> {
    fn sub(t: Option<u64>, p: Option<u64>) -> Result<Option<u64>, ()> {
        match (t, p) {
            (Some(t), Some(p)) if t >= p => Ok(Some(t - p)),
            (Some(_), Some(_)) => Err(()),
            (t, _) => Ok(t),
        }
    }
    Some(Usage {
        input_tokens: sub(total.input_tokens, prev.input_tokens).ok()?,
        output_tokens: sub(total.output_tokens, prev.output_tokens).ok()?,
        cache_read_tokens: sub(total.cache_read_tokens, prev.cache_read_tokens).ok()?,
        cache_write_tokens: sub(total.cache_write_tokens, prev.cache_write_tokens).ok()?,
        ..Usage::default()
    })
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
        Value::String(s) => match crate::json::from_str::<Value>(s) {
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
            other => crate::json::to_text(other),
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
    if let Ok(Value::Object(o)) = crate::json::from_str::<Value>(&text) {
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

#[cfg(test)]
mod usage_tests {
    use super::*;

    #[test]
    fn repeated_and_growing_token_counts_add_up_to_the_last_total() {
        let tc = |i: u64, c: u64, o: u64| {
            format!(
                r#"{{"type":"event_msg","payload":{{"type":"token_count","info":{{"total_token_usage":{{"input_tokens":{i},"cached_input_tokens":{c},"output_tokens":{o}}}}}}}}}"#
            )
        };
        let msg = |t: &str| {
            format!(
                r#"{{"type":"response_item","payload":{{"type":"message","role":"assistant","content":[{{"type":"output_text","text":"{t}"}}]}}}}"#
            )
        };
        let lines = [msg("a"), tc(100, 0, 10), tc(100, 0, 10), msg("b"), tc(250, 80, 30)];
        let mut a: Box<Codex> = Box::default();
        for (i, l) in lines.iter().enumerate() {
            a.push_line(l, SourceLoc::default(), i as u64).unwrap();
        }
        let t = a.finish().remove(0);
        type Counts = (Option<u64>, Option<u64>, Option<u64>);
        let per_step: Vec<Option<Counts>> = t
            .steps
            .iter()
            .map(|s| {
                s.usage.as_ref().map(|u| (u.input_tokens, u.cache_read_tokens, u.output_tokens))
            })
            .collect();
        assert_eq!(
            per_step,
            [Some((Some(100), Some(0), Some(10))), Some((Some(150), Some(80), Some(20)))]
        );
    }
}
