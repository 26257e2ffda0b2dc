//! Chat records: one conversation per record, the shape of most agent-trajectory datasets and
//! fine-tuning files. A record is an object with
//! - `messages`: OpenAI-style messages (`role`, `content` as text or parts, `tool_calls`, a
//!   `tool` reply's `tool_call_id`, an optional `name`), or
//! - `conversations`: ShareGPT-style turns (`from`: `system`, `human`, `gpt`, `function_call`,
//!   `observation`, ...; `value`), or
//! - `conversation`: messages as `messages` holds them (LMSYS-Chat-1M's rows; a Goose session
//!   export's, whose `content` blocks are `text`, `toolRequest`, `toolResponse`).
//!
//! A JSONL file of such records is read one trajectory per line; a single document may be one
//! record or a list of them. Each message becomes one step, read as the generic fallback reads
//! an OpenAI-style message (`generic::generic_step`). The trajectory id is the record's `id`,
//! `instance_id`, `task_id`, `conversation_id` or `uuid` (else the line, or the position in a
//! list); the task is the first user message; the final answer is the last assistant message
//! when it calls no tool. The outcome comes from a verdict the record carries, on the record or
//! in its `metadata` / `info`: a boolean `resolved`, `success`, `passed`, `is_correct` or
//! `correct` (`false` fails; `"true"` / `"false"` in any case read as booleans), else a numeric `reward` or `score` (full reward passes, less
//! fails); without one it is `unknown`.

use serde_json::{Map, Value};

use super::generic::generic_step;
use super::{as_object, get, get_text, json_kind, object_or, value_text};
use crate::model::{Outcome, SourceLoc, Step, StepKind, Trajectory, Usage};

/// Whether a JSON object is a chat record (used by format detection). A record whose
/// `response` is an object is a logged model call, its messages the request's (the generic
/// fallback's call reader).
pub fn is_record(o: &Map<String, Value>) -> bool {
    if o.get("response").is_some_and(Value::is_object) {
        return false;
    }
    let first = |key: &str| {
        o.get(key).and_then(Value::as_array).and_then(|a| a.first()).and_then(Value::as_object)
    };
    first("messages").is_some_and(|m| m.contains_key("role") || is_gemini_message(m))
        || first("conversations").is_some_and(|m| m.contains_key("from"))
        || first("conversation").is_some_and(|m| m.contains_key("role"))
}

/// A Gemini CLI session's message: a `type` of `user`, `gemini`, `info`, `warning` or `error`
/// and a `content`, no `role`.
pub(crate) fn is_gemini_message(m: &Map<String, Value>) -> bool {
    let ty = m.get("type").and_then(Value::as_str);
    matches!(ty, Some("user" | "gemini" | "info" | "warning" | "error"))
        && m.contains_key("content")
        && !m.contains_key("role")
}

/// One record, or a list of records (each one trajectory).
pub fn from_document(value: Value) -> Result<Vec<Trajectory>, String> {
    match value {
        Value::Array(records) => {
            records.into_iter().enumerate().map(|(i, r)| list_element(r, i)).collect()
        }
        other => {
            let o = as_object(&other, "the chat record")?;
            // A record read from a JSONL line gets the line's id from the ingest (empty here).
            Ok(vec![record(o, "$", String::new)?])
        }
    }
}

/// Element `i` of a list of records: named `chat-N` after its position when it has no id.
pub fn list_element(value: Value, i: usize) -> Result<Trajectory, String> {
    let o = object_or(&value, || format!("record [{i}]"))?;
    record(o, &format!("$[{i}]"), || format!("chat-{}", i + 1))
}

fn record(
    o: &Map<String, Value>,
    base: &str,
    fallback_id: impl FnOnce() -> String,
) -> Result<Trajectory, String> {
    // `conversation`: LMSYS-Chat-1M's, a Goose session export's, read as `messages` are.
    let listed = ["messages", "conversations", "conversation"].map(|k| (k, o.get(k)));
    let (key, messages) = match listed.iter().find(|(_, v)| matches!(v, Some(Value::Array(_)))) {
        Some((k, Some(Value::Array(m)))) => (*k, m),
        _ => match listed.iter().find_map(|(_, v)| *v) {
            Some(other) => {
                let kind = json_kind(other);
                return Err(format!("the chat record's messages are {kind}, not a list"));
            }
            None => return Err("the chat record has no `messages` list".to_string()),
        },
    };
    let mut steps = Vec::with_capacity(messages.len());
    for (i, m) in messages.iter().enumerate() {
        let m = object_or(m, || format!("{key}[{i}]"))?;
        let loc = SourceLoc { line: 0, offset: 0, path: format!("{base}.{key}[{i}]").into() };
        let index = steps.len() as u32;
        let step = match key {
            "conversations" => {
                let mut step = generic_step(&share_gpt(m), index, loc, 0);
                // A call's text as written (a re-serialised object would reorder its keys).
                if step.kind == StepKind::Action {
                    if let Some(Value::String(raw)) = get(m, &["value"]) {
                        step.args = Some(raw.clone());
                        step.text = raw.clone();
                    }
                }
                step
            }
            _ if is_gemini_message(m) => {
                steps.extend(gemini_steps(m, steps.len(), &loc, 0));
                continue;
            }
            _ => generic_step(m, index, loc, 0),
        };
        steps.push(step);
    }
    let id = get_text(o, &["id", "instance_id", "task_id", "conversation_id", "uuid", "sessionId"])
        .unwrap_or_else(fallback_id);
    Ok(super::settle(Trajectory { id, outcome: outcome(o), steps, ..Trajectory::default() }))
}

/// A ShareGPT turn as an OpenAI-style message: `from` read as the role, `value` as the content;
/// a `function_call` turn holds the call as JSON text (`{"name", "arguments"}`).
fn share_gpt(m: &Map<String, Value>) -> Map<String, Value> {
    let from = get(m, &["from", "role"]).and_then(Value::as_str).unwrap_or("");
    let value = get(m, &["value", "content"]).cloned().unwrap_or(Value::Null);
    let mut out = Map::new();
    let role = match from {
        "human" | "user" => "user",
        "gpt" | "assistant" | "chatgpt" | "bard" | "model" => "assistant",
        "system" => "system",
        "observation" | "tool" | "function" | "function_response" | "ipython" => "tool",
        "function_call" => {
            let call = match &value {
                Value::String(s) => crate::json::from_str::<Value>(s).ok(),
                other => Some(other.clone()),
            };
            if let Some(Value::Object(call)) = call {
                if let Some(name) = call.get("name").filter(|n| n.is_string()) {
                    let args = call.get("arguments").map(value_text).unwrap_or_default();
                    let mut function = Map::new();
                    function.insert("name".to_string(), name.clone());
                    function.insert("arguments".to_string(), Value::String(args));
                    out.insert(
                        "tool_calls".to_string(),
                        serde_json::json!([{ "function": function }]),
                    );
                }
            }
            "assistant"
        }
        other => other,
    };
    out.insert("role".to_string(), Value::String(role.to_string()));
    if !out.contains_key("tool_calls") {
        out.insert("content".to_string(), value);
    }
    if let Some(name) = m.get("name") {
        out.insert("name".to_string(), name.clone());
    }
    out
}

/// A Gemini CLI message (`type`: `user`, `gemini`, `info`, `warning`, `error`; `content`) as
/// OpenAI-style messages: a `gemini` message is the assistant's, its `toolCalls` (`id`, `name`,
/// `args`) its tool calls, each followed by a `tool` message of the call's result (its
/// `functionResponse`'s `output` or `error`, else `resultDisplay`) whose `status` says whether
/// it failed and whose `Exit Code:` line (a shell command's) is its exit code; an `error`
/// message is an error; its `thoughts` (`subject`: `description`, one a line) come first, a
/// step of the assistant's whose `status` is `thinking`. Other keys are kept as written. With
/// the messages, the index of the message itself (after its thoughts).
fn gemini(m: &Map<String, Value>) -> (Vec<Map<String, Value>>, usize) {
    let mut own = m.clone();
    let calls = match own.remove("toolCalls") {
        Some(Value::Array(calls)) => calls,
        _ => Vec::new(),
    };
    match m.get("type").and_then(Value::as_str) {
        Some("gemini") => own.insert("role".into(), "assistant".into()),
        Some("error") => own.insert("is_error".into(), true.into()),
        _ => None,
    };
    // `from`'s keys copied into `to` under new names.
    let copy = |to: &mut Map<String, Value>, from: &Map<String, Value>, keys: &[(&str, &str)]| {
        for &(new, old) in keys {
            if let Some(v) = from.get(old) {
                to.insert(new.into(), v.clone());
            }
        }
    };
    let calls: Vec<&Map<String, Value>> = calls.iter().filter_map(Value::as_object).collect();
    let mut out = Vec::with_capacity(calls.len() + 2);
    // The model's thoughts before it spoke (`subject`, `description`): a step of their own, as
    // a Claude Code `thinking` block is.
    let thoughts = match own.remove("thoughts") {
        Some(Value::Array(thoughts)) => thoughts,
        _ => Vec::new(),
    };
    let thought = |t: &Value| {
        let said = ["subject", "description"].map(|k| t.get(k).map(value_text).unwrap_or_default());
        let said: Vec<&str> = said.iter().map(|s| s.trim()).filter(|s| !s.is_empty()).collect();
        said.join(": ")
    };
    let text: Vec<String> = thoughts.iter().map(thought).filter(|t| !t.is_empty()).collect();
    if !text.is_empty() {
        let mut thinking = Map::new();
        thinking.insert("role".into(), "assistant".into());
        let first = thoughts.iter().find_map(|t| t.get("timestamp"));
        if let Some(at) = first.or_else(|| m.get("timestamp")) {
            thinking.insert("timestamp".into(), at.clone());
        }
        thinking.insert("content".into(), text.join("\n").into());
        out.push(thinking);
    }
    let message = out.len();
    if !calls.is_empty() {
        let asked = calls.iter().map(|c| {
            let mut call = Map::new();
            copy(&mut call, c, &[("id", "id"), ("name", "name"), ("arguments", "args")]);
            Value::Object(call)
        });
        own.insert("tool_calls".into(), asked.collect());
    }
    out.push(own);
    for c in calls {
        // The result: a list of Gemini API parts, each a `functionResponse` whose `response`
        // holds the tool's `output` (or its `error`).
        let parts = c.get("result").and_then(Value::as_array).map_or(&[][..], Vec::as_slice);
        let said: Vec<String> = parts
            .iter()
            .filter_map(|p| p.get("functionResponse")?.get("response"))
            .map(|r| value_text(r.get("output").or_else(|| r.get("error")).unwrap_or(r)))
            .collect();
        let text = match said.is_empty() {
            true => c.get("resultDisplay").map(value_text).unwrap_or_default(),
            false => said.join("\n"),
        };
        let mut reply = Map::new();
        reply.insert("role".into(), "tool".into());
        let keys = [
            ("tool_call_id", "id"),
            ("tool", "name"),
            ("status", "status"),
            ("timestamp", "timestamp"),
        ];
        copy(&mut reply, c, &keys);
        let code =
            text.lines().find_map(|l| l.strip_prefix("Exit Code: ")?.trim().parse::<i64>().ok());
        if let Some(code) = code {
            reply.insert("exit_code".into(), code.into());
        }
        reply.insert("content".into(), text.into());
        out.push(reply);
    }
    (out, message)
}

/// A Gemini CLI message's steps, numbered from `index`, all at `loc` (its path or line): the
/// message, then its calls' results ([`gemini`]); the message's `tokens` are its usage.
pub(crate) fn gemini_steps(
    m: &Map<String, Value>,
    index: usize,
    loc: &SourceLoc,
    ingest_seq: u64,
) -> Vec<Step> {
    let (said, message) = gemini(m);
    let said = said.into_iter().enumerate();
    let mut steps: Vec<Step> =
        said.map(|(i, m)| generic_step(&m, (index + i) as u32, loc.clone(), ingest_seq)).collect();
    steps[message].usage = gemini_usage(m);
    for thought in &mut steps[..message] {
        thought.status = Some("thinking".into());
    }
    steps
}

/// A Gemini CLI message's `tokens`: its `input`, `output` and `cached` counts (its `thoughts`
/// and `tool` counts are not read).
fn gemini_usage(m: &Map<String, Value>) -> Option<Box<Usage>> {
    let t = m.get("tokens")?;
    let tok = |k: &str| crate::usage::count(t.get(k));
    let usage = Usage {
        input_tokens: tok("input"),
        output_tokens: tok("output"),
        cache_read_tokens: tok("cached"),
        ..Usage::default()
    };
    usage.non_empty()
}

/// The verdict a record carries, on itself or in its `metadata` / `info`.
fn outcome(o: &Map<String, Value>) -> Outcome {
    let inner = |key: &str| get(o, &[key]).and_then(Value::as_object);
    super::verdict([Some(o), inner("metadata"), inner("info")].into_iter().flatten())
}
