//! Model call logs (a request and its response per line) read by the generic fallback: each
//! conversation is one trajectory holding each of its messages once, in order, however its
//! calls are interleaved with other conversations', retried or cut off (docs/formats.md,
//! "Model call logs").
#![cfg(not(target_arch = "wasm32"))]

use proptest::prelude::*;
use serde_json::{json, Value};
use trajscope_core::model::{Format, Role};
use trajscope_core::{ingest, IngestOptions, Ingestor};

/// The messages of conversation `c` up to its `n`-th call's request: a system prompt, the task,
/// then for each earlier call its answer (a tool call) and the tool's reply.
fn asked(c: usize, n: usize) -> Vec<Value> {
    let mut m = vec![
        json!({"role": "system", "content": "You are an agent."}),
        json!({"role": "user", "content": format!("task {c}")}),
    ];
    for k in 0..n {
        m.push(answer(c, k));
        m.push(json!({"role": "tool", "tool_call_id": format!("c{c}-{k}"), "content": format!("out {c}.{k}")}));
    }
    m
}

fn answer(c: usize, k: usize) -> Value {
    json!({"role": "assistant", "content": null, "tool_calls": [{"id": format!("c{c}-{k}"),
        "type": "function", "function": {"name": "shell", "arguments": format!("{{\"command\": \"step {c}.{k}\"}}")}}]})
}

/// What the steps of conversation `c` should say after `n` calls (a retried call shows once).
fn said(c: usize, n: usize) -> Vec<String> {
    let mut t = vec!["You are an agent.".to_string(), format!("task {c}")];
    for k in 0..n {
        t.push(format!("shell({{\"command\": \"step {c}.{k}\"}})"));
        if k + 1 < n {
            t.push(format!("out {c}.{k}"));
        }
    }
    t
}

proptest! {
    /// Conversations of 1 to 5 calls each, their calls interleaved in any order that keeps each
    /// conversation's own order, some calls failing first and retried: one trajectory each, every
    /// message once, the failed attempts as error steps.
    #[test]
    fn interleaved_conversations_keep_each_message_once(
        lengths in prop::collection::vec(1usize..6, 1..4),
        order in prop::collection::vec(0usize..4, 0..40),
        retried in prop::collection::vec(any::<bool>(), 20),
        ids in any::<bool>(),
    ) {
        let mut next = vec![0; lengths.len()];
        let mut lines = Vec::new();
        let mut failures = vec![0; lengths.len()];
        // The order picks whose call comes next; what it leaves is called after, in turn.
        let picks = order.iter().map(|p| p % lengths.len()).chain((0..lengths.len()).flat_map(|c| std::iter::repeat_n(c, 5)));
        for c in picks {
            let k = next[c];
            if k == lengths[c] {
                continue;
            }
            let mut line = json!({"request": {"model": "m", "messages": asked(c, k)}});
            if ids {
                line["session_id"] = json!(format!("s{c}"));
            }
            if retried[(c * 5 + k) % retried.len()] {
                let mut failed = line.clone();
                failed["error"] = json!({"message": "rate limited"});
                lines.push(failed.to_string());
                failures[c] += 1;
            }
            line["response"] = json!({"choices": [{"message": answer(c, k)}]});
            lines.push(line.to_string());
            next[c] += 1;
        }
        let trace = ingest(lines.join("\n").as_bytes(), IngestOptions::default());
        prop_assert_eq!(trace.format, Format::Generic);
        prop_assert_eq!(trace.trajectories.len(), lengths.len());
        let opened: Vec<String> = trace.trajectories.iter().map(|t| t.id.clone()).collect();
        if !ids {
            let numbered: Vec<String> = (1..=lengths.len()).map(|n| format!("conversation-{n}")).collect();
            prop_assert_eq!(opened, numbered);
        }
        for t in &trace.trajectories {
            // Trajectories come in the order their conversations opened: each is found by its task.
            let task = t.task.as_deref().unwrap_or_default();
            let c: usize = task.trim_start_matches("task ").parse().expect("a task of the log");
            let texts: Vec<String> = t.steps.iter().filter(|s| !s.is_error).map(|s| s.text.clone()).collect();
            prop_assert_eq!(texts, said(c, lengths[c]), "conversation {}", c);
            prop_assert_eq!(t.steps.iter().filter(|s| s.is_error).count(), failures[c]);
            if ids {
                prop_assert_eq!(&t.id, &format!("s{c}"));
            }
            for (i, s) in t.steps.iter().enumerate() {
                prop_assert_eq!(s.index as usize, i);
            }
        }
    }

    /// Any record with `request` / `response` fields of any JSON shape is read without a panic,
    /// fed whole or in pieces alike, and every line is accounted for.
    #[test]
    fn call_records_of_any_shape_are_read(
        records in prop::collection::vec(arb_record(), 1..8),
        chunk in 1usize..64,
    ) {
        let text = records.iter().map(Value::to_string).collect::<Vec<_>>().join("\n");
        let whole = ingest(text.as_bytes(), IngestOptions::default());
        let mut ing = Ingestor::new(IngestOptions::default());
        for piece in text.as_bytes().chunks(chunk) {
            ing.feed(piece);
        }
        prop_assert_eq!(&ing.finish(), &whole);
        let s = &whole.stats;
        prop_assert_eq!(s.lines_parsed as usize, records.len());
        for t in &whole.trajectories {
            prop_assert!(!t.steps.is_empty());
        }
    }
}

/// A JSON value of a few levels, its objects' keys drawn from the ones the reader looks at.
fn arb_value() -> impl Strategy<Value = Value> {
    let keys = prop::sample::select(vec![
        "role",
        "content",
        "messages",
        "contents",
        "input",
        "output",
        "choices",
        "candidates",
        "message",
        "body",
        "system",
        "instructions",
        "error",
        "status_code",
        "usage",
        "type",
        "tool_calls",
        "parts",
        "session_id",
        "metadata",
    ]);
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        (0u64..1000).prop_map(Value::from),
        prop::sample::select(vec![
            "assistant",
            "user",
            "system",
            "tool",
            "model",
            "function_call",
            "",
            "x"
        ])
        .prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 40, 5, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((keys.clone(), inner), 0..5).prop_map(|kv| Value::Object(
                kv.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
            )),
        ]
    })
}

fn arb_record() -> impl Strategy<Value = Value> {
    (arb_value(), arb_value(), any::<bool>()).prop_map(|(req, resp, input)| {
        let (a, b) = if input { ("input", "output") } else { ("request", "response") };
        json!({a: req, b: resp})
    })
}

#[test]
fn a_conversation_answered_by_two_choices_keeps_both() {
    let line = json!({
        "request": {"messages": [{"role": "user", "content": "name a colour"}]},
        "response": {"choices": [
            {"index": 0, "message": {"role": "assistant", "content": "red"}},
            {"index": 1, "message": {"role": "assistant", "content": "blue"}}
        ], "usage": {"prompt_tokens": 5, "completion_tokens": 2}}
    });
    let t = ingest(line.to_string().as_bytes(), IngestOptions::default());
    let steps = &t.trajectories[0].steps;
    let said: Vec<(&str, Role)> = steps.iter().map(|s| (s.text.as_str(), s.role)).collect();
    assert_eq!(
        said,
        [("name a colour", Role::User), ("red", Role::Assistant), ("blue", Role::Assistant)]
    );
    // The call's usage counted once, on its first answer.
    assert_eq!(steps[1].usage.as_ref().and_then(|u| u.input_tokens), Some(5));
    assert!(steps[2].usage.is_none());
}

#[test]
fn a_reply_wrapped_in_message_is_read_and_json_rpc_stays_plain_lines() {
    // An Ollama chat call logged as request and response: the reply is the response's `message`.
    let ollama = json!({"request": {"model": "llama3", "messages": [{"role": "user", "content": "ping"}]},
        "response": {"model": "llama3", "message": {"role": "assistant", "content": "pong"}, "done": true}});
    let t = ingest(ollama.to_string().as_bytes(), IngestOptions::default());
    let steps: Vec<(&str, Role, &str)> = t.trajectories[0]
        .steps
        .iter()
        .map(|s| (s.loc.path.as_ref(), s.role, s.text.as_str()))
        .collect();
    assert_eq!(
        steps,
        [
            ("$.request.messages[0]", Role::User, "ping"),
            ("$.response.message", Role::Assistant, "pong")
        ]
    );
    // JSON-RPC's `params` and `result` (an MCP sampling request and its answer) are no batch's
    // request and result without a `custom_id`: two plain lines of one trajectory.
    let rpc = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "sampling/createMessage",
            "params": {"messages": [{"role": "user", "content": "ping"}]}}),
        json!({"jsonrpc": "2.0", "id": 1, "result": {"role": "assistant", "content": "pong"}}),
    ];
    let text: Vec<String> = rpc.iter().map(Value::to_string).collect();
    let t = ingest(text.join("\n").as_bytes(), IngestOptions::default());
    assert_eq!(t.trajectories.len(), 1);
    let lines: Vec<(u32, &str)> =
        t.trajectories[0].steps.iter().map(|s| (s.loc.line, s.loc.path.as_ref())).collect();
    assert_eq!(lines, [(1, ""), (2, "")]);
}
