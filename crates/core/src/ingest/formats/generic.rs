//! The fallback for any JSONL of objects: best-effort role / content / error fields. Every
//! object line becomes one step of a single trajectory.

use serde_json::{Map, Value};

use super::{get, get_text, parse_object, value_i64, JsonlAdapter};
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
    let text = get_text(o, &["content", "text", "message", "output", "summary"])
        .unwrap_or_else(|| Value::Object(o.clone()).to_string());
    Step {
        index,
        loc,
        actor: get_text(o, &["name", "agent", "actor"]).unwrap_or_default(),
        role,
        kind: if role == Role::Tool { StepKind::Observation } else { StepKind::Message },
        text,
        tool: get_text(o, &["tool", "tool_name", "toolName"]),
        exit_code,
        is_error,
        timestamp: get_text(o, &["timestamp", "ts", "time"]),
        ingest_seq,
        ..Step::default()
    }
}
