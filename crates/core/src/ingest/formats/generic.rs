//! The fallback for any JSONL of objects: best-effort role / agent / content / error fields
//! (the rules: docs/formats.md, "The generic fallback"). Every object line becomes one step of
//! a single trajectory, except a model call's record (a request and its response), which goes
//! to its conversation (`calls`).

use serde_json::{Map, Value};

use super::{get, get_text, parse_object, value_i64, JsonlAdapter};
use crate::artifact::extract;
use crate::ingest::Settled;
use crate::model::{Format, Role, SourceLoc, Step, StepKind, Trajectory};

pub struct Generic {
    format: Format,
    steps: Vec<Step>,
    calls: super::calls::Calls,
}

impl Generic {
    pub fn new(format: Format) -> Generic {
        Generic { format, steps: Vec::new(), calls: Default::default() }
    }
}

impl Generic {
    /// The conversations of model calls first (those handed over taken from `returned`), then
    /// the other lines' trajectory.
    fn done(self, returned: Vec<Settled>) -> Vec<Trajectory> {
        let mut out = self.calls.finish(returned);
        if !self.steps.is_empty() {
            out.push(Trajectory {
                id: format!("{}-1", self.format),
                steps: self.steps,
                ..Trajectory::default()
            });
        }
        out
    }
}

impl JsonlAdapter for Generic {
    fn push_line(&mut self, line: &str, loc: SourceLoc, ingest_seq: u64) -> Result<(), String> {
        let o = parse_object(line)?;
        if self.calls.push(&o, &loc, ingest_seq) {
            return Ok(());
        }
        // A Gemini CLI session's message, one a line: its calls' results are steps after it.
        if super::chat::is_gemini_message(&o) {
            let first = self.steps.len();
            self.steps.extend(super::chat::gemini_steps(&o, first, &loc, ingest_seq));
            return Ok(());
        }
        let index = self.steps.len() as u32;
        self.steps.push(generic_step(&o, index, loc, ingest_seq));
        Ok(())
    }

    fn finish(self: Box<Self>) -> Vec<Trajectory> {
        (*self).done(Vec::new())
    }

    /// A batch's lines of model calls, each complete as read (`calls`). Natively only: the CLI
    /// analyses them on its second core while the rest is read; the web build has no room for
    /// the code (docs/performance.md, "Bundle") and reads a batch whole, as any call log.
    #[cfg(not(target_arch = "wasm32"))]
    fn take_settled(&mut self) -> Vec<Settled> {
        self.calls.take_settled()
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn finish_with(self: Box<Self>, returned: Vec<Settled>) -> (Vec<Trajectory>, Vec<usize>) {
        ((*self).done(returned), Vec::new())
    }

    /// The first trajectory as read so far (its first `max_steps` steps): a file of messages
    /// has no end marker, so this is what the app shows while the rest is read. A model call
    /// log's first conversation comes first, as at the end.
    fn snapshot_first(&self, max_steps: usize) -> Option<Trajectory> {
        if self.steps.is_empty() || self.calls.any() {
            return self.calls.first(max_steps);
        }
        Some(Trajectory {
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
pub(crate) fn says_it_failed(text: &str) -> bool {
    let t = text.trim_start();
    match t.get(..5) {
        Some(word) if word.eq_ignore_ascii_case("error") => {
            t[5..].trim_start_matches(' ').starts_with([':', '-'])
        }
        // A Python crash, also after what the program printed before it: a line that starts
        // with the header (searched once over the whole text, not line by line).
        _ => traceback_headers(t).any(|at| at == 0 || t.as_bytes()[at - 1] == b'\n'),
    }
}

/// The header Python prints above a traceback.
const TRACEBACK: &str = "Traceback (most recent call last)";

/// Where [`TRACEBACK`] starts in a text: natively by a `memchr` finder built once (its SIMD
/// search saves 4 % of the instructions on the chat bench shape, docs/performance.md); in the
/// web build by std's search, already in the bundle (the finder in a static costs about 100
/// bytes of it). The same positions either way (tested).
#[cfg(not(target_arch = "wasm32"))]
fn traceback_headers(t: &str) -> impl Iterator<Item = usize> + '_ {
    static HEADER: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new(TRACEBACK));
    HEADER.find_iter(t.as_bytes())
}

#[cfg(any(target_arch = "wasm32", test))]
fn traceback_headers_std(t: &str) -> impl Iterator<Item = usize> + '_ {
    t.match_indices(TRACEBACK).map(|(at, _)| at)
}

#[cfg(target_arch = "wasm32")]
use traceback_headers_std as traceback_headers;

/// A conventional role word (`role`, `type` or `source`), or `None` for any other word.
/// OpenAI's `developer` messages are the system prompt of its newer models.
pub(crate) fn role_of(word: &str) -> Option<Role> {
    Some(match word {
        "system" | "developer" => Role::System,
        "user" | "human" => Role::User,
        "assistant" | "ai" | "agent" | "model" => Role::Assistant,
        "tool" | "function" | "observation" => Role::Tool,
        _ => return None,
    })
}

/// AutoGen AgentChat's event types read as more than a message.
const REQUEST: &str = "ToolCallRequestEvent";
const EXECUTION: &str = "ToolCallExecutionEvent";
const SUMMARY: &str = "ToolCallSummaryMessage";

/// Keys whose text names the agent that wrote a record (AutoGen's `source`, a log's `agent`).
const AGENT_KEYS: [&str; 6] = ["agent", "agent_name", "agentName", "actor", "sender", "source"];

/// Keys whose text is a log record's severity.
const LEVEL_KEYS: [&str; 6] =
    ["level", "levelname", "log_level", "severity", "severity_text", "loglevel"];

/// Keys whose text is how an operation ended (a tool message's `status`, OpenTelemetry's
/// `status_code`).
const STATUS_KEYS: [&str; 3] = ["status", "status_code", "statusCode"];

/// Keys not looked into for error marks: tool schemas (`"status": {"type": "string"}` is no
/// status); `tools` and `functions` only as lists (LangGraph names a node `tools`).
const SCHEMA_KEYS: [&str; 5] = ["tools", "functions", "input_schema", "parameters", "schema"];

/// How deep [`marks_error`] looks for an error mark in nested objects and lists.
const MARK_DEPTH: usize = 6;

/// Whether a record says it is an error (docs/formats.md, "The generic fallback"): at its top
/// level an `error` that is `true`, a non-empty text or a non-empty object; anywhere within
/// [`MARK_DEPTH`] levels an `is_error` / `isError` that is `true`, a log level `error`, `fatal`
/// or `critical`, or a status `error`, `failed` or `failure` (`STATUS_CODE_ERROR` too), in any
/// case. Of a `messages` list only the last message is read: a request repeats the
/// conversation so far, whose earlier errors are not this record's.
fn marks_error(o: &Map<String, Value>) -> bool {
    get(o, &["error"]).is_some_and(is_error_value) || nested_mark(o, 0)
}

/// Whether an `error` field's value says there was one: `true`, a text that is not blank or
/// `None` (Python's), or a non-empty object. `null`, `false`, `""` and `{}` are a logger's
/// empty error.
pub(crate) fn is_error_value(v: &Value) -> bool {
    match v {
        Value::Bool(b) => *b,
        Value::String(e) => !e.trim().is_empty() && e != "None",
        Value::Object(e) => !e.is_empty(),
        _ => false,
    }
}

/// Whether one field marks an error: an `is_error` / `isError` that is `true`, a log level
/// (`LEVEL_KEYS`) `error`, `fatal` or `critical`, a status (`STATUS_KEYS`) `error`, `failed`,
/// `failure` or `status_code_error`, in any case. Read over an object's fields in one pass (11
/// lookups per nested object were a tenth of a chat file's read).
fn flags_error(key: &str, v: &Value) -> bool {
    let word = |words: &[&str]| {
        v.as_str().is_some_and(|v| {
            let v = v.trim();
            words.iter().any(|w| v.eq_ignore_ascii_case(w))
        })
    };
    match key {
        "is_error" | "isError" => super::value_bool(Some(v)) == Some(true),
        k if LEVEL_KEYS.contains(&k) => word(&["error", "fatal", "critical"]),
        k if STATUS_KEYS.contains(&k) => word(&["error", "failed", "failure", "status_code_error"]),
        _ => false,
    }
}

fn nested_mark(o: &Map<String, Value>, depth: usize) -> bool {
    if o.iter().any(|(k, v)| flags_error(k, v)) {
        return true;
    }
    if depth >= MARK_DEPTH {
        return false;
    }
    let schema = |k: &str, v: &Value| match k {
        "tools" | "functions" => v.is_array(),
        k => SCHEMA_KEYS.contains(&k),
    };
    o.iter().filter(|(k, v)| !schema(k, v)).any(|(k, v)| match v {
        Value::Object(inner) => nested_mark(inner, depth + 1),
        Value::Array(items) => {
            let items = match k.as_str() {
                "messages" => items.last().map_or(&[][..], std::slice::from_ref),
                _ => items,
            };
            items.iter().filter_map(Value::as_object).any(|m| nested_mark(m, depth + 1))
        }
        _ => false,
    })
}

/// A step from an object of unknown shape.
pub fn generic_step(o: &Map<String, Value>, index: u32, loc: SourceLoc, ingest_seq: u64) -> Step {
    // LangChain's `messages_to_dict`: `{"type": "ai", "data": {the message}}`.
    let typed = o.get("type").and_then(Value::as_str).and_then(role_of).is_some();
    if let (true, Some(Value::Object(data)), None) = (typed, o.get("data"), o.get("content")) {
        return generic_step(data, index, loc, ingest_seq);
    }
    let mut step = read_step(o, index, loc, ingest_seq);
    reshape(o, &mut step);
    step
}

/// Whether a message's `content` holds Anthropic tool blocks (`tool_use`, `tool_result`).
pub(crate) fn has_tool_blocks(o: &Map<String, Value>) -> bool {
    blocks(o).iter().any(|b| matches!(kind(b), "tool_use" | "tool_result"))
}

/// A message's content blocks (`content`) or Gemini's `parts`.
fn blocks(o: &Map<String, Value>) -> &[Value] {
    match o.get("content").or_else(|| o.get("parts")) {
        Some(Value::Array(b)) => b,
        _ => &[],
    }
}

/// What a block is: its `type`, a Gemini `functionCall` part as a `tool_use`, a
/// `functionResponse` as a `tool_result`, a Goose `toolRequest` (or `frontendToolRequest`) as a
/// `tool_use` and its `toolResponse` as a `tool_result`.
fn kind(v: &Value) -> &str {
    match v.get("type").and_then(Value::as_str) {
        Some("toolRequest" | "frontendToolRequest") if v.get("toolCall").is_some() => "tool_use",
        Some("toolResponse") if v.get("toolResult").is_some() => "tool_result",
        Some(t) => t,
        None if v.get("functionCall").is_some() => "tool_use",
        None if v.get("functionResponse").is_some() => "tool_result",
        None => "",
    }
}

/// Other shapes of chat messages, read for what they are (docs/formats.md, "The generic
/// fallback"): an Anthropic message whose `content` holds `tool_use` blocks (an assistant's
/// calls) or only `tool_result` blocks (the tools' replies), the same as Gemini `parts`
/// (`functionCall`, `functionResponse`), and an OpenAI Responses item (`function_call`,
/// `function_call_output`, `reasoning`). Any other record is left as read.
fn reshape(o: &Map<String, Value>, step: &mut Step) {
    let reply = |step: &mut Step, ids: Option<String>| {
        step.role = Role::Tool;
        step.kind = StepKind::Observation;
        step.ids.source_action_id = ids.map(Box::from);
        step.is_error |= says_it_failed(&step.text);
    };
    match o.get("type").and_then(Value::as_str).unwrap_or("") {
        "function_call" if o.contains_key("name") => {
            let (names, args, ids) = calls_of(&[o], &["call_id", "id"]);
            step.role = Role::Assistant;
            step.actor.clear();
            apply_calls(step, &names, &args, &ids);
            step.text = super::calls_text(&names, &args);
            return;
        }
        "function_call_output" => return reply(step, get_text(o, &["call_id"])),
        "reasoning" if !o.contains_key("role") => {
            step.role = Role::Assistant;
            return;
        }
        _ => {}
    }
    if !has_tool_blocks(o) {
        return;
    }
    let blocks = blocks(o);
    if blocks.iter().all(|b| kind(b) == "tool_result") {
        // Gemini's reply: the call's name and its `response` (an `error` in it fails).
        let answers: Vec<&Map<String, Value>> =
            blocks.iter().filter_map(|b| b.get("functionResponse")?.as_object()).collect();
        if !answers.is_empty() {
            let said: Vec<String> =
                answers.iter().filter_map(|r| r.get("response")).map(super::value_text).collect();
            step.text = said.join("\n");
            let names: Vec<String> =
                answers.iter().filter_map(|r| get_text(r, &["name"])).collect();
            step.tool = Some(Box::from(names.join(",")));
            step.is_error |= answers.iter().any(|r| {
                r.get("response").and_then(|v| v.get("error")).is_some_and(|e| !e.is_null())
            });
        }
        // Goose's reply: each `toolResult`'s content (`value`: a tool's result with its
        // `content`, or the list of contents an older Goose wrote), or its `error`.
        let results: Vec<&Map<String, Value>> =
            blocks.iter().filter_map(|b| b.get("toolResult")?.as_object()).collect();
        if !results.is_empty() {
            let said: Vec<String> = results.iter().map(|r| goose_result_text(r)).collect();
            step.text = said.join("\n");
        }
        let ids = blocks.iter().filter_map(|b| {
            b.get("tool_use_id")
                .or_else(|| b.get("functionResponse")?.get("id"))
                .or_else(|| b.get("toolResult").and(b.get("id")))
        });
        let ids: Vec<String> = ids.map(super::value_text).collect();
        return reply(step, (!ids.is_empty()).then(|| ids.join(",")));
    }
    let uses: Vec<&Map<String, Value>> =
        blocks.iter().filter(|b| kind(b) == "tool_use").filter_map(Value::as_object).collect();
    if uses.is_empty() {
        return;
    }
    let (names, args, ids) = calls_of(&uses, &["id"]);
    apply_calls(step, &names, &args, &ids);
    let said: Vec<Value> = blocks.iter().filter(|b| kind(b) != "tool_use").cloned().collect();
    step.text = super::content_text(&Value::Array(said));
    if step.text.is_empty() {
        step.text = super::calls_text(&names, &args);
    }
}

/// What a Goose tool result says: its content's text (`value.content`, or `value` itself when
/// it is the list of contents), or its `error`.
fn goose_result_text(r: &Map<String, Value>) -> String {
    match (r.get("value"), r.get("error")) {
        (Some(Value::Object(v)), _) => {
            v.get("content").map(super::content_text).unwrap_or_default()
        }
        (Some(v), _) => super::content_text(v),
        (None, Some(e)) => super::value_text(e),
        (None, None) => String::new(),
    }
}

/// The names, arguments (as text) and ids of tool calls, each read from the call or its
/// `function` (OpenAI), `functionCall` (Gemini) or `toolCall.value` (Goose) object: the name
/// under `name` or `function_name` (ATIF), the arguments under `arguments`, `args` (LangChain,
/// Gemini) or `input` (Anthropic), the id under the keys given.
pub(crate) fn calls_of(
    calls: &[&Map<String, Value>],
    id: &[&str],
) -> (Vec<String>, Vec<String>, Vec<String>) {
    let func = |c: &Map<String, Value>, k: &[&str]| -> Option<String> {
        let goose = || c.get("toolCall")?.get("value");
        match c.get("function").or_else(|| c.get("functionCall")).or_else(goose) {
            Some(Value::Object(f)) => get_text(f, k),
            _ => get_text(c, k),
        }
    };
    let names = calls.iter().filter_map(|c| func(c, &["name", "function_name"])).collect();
    let args = calls.iter().filter_map(|c| func(c, &["arguments", "args", "input"])).collect();
    let ids = calls.iter().filter_map(|c| get_text(c, id)).collect();
    (names, args, ids)
}

/// Makes `step` the action of these calls: its tool the names, its arguments theirs (a shell
/// call's command, as the Codex and mini-swe-agent adapters give it), its action id the ids,
/// and what the calls act on, so edits and the files they write are seen.
pub(crate) fn apply_calls(step: &mut Step, names: &[String], args: &[String], ids: &[String]) {
    step.kind = StepKind::Action;
    let mut raw_refs = Vec::new();
    let mut commands = Vec::new();
    for (name, a) in names.iter().zip(args) {
        // What `extract::parse_args` reads a string as, without a copy of the string.
        let parsed: Value = crate::json::from_str(a).unwrap_or(Value::Null);
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
}

fn read_step(o: &Map<String, Value>, index: u32, loc: SourceLoc, ingest_seq: u64) -> Step {
    let word = |k: &str| o.get(k).and_then(Value::as_str).map(str::trim);
    // The first of `role`, `type`, `source` that is a role word (AutoGen's `type` is a class).
    let role = ["role", "type", "source"].iter().find_map(|k| word(k).and_then(role_of));
    // The agent: a message's `name`, else `agent`, `source` and the like (not a role word).
    let named = ["name"].iter().chain(&AGENT_KEYS).find_map(|k| {
        word(k).filter(|w| !w.is_empty() && role_of(w).is_none()).map(|w| (*k, w.to_string()))
    });
    // AutoGen AgentChat's tool events (docs/formats.md, "AutoGen AgentChat"): a request's
    // `content` is its list of calls, an execution's the list of their results.
    let event = word("type");
    let results: Vec<&Map<String, Value>> = match (event, o.get("content")) {
        (Some(EXECUTION), Some(Value::Array(r))) => r.iter().filter_map(Value::as_object).collect(),
        _ => Vec::new(),
    };
    // Written by a named agent and of no other role: the agent's. The results of tool calls
    // are the tools' reply, whoever ran them.
    let role = match (role, &named) {
        _ if !results.is_empty() => Role::Tool,
        (Some(r), _) => r,
        (None, Some((k, _))) if *k != "name" => Role::Assistant,
        (None, _) => Role::Other,
    };
    let exit_code = get(o, &["exit_code", "exitCode", "returncode"]).and_then(value_i64);
    // A summary restates calls and results its request and execution events recorded: its
    // `tool_calls` make no second action, its `results` no second error.
    let marked = match event {
        Some(SUMMARY) => {
            let mut own = o.clone();
            own.remove("tool_calls");
            own.remove("results");
            marks_error(&own)
        }
        _ => marks_error(o),
    };
    let is_error = marked || exit_code.is_some_and(|c| c != 0);
    let mut text = get(o, &["content", "text", "message", "msg", "output", "summary", "parts"])
        .map(super::content_text)
        .unwrap_or_default();
    // A tool's reply that says it failed, when the message carries no error field (OpenAI-style
    // chat has none): `Error: …`, a Python traceback.
    let is_error = is_error || (role == Role::Tool && says_it_failed(&text));
    let mut step = Step {
        index,
        loc,
        actor: named.map(|(_, name)| name).unwrap_or_default(),
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
    // AutoGen's request event lists its calls (`FunctionCall`: `id`, `name`, `arguments`) as
    // its content.
    let calls: Vec<&Map<String, Value>> = match (event, get(o, &["tool_calls", "function_call"])) {
        (Some(REQUEST), _) => match o.get("content") {
            Some(Value::Array(c)) => c.iter().filter_map(Value::as_object).collect(),
            _ => Vec::new(),
        },
        (Some(SUMMARY), _) => Vec::new(),
        (_, Some(Value::Array(c))) => c.iter().filter_map(Value::as_object).collect(),
        (_, Some(Value::Object(c))) => vec![c],
        _ => Vec::new(),
    };
    if event == Some(REQUEST) && !calls.is_empty() {
        // Its content is the calls, not a text: the text is made from them below.
        text.clear();
    }
    if !calls.is_empty() {
        let (names, args, ids) = calls_of(&calls, &["id"]);
        apply_calls(&mut step, &names, &args, &ids);
        if text.is_empty() {
            text = super::calls_text(&names, &args);
        }
    }
    step.ids.source_action_id = get_text(o, &["tool_call_id"]).map(Box::from);
    if !results.is_empty() {
        // `FunctionExecutionResult`: `content`, `name`, `call_id`, `is_error` (read above).
        let names: Vec<String> = results.iter().filter_map(|r| get_text(r, &["name"])).collect();
        let ids: Vec<String> = results.iter().filter_map(|r| get_text(r, &["call_id"])).collect();
        step.tool = (!names.is_empty()).then(|| Box::from(names.join(",")));
        step.ids.source_action_id = (!ids.is_empty()).then(|| Box::from(ids.join(",")));
    }
    if text.is_empty() && calls.is_empty() {
        text = crate::json::to_text(&Value::Object(o.clone()));
    }
    step.text = text;
    step
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The native finder and std's search (the web build's) find the header at the same places.
    #[cfg(not(target_arch = "wasm32"))]
    #[test]
    fn both_header_searches_agree() {
        let h = TRACEBACK;
        let texts = [
            String::new(),
            h.to_string(),
            format!("out\n{h}:\n  File \"x\"\n{h}"),
            format!("{h}{h}{h}"),
            format!("é{}ü{h}", &h[..10]),
            "Traceback (most recent call".to_string(),
            format!("{}{h}", "x".repeat(5000)),
        ];
        for t in &texts {
            let native: Vec<usize> = traceback_headers(t).collect();
            assert_eq!(native, traceback_headers_std(t).collect::<Vec<_>>(), "{t}");
        }
        assert_eq!(traceback_headers(&texts[3]).collect::<Vec<_>>(), [0, h.len(), 2 * h.len()]);
        proptest!(|(parts in prop::collection::vec(
            prop::sample::select(vec![h, "\n", "Trace", "back", " (most", "é", "x"]), 0..20))| {
            let t = parts.concat();
            let native: Vec<usize> = traceback_headers(&t).collect();
            prop_assert_eq!(native, traceback_headers_std(&t).collect::<Vec<_>>());
        });
    }

    #[test]
    fn every_level_and_status_key_flags_its_error_words() {
        for key in LEVEL_KEYS {
            assert!(flags_error(key, &Value::String(" FATAL ".into())), "{key}");
            assert!(!flags_error(key, &Value::String("failed".into())), "{key}");
        }
        for key in STATUS_KEYS {
            assert!(flags_error(key, &Value::String("Failed".into())), "{key}");
            assert!(!flags_error(key, &Value::String("fatal".into())), "{key}");
        }
        for key in ["is_error", "isError"] {
            assert!(flags_error(key, &Value::Bool(true)) && !flags_error(key, &Value::Bool(false)));
        }
        assert!(!flags_error("error", &Value::Bool(true)), "a top-level `error` is read apart");
    }

    proptest! {
        /// The header found once over the whole text is the header at the start of a line.
        #[test]
        fn a_traceback_is_a_line_that_starts_with_its_header(
            parts in prop::collection::vec(prop_oneof![
                Just("Traceback (most recent call last)"), Just("Traceback (most recent"),
                Just("\n"), Just("\r\n"), Just("\r"), Just(" "), Just("x"), Just("error"),
                Just(": boom"), Just("é"),
            ], 0..12),
        ) {
            let text: String = parts.concat();
            let t = text.trim_start();
            let by_line = match t.get(..5) {
                Some(w) if w.eq_ignore_ascii_case("error") => {
                    t[5..].trim_start_matches(' ').starts_with([':', '-'])
                }
                _ => t.lines().any(|l| l.starts_with("Traceback (most recent call last)")),
            };
            prop_assert_eq!(says_it_failed(&text), by_line, "{:?}", text);
        }
    }

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
