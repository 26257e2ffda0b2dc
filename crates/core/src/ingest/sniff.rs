//! Format detection from content (never from a file name).

use std::borrow::Cow;

use serde_json::Value;

use crate::model::{Format, StepKind};

/// Keys only AWTL events carry (snake_case and camelCase).
const AWTL_KEYS: [&str; 12] = [
    "run_id",
    "runId",
    "span_id",
    "spanId",
    "turn_id",
    "turnId",
    "action_id",
    "actionId",
    "writer_seq",
    "writerSeq",
    "attempt_id",
    "attemptId",
];

/// The JSONL format a parsed line (an object) belongs to.
pub fn sniff_jsonl_line(v: &Value) -> Format {
    let Some(o) = v.as_object() else { return Format::Generic };
    let ty = o.get("type").and_then(Value::as_str).unwrap_or("");
    if o.contains_key("resourceSpans") {
        return Format::Otel;
    }
    if super::formats::openai_agents::is_export(o) {
        return Format::OpenaiAgents;
    }
    // One LangSmith run a line: its runs are grouped by trace at the end.
    if super::formats::langsmith::is_run(o) {
        return Format::Langsmith;
    }
    // One Langfuse observation a line: the same.
    if super::formats::langfuse::is_observation(o) {
        return Format::Langfuse;
    }
    if matches!(ty, "session_meta" | "turn_context" | "response_item" | "event_msg" | "compacted")
        && o.contains_key("payload")
    {
        return Format::Codex;
    }
    // `codex exec --json`: a thread's first line, or any line of an item.
    if (ty == "thread.started" && o.contains_key("thread_id"))
        || (ty.starts_with("item.") && o.get("item").is_some_and(|i| i.get("type").is_some()))
    {
        return Format::Codex;
    }
    // A `sessionId` is Claude Code's beside the fields its lines carry: a Gemini CLI session
    // (its `sessionId` and `messages`, or its first line, the session's `sessionId` and
    // `projectHash`) and a Langfuse trace (`sessionId`, `observations`) are not Claude Code's.
    let claude_fields = ["uuid", "message", "cwd", "isSidechain", "userType"];
    let gemini = o.contains_key("projectHash") || super::formats::chat::is_record(o);
    if (o.contains_key("sessionId") && !gemini && claude_fields.iter().any(|k| o.contains_key(*k)))
        || o.contains_key("parentUuid")
        || (matches!(ty, "user" | "assistant" | "summary" | "system") && o.contains_key("uuid"))
        || (ty == "summary" && o.contains_key("leafUuid"))
        || (ty == "file-history-snapshot" && o.contains_key("snapshot"))
        || (ty == "queue-operation" && o.contains_key("operation"))
        || (o.contains_key("session_id") && headless_claude_code(ty, o))
    {
        return Format::ClaudeCode;
    }
    // `message` alone is too common a type word: an AWTL message line also carries AWTL ids.
    // AWTL's event types are the canonical step kinds' names.
    let ty = snake_case(ty);
    if StepKind::NAMES.contains(&ty.as_ref())
        && (ty != "message" || AWTL_KEYS.iter().any(|k| o.contains_key(*k)))
    {
        return Format::Awtl;
    }
    // A smolagents memory step, when no format above claims the object (natively only: the web
    // build has no room for its reader and reads it with the generic fallback; docs/formats.md).
    #[cfg(not(target_arch = "wasm32"))]
    if super::formats::smolagents::is_step(o) {
        return Format::Smolagents;
    }
    Format::Generic
}

/// A line of a headless Claude Code run's stream (`claude -p --output-format stream-json`, or the
/// Agent SDK's messages written out), which names its session `session_id`: a message in the
/// Anthropic shape (`message` with a `role`), or the run's `init` or `result` line (a `subtype`).
fn headless_claude_code(ty: &str, o: &serde_json::Map<String, Value>) -> bool {
    match ty {
        "user" | "assistant" => o.get("message").is_some_and(|m| m.get("role").is_some()),
        "system" | "result" => o.contains_key("subtype"),
        _ => false,
    }
}

/// The single-document format a parsed JSON value has, if any. Also used for a record-per-line
/// file (each line one such document).
pub fn sniff_document(v: &Value) -> Option<Format> {
    match v {
        Value::Object(o) => {
            // SWE-agent files also carry a `history` (the model's message list): check first.
            if o.get("trajectory").is_some_and(Value::is_array) {
                return Some(Format::SweAgent);
            }
            if let Some(Value::Array(events)) = o.get("history") {
                // OpenHands evaluation output keeps its event list under `history` too.
                if events.first().and_then(Value::as_object).is_some_and(is_openhands_event) {
                    return Some(Format::Openhands);
                }
                return Some(Format::WhoAndWhen);
            }
            if o.get("messages").is_some_and(Value::is_array)
                && o.get("metadata").and_then(|m| m.get("annotation")).is_some()
            {
                return Some(Format::Trajerrbench);
            }
            if super::formats::atif::is_trajectory(o) {
                return Some(Format::Atif);
            }
            if super::formats::langfuse::is_trace(o) {
                return Some(Format::Langfuse);
            }
            #[cfg(not(target_arch = "wasm32"))]
            if super::formats::smolagents::is_run_result(o) {
                return Some(Format::Smolagents);
            }
            if o.get("simulations").is_some_and(Value::is_array) {
                return Some(Format::Tau2);
            }
            if o.get("messages").is_some_and(Value::is_array) && o.contains_key("info") {
                return Some(Format::MiniSweAgent);
            }
            if super::formats::chat::is_record(o) {
                return Some(Format::Chat);
            }
            if super::formats::openai_agents::is_export(o) {
                return Some(Format::OpenaiAgents);
            }
            if o.contains_key("eval") && (o.contains_key("samples") || o.contains_key("version")) {
                return Some(Format::Inspect);
            }
            if o.get("post").is_some_and(Value::is_array)
                || o.get("patch").is_some_and(Value::is_array)
            {
                return Some(Format::Langsmith);
            }
            // One run tree (a run with its `child_runs` nested).
            if super::formats::langsmith::is_run(o) {
                return Some(Format::Langsmith);
            }
            None
        }
        Value::Array(items) => {
            let first = items.first()?.as_object()?;
            if is_openhands_event(first) {
                return Some(Format::Openhands);
            }
            if super::formats::langfuse::is_trace(first)
                || super::formats::langfuse::is_observation(first)
            {
                return Some(Format::Langfuse);
            }
            if super::formats::langsmith::is_run(first) {
                return Some(Format::Langsmith);
            }
            if super::formats::chat::is_record(first) {
                return Some(Format::Chat);
            }
            if super::formats::openai_agents::is_export(first) {
                return Some(Format::OpenaiAgents);
            }
            if first.contains_key("role") && first.contains_key("content") {
                return Some(Format::MiniSweAgent);
            }
            None
        }
        _ => None,
    }
}

pub(crate) fn is_openhands_event(o: &serde_json::Map<String, Value>) -> bool {
    o.contains_key("source") && (o.contains_key("action") || o.contains_key("observation"))
}

/// A camelCase type word in snake_case (`judgeResult` → `judge_result`), as the AWTL adapter
/// accepts both.
fn snake_case(ty: &str) -> Cow<'_, str> {
    if !ty.bytes().any(|b| b.is_ascii_uppercase()) {
        return Cow::Borrowed(ty);
    }
    let mut out = String::with_capacity(ty.len() + 4);
    for c in ty.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}
