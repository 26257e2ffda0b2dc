//! OpenAI Agents SDK traces: the SDK's trace and span exports (`Trace.export()`,
//! `Span.export()`), one per line, as a trace processor writes them to a file:
//! `{"object": "trace", "id", "workflow_name", "group_id", "metadata"}` and
//! `{"object": "trace.span", "id", "trace_id", "parent_id", "started_at", "ended_at",
//! "span_data": {"type", ...}, "error": {"message", "data"} | null}`. A line may also be a batch
//! as the SDK uploads it (`{"data": [export, ...]}`), or an event that wraps one export under
//! `span`, `trace` or `item` (a processor's `span_start` / `span_end` records); a whole
//! document that is such a batch or a list of exports is read the same way.
//!
//! One trajectory per `trace_id`, its id the trace id and its task the workflow's first user
//! message. A span seen more than once (started, then ended) is one span: the later export's
//! fields win. Spans are ordered by `started_at` (arrival order for ties). One step per span,
//! by `span_data.type`:
//! - `generation`: the model's reply (`output` messages); an action when it holds tool calls.
//!   Its `input` gives the task (the last user message of the first generation) and its
//!   `usage` the step's tokens;
//! - `function`: the tool call, as two steps: the action (tool `name`, arguments `input`) and
//!   its observation (`output`, answering the action's span id);
//! - `agent`: a message marking the agent's turn (its name, tools and handoffs);
//! - `handoff`: a message `handoff from X to Y`; `guardrail`: a message, an error when
//!   `triggered`; `response`, `custom`, `mcp_tools` and the rest: a message with the span's
//!   data.
//!
//! The actor is the name of the span's nearest `agent` ancestor. A span with an `error` is an
//! error step whose text carries the error's message; an error on a span without a parent
//! (the run's agent span: `MaxTurnsExceeded`, a guardrail tripwire) fails the trajectory. The
//! final answer is the last reply without tool calls.

use std::borrow::Cow;
use std::collections::HashMap;

use serde_json::{Map, Value};

use super::{content_text, get, get_text, parse_object, value_text, JsonlAdapter};
use crate::attribution::text::FastMap;
#[cfg(not(target_arch = "wasm32"))]
use crate::ingest::LineParse;
use crate::model::{Outcome, Role, SourceLoc, Step, StepKind, Trajectory, Usage};
use crate::usage::count;

/// Whether a parsed object is an Agents SDK export, a batch of them or an event wrapping one
/// (used by format detection).
pub fn is_export(o: &Map<String, Value>) -> bool {
    let exported = |o: &Map<String, Value>| {
        matches!(o.get("object").and_then(Value::as_str), Some("trace" | "trace.span"))
    };
    exported(o)
        || o.get("data")
            .and_then(Value::as_array)
            .and_then(|d| d.first())
            .and_then(Value::as_object)
            .is_some_and(exported)
        || ["span", "trace", "item"]
            .iter()
            .any(|k| o.get(*k).and_then(Value::as_object).is_some_and(exported))
}

#[derive(Default)]
pub struct OpenaiAgents {
    /// Spans in order of first arrival; a later export of the same span updates it in place.
    spans: Vec<Span>,
    by_id: HashMap<String, usize>,
    /// Trace id → workflow name (the trajectory's task when no generation gives one).
    workflows: HashMap<String, String>,
    /// Lines parsed ahead taken, and refused (a span exported before: read again in turn).
    #[cfg(not(target_arch = "wasm32"))]
    ahead: (u64, u64),
}

#[derive(Clone)]
struct Span {
    id: Option<String>,
    start: Option<String>,
    parent: Option<String>,
    trace_id: String,
    /// The agent's name, when the span is an agent's.
    agent: Option<String>,
    body: Body,
}

/// A span still open (its export without an end: a later export of it may follow, and its
/// fields win), or read into its steps (ended: only the steps are kept, not the JSON).
#[derive(Clone)]
enum Body {
    Open(Map<String, Value>, SourceLoc, u64),
    Read(Box<SpanRead>),
}

impl Span {
    fn new(fields: Map<String, Value>, loc: SourceLoc, ingest_seq: u64) -> Span {
        let data = fields.get("span_data").and_then(Value::as_object);
        let agent = data
            .filter(|d| d.get("type").and_then(Value::as_str) == Some("agent"))
            .and_then(|d| get_text(d, &["name"]));
        let mut span = Span {
            id: get_text(&fields, &["id"]),
            start: get_text(&fields, &["started_at"]),
            parent: get_text(&fields, &["parent_id"]),
            trace_id: get_text(&fields, &["trace_id"]).unwrap_or_else(|| "trace".into()),
            agent,
            body: Body::Open(fields, loc, ingest_seq),
        };
        if span.ended() {
            span.read();
        }
        span
    }

    fn ended(&self) -> bool {
        matches!(&self.body, Body::Open(f, ..) if f.get("ended_at").is_some_and(|e| !e.is_null()))
    }

    /// Reads an open span into its steps (its JSON is dropped).
    fn read(&mut self) {
        if let Body::Open(fields, loc, seq) = &self.body {
            let read = span_steps(fields, self.id.as_ref(), loc, *seq, &self.trace_id);
            self.body = Body::Read(Box::new(read));
        }
    }

    /// Puts a span parsed ahead (placed nowhere) at its line: its place in the file and in
    /// the ingest.
    #[cfg(not(target_arch = "wasm32"))]
    fn place(&mut self, loc: &SourceLoc, ingest_seq: u64) {
        match &mut self.body {
            Body::Open(_, l, seq) => {
                l.clone_from(loc);
                *seq = ingest_seq;
            }
            Body::Read(read) => {
                for step in read.steps.iter_mut().chain(read.ending.as_mut()) {
                    step.loc.clone_from(loc);
                    step.ingest_seq = ingest_seq;
                }
            }
        }
    }
}

impl JsonlAdapter for OpenaiAgents {
    fn push_line(&mut self, line: &str, loc: SourceLoc, ingest_seq: u64) -> Result<(), String> {
        let o = parse_object(line)?;
        self.push_value(o, &loc, ingest_seq)
    }

    /// A line parsed ahead is filed as read, unless one of its spans was exported before (or
    /// twice in the line): the fields of its exports are merged, which needs the line's JSON
    /// (the parse kept only the span's steps), so the ingestor reads the line in its turn.
    #[cfg(not(target_arch = "wasm32"))]
    fn push_parsed(
        &mut self,
        parsed: LineParse,
        loc: SourceLoc,
        ingest_seq: u64,
    ) -> Result<Result<(), String>, SourceLoc> {
        let LineParse::OpenaiAgents(parsed) = parsed else { return Err(loc) };
        let exports = match parsed {
            Ok(Parsed(exports)) => exports,
            Err(e) => return Ok(Err(e)),
        };
        let ids = exports.iter().filter_map(|e| match e {
            Export::Span(span) => span.id.as_deref(),
            Export::Workflow(..) => None,
        });
        let repeats = match exports.len() {
            1 => ids.into_iter().any(|id| self.by_id.contains_key(id)),
            _ => {
                // A set as a map to nothing of a type the web bundle already has.
                let mut seen = FastMap::<&str, ()>::default();
                ids.into_iter()
                    .any(|id| self.by_id.contains_key(id) || seen.insert(id, ()).is_some())
            }
        };
        if repeats {
            self.ahead.1 += 1;
            return Err(loc);
        }
        self.ahead.0 += 1;
        for export in exports {
            match export {
                Export::Workflow(id, name) => {
                    self.workflows.entry(id).or_insert(name);
                }
                Export::Span(mut span) => {
                    span.place(&loc, ingest_seq);
                    if let Some(id) = &span.id {
                        self.by_id.insert(id.clone(), self.spans.len());
                    }
                    self.spans.push(span);
                }
            }
        }
        Ok(Ok(()))
    }

    /// A file that exports each span when it starts and again when it ends (a processor's
    /// `span_start` and `span_end` records) has every other line refused: parsed ahead, those
    /// lines cost a second parse on a machine whose cores are all busy. Past the first lines,
    /// parsing ahead stops when more than one line in eight was refused.
    #[cfg(not(target_arch = "wasm32"))]
    fn parses_ahead_well(&self) -> bool {
        let (taken, refused) = self.ahead;
        refused * 8 <= taken + refused + 64
    }

    fn finish(self: Box<Self>) -> Vec<Trajectory> {
        assemble(self.spans, &self.workflows)
    }

    /// The trace of the file's first span as read so far: its first `max_steps` spans (in
    /// arrival order) assembled as at the end, at most `max_steps` steps. Nothing of an Agents
    /// SDK file settles before its end (a trace has no end marker), so this is what the app
    /// shows while the rest is read; provisional (a span that arrives later may start earlier).
    fn snapshot_first(&self, max_steps: usize) -> Option<Trajectory> {
        super::first_trace_copy(
            &self.spans,
            |s| &s.trace_id,
            max_steps,
            |spans| assemble(spans, &self.workflows),
        )
    }
}

/// A line read ahead of its turn, on another thread ([`crate::ingest::PreparedChunk`]): its
/// exports, each span read into its steps when it ended (placed in the file when filed).
/// [`JsonlAdapter::push_parsed`] files them, or has the line read in its turn when a span
/// repeats one exported before.
#[cfg(not(target_arch = "wasm32"))]
pub struct Parsed(Vec<Export>);

/// What one export of a line says.
#[cfg(not(target_arch = "wasm32"))]
enum Export {
    /// A trace's id and workflow name.
    Workflow(String, String),
    Span(Span),
}

/// A line's exports, or why the line cannot be read: the pure half of
/// [`OpenaiAgents::push_line`].
#[cfg(not(target_arch = "wasm32"))]
pub fn parse(line: &str) -> Result<Parsed, String> {
    let mut exported = Vec::new();
    exports(parse_object(line)?, &mut |e| {
        exported.push(match e {
            RawExport::Workflow(id, name) => Export::Workflow(id, name),
            RawExport::Span(fields) => Export::Span(Span::new(fields, SourceLoc::default(), 0)),
        })
    })?;
    Ok(Parsed(exported))
}

/// An export as written: a trace's id and workflow name, or a span's fields.
enum RawExport {
    Workflow(String, String),
    Span(Map<String, Value>),
}

/// The exports of a line's object (one export, a batch of them, or an event wrapping one),
/// given to `out` in order, or why it holds none (then none was given). A generation's `input`
/// repeats the whole conversation so far at every call: only its last user message is read
/// (the task), so only that is kept. Other spans' `input` (a function's arguments, as an
/// object or text) is kept as written.
fn exports(o: Map<String, Value>, out: &mut dyn FnMut(RawExport)) -> Result<(), String> {
    match o.get("object").and_then(Value::as_str) {
        Some("trace") => {
            if let (Some(id), Some(name)) =
                (get_text(&o, &["id"]), get_text(&o, &["workflow_name"]))
            {
                out(RawExport::Workflow(id, name));
            }
            return Ok(());
        }
        Some("trace.span") => {
            out(RawExport::Span(keep_task_only(o)));
            return Ok(());
        }
        _ => {}
    }
    let mut o = o;
    if let Some(Value::Array(items)) = o.remove("data") {
        let n = items.len();
        let mut read = 0;
        for item in items {
            if let Value::Object(item) = item {
                if exports(item, out).is_ok() {
                    read += 1;
                }
            }
        }
        return match read {
            0 if n > 0 => Err("a batch (`data`) with no trace or span export".to_string()),
            _ => Ok(()),
        };
    }
    for key in ["span", "trace", "item"] {
        match o.remove(key) {
            Some(Value::Object(inner)) if inner.contains_key("object") => {
                return exports(inner, out);
            }
            Some(other) => {
                o.insert(key.to_string(), other);
            }
            None => {}
        }
    }
    Err("not an Agents SDK trace or span export (no `object`: `trace` / `trace.span`)".to_string())
}

/// A span's fields with a generation's `input` cut to its last user message.
fn keep_task_only(mut o: Map<String, Value>) -> Map<String, Value> {
    if let Some(Value::Object(data)) = o.get_mut("span_data") {
        let generation = data.get("type").and_then(Value::as_str) == Some("generation");
        if let Some(input) = data.get_mut("input").filter(|_| generation) {
            if input.is_array() || input.is_object() {
                *input = messages(Some(input))
                    .iter()
                    .rev()
                    .find(|m| m.get("role").and_then(Value::as_str) == Some("user"))
                    .map(|m| Value::String(message_text(m)))
                    .unwrap_or(Value::Null);
            }
        }
    }
    o
}

impl OpenaiAgents {
    fn push_value(
        &mut self,
        o: Map<String, Value>,
        loc: &SourceLoc,
        ingest_seq: u64,
    ) -> Result<(), String> {
        exports(o, &mut |export| match export {
            RawExport::Workflow(id, name) => {
                self.workflows.entry(id).or_insert(name);
            }
            RawExport::Span(fields) => self.push_span(fields, loc, ingest_seq),
        })
    }

    fn push_span(&mut self, o: Map<String, Value>, loc: &SourceLoc, ingest_seq: u64) {
        let id = get_text(&o, &["id"]);
        if let Some(&at) = id.as_ref().and_then(|id| self.by_id.get(id)) {
            let span = &mut self.spans[at];
            match &mut span.body {
                // Started, now ended (or exported again): the later fields win.
                Body::Open(fields, ..) => {
                    for (k, v) in o {
                        if !v.is_null() {
                            fields.insert(k, v);
                        }
                    }
                    let Body::Open(fields, loc, seq) =
                        std::mem::replace(&mut span.body, Body::Open(Map::new(), loc.clone(), 0))
                    else {
                        return;
                    };
                    *span = Span::new(fields, loc, seq);
                }
                // Exported again after it ended: the new export replaces it.
                Body::Read(_) => *span = Span::new(o, loc.clone(), ingest_seq),
            }
            return;
        }
        if let Some(id) = id {
            self.by_id.insert(id, self.spans.len());
        }
        self.spans.push(Span::new(o, loc.clone(), ingest_seq));
    }
}

/// The trajectories of these spans, one per trace, each span's steps in order of start time.
fn assemble(mut spans: Vec<Span>, workflows: &HashMap<String, String>) -> Vec<Trajectory> {
    for s in &mut spans {
        s.read();
    }
    // The spans' order of start time, as indices (a span is nearly two hundred bytes: sorting the
    // spans themselves moved each of them a dozen times, a third of this function's time).
    // Stable: spans with equal start times keep their arrival order; a span without one goes
    // after those with one.
    let order = crate::sort::order_by(spans.len(), |a, b| {
        let (a, b) = (&spans[a].start, &spans[b].start);
        (a.is_none(), a).cmp(&(b.is_none(), b))
    });
    // The agent each span runs under (its own, or the nearest agent ancestor's) and its
    // trajectory (traces in order of their first span's start), read while the spans are whole.
    let links: Vec<_> =
        spans.iter().map(|s| (s.id.as_deref(), s.agent.as_deref(), s.parent.as_deref())).collect();
    let mut actors = super::span_actors(&links);
    drop(links);
    let mut out: Vec<Trajectory> = Vec::new();
    let mut trace_of = vec![0; spans.len()];
    // Each trajectory's steps (and its task), counted to be sized once: a step is large, and
    // growing the list copied them all (and left a fifth more memory taken).
    let mut sizes: Vec<usize> = Vec::new();
    {
        let mut by_trace: FastMap<&str, usize> = FastMap::default();
        for &i in &order {
            let s = &spans[i];
            let pos = *by_trace.entry(&s.trace_id).or_insert_with(|| {
                out.push(Trajectory { id: s.trace_id.clone(), ..Trajectory::default() });
                sizes.push(1);
                out.len() - 1
            });
            trace_of[i] = pos;
            if let Body::Read(read) = &s.body {
                sizes[pos] += read.steps.len() + usize::from(read.ending.is_some());
            }
        }
    }
    for (tr, n) in out.iter_mut().zip(sizes) {
        tr.steps.reserve_exact(n);
    }
    let mut endings: Vec<(usize, Step)> = Vec::new();
    for i in order {
        let s = &mut spans[i];
        let (pos, actor) = (trace_of[i], std::mem::take(&mut actors[i]));
        let empty = Body::Open(Map::new(), SourceLoc::default(), 0);
        let Body::Read(read) = std::mem::replace(&mut s.body, empty) else { continue };
        let mut read = *read;
        let tr = &mut out[pos];
        // A tool's result is the tool's; the other steps are the agent's.
        for st in read.steps.iter_mut().chain(read.ending.as_mut()) {
            if st.role != Role::Tool {
                st.actor.clone_from(&actor);
            }
        }
        let parent = s.parent.take();
        if tr.task.is_none() {
            if let Some(input) = read.input {
                tr.task = Some(input.clone());
                let first = &read.steps[0];
                tr.steps.insert(
                    0,
                    Step {
                        loc: first.loc.clone(),
                        role: Role::User,
                        text: input,
                        timestamp: first.timestamp.clone(),
                        ingest_seq: first.ingest_seq,
                        ..Step::default()
                    },
                );
            }
        }
        if parent.is_none() && (read.steps.iter().any(|s| s.is_error) || read.ending.is_some()) {
            tr.outcome = Outcome::Failed;
        }
        if let Some(reply) = read.reply {
            tr.final_answer = Some(reply);
        }
        tr.steps.extend(read.steps);
        endings.extend(read.ending.map(|e| (pos, e)));
    }
    // An agent span's error happened when the span ended: placed after every step that
    // started before then (and before the next agent's, in arrival order on a tie). A step
    // without a time (the result of a tool span that has no `ended_at`) goes with the step
    // before it, so a call and its result stay together before the ending.
    for (pos, ending) in endings {
        let steps = &mut out[pos].steps;
        let at = match &ending.timestamp {
            Some(end) => {
                let mut last = None;
                let mut time: Option<&str> = None;
                for (i, s) in steps.iter().enumerate() {
                    time = s.timestamp.as_deref().or(time);
                    if time.is_some_and(|t| t <= end.as_ref()) {
                        last = Some(i);
                    }
                }
                last.map_or(0, |i| i + 1)
            }
            None => steps.len(),
        };
        steps.insert(at, ending);
    }
    for tr in &mut out {
        if tr.task.is_none() {
            tr.task = workflows.get(&tr.id).cloned();
        }
        for (i, s) in tr.steps.iter_mut().enumerate() {
            s.index = i as u32;
        }
    }
    out
}

/// What one span gives: its steps (one, or two for a tool call), the user's request it saw
/// and the reply it made without calling a tool.
#[derive(Clone)]
struct SpanRead {
    steps: Vec<Step>,
    /// An agent span's error, a step of its own at the span's end.
    ending: Option<Step>,
    input: Option<String>,
    reply: Option<String>,
}

fn span_steps(
    f: &Map<String, Value>,
    id: Option<&String>,
    loc: &SourceLoc,
    ingest_seq: u64,
    trace_id: &str,
) -> SpanRead {
    let empty = Map::new();
    let data = f.get("span_data").and_then(Value::as_object).unwrap_or(&empty);
    let kind = get_text(data, &["type"]).unwrap_or_default();
    let mut error = match f.get("error") {
        Some(Value::Object(e)) => {
            let message = get_text(e, &["message"]).unwrap_or_else(|| "error".to_string());
            // The SDK puts the exception's text under `data.error` (a tool's failure).
            let detail =
                e.get("data").and_then(Value::as_object).and_then(|d| get_text(d, &["error"]));
            Some(match detail {
                Some(d) if !message.contains(d.as_str()) => format!("{message}: {d}"),
                _ => message,
            })
        }
        Some(Value::String(e)) => Some(e.clone()),
        _ => None,
    };
    let mut step = Step {
        loc: loc.clone(),
        role: Role::Assistant,
        kind: StepKind::Message,
        is_error: error.is_some(),
        status: Some(kind.as_str()).filter(|k| !k.is_empty()).map(Box::from),
        timestamp: get_text(f, &["started_at"]).map(Box::from),
        ingest_seq,
        ..Step::default()
    };
    step.ids.run_id = Some(Box::from(trace_id));
    step.ids.span_id = id.map(|i| Box::from(i.as_str()));
    step.ids.parent_id = get_text(f, &["parent_id"]).map(Box::from);
    let name = get_text(data, &["name"]).unwrap_or_default();
    let (mut input, mut reply) = (None, None);
    let (mut observation, mut ending) = (None, None);
    match kind.as_str() {
        "generation" => {
            let outputs = messages(data.get("output"));
            step.text = outputs.iter().map(|m| message_text(m)).collect::<Vec<_>>().join("\n");
            let calls: Vec<&Map<String, Value>> = outputs
                .iter()
                .filter_map(|m| m.get("tool_calls").and_then(Value::as_array))
                .flatten()
                .filter_map(Value::as_object)
                .collect();
            if calls.is_empty() {
                reply = Some(step.text.clone()).filter(|t| !t.is_empty());
            } else {
                let func = |c: &Map<String, Value>, k: &str| match c.get("function") {
                    Some(Value::Object(fun)) => get_text(fun, &[k]),
                    _ => get_text(c, &[k]),
                };
                let names: Vec<String> = calls.iter().filter_map(|c| func(c, "name")).collect();
                let args: Vec<String> = calls.iter().filter_map(|c| func(c, "arguments")).collect();
                step.kind = StepKind::Action;
                step.tool = Some(Box::from(names.join(",")));
                step.args = Some(args.join("\n"));
                if step.text.is_empty() {
                    step.text = super::calls_text(&names, &args);
                }
            }
            input = messages(data.get("input"))
                .iter()
                .rev()
                .find(|m| m.get("role").and_then(Value::as_str) == Some("user"))
                .map(|m| message_text(m))
                .filter(|t| !t.is_empty());
            step.usage = usage(data.get("usage"), f);
        }
        "response" => {
            step.text = get_text(data, &["response_id"])
                .map(|id| format!("response {id}"))
                .unwrap_or_else(|| "response".to_string());
            step.usage = usage(data.get("usage"), f);
        }
        "function" => {
            step.kind = StepKind::Action;
            step.tool = Some(name.as_str()).filter(|n| !n.is_empty()).map(Box::from);
            step.args = get(data, &["input"]).map(value_text);
            step.text = format!("{name}({})", step.args.as_deref().unwrap_or(""));
            step.ids.action_id = id.map(|i| Box::from(i.as_str()));
            let mut obs = Step {
                loc: loc.clone(),
                role: Role::Tool,
                kind: StepKind::Observation,
                tool: step.tool.clone(),
                text: get(data, &["output"]).map(value_text).unwrap_or_default(),
                is_error: step.is_error,
                timestamp: get_text(f, &["ended_at"]).map(Box::from),
                ingest_seq,
                ..Step::default()
            };
            obs.ids.run_id = step.ids.run_id.clone();
            obs.ids.source_action_id = id.map(|i| Box::from(i.as_str()));
            obs.usage = usage(None, f);
            // The error is the tool's result: shown on the observation.
            step.is_error = false;
            observation = Some(obs);
        }
        "agent" => {
            let list = |k: &str| match data.get(k) {
                Some(Value::Array(a)) if !a.is_empty() => {
                    Some(a.iter().map(value_text).collect::<Vec<_>>().join(", "))
                }
                _ => None,
            };
            step.text = format!("agent {name}");
            if let Some(tools) = list("tools") {
                step.text.push_str(&format!("\ntools: {tools}"));
            }
            if let Some(handoffs) = list("handoffs") {
                step.text.push_str(&format!("\nhandoffs: {handoffs}"));
            }
            // The run (or a nested agent) stopped with this error when the span ended: the
            // SDK's `MaxTurnsExceeded`, a guardrail's tripwire, an exception.
            if let Some(e) = error.take() {
                step.is_error = false;
                let root = step.ids.parent_id.is_none();
                let mut end = Step {
                    loc: loc.clone(),
                    actor: step.actor.clone(),
                    role: Role::Environment,
                    kind: if root { StepKind::RunEnd } else { StepKind::Observation },
                    text: e,
                    is_error: true,
                    status: Some(Box::from("error")),
                    timestamp: get_text(f, &["ended_at"]).map(Box::from),
                    ingest_seq,
                    ..Step::default()
                };
                end.ids.run_id = step.ids.run_id.clone();
                end.ids.span_id = id.map(|i| Box::from(i.as_str()));
                ending = Some(end);
            }
        }
        "handoff" => {
            let from = get_text(data, &["from_agent"]).unwrap_or_default();
            let to = get_text(data, &["to_agent"]).unwrap_or_default();
            step.text = format!("handoff from {from} to {to}");
            step.tool = Some(Box::from("handoff"));
        }
        "guardrail" => {
            let triggered = data.get("triggered") == Some(&Value::Bool(true));
            step.text = format!(
                "guardrail {name}: {}",
                if triggered { "triggered" } else { "not triggered" }
            );
            step.is_error |= triggered;
        }
        _ => {
            let mut rest = data.clone();
            rest.remove("type");
            step.text = match (name.is_empty(), rest.is_empty()) {
                (false, _) => {
                    rest.remove("name");
                    match rest.is_empty() {
                        true => format!("{kind} {name}"),
                        false => {
                            format!("{kind} {name}: {}", crate::json::to_text(&Value::Object(rest)))
                        }
                    }
                }
                // A span exported without its data (`span_data: null`): said, not left blank.
                (true, true) if kind.is_empty() => "a span without `span_data`".to_string(),
                (true, true) => kind.clone(),
                (true, false) => format!("{kind}: {}", crate::json::to_text(&Value::Object(rest))),
            };
        }
    }
    let target = observation.as_mut().unwrap_or(&mut step);
    if let Some(e) = &error {
        if !target.text.contains(e.as_str()) {
            target.text =
                if target.text.is_empty() { e.clone() } else { format!("{}\n{e}", target.text) };
        }
    }
    let mut steps = vec![step];
    steps.extend(observation);
    SpanRead { steps, ending, input, reply }
}

/// A generation's `input` / `output`: a list of chat messages (or one message, or text).
/// Borrowed where written as messages (a generation's `input` repeats the whole conversation:
/// copying it cost a tenth of the time on such files).
fn messages(v: Option<&Value>) -> Vec<Cow<'_, Map<String, Value>>> {
    match v {
        Some(Value::Array(items)) => {
            items.iter().filter_map(Value::as_object).map(Cow::Borrowed).collect()
        }
        Some(Value::Object(m)) => vec![Cow::Borrowed(m)],
        Some(Value::String(s)) => {
            let mut m = Map::new();
            m.insert("role".to_string(), Value::String("user".to_string()));
            m.insert("content".to_string(), Value::String(s.clone()));
            vec![Cow::Owned(m)]
        }
        _ => Vec::new(),
    }
}

fn message_text(m: &Map<String, Value>) -> String {
    get(m, &["content", "text"]).map(content_text).unwrap_or_default()
}

/// A span's `usage` (`input_tokens` / `output_tokens`, or the chat API's `prompt_tokens` /
/// `completion_tokens`) and its `ended_at` − `started_at`.
fn usage(u: Option<&Value>, f: &Map<String, Value>) -> Option<Box<Usage>> {
    let u = u.and_then(Value::as_object);
    let tok = |keys: &[&str]| u.and_then(|u| keys.iter().find_map(|k| count(u.get(*k))));
    // A time read where it is written (text), any other value as its JSON text.
    let at = |key: &str| match get(f, &[key])? {
        Value::String(t) => millis(t),
        other => millis(&value_text(other)),
    };
    let duration_ms = match (at("started_at"), at("ended_at")) {
        (Some(s), Some(e)) if e >= s => Some(e - s),
        _ => None,
    };
    Usage {
        input_tokens: tok(&["input_tokens", "prompt_tokens"]),
        output_tokens: tok(&["output_tokens", "completion_tokens"]),
        duration_ms,
        ..Usage::default()
    }
    .non_empty()
}

/// Milliseconds within the day of an ISO 8601 time (`2025-05-29T18:29:04.655824+00:00`), enough
/// for a span's duration (both ends written by the same clock; a span across midnight gets none).
fn millis(t: &str) -> Option<u64> {
    let (seconds, rest) = clock(t)?;
    // The fraction's first three digits, as milliseconds (`.6` is 600): no string built.
    let frac = rest.strip_prefix('.').unwrap_or("").bytes();
    let (ms, digits) = frac
        .take_while(u8::is_ascii_digit)
        .take(3)
        .fold((0, 0), |(ms, n), d| (ms * 10 + u64::from(d - b'0'), n + 1));
    Some(seconds * 1000 + ms * 10u64.pow(3 - digits))
}

/// The seconds within the day of an ISO 8601 time's `HH:MM:SS` (after its `T`), and the text
/// after them.
fn clock(t: &str) -> Option<(u64, &str)> {
    let time = t.split_once('T')?.1;
    let b = time.as_bytes();
    if b.len() < 8 || b[2] != b':' || b[5] != b':' {
        return None;
    }
    let num = |r: std::ops::Range<usize>| time.get(r)?.parse::<u64>().ok();
    let (h, m, s) = (num(0..2)?, num(3..5)?, num(6..8)?);
    Some(((h * 60 + m) * 60 + s, &time[8..]))
}

/// A whole document: a batch (`{"data": [...]}`), one export, or a list of exports.
pub fn from_document(value: Value) -> Result<Vec<Trajectory>, String> {
    let mut adapter = OpenaiAgents::default();
    let items = match value {
        Value::Array(items) => items,
        other => vec![other],
    };
    for (i, item) in items.into_iter().enumerate() {
        let loc = SourceLoc { line: 0, offset: 0, path: format!("$[{i}]").into() };
        match item {
            Value::Object(o) => adapter.push_value(o, &loc, i as u64)?,
            other => {
                return Err(format!("item {i} is {}, not an object", super::json_kind(&other)))
            }
        }
    }
    Ok(assemble(adapter.spans, &adapter.workflows))
}

#[cfg(test)]
mod tests {
    use super::{clock, millis};
    use proptest::prelude::*;

    /// `millis` as it was written before it stopped building strings (the fraction collected
    /// and padded as text): the reference.
    fn millis_by_strings(t: &str) -> Option<u64> {
        let (seconds, rest) = clock(t)?;
        let frac: String =
            rest.strip_prefix('.').unwrap_or("").chars().take_while(char::is_ascii_digit).collect();
        let ms = format!("{frac:0<3}")[..3].parse::<u64>().ok()?;
        Some(seconds * 1000 + ms)
    }

    #[test]
    fn a_time_of_day_in_milliseconds() {
        assert_eq!(millis("2025-05-29T18:29:04.655824+00:00"), Some(66_544_655));
        assert_eq!(millis("2025-05-29T00:00:01.6Z"), Some(1_600));
        assert_eq!(millis("2025-05-29T00:00:01Z"), Some(1_000));
        assert_eq!(millis("2025-05-29T00:00:01.é"), Some(1_000));
        assert_eq!(millis("2025-05-29 00:00:01"), None);
        assert_eq!(millis("T1:00:00"), None);
    }

    proptest! {
        /// The same milliseconds as the string-building version, or none, on times made of
        /// the pieces an ISO 8601 time has and some it should not.
        #[test]
        fn the_same_as_by_strings(
            parts in prop::collection::vec(prop::sample::select(vec![
                "2025-05-29", "T", "18", ":", "29", "04", ".", "6", "655824", "+00:00", "Z",
                "+1", "é", " ", "99", "-",
            ]), 0..12),
        ) {
            let t = parts.concat();
            prop_assert_eq!(millis(&t), millis_by_strings(&t), "{}", t);
        }
    }
}
