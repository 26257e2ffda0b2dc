//! OpenTelemetry traces as OTLP JSON, one `TracesData` per line (the file exporter's JSON
//! Lines): `{"resourceSpans": [{"resource", "scopeSpans": [{"scope", "spans": [...]}]}]}`,
//! read with the GenAI semantic conventions (`gen_ai.*` attributes). A span's
//! `gen_ai.usage.*` tokens and its end − start time are the step's usage.
//!
//! Spans are grouped into one trajectory per `traceId` and ordered by `startTimeUnixNano`
//! (arrival order for ties). One step per span:
//! - inference (`gen_ai.operation.name` = `chat`, `text_completion`, `generate_content`): the
//!   model's reply from `gen_ai.output.messages`; an action when it holds `tool_call` parts;
//! - `execute_tool`: the tool's execution, an observation (tool `gen_ai.tool.name`, args
//!   `gen_ai.tool.call.arguments`, text `gen_ai.tool.call.result`, answering
//!   `gen_ai.tool.call.id`);
//! - `invoke_agent` / `create_agent` / `invoke_workflow` and other spans: a message marking the
//!   start of that work (the span name); the root span's reply is the final answer.
//!
//! The actor is `gen_ai.agent.name` of the span or of its nearest ancestor that names one (an
//! `invoke_agent` span, as a rule). A span is an error when its status code is ERROR (`2` /
//! `STATUS_CODE_ERROR`), when it has `error.type`, or an `exception` event; a failed root span
//! fails the trajectory. Step 0 is the user's request: the last user message of the first span
//! with `gen_ai.input.messages`.
//!
//! Spans of OpenInference (`openinference.span.kind`) and OpenLLMetry (`traceloop.span.kind`,
//! `llm.request.type`) instrumentation are read by the same rules from their own attributes:
//! messages written as flattened lists (`llm.output_messages.0.message.content`,
//! `gen_ai.completion.0.tool_calls.0.name`), a tool's `tool.name` / `input.value` /
//! `output.value`, an agent's `agent.name`, `llm.token_count.*`. The rules in full:
//! docs/formats.md, "OpenTelemetry GenAI spans".

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::{content_text, get, get_text, parse_object, value_text, JsonlAdapter};
use crate::artifact::extract;
use crate::model::{Outcome, Role, SourceLoc, Step, StepKind, Trajectory, Usage};
use crate::usage::count;

#[derive(Default)]
pub struct Otel {
    spans: Vec<Span>,
}

#[derive(Clone)]
struct Span {
    trace_id: String,
    span_id: Option<String>,
    parent: Option<String>,
    start: u128,
    agent: Option<String>,
    input: Option<String>,
    /// The reply an agent or workflow span reports (the trajectory's final answer at the root).
    output: String,
    step: Step,
}

impl JsonlAdapter for Otel {
    fn push_line(&mut self, line: &str, loc: SourceLoc, ingest_seq: u64) -> Result<(), String> {
        let o = parse_object(line)?;
        let resource_spans = match o.get("resourceSpans") {
            Some(Value::Array(r)) => r,
            Some(other) => {
                return Err(format!("`resourceSpans` is {}, not a list", super::json_kind(other)))
            }
            None => return Err("an OTLP line without `resourceSpans`".to_string()),
        };
        for rs in resource_spans {
            let scope_spans = rs.get("scopeSpans").and_then(Value::as_array);
            for ss in scope_spans.into_iter().flatten() {
                let spans = ss.get("spans").and_then(Value::as_array);
                for span in spans.into_iter().flatten().filter_map(Value::as_object) {
                    self.spans.push(span_step(span, loc.clone(), ingest_seq));
                }
            }
        }
        Ok(())
    }

    fn finish(self: Box<Self>) -> Vec<Trajectory> {
        assemble(self.spans)
    }

    /// The trace of the file's first span as read so far: its first `max_steps` spans (in
    /// arrival order) assembled as at the end, at most `max_steps` steps. A trace has no end
    /// marker, so this is what the app shows while the rest is read; provisional (a span that
    /// arrives later may start earlier, or be the agent a step belongs to).
    fn snapshot_first(&self, max_steps: usize) -> Option<Trajectory> {
        super::first_trace_copy(&self.spans, |s| &s.trace_id, max_steps, assemble)
    }
}

/// The trajectories of these spans, one per trace, in order of start time.
fn assemble(mut spans: Vec<Span>) -> Vec<Trajectory> {
    // Stable: spans with equal start times keep their arrival order.
    crate::sort::sort_by_key(&mut spans, |s| s.start);
    let links: Vec<_> = spans
        .iter()
        .map(|s| (s.span_id.as_deref(), s.agent.as_deref(), s.parent.as_deref()))
        .collect();
    let actors = super::span_actors(&links);
    drop(links);
    let mut out: Vec<Trajectory> = Vec::new();
    // Trace id → position in `out` (constant-time lookup however many traces).
    let mut by_id: HashMap<String, usize> = HashMap::new();
    for (s, actor) in spans.into_iter().zip(actors) {
        let pos = *by_id.entry(s.trace_id.clone()).or_insert_with(|| {
            out.push(Trajectory { id: s.trace_id.clone(), ..Trajectory::default() });
            out.len() - 1
        });
        let tr = &mut out[pos];
        let mut step = s.step;
        step.actor = actor;
        if tr.task.is_none() {
            if let Some(input) = &s.input {
                tr.task = Some(input.clone());
                tr.steps.insert(
                    0,
                    Step {
                        loc: step.loc.clone(),
                        role: Role::User,
                        text: input.clone(),
                        timestamp: step.timestamp.clone(),
                        ingest_seq: step.ingest_seq,
                        ..Step::default()
                    },
                );
            }
        }
        if s.parent.is_none() {
            if step.is_error {
                tr.outcome = Outcome::Failed;
            }
            tr.final_answer = Some(s.output.clone()).filter(|t| !t.is_empty());
        }
        tr.steps.push(step);
    }
    for tr in &mut out {
        for (i, s) in tr.steps.iter_mut().enumerate() {
            s.index = i as u32;
        }
    }
    out
}

/// An OTLP `AnyValue`: `{"stringValue": ...}`, `{"intValue": "5" | 5}`, `{"doubleValue"}`,
/// `{"boolValue"}`, `{"arrayValue": {"values": [...]}}`, `{"kvlistValue": {"values": [...]}}`.
fn any_value(v: &Value) -> Value {
    let Some(o) = v.as_object() else { return v.clone() };
    if let Some(s) = o.get("stringValue") {
        return s.clone();
    }
    if let Some(i) = o.get("intValue") {
        return match i {
            Value::String(s) => s.parse::<i64>().map(Value::from).unwrap_or_else(|_| i.clone()),
            other => other.clone(),
        };
    }
    if let Some(x) = o.get("doubleValue").or_else(|| o.get("boolValue")) {
        return x.clone();
    }
    if let Some(values) =
        o.get("arrayValue").and_then(|a| a.get("values")).and_then(Value::as_array)
    {
        return Value::Array(values.iter().map(any_value).collect());
    }
    if let Some(values) =
        o.get("kvlistValue").and_then(|a| a.get("values")).and_then(Value::as_array)
    {
        return Value::Object(attributes(values));
    }
    v.clone()
}

fn attributes(list: &[Value]) -> Map<String, Value> {
    let mut out = Map::new();
    for kv in list {
        if let Some(k) = kv.get("key").and_then(Value::as_str) {
            out.insert(k.to_string(), kv.get("value").map(any_value).unwrap_or(Value::Null));
        }
    }
    out
}

/// A `gen_ai.*.messages` attribute: a JSON string (or already a list) of `{role, parts}`; else
/// the messages OpenInference (`flat`) or OpenLLMetry (`flat_llm`) write as flattened lists.
fn messages(attrs: &Map<String, Value>, key: &str, flat: &str, flat_llm: &str) -> Vec<Value> {
    match attrs.get(key) {
        Some(Value::String(s)) => {
            if let Ok(Value::Array(m)) = crate::json::from_str::<Value>(s) {
                return m;
            }
        }
        Some(Value::Array(m)) => return m.clone(),
        _ => {}
    }
    let m = flat_messages(attrs, flat);
    if m.is_empty() {
        flat_messages(attrs, flat_llm)
    } else {
        m
    }
}

/// A list written as flattened attributes, `PREFIX<i>.<key>` (OpenInference and OpenLLMetry
/// write lists so): its items in index order, each the map of its keys, their namespaces
/// (`message.`, `message_content.`, `tool_call.`, `function.`) left off.
fn flat_list(attrs: &Map<String, Value>, prefix: &str) -> Vec<Map<String, Value>> {
    let mut found: Vec<(u32, &str, &Value)> = Vec::new();
    for (k, v) in attrs {
        let Some((i, mut key)) = k.strip_prefix(prefix).and_then(|r| r.split_once('.')) else {
            continue;
        };
        let Ok(i) = i.parse() else { continue };
        while let Some(rest) = ["message.", "message_content.", "tool_call.", "function."]
            .iter()
            .find_map(|p| key.strip_prefix(p))
        {
            key = rest;
        }
        found.push((i, key, v));
    }
    crate::sort::sort_by_key(&mut found, |f| f.0);
    let mut items: Vec<(u32, Map<String, Value>)> = Vec::new();
    for (i, key, v) in found {
        if items.last().map(|l| l.0) != Some(i) {
            items.push((i, Map::new()));
        }
        if let Some((_, item)) = items.last_mut() {
            item.insert(key.to_string(), v.clone());
        }
    }
    items.into_iter().map(|(_, m)| m).collect()
}

/// Flattened messages as `{role, content, parts}`: their `contents` (`type`, text when not
/// given; `text`) and `tool_calls` (`id`, `name`, `arguments`) the parts.
fn flat_messages(attrs: &Map<String, Value>, prefix: &str) -> Vec<Value> {
    let mut out = Vec::new();
    for mut m in flat_list(attrs, prefix) {
        let mut parts = Vec::new();
        for mut c in flat_list(&m, "contents.") {
            if !c.contains_key("type") {
                c.insert("type".into(), "text".into());
            }
            parts.push(Value::Object(c));
        }
        for mut call in flat_list(&m, "tool_calls.") {
            call.insert("type".into(), "tool_call".into());
            parts.push(Value::Object(call));
        }
        m.insert("parts".into(), Value::Array(parts));
        out.push(Value::Object(m));
    }
    out
}

fn parts(m: &Value) -> Vec<&Map<String, Value>> {
    m.get("parts")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_object)
        .collect()
}

fn message_text(m: &Value) -> String {
    let mut texts = Vec::new();
    for p in parts(m) {
        match p.get("type").and_then(Value::as_str) {
            Some("text") | Some("reasoning") => {
                if let Some(c) = get(p, &["content", "text"]) {
                    texts.push(content_text(c));
                }
            }
            Some("tool_call_response") => {
                if let Some(r) = get(p, &["result", "response"]) {
                    texts.push(value_text(r));
                }
            }
            _ => {}
        }
    }
    if texts.is_empty() {
        if let Some(c) = m.get("content") {
            texts.push(content_text(c));
        }
    }
    texts.join("\n")
}

fn span_step(span: &Map<String, Value>, loc: SourceLoc, ingest_seq: u64) -> Span {
    let attrs = match span.get("attributes") {
        Some(Value::Array(a)) => attributes(a),
        _ => Map::new(),
    };
    let name = get_text(span, &["name"]).unwrap_or_default();
    // OpenInference's span kind (`LLM`, `TOOL`, `AGENT`, `CHAIN`, ...) or OpenLLMetry's
    // (`workflow`, `task`, `agent`, `tool`; its model calls carry `llm.request.type`).
    let kind = get_text(&attrs, &["openinference.span.kind", "traceloop.span.kind"])
        .unwrap_or_default()
        .to_ascii_lowercase();
    let operation =
        get_text(&attrs, &["gen_ai.operation.name"]).unwrap_or_else(|| match kind.as_str() {
            "llm" => "chat".into(),
            "tool" => "execute_tool".into(),
            _ if attrs.contains_key("llm.request.type") => "chat".into(),
            "" => name.split_whitespace().next().unwrap_or("").to_string(),
            _ => kind.clone(),
        });
    let status = span.get("status").and_then(Value::as_object);
    let code = status.and_then(|s| s.get("code"));
    let status_error = match code {
        Some(Value::Number(n)) => n.as_i64() == Some(2),
        Some(Value::String(s)) => s == "STATUS_CODE_ERROR" || s == "ERROR" || s == "2",
        _ => false,
    };
    let error_type = get_text(&attrs, &["error.type"]);
    let mut exception = None;
    for ev in span.get("events").and_then(Value::as_array).into_iter().flatten() {
        if ev.get("name").and_then(Value::as_str) == Some("exception") {
            let ea = ev.get("attributes").and_then(Value::as_array).map(|a| attributes(a));
            exception = ea.as_ref().and_then(|a| {
                a.get("exception.message").or_else(|| a.get("exception.type")).map(value_text)
            });
            exception.get_or_insert_with(|| "exception".to_string());
        }
    }
    let is_error = status_error || error_type.is_some() || exception.is_some();
    let mut step = Step {
        loc,
        is_error,
        status: error_type.clone().or(Some(operation.clone())).map(Box::from),
        timestamp: get_text(span, &["startTimeUnixNano"]).map(Box::from),
        ingest_seq,
        ..Step::default()
    };
    step.usage = span_usage(span, &attrs);
    step.ids.run_id = get_text(span, &["traceId"]).map(Box::from);
    step.ids.span_id = get_text(span, &["spanId"]).map(Box::from);
    step.ids.parent_id = get_text(span, &["parentSpanId"]).filter(|p| !p.is_empty()).map(Box::from);
    let inputs = messages(&attrs, "gen_ai.input.messages", "llm.input_messages.", "gen_ai.prompt.");
    let outputs =
        messages(&attrs, "gen_ai.output.messages", "llm.output_messages.", "gen_ai.completion.");
    // What the span returned when no message says: OpenInference's `output.value`,
    // OpenLLMetry's `traceloop.entity.output`.
    let mut output = outputs.iter().map(message_text).collect::<Vec<_>>().join("\n");
    if output.is_empty() {
        output = get_text(&attrs, &["output.value", "traceloop.entity.output"]).unwrap_or_default();
    }
    match operation.as_str() {
        "chat" | "text_completion" | "generate_content" => {
            step.role = Role::Assistant;
            step.text = outputs.iter().map(message_text).collect::<Vec<_>>().join("\n");
            let calls: Vec<&Map<String, Value>> = outputs
                .iter()
                .flat_map(parts)
                .filter(|p| p.get("type").and_then(Value::as_str) == Some("tool_call"))
                .collect();
            if !calls.is_empty() {
                step.kind = StepKind::Action;
                let names: Vec<String> =
                    calls.iter().filter_map(|c| get_text(c, &["name"])).collect();
                let args: Vec<String> =
                    calls.iter().filter_map(|c| get_text(c, &["arguments"])).collect();
                let ids: Vec<String> = calls.iter().filter_map(|c| get_text(c, &["id"])).collect();
                let raw_refs = calls.iter().flat_map(|c| {
                    let a = c.get("arguments").map(extract::parse_args).unwrap_or(Value::Null);
                    extract::tool_call(&get_text(c, &["name"]).unwrap_or_default(), &a)
                });
                step.artifact_refs = extract::refs(raw_refs, None);
                step.tool = Some(Box::from(names.join(",")));
                step.args = Some(args.join("\n"));
                step.ids.action_id = (!ids.is_empty()).then(|| ids.join(",")).map(Box::from);
                if step.text.is_empty() {
                    step.text = super::calls_text(&names, &args);
                }
            }
            if step.text.is_empty() {
                step.text = output.clone();
            }
        }
        "execute_tool" => {
            step.role = Role::Tool;
            step.kind = StepKind::Observation;
            step.tool =
                get_text(&attrs, &["gen_ai.tool.name", "tool.name", "traceloop.entity.name"])
                    .or_else(|| {
                        Some(name.strip_prefix("execute_tool ").unwrap_or(&name).to_string())
                    })
                    .filter(|n| !n.is_empty() && n != "execute_tool")
                    .map(Box::from);
            let args = ["gen_ai.tool.call.arguments", "input.value", "traceloop.entity.input"];
            step.args = get_text(&attrs, &args);
            step.text = get_text(
                &attrs,
                &["gen_ai.tool.call.result", "output.value", "traceloop.entity.output"],
            )
            .unwrap_or_default();
            step.ids.source_action_id =
                get_text(&attrs, &["gen_ai.tool.call.id", "tool.id", "tool_call.id"])
                    .map(Box::from);
            let a = args.iter().find_map(|k| attrs.get(*k)).map(extract::parse_args);
            let raw_refs = extract::tool_call(
                step.tool.as_deref().unwrap_or_default(),
                a.as_ref().unwrap_or(&Value::Null),
            );
            step.artifact_refs = extract::refs(raw_refs, None);
        }
        _ => {
            // An agent or workflow span opens a stretch of work: its step marks the start (the
            // span name); its reply is the final answer when it is the root.
            step.role = Role::Assistant;
            step.text = name.clone();
        }
    }
    let problem = status
        .and_then(|s| get_text(s, &["message"]))
        .filter(|m| !m.is_empty())
        .or(exception)
        .or(error_type);
    if let (true, Some(p)) = (is_error, problem) {
        if !step.text.contains(&p) {
            step.text = if step.text.is_empty() { p } else { format!("{}\n{p}", step.text) };
        }
    }
    let input = inputs
        .iter()
        .rev()
        .find(|m| m.get("role").and_then(Value::as_str) == Some("user"))
        .map(message_text)
        .filter(|t| !t.is_empty())
        .or_else(|| {
            // A root span's own input (OpenInference's `input.value`, OpenLLMetry's
            // `traceloop.entity.input`) is the request the run was given.
            let root = step.ids.parent_id.is_none();
            root.then(|| get_text(&attrs, &["input.value", "traceloop.entity.input"]))
                .flatten()
                .map(request)
        })
        .filter(|t| !t.is_empty());
    // The agent a span is: `gen_ai.agent.name`, OpenInference's `agent.name`, else the name of
    // an agent span (OpenLLMetry's `traceloop.entity.name`, the span name).
    let agent = get_text(&attrs, &["gen_ai.agent.name", "agent.name"]).or_else(|| {
        (kind == "agent")
            .then(|| get_text(&attrs, &["traceloop.entity.name"]).unwrap_or_else(|| name.clone()))
    });
    Span {
        trace_id: step
            .ids
            .run_id
            .as_deref()
            .map(str::to_owned)
            .unwrap_or_else(|| "trace".to_string()),
        span_id: step.ids.span_id.as_deref().map(str::to_owned),
        parent: step.ids.parent_id.as_deref().map(str::to_owned),
        start: get(span, &["startTimeUnixNano"])
            .and_then(|v| match v {
                Value::String(s) => s.parse().ok(),
                Value::Number(n) => n.as_u64().map(u128::from),
                _ => None,
            })
            .unwrap_or(u128::MAX),
        agent,
        input,
        output,
        step,
    }
}

/// A run's request from its root span's input: the text, or the text of a JSON object's
/// `task`, `query`, `question`, `input` or `prompt` (what agent frameworks call it), also under
/// `kwargs`, else its first `args` (OpenLLMetry writes a function's arguments so).
fn request(text: String) -> String {
    const KEYS: &[&str] = &["task", "query", "question", "input", "prompt"];
    let field = match crate::json::from_str::<Value>(&text) {
        Ok(Value::Object(o)) => get_text(&o, KEYS)
            .or_else(|| o.get("kwargs").and_then(Value::as_object).and_then(|k| get_text(k, KEYS)))
            .or_else(|| {
                o.get("args").and_then(|a| a.get(0)).and_then(Value::as_str).map(str::to_string)
            }),
        _ => None,
    };
    field.unwrap_or(text)
}

/// The `gen_ai.usage.*` attributes of a span (current and older names) and its end − start.
fn span_usage(span: &Map<String, Value>, attrs: &Map<String, Value>) -> Option<Box<Usage>> {
    let tok = |keys: &[&str]| keys.iter().find_map(|k| count(attrs.get(*k)));
    let nanos = |k: &str| count(span.get(k));
    let duration_ms = match (nanos("startTimeUnixNano"), nanos("endTimeUnixNano")) {
        (Some(s), Some(e)) if e >= s && s > 0 => Some((e - s) / 1_000_000),
        _ => None,
    };
    Usage {
        input_tokens: tok(&[
            "gen_ai.usage.input_tokens",
            "gen_ai.usage.prompt_tokens",
            "llm.token_count.prompt",
        ]),
        output_tokens: tok(&[
            "gen_ai.usage.output_tokens",
            "gen_ai.usage.completion_tokens",
            "llm.token_count.completion",
        ]),
        cache_read_tokens: tok(&[
            "gen_ai.usage.cache_read.input_tokens",
            "gen_ai.usage.cache_read_input_tokens",
            "llm.token_count.prompt_details.cache_read",
        ]),
        cache_write_tokens: tok(&[
            "gen_ai.usage.cache_creation.input_tokens",
            "gen_ai.usage.cache_creation_input_tokens",
            "llm.token_count.prompt_details.cache_write",
        ]),
        cost_usd: crate::usage::cost(attrs.get("llm.cost.total")),
        duration_ms,
    }
    .non_empty()
}
