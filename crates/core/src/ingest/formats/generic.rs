//! The fallback for any JSONL of objects: best-effort role / content / error fields. Every
//! object line becomes one step of a single trajectory.

use serde_json::{Map, Value};

use super::{get, get_text, parse_object, value_i64, JsonlAdapter};
use crate::artifact::extract;
use crate::model::{Format, Role, SourceLoc, Step, StepKind, Trajectory};

pub struct Generic {
    format: Format,
    steps: Vec<Step>,
}

impl Generic {
    pub fn new(format: Format) -> Generic {
        Generic { format, steps: Vec::new() }
    }
}

impl JsonlAdapter for Generic {
    fn push_line(&mut self, line: &str, loc: SourceLoc, ingest_seq: u64) -> Result<(), String> {
        let o = parse_object(line)?;
        let index = self.steps.len() as u32;
        self.steps.push(generic_step(&o, index, loc, ingest_seq));
        Ok(())
    }

    fn finish(self: Box<Self>) -> Vec<Trajectory> {
        if self.steps.is_empty() {
            return Vec::new();
        }
        vec![Trajectory {
            id: format!("{}-1", self.format),
            steps: self.steps,
            ..Trajectory::default()
        }]
    }

    /// The file's one trajectory as read so far (its first `max_steps` steps): a file of
    /// messages has no end marker, so this is what the app shows while the rest is read.
    fn snapshot_first(&self, max_steps: usize) -> Option<Trajectory> {
        (!self.steps.is_empty()).then(|| Trajectory {
            id: format!("{}-1", self.format),
            steps: self.steps[..self.steps.len().min(max_steps)].to_vec(),
            ..Trajectory::default()
        })
    }
}

/// Whether a tool's reply says it failed: it opens with `Error:` / `ERROR:` / `error:` (or
/// `Error -`), or a line of it starts a Python traceback (a program that printed, then
/// crashed). Otherwise only the opening is read: an output that mentions an error further
/// down is a report, not a failure of the call.
fn says_it_failed(text: &str) -> bool {
    let t = text.trim_start();
    match t.get(..5) {
        Some(word) if word.eq_ignore_ascii_case("error") => {
            t[5..].trim_start_matches(' ').starts_with([':', '-'])
        }
        // A Python crash, also after what the program printed before it.
        _ => t.lines().any(|l| l.starts_with("Traceback (most recent call last)")),
    }
}

/// A step from an object of unknown shape.
pub fn generic_step(o: &Map<String, Value>, index: u32, loc: SourceLoc, ingest_seq: u64) -> Step {
    let role = match get(o, &["role", "type", "source"]).and_then(Value::as_str).unwrap_or("") {
        "system" => Role::System,
        "user" | "human" => Role::User,
        "assistant" | "ai" | "agent" | "model" => Role::Assistant,
        "tool" | "function" | "observation" => Role::Tool,
        _ => Role::Other,
    };
    let exit_code = get(o, &["exit_code", "exitCode", "returncode"]).and_then(value_i64);
    let is_error = matches!(
        get(o, &["error", "is_error", "isError"]),
        Some(Value::Bool(true)) | Some(Value::String(_)) | Some(Value::Object(_))
    ) || exit_code.is_some_and(|c| c != 0);
    let mut text = get(o, &["content", "text", "message", "output", "summary"])
        .map(super::content_text)
        .unwrap_or_default();
    // A tool's reply that says it failed, when the message carries no error field (OpenAI-style
    // chat has none): `Error: …`, a Python traceback.
    let is_error = is_error || (role == Role::Tool && says_it_failed(&text));
    let mut step = Step {
        index,
        loc,
        actor: get_text(o, &["name", "agent", "actor"]).unwrap_or_default(),
        role,
        kind: if role == Role::Tool { StepKind::Observation } else { StepKind::Message },
        tool: get_text(o, &["tool", "tool_name", "toolName"]).map(Box::from),
        exit_code,
        is_error,
        timestamp: get_text(o, &["timestamp", "ts", "time"]).map(Box::from),
        ingest_seq,
        ..Step::default()
    };
    // OpenAI-style chat messages: `tool_calls` (or the older `function_call`) make an action;
    // a `tool` message answers its `tool_call_id`.
    let calls: Vec<&Map<String, Value>> = match get(o, &["tool_calls", "function_call"]) {
        Some(Value::Array(c)) => c.iter().filter_map(Value::as_object).collect(),
        Some(Value::Object(c)) => vec![c],
        _ => Vec::new(),
    };
    if !calls.is_empty() {
        let func = |c: &Map<String, Value>, k: &str| -> Option<String> {
            match c.get("function") {
                Some(Value::Object(f)) => get_text(f, &[k]),
                _ => get_text(c, &[k]),
            }
        };
        let names: Vec<String> = calls.iter().filter_map(|c| func(c, "name")).collect();
        let args: Vec<String> = calls.iter().filter_map(|c| func(c, "arguments")).collect();
        let ids: Vec<String> = calls.iter().filter_map(|c| get_text(c, &["id"])).collect();
        step.kind = StepKind::Action;
        // What the calls act on, and a shell call's command as its arguments (as the Codex
        // and mini-swe-agent adapters give it), so edits and the files they write are seen.
        let mut raw_refs = Vec::new();
        let mut commands = Vec::new();
        for (name, a) in names.iter().zip(&args) {
            let parsed = extract::parse_args(&Value::String(a.clone()));
            raw_refs.extend(extract::tool_call(name, &parsed));
            let command = match parsed.get("cmd").or_else(|| parsed.get("command")) {
                Some(Value::String(c)) => Some(c.clone()),
                Some(Value::Array(parts)) if parts.iter().all(Value::is_string) => {
                    Some(parts.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(" "))
                }
                _ => None,
            };
            if let Some(c) = command.filter(|_| extract::is_shell_tool(name)) {
                raw_refs.extend(extract::shell_writes(&c));
                commands.push(c);
            } else if name == "apply_patch" {
                let patch = match parsed.get("input").or_else(|| parsed.get("patch")) {
                    Some(Value::String(p)) => p.as_str(),
                    _ => a.as_str(),
                };
                raw_refs.extend(extract::patch_files(patch));
            }
        }
        step.artifact_refs = extract::refs(raw_refs, None);
        step.tool = Some(Box::from(names.join(",")));
        step.args = Some(match commands.len() == names.len() && names.len() == args.len() {
            true => commands.join("\n"),
            false => args.join("\n"),
        });
        step.ids.action_id = (!ids.is_empty()).then(|| ids.join(",")).map(Box::from);
        if text.is_empty() {
            text = super::calls_text(&names, &args);
        }
    }
    step.ids.source_action_id = get_text(o, &["tool_call_id"]).map(Box::from);
    if text.is_empty() && calls.is_empty() {
        text = Value::Object(o.clone()).to_string();
    }
    step.text = text;
    step
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(text: &str) -> Step {
        let o = serde_json::json!({"role": "tool", "tool_call_id": "c1", "content": text});
        generic_step(o.as_object().unwrap(), 0, SourceLoc::default(), 0)
    }

    #[test]
    fn a_tool_reply_that_opens_with_an_error_is_one() {
        for failed in [
            "Error: calculator unavailable",
            "  ERROR - timed out",
            "error : x",
            "Traceback (most recent call last):\n  File \"a.py\"",
        ] {
            assert!(reply(failed).is_error, "{failed}");
        }
        assert!(
            reply("step 1 ok\nTraceback (most recent call last):\n  File \"a.py\"\nValueError")
                .is_error
        );
        for fine in [
            "No errors found",
            "see the Traceback (most recent call last) docs",
            "Errors: 0",
            "3 passed",
            "errorless",
            "The error was fixed",
        ] {
            assert!(!reply(fine).is_error, "{fine}");
        }
        // Only a tool's reply: a user saying "Error: …" is no failed call.
        let o = serde_json::json!({"role": "user", "content": "Error: it broke"});
        assert!(!generic_step(o.as_object().unwrap(), 0, SourceLoc::default(), 0).is_error);
    }
}
