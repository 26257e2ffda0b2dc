//! The OTLP reader's rules, one at a time (docs/formats.md, "OpenTelemetry GenAI spans"): how
//! spans become steps and trajectories, how `AnyValue` attributes, messages and their parts
//! are read, what makes a span an error, and a span's usage. The real export of
//! `tests/fixtures/otel/` is checked whole in `golden.rs`; these spans are written to reach what
//! it does not hold.
#![cfg(not(target_arch = "wasm32"))]

use serde_json::{json, Value};
use trajscope_core::model::{Format, Outcome, Role, StepKind, Trajectory};
use trajscope_core::{ingest, IngestOptions};

/// A span: `attrs` maps each attribute's key to its OTLP `AnyValue`; `extra` adds fields.
fn span(
    trace: &str,
    id: &str,
    parent: &str,
    start: u64,
    name: &str,
    attrs: Value,
    extra: Value,
) -> Value {
    let attributes: Vec<Value> = attrs
        .as_object()
        .map(|m| m.iter().map(|(k, v)| json!({"key": k, "value": v})).collect())
        .unwrap_or_default();
    let mut s = json!({"traceId": trace, "spanId": id, "parentSpanId": parent, "name": name,
        "startTimeUnixNano": start.to_string(), "endTimeUnixNano": (start + 2_000_000).to_string(),
        "attributes": attributes});
    if let (Some(s), Some(e)) = (s.as_object_mut(), extra.as_object()) {
        s.extend(e.clone());
    }
    s
}

fn s(text: &str) -> Value {
    json!({"stringValue": text})
}

/// A `gen_ai.*.messages` attribute as the instrumentations write it: a JSON string.
fn msgs(m: Value) -> Value {
    s(&m.to_string())
}

fn line(spans: &[Value]) -> String {
    json!({"resourceSpans": [{"resource": {}, "scopeSpans": [{"scope": {"name": "t"}, "spans": spans}]}]})
        .to_string()
}

fn read_all(lines: &[String]) -> Vec<Trajectory> {
    let opts = IngestOptions { format: Some(Format::Otel), ..IngestOptions::default() };
    let t = ingest(lines.join("\n").as_bytes(), opts);
    assert_eq!(t.format, Format::Otel, "{:?}", t.error);
    assert!(t.quarantine.is_empty(), "{:?}", t.quarantine);
    t.trajectories
}

fn read(spans: &[Value]) -> Trajectory {
    let mut all = read_all(&[line(spans)]);
    assert_eq!(all.len(), 1);
    all.remove(0)
}

/// `attrs` beside the operation's name `op`.
fn op(op: &str, attrs: Value) -> Value {
    let mut a = json!({"gen_ai.operation.name": s(op)});
    a.as_object_mut().unwrap().extend(attrs.as_object().cloned().unwrap_or_default());
    a
}

fn chat(trace: &str, id: &str, parent: &str, start: u64, attrs: Value) -> Value {
    span(trace, id, parent, start, "chat gpt-4o", op("chat", attrs), json!({}))
}

/// A tool's span (`execute_tool`) of trace `t`: `attrs` beside its operation's name.
fn tool(id: &str, parent: &str, start: u64, name: &str, attrs: Value, extra: Value) -> Value {
    span("t", id, parent, start, name, op("execute_tool", attrs), extra)
}

fn texts(t: &Trajectory) -> Vec<(Role, &str)> {
    t.steps.iter().map(|s| (s.role, s.text.as_str())).collect()
}

#[test]
fn spans_are_grouped_by_trace_and_ordered_by_start_time_ties_in_arrival_order() {
    let lines = [
        line(&[
            span("t1", "b", "", 300, "step b", json!({}), json!({})),
            span("t2", "x", "", 100, "other trace", json!({}), json!({})),
            span("t1", "a", "", 200, "step a", json!({}), json!({})),
        ]),
        line(&[
            span("t1", "c", "", 300, "step c", json!({}), json!({})),
            // A start given as a JSON number is read as one written as text.
            json!({"traceId": "t1", "spanId": "d", "name": "step d", "startTimeUnixNano": 250}),
        ]),
    ];
    let all = read_all(&lines);
    // Trajectories in order of their first span's start.
    let ids: Vec<&str> = all.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(ids, ["t2", "t1"]);
    let t1 = &all[1];
    let names: Vec<&str> = t1.steps.iter().map(|s| s.text.as_str()).collect();
    assert_eq!(names, ["step a", "step d", "step b", "step c"]);
    let index: Vec<u32> = t1.steps.iter().map(|s| s.index).collect();
    assert_eq!(index, [0, 1, 2, 3]);
    // Each step keeps its span's ids; an empty parent is none.
    let a = &t1.steps[0];
    assert_eq!((a.ids.run_id.as_deref(), a.ids.span_id.as_deref()), (Some("t1"), Some("a")));
    assert_eq!(a.ids.parent_id, None);
    assert_eq!(a.timestamp.as_deref(), Some("200"));
    // A span with no trace id is a trace of its own, named `trace`.
    let none = read(&[json!({"spanId": "z", "name": "lonely", "startTimeUnixNano": "5"})]);
    assert_eq!(none.id, "trace");
}

#[test]
fn the_first_user_message_is_the_task_and_step_zero_the_root_reply_the_final_answer() {
    let input = msgs(json!([
        {"role": "system", "parts": [{"type": "text", "content": "You are a router."}]},
        {"role": "user", "parts": [{"type": "text", "content": "first ask"}]},
        {"role": "assistant", "parts": [{"type": "text", "content": "ok"}]},
        {"role": "user", "parts": [{"type": "text", "content": "Cancel EHGLP3."}]},
    ]));
    let later =
        msgs(json!([{"role": "user", "parts": [{"type": "text", "content": "not the task"}]}]));
    let reply =
        msgs(json!([{"role": "assistant", "parts": [{"type": "text", "content": "Cancelled."}]}]));
    let t = read(&[
        span(
            "t",
            "root",
            "",
            100,
            "invoke_agent router",
            json!({"gen_ai.operation.name": s("invoke_agent"), "gen_ai.output.messages": reply}),
            json!({}),
        ),
        chat("t", "c1", "root", 200, json!({"gen_ai.input.messages": input})),
        chat("t", "c2", "root", 300, json!({"gen_ai.input.messages": later})),
    ]);
    // The last user message of the first span with input messages.
    assert_eq!(t.task.as_deref(), Some("Cancel EHGLP3."));
    assert_eq!(texts(&t)[0], (Role::User, "Cancel EHGLP3."));
    assert_eq!(t.steps[0].ids.run_id, None, "step 0 is the request, not a span");
    assert_eq!(t.steps.len(), 4);
    // An agent span's step marks the start of its work: its name.
    assert_eq!(texts(&t)[1], (Role::Assistant, "invoke_agent router"));
    assert_eq!(t.final_answer.as_deref(), Some("Cancelled."));
    // A child's reply is no final answer.
    let t = read(&[
        span("t", "root", "", 100, "invoke_agent a", json!({}), json!({})),
        chat("t", "c", "root", 200, json!({"gen_ai.output.messages": reply.clone()})),
    ]);
    assert_eq!(t.final_answer, None);
}

#[test]
fn a_reply_is_read_from_its_parts_and_tool_calls_make_it_an_action() {
    let out = msgs(json!([{"role": "assistant", "parts": [
        {"type": "reasoning", "content": "thinking it over"},
        {"type": "text", "text": "Let me look."},
        {"type": "tool_call_response", "result": {"ok": true}},
        {"type": "image", "content": "ignored"},
    ]}]));
    let t = read(&[chat("t", "c", "", 1, json!({"gen_ai.output.messages": out}))]);
    assert_eq!(t.steps[0].text, "thinking it over\nLet me look.\n{\"ok\":true}");
    assert_eq!(t.steps[0].kind, StepKind::Message);
    // A message with no parts of those kinds: its `content`; messages given as a list, not a
    // string, are read alike.
    let listed = json!({"arrayValue": {"values": [
        {"kvlistValue": {"values": [
            {"key": "role", "value": s("assistant")},
            {"key": "content", "value": s("plain content")}]}}]}});
    let t = read(&[chat("t", "c", "", 1, json!({"gen_ai.output.messages": listed}))]);
    assert_eq!(t.steps[0].text, "plain content");
    // Messages that are not JSON are none.
    let t = read(&[chat("t", "c", "", 1, json!({"gen_ai.output.messages": s("not json")}))]);
    assert_eq!(t.steps[0].text, "");

    let calls = msgs(json!([{"role": "assistant", "parts": [
        {"type": "tool_call", "id": "call_1", "name": "read_file", "arguments": "{\"path\":\"src/a.rs\"}"},
        {"type": "tool_call", "id": "call_2", "name": "bash", "arguments": {"command": "ls src"}},
    ]}]));
    let t = read(&[chat("t", "c", "", 1, json!({"gen_ai.output.messages": calls}))]);
    let a = &t.steps[0];
    assert_eq!((a.role, a.kind), (Role::Assistant, StepKind::Action));
    assert_eq!(a.tool.as_deref(), Some("read_file,bash"));
    assert_eq!(a.args.as_deref(), Some("{\"path\":\"src/a.rs\"}\n{\"command\":\"ls src\"}"));
    assert_eq!(a.ids.action_id.as_deref(), Some("call_1,call_2"));
    assert!(a.text.contains("read_file") && a.text.contains("bash"), "{}", a.text);
    assert!(a.artifact_refs.iter().any(|r| r.normalized == "src/a.rs"), "{:?}", a.artifact_refs);
    // `text_completion` and `generate_content` are inference too.
    for op in ["text_completion", "generate_content"] {
        let out =
            msgs(json!([{"role": "assistant", "parts": [{"type": "text", "content": "hi"}]}]));
        let t = read(&[span(
            "t",
            "c",
            "",
            1,
            "x",
            json!({"gen_ai.operation.name": s(op), "gen_ai.output.messages": out}),
            json!({}),
        )]);
        assert_eq!(texts(&t), [(Role::Assistant, "hi")], "{op}");
    }
    // With no operation name, the span name's first word is the operation.
    let out = msgs(json!([{"role": "assistant", "parts": [{"type": "text", "content": "hello"}]}]));
    let t = read(&[span(
        "t",
        "c",
        "",
        1,
        "chat gpt-4o",
        json!({"gen_ai.output.messages": out}),
        json!({}),
    )]);
    assert_eq!(texts(&t), [(Role::Assistant, "hello")]);
    assert_eq!(t.steps[0].status.as_deref(), Some("chat"));
}

#[test]
fn a_tool_span_is_an_observation_of_its_tool_arguments_and_result() {
    let t = read(&[tool(
        "x",
        "",
        1,
        "execute_tool bash",
        json!({"gen_ai.tool.name": s("run_shell"),
            "gen_ai.tool.call.arguments": s("{\"command\":\"cat src/lib.rs\"}"),
            "gen_ai.tool.call.result": s("fn main() {}"),
            "gen_ai.tool.call.id": s("call_9")}),
        json!({}),
    )]);
    let o = &t.steps[0];
    assert_eq!((o.role, o.kind), (Role::Tool, StepKind::Observation));
    assert_eq!(o.tool.as_deref(), Some("run_shell"));
    assert_eq!(o.args.as_deref(), Some("{\"command\":\"cat src/lib.rs\"}"));
    assert_eq!(o.text, "fn main() {}");
    assert_eq!(o.ids.source_action_id.as_deref(), Some("call_9"));
    assert!(!o.is_error);
    // No tool name attribute: the span name's after `execute_tool `.
    let t = read(&[tool("x", "", 1, "execute_tool lookup", json!({}), json!({}))]);
    assert_eq!(t.steps[0].tool.as_deref(), Some("lookup"));
    assert_eq!(t.steps[0].text, "");
}

#[test]
fn any_values_of_every_kind_are_read() {
    let t = read(&[tool(
        "x",
        "",
        1,
        "execute_tool f",
        json!({"gen_ai.tool.name": s("f"),
            "gen_ai.tool.call.arguments": {"kvlistValue": {"values": [
                {"key": "n", "value": {"intValue": "5"}},
                {"key": "m", "value": {"intValue": 6}},
                {"key": "big", "value": {"intValue": "99999999999999999999"}},
                {"key": "x", "value": {"doubleValue": 1.5}},
                {"key": "b", "value": {"boolValue": true}},
                {"key": "l", "value": {"arrayValue": {"values": [s("a"), {"intValue": "7"}]}}},
                {"key": "raw", "value": 3},
                {"key": "odd", "value": {"bytesValue": "AAE="}},
                {"key": "none"},
            ]}},
            "gen_ai.tool.call.result": {"intValue": "42"}}),
        json!({}),
    )]);
    let args: Value = serde_json::from_str(t.steps[0].args.as_deref().unwrap()).unwrap();
    assert_eq!(
        args,
        json!({"n": 5, "m": 6, "big": "99999999999999999999", "x": 1.5, "b": true,
        "l": ["a", 7], "raw": 3, "odd": {"bytesValue": "AAE="}, "none": null})
    );
    assert_eq!(t.steps[0].text, "42");
    // Attributes that are no list are none: the span's name gives the operation and the tool.
    let t = read(&[tool(
        "x",
        "",
        1,
        "execute_tool f",
        json!({"gen_ai.tool.name": s("g")}),
        json!({"attributes": {"gen_ai.tool.name": "h"}}),
    )]);
    assert_eq!(t.steps[0].tool.as_deref(), Some("f"));
}

#[test]
fn a_span_is_an_error_by_its_status_its_error_type_or_an_exception_event() {
    let err = |extra: Value, attrs: Value| {
        let mut a = json!({"gen_ai.tool.name": s("f"), "gen_ai.tool.call.result": s("output")});
        a.as_object_mut().unwrap().extend(attrs.as_object().cloned().unwrap_or_default());
        let t = read(&[tool("x", "", 1, "execute_tool f", a, extra)]);
        let st = &t.steps[0];
        (st.is_error, st.text.clone(), st.status.as_deref().map(str::to_string))
    };
    for code in [json!(2), json!("STATUS_CODE_ERROR"), json!("ERROR"), json!("2")] {
        let (e, text, _) = err(json!({"status": {"code": code, "message": "boom"}}), json!({}));
        assert!(e, "{code}");
        assert_eq!(text, "output\nboom", "{code}");
    }
    for code in [json!(1), json!(0), json!("STATUS_CODE_OK"), json!("1"), json!(null)] {
        let (e, text, _) = err(json!({"status": {"code": code, "message": "fine"}}), json!({}));
        assert!(!e, "{code}");
        assert_eq!(text, "output", "a message is added only to an error ({code})");
    }
    // `error.type`: an error, its type the step's status and, with no message, its text.
    let (e, text, status) = err(json!({}), json!({"error.type": s("TimeoutError")}));
    assert!(e);
    assert_eq!(text, "output\nTimeoutError");
    assert_eq!(status.as_deref(), Some("TimeoutError"));
    let (_, _, status) = err(json!({}), json!({}));
    assert_eq!(
        status.as_deref(),
        Some("execute_tool"),
        "the operation is the status of a good span"
    );
    // An `exception` event: its message, else its type, else `exception`.
    let ev = |attrs: Value| json!({"events": [{"name": "log"}, {"name": "exception", "attributes": attrs}]});
    let kv = |k: &str, v: &str| json!({"key": k, "value": s(v)});
    let (e, text, _) = err(
        ev(json!([kv("exception.type", "ValueError"), kv("exception.message", "bad id")])),
        json!({}),
    );
    assert!(e);
    assert_eq!(text, "output\nbad id");
    let (_, text, _) = err(ev(json!([kv("exception.type", "ValueError")])), json!({}));
    assert_eq!(text, "output\nValueError");
    let (_, text, _) = err(ev(json!(null)), json!({}));
    assert_eq!(text, "output\nexception");
    // Only an event named `exception`.
    let (e, ..) = err(json!({"events": [{"name": "retry"}]}), json!({}));
    assert!(!e);
    // The status's message first; a text that holds it already is kept as it is.
    let (_, text, _) =
        err(json!({"status": {"code": 2, "message": "output"}}), json!({"error.type": s("E")}));
    assert_eq!(text, "output");
    let (_, text, _) =
        err(json!({"status": {"code": 2, "message": ""}}), json!({"error.type": s("E")}));
    assert_eq!(text, "output\nE", "an empty message is none");
    // An error with no text of its own: the problem alone.
    let t = read(&[tool(
        "x",
        "",
        1,
        "execute_tool f",
        json!({}),
        json!({"status": {"code": 2, "message": "died"}}),
    )]);
    assert_eq!(t.steps[0].text, "died");
}

#[test]
fn a_failed_root_span_fails_the_trajectory_a_failed_child_does_not() {
    let failed = json!({"status": {"code": 2, "message": "gave up"}});
    let t = read(&[
        span("t", "root", "", 1, "invoke_agent a", json!({}), failed.clone()),
        tool("c", "root", 2, "execute_tool f", json!({}), json!({})),
    ]);
    assert_eq!(t.outcome, Outcome::Failed);
    let t = read(&[
        span("t", "root", "", 1, "invoke_agent a", json!({}), json!({})),
        tool("c", "root", 2, "execute_tool f", json!({}), failed),
    ]);
    assert_ne!(t.outcome, Outcome::Failed);
    assert!(t.steps[1].is_error);
}

#[test]
fn a_step_speaks_for_its_own_agent_or_its_nearest_agent_ancestor() {
    let agent = |name: &str| json!({"gen_ai.operation.name": s("invoke_agent"), "gen_ai.agent.name": s(name)});
    let t = read(&[
        span("t", "root", "", 1, "invoke_agent triage", agent("triage"), json!({})),
        span("t", "w", "root", 2, "workflow", json!({}), json!({})),
        chat("t", "c1", "w", 3, json!({})),
        span("t", "sub", "w", 4, "invoke_agent refunds", agent("refunds"), json!({})),
        chat("t", "c2", "sub", 5, json!({})),
        chat("t", "c3", "sub", 6, json!({"gen_ai.agent.name": s("own")})),
        chat("t", "c4", "missing", 7, json!({})),
    ]);
    let actors: Vec<&str> = t.steps.iter().map(|s| s.actor.as_str()).collect();
    assert_eq!(actors, ["triage", "triage", "triage", "refunds", "refunds", "own", ""]);
}

#[test]
fn a_span_usage_is_its_tokens_under_either_name_and_its_end_minus_start() {
    let usage = |attrs: Value, start: Value, end: Value| {
        let t = read(&[span(
            "t",
            "c",
            "",
            0,
            "chat m",
            attrs,
            json!({"startTimeUnixNano": start, "endTimeUnixNano": end}),
        )]);
        t.steps[0].usage.as_deref().cloned()
    };
    let u = usage(
        json!({"gen_ai.usage.input_tokens": {"intValue": "1250"},
        "gen_ai.usage.output_tokens": {"intValue": 31},
        "gen_ai.usage.cache_read.input_tokens": {"intValue": "1000"},
        "gen_ai.usage.cache_creation.input_tokens": {"intValue": "200"}}),
        json!("1735689601000000000"),
        json!("1735689602500000000"),
    )
    .unwrap();
    assert_eq!(
        (u.input_tokens, u.output_tokens, u.cache_read_tokens, u.cache_write_tokens),
        (Some(1250), Some(31), Some(1000), Some(200))
    );
    assert_eq!(u.duration_ms, Some(1500));
    // The older names.
    let u = usage(
        json!({"gen_ai.usage.prompt_tokens": {"intValue": "7"},
        "gen_ai.usage.completion_tokens": {"intValue": "3"},
        "gen_ai.usage.cache_read_input_tokens": {"intValue": "4"},
        "gen_ai.usage.cache_creation_input_tokens": {"intValue": "2"}}),
        json!(null),
        json!(null),
    )
    .unwrap();
    assert_eq!(
        (u.input_tokens, u.output_tokens, u.cache_read_tokens, u.cache_write_tokens),
        (Some(7), Some(3), Some(4), Some(2))
    );
    assert_eq!(u.duration_ms, None);
    // An end before the start, or a start of zero, is no duration; an end equal to the start is
    // one of 0 ms. Nothing at all is no usage.
    assert_eq!(usage(json!({}), json!("2000000000"), json!("1000000000")), None);
    assert_eq!(usage(json!({}), json!("0"), json!("5000000000")), None);
    assert_eq!(
        usage(json!({}), json!(3_000_000_000u64), json!(3_000_000_000u64)).unwrap().duration_ms,
        Some(0)
    );
    assert_eq!(usage(json!({}), json!("1000000"), json!("8000000")).unwrap().duration_ms, Some(7));
}

#[test]
fn a_line_without_resource_spans_is_quarantined_with_its_reason() {
    let opts = IngestOptions { format: Some(Format::Otel), ..IngestOptions::default() };
    let good = line(&[span("t", "a", "", 1, "invoke_agent a", json!({}), json!({}))]);
    let text = [good.as_str(), r#"{"resourceSpans": {"a": 1}}"#, r#"{"other": 1}"#].join("\n");
    let t = ingest(text.as_bytes(), opts);
    assert_eq!(t.trajectories.len(), 1);
    let reasons: Vec<&str> = t.quarantine.iter().map(|q| q.reason.as_str()).collect();
    assert_eq!(reasons.len(), 2, "{reasons:?}");
    assert!(reasons[0].contains("`resourceSpans` is an object, not a list"), "{reasons:?}");
    assert!(reasons[1].contains("without `resourceSpans`"), "{reasons:?}");
    // Scopes and spans that are missing or not lists are nothing, not an error.
    let odd = json!({"resourceSpans": [{"scopeSpans": [{"spans": [1, "x"]}, {}]}, {}, {"scopeSpans": 3}]});
    let t = ingest(
        format!("{good}\n{odd}").as_bytes(),
        IngestOptions { format: Some(Format::Otel), ..IngestOptions::default() },
    );
    assert!(t.quarantine.is_empty());
    assert_eq!(t.trajectories[0].steps.len(), 1);
}

#[test]
fn step_zero_comes_from_the_line_and_time_of_the_span_that_asked() {
    let input = msgs(json!([{"role": "user", "parts": [{"type": "text", "content": "Do it."}]}]));
    let lines = [
        line(&[span("t", "root", "", 100, "invoke_agent a", json!({}), json!({}))]),
        line(&[chat("t", "c", "root", 200, json!({"gen_ai.input.messages": input}))]),
    ];
    let t = &read_all(&lines)[0];
    let (ask, chat) = (&t.steps[0], &t.steps[2]);
    assert_eq!((ask.role, ask.text.as_str()), (Role::User, "Do it."));
    assert_eq!((ask.loc.line, chat.loc.line), (2, 2), "the line of the span it came from");
    assert_eq!(ask.loc, chat.loc);
    assert_eq!(ask.timestamp.as_deref(), Some("200"));
    assert_eq!(ask.ingest_seq, chat.ingest_seq);
    assert_ne!(ask.ingest_seq, t.steps[1].ingest_seq);
}

#[test]
fn a_copy_while_read_is_the_first_trace_so_far() {
    use trajscope_core::Ingestor;
    let lines = [
        line(&[
            span("t1", "b", "", 300, "step b", json!({}), json!({})),
            span("t2", "x", "", 50, "other trace", json!({}), json!({})),
        ]),
        line(&[
            span("t1", "a", "", 200, "step a", json!({}), json!({})),
            span("t1", "c", "", 400, "step c", json!({}), json!({})),
        ]),
    ];
    let opts = IngestOptions { format: Some(Format::Otel), ..IngestOptions::default() };
    let mut ingestor = Ingestor::new(opts.clone());
    ingestor.feed(format!("{}\n", lines.join("\n")).as_bytes());
    // The trace of the file's first span, its first two spans in arrival order, ordered by start.
    let copy = ingestor.snapshot_first(2).expect("a copy");
    assert_eq!(copy.id, "t1");
    let names: Vec<&str> = copy.steps.iter().map(|s| s.text.as_str()).collect();
    assert_eq!(names, ["step a", "step b"]);
    assert_eq!(copy.steps.iter().map(|s| s.index).collect::<Vec<_>>(), [0, 1]);
    assert!(Ingestor::new(opts).snapshot_first(2).is_none(), "nothing read: no copy");
}

/// An OpenInference span (`openinference.span.kind`) with `attrs` beside its kind.
fn oi(id: &str, parent: &str, start: u64, name: &str, kind: &str, attrs: Value) -> Value {
    let mut a = json!({"openinference.span.kind": s(kind)});
    a.as_object_mut().unwrap().extend(attrs.as_object().cloned().unwrap_or_default());
    span("t", id, parent, start, name, a, json!({}))
}

#[test]
fn flattened_messages_are_read_in_index_order_with_their_calls_and_contents() {
    let t = read(&[oi(
        "l",
        "",
        1,
        "ChatCompletion",
        "LLM",
        json!({
            // Index 10 after 2: the list's order is the number's, not the key's.
            "llm.output_messages.10.message.content": s("third"),
            "llm.output_messages.2.message.contents.1.message_content.text": s("second b"),
            "llm.output_messages.2.message.contents.0.message_content.text": s("second a"),
            "llm.output_messages.0.message.content": s("first"),
            "llm.output_messages.0.message.tool_calls.1.tool_call.function.name": s("b"),
            "llm.output_messages.0.message.tool_calls.0.tool_call.function.name": s("a"),
            "llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments": s("{\"x\": 1}"),
            "llm.output_messages.0.message.tool_calls.0.tool_call.id": s("c1"),
            "llm.output_messages.x.message.content": s("not an index"),
            "llm.output_messages": s("not a list item"),
        }),
    )]);
    let step = &t.steps[0];
    assert_eq!(step.text, "first\nsecond a\nsecond b\nthird");
    assert_eq!(step.kind, StepKind::Action);
    assert_eq!(step.tool.as_deref(), Some("a,b"));
    assert_eq!(step.args.as_deref(), Some("{\"x\": 1}"));
    assert_eq!(step.ids.action_id.as_deref(), Some("c1"));
    assert_eq!(t.final_answer.as_deref(), Some(step.text.as_str()), "a root's reply");
}

#[test]
fn messages_of_gen_ai_are_read_before_flattened_ones_and_output_value_last() {
    let reply =
        msgs(json!([{"role": "assistant", "parts": [{"type": "text", "content": "gen_ai"}]}]));
    let both = json!({"gen_ai.output.messages": reply, "llm.output_messages.0.message.content":
        s("flattened"), "output.value": s("raw")});
    let t = read(&[oi("a", "", 1, "c", "LLM", both)]);
    assert_eq!(t.steps[0].text, "gen_ai");
    let flat = json!({"llm.output_messages.0.message.content": s("flattened"),
        "gen_ai.completion.0.content": s("openllmetry"), "output.value": s("raw")});
    assert_eq!(read(&[oi("a", "", 1, "c", "LLM", flat)]).steps[0].text, "flattened");
    let llm = json!({"gen_ai.completion.0.content": s("openllmetry"), "output.value": s("raw")});
    assert_eq!(read(&[oi("a", "", 1, "c", "LLM", llm)]).steps[0].text, "openllmetry");
    let raw = read(&[oi("a", "", 1, "c", "LLM", json!({"output.value": s("raw")}))]);
    assert_eq!(raw.steps[0].text, "raw");
    // OpenLLMetry's model calls carry no span kind, only `llm.request.type`.
    let call = span(
        "t",
        "x",
        "",
        1,
        "openai.chat",
        json!({"llm.request.type": s("chat"), "gen_ai.completion.0.tool_calls.0.name": s("ls"),
            "gen_ai.completion.0.tool_calls.0.id": s("k")}),
        json!({}),
    );
    let t = read(&[call]);
    assert_eq!((t.steps[0].kind, t.steps[0].tool.as_deref()), (StepKind::Action, Some("ls")));
    assert_eq!(t.steps[0].ids.action_id.as_deref(), Some("k"));
}

#[test]
fn a_tool_span_of_either_convention_is_the_result_of_its_call() {
    let t = read(&[
        oi("r", "", 1, "agent", "AGENT", json!({})),
        oi(
            "a",
            "r",
            2,
            "lookup",
            "TOOL",
            json!({"tool.name": s("get_price"), "tool.id": s("c1"),
            "input.value": s("{\"path\": \"a.txt\"}"), "output.value": s("42")}),
        ),
        oi("b", "r", 3, "search_web", "TOOL", json!({"tool_call.id": s("c2")})),
        span(
            "t",
            "c",
            "r",
            4,
            "run.tool",
            json!({"traceloop.span.kind": s("tool"),
            "traceloop.entity.name": s("run"), "traceloop.entity.input": s("{\"cmd\": \"ls\"}"),
            "traceloop.entity.output": s("a.txt")}),
            json!({}),
        ),
    ]);
    let tools: Vec<_> = t.steps[1..]
        .iter()
        .map(|s| (s.kind, s.tool.as_deref(), s.ids.source_action_id.as_deref(), s.text.as_str()))
        .collect();
    assert_eq!(
        tools,
        [
            (StepKind::Observation, Some("get_price"), Some("c1"), "42"),
            // No `tool.name`: the span's name is the tool's.
            (StepKind::Observation, Some("search_web"), Some("c2"), ""),
            (StepKind::Observation, Some("run"), None, "a.txt"),
        ]
    );
    assert_eq!(t.steps[1].args.as_deref(), Some("{\"path\": \"a.txt\"}"));
    assert_eq!(t.steps[3].args.as_deref(), Some("{\"cmd\": \"ls\"}"));
    // A GenAI tool span without a tool name: its name after `execute_tool `, else the whole
    // name unless that is the bare operation.
    let named = |name: &str| {
        let t = read(&[tool("a", "", 1, name, json!({}), json!({}))]);
        t.steps[0].tool.as_deref().map(str::to_string)
    };
    assert_eq!(named("execute_tool lookup").as_deref(), Some("lookup"));
    assert_eq!(named("lookup").as_deref(), Some("lookup"));
    assert_eq!(named("execute_tool"), None);
    // An attribute written without its value is no name: the next convention's is read.
    let nulled = read(&[tool(
        "a",
        "",
        1,
        "x",
        json!({"gen_ai.tool.name": null,
        "tool.name": s("get_price")}),
        json!({}),
    )]);
    assert_eq!(nulled.steps[0].tool.as_deref(), Some("get_price"));
    // Other span kinds are steps named by the span, their kind the status.
    assert_eq!((t.steps[0].text.as_str(), t.steps[0].status.as_deref()), ("agent", Some("agent")));
}

#[test]
fn a_root_span_s_input_is_the_request_and_an_agent_span_names_its_agent() {
    let task = |input: &str| {
        let t = read(&[
            oi("r", "", 1, "run", "CHAIN", json!({"input.value": s(input)})),
            oi("c", "r", 2, "child", "CHAIN", json!({"input.value": s("not the request")})),
        ]);
        (t.task.clone(), t.steps.len())
    };
    assert_eq!(task("Find the price."), (Some("Find the price.".to_string()), 3));
    assert_eq!(task("{\"task\": \"Find it.\", \"stream\": false}").0.as_deref(), Some("Find it."));
    let kwargs = "{\"args\": [], \"kwargs\": {\"query\": \"Q?\"}}";
    assert_eq!(task(kwargs).0.as_deref(), Some("Q?"));
    assert_eq!(task("{\"args\": [\"A?\"], \"kwargs\": {}}").0.as_deref(), Some("A?"));
    assert_eq!(task("{\"other\": 1}").0.as_deref(), Some("{\"other\": 1}"));
    // No root input: no request step; a child's input is not the run's request.
    let t = read(&[oi("c", "r", 2, "child", "CHAIN", json!({"input.value": s("x")}))]);
    assert_eq!((t.task.as_deref(), t.steps.len()), (None, 1));

    let t = read(&[
        oi("a", "", 1, "CodeAgent.run", "AGENT", json!({})),
        oi("n", "a", 2, "named", "AGENT", json!({"agent.name": s("researcher")})),
        oi("l", "n", 3, "c", "LLM", json!({"llm.output_messages.0.message.content": s("hi")})),
        span(
            "t",
            "w",
            "a",
            4,
            "w.agent",
            json!({"traceloop.span.kind": s("agent"),
            "traceloop.entity.name": s("coder")}),
            json!({}),
        ),
        oi("x", "w", 5, "c", "LLM", json!({})),
    ]);
    let actors: Vec<&str> = t.steps.iter().map(|s| s.actor.as_str()).collect();
    assert_eq!(actors, ["CodeAgent.run", "researcher", "researcher", "coder", "coder"]);
}

#[test]
fn llm_token_counts_and_cost_are_the_step_s_usage() {
    let t = read(&[oi(
        "l",
        "",
        1,
        "c",
        "LLM",
        json!({"llm.token_count.prompt": {"intValue": "100"}, "llm.token_count.completion":
            {"intValue": 7}, "llm.token_count.prompt_details.cache_read": {"intValue": "60"},
            "llm.token_count.prompt_details.cache_write": {"intValue": "5"},
            "llm.cost.total": {"doubleValue": 0.25}}),
    )]);
    let u = t.steps[0].usage.as_deref().unwrap();
    assert_eq!(
        (u.input_tokens, u.output_tokens, u.cache_read_tokens, u.cache_write_tokens),
        (Some(100), Some(7), Some(60), Some(5))
    );
    assert_eq!(u.cost_usd, Some(0.25));
}

mod any_attributes {
    //! Spans of any attributes the three conventions name, flattened lists of any indices and
    //! values of any kind: no panic, and one step a span (and the request's).
    use super::*;
    use proptest::prelude::*;

    const KEYS: &[&str] = &[
        "gen_ai.operation.name",
        "openinference.span.kind",
        "traceloop.span.kind",
        "llm.request.type",
        "llm.output_messages.0.message.content",
        "llm.output_messages.1.message.contents.0.message_content.text",
        "llm.output_messages.0.message.tool_calls.0.tool_call.function.name",
        "llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments",
        "llm.output_messages.99999999999.message.role",
        "llm.input_messages.0.message.role",
        "llm.input_messages.0.message.content",
        "gen_ai.prompt.0.role",
        "gen_ai.completion.0.tool_calls.3.name",
        "gen_ai.output.messages",
        "input.value",
        "output.value",
        "traceloop.entity.input",
        "traceloop.entity.output",
        "traceloop.entity.name",
        "tool.name",
        "tool.id",
        "agent.name",
        "llm.token_count.prompt",
        "llm.cost.total",
    ];
    const TEXTS: &[&str] = &[
        "LLM",
        "TOOL",
        "AGENT",
        "chain",
        "tool",
        "agent",
        "chat",
        "execute_tool",
        "user",
        "",
        "{\"task\": 1}",
        "{\"kwargs\": {\"query\": [1]}, \"args\": [2]}",
        "[{\"role\": \"user\"}]",
        "-3",
        "1e400",
    ];

    fn any_value() -> impl Strategy<Value = Value> {
        prop_oneof![
            prop::sample::select(TEXTS).prop_map(|t| json!({"stringValue": t})),
            any::<i64>().prop_map(|i| json!({"intValue": i.to_string()})),
            any::<f64>().prop_map(|f| json!({"doubleValue": f})),
            any::<bool>().prop_map(|b| json!({"boolValue": b})),
            prop::sample::select(TEXTS)
                .prop_map(|t| json!({"arrayValue": {"values": [{"stringValue": t}]}})),
            Just(json!(null)),
            Just(json!({"kvlistValue": {"values": [{"key": "k"}]}})),
        ]
    }

    fn any_span() -> impl Strategy<Value = Value> {
        (
            prop::collection::vec((prop::sample::select(KEYS), any_value()), 0..8),
            0..3usize,
            0..3usize,
            0..1000u64,
        )
            .prop_map(|(attrs, id, parent, start)| {
                let attrs: Vec<Value> =
                    attrs.into_iter().map(|(k, v)| json!({"key": k, "value": v})).collect();
                let parent = ["", "s0", "s1"][parent];
                json!({"traceId": "t", "spanId": format!("s{id}"), "parentSpanId": parent,
                    "name": "span", "startTimeUnixNano": start.to_string(), "attributes": attrs})
            })
    }

    proptest! {
        #[test]
        fn every_span_is_one_step(spans in prop::collection::vec(any_span(), 1..6)) {
            let t = read(&spans);
            let request = usize::from(t.task.is_some());
            prop_assert_eq!(t.steps.len(), spans.len() + request);
            for (i, s) in t.steps.iter().enumerate() {
                prop_assert_eq!(s.index as usize, i);
            }
        }
    }
}
