//! The headless runs' streams CI jobs keep: `claude -p --output-format stream-json` and
//! `codex exec --json` (docs/formats.md, "Claude Code headless runs" and "Codex CLI rollouts").
//! Properties over events of any order and fields: no panic, every line accounted for, the
//! steps numbered in order, the same trace however the bytes arrive, and an item's steps once
//! however many states it went through.

use proptest::prelude::*;
use serde_json::{json, Value};
use trajscope_core::model::{Format, Outcome, Trace};
use trajscope_core::{ingest, IngestOptions, Ingestor};

fn read_in_pieces(text: &str, cut: usize) -> Trace {
    let mut ingestor = Ingestor::new(IngestOptions::default());
    let cut = cut % (text.len() + 1);
    ingestor.feed(&text.as_bytes()[..cut]);
    ingestor.feed(&text.as_bytes()[cut..]);
    ingestor.finish()
}

fn lines(events: &[Value]) -> String {
    events.iter().map(|e| format!("{e}\n")).collect()
}

const WORDS: &[&str] =
    &["", "ok", "error: boom", "Exit code 2", "src/a.rs", "é\u{202e}", "{\"x\":1}"];

fn word() -> impl Strategy<Value = Value> {
    prop_oneof![
        prop::sample::select(WORDS).prop_map(|w| json!(w)),
        Just(Value::Null),
        any::<i64>().prop_map(|n| json!(n)),
        Just(json!([{"type": "text", "text": "block"}])),
        Just(json!({"message": "nested"})),
    ]
}

/// A `codex exec --json` item of any type, id and fields.
fn exec_item() -> impl Strategy<Value = Value> {
    let types = prop::sample::select(
        &[
            "agent_message",
            "reasoning",
            "command_execution",
            "file_change",
            "mcp_tool_call",
            "web_search",
            "todo_list",
            "error",
            "collab_tool_call",
        ][..],
    );
    let keys = prop::sample::select(
        &[
            "text",
            "command",
            "aggregated_output",
            "exit_code",
            "status",
            "changes",
            "server",
            "tool",
            "arguments",
            "result",
            "error",
            "query",
            "items",
            "message",
        ][..],
    );
    (types, 0..4u8, prop::collection::vec((keys, word()), 0..5)).prop_map(|(ty, id, fields)| {
        // An id names one item: its states keep its type.
        let mut item = json!({"id": format!("{ty}_{id}"), "type": ty});
        for (k, v) in fields {
            item[k] = v;
        }
        item
    })
}

fn exec_event() -> impl Strategy<Value = Value> {
    let item_event = prop::sample::select(&["item.started", "item.updated", "item.completed"][..]);
    prop_oneof![
        3 => (item_event, exec_item()).prop_map(|(ty, item)| json!({"type": ty, "item": item})),
        1 => Just(json!({"type": "turn.started"})),
        1 => word().prop_map(|w| json!({"type": "turn.completed", "usage": {"input_tokens": w, "output_tokens": 3}})),
        1 => word().prop_map(|w| json!({"type": "turn.failed", "error": {"message": w}})),
        1 => word().prop_map(|w| json!({"type": "error", "message": w})),
        1 => word().prop_map(|w| json!({"type": "item.completed", "item": w})),
        1 => Just(json!({"type": "thread.future_event", "x": 1})),
    ]
}

/// A headless Claude Code stream's line of any kind.
fn claude_event() -> impl Strategy<Value = Value> {
    let subtype =
        prop::sample::select(&["init", "success", "error_max_turns", "compact_boundary", ""][..]);
    let block = prop_oneof![
        word().prop_map(|w| json!({"type": "text", "text": w})),
        (0..3u8, word()).prop_map(|(id, w)| json!({"type": "tool_use", "id": format!("t{id}"), "name": "Bash", "input": {"command": w}})),
        (0..3u8, word(), any::<bool>()).prop_map(|(id, w, e)| json!({"type": "tool_result", "tool_use_id": format!("t{id}"), "content": w, "is_error": e})),
    ];
    prop_oneof![
        (prop::sample::select(&["user", "assistant"][..]), prop::collection::vec(block, 0..3)).prop_map(|(role, blocks)| {
            json!({"type": role, "message": {"role": role, "content": blocks}, "session_id": "s", "parent_tool_use_id": null})
        }),
        (subtype.clone(), word()).prop_map(|(st, w)| json!({"type": "system", "subtype": st, "session_id": "s", "cwd": w})),
        (subtype, word(), any::<bool>(), word()).prop_map(|(st, w, e, c)| json!({"type": "result", "subtype": st, "result": w, "is_error": e, "total_cost_usd": c, "session_id": "s"})),
        word().prop_map(|w| json!({"type": "stream_event", "event": w, "session_id": "s"})),
    ]
}

fn check_accounted(t: &Trace, n: usize) -> Result<(), TestCaseError> {
    prop_assert_eq!(t.stats.lines_total as usize, n);
    prop_assert_eq!(t.stats.lines_parsed as usize + t.stats.lines_quarantined as usize, n);
    for tr in &t.trajectories {
        for (i, s) in tr.steps.iter().enumerate() {
            prop_assert_eq!(s.index as usize, i);
        }
    }
    Ok(())
}

proptest! {
    #[test]
    fn any_codex_exec_stream_reads_whole(events in prop::collection::vec(exec_event(), 0..12), cut in any::<usize>()) {
        let mut all = vec![json!({"type": "thread.started", "thread_id": "th"})];
        all.extend(events.iter().cloned());
        let text = lines(&all);
        let t = ingest(text.as_bytes(), IngestOptions::default());
        prop_assert_eq!(t.format, Format::Codex);
        check_accounted(&t, all.len())?;
        prop_assert_eq!(&read_in_pieces(&text, cut), &t);
        // Each item id is at most two steps (an action and its result), whatever its states.
        let run = t.trajectories.first();
        let ids: std::collections::BTreeSet<String> = events.iter()
            .filter_map(|e| e.get("item")?.get("id")?.as_str().map(str::to_string)).collect();
        let item_steps = run.map_or(0, |r| r.steps.iter().filter(|s| s.role != trajscope_core::model::Role::System).count());
        // Besides: unknown events and items without an id, a step (or two) each.
        let extra = events.iter().filter(|e| matches!(e["type"].as_str(), Some("thread.future_event"))).count()
            + events.iter().filter(|e| e.get("item").is_some_and(|i| i.get("id").is_none())).count();
        prop_assert!(item_steps <= 2 * ids.len() + 2 * extra, "{} steps for {} items", item_steps, ids.len());
        // A failed turn fails the run until a new turn starts.
        let last_turn = events.iter().rev().find_map(|e| match e["type"].as_str() {
            Some("turn.failed" | "error") => Some(Outcome::Failed),
            Some("turn.started") => Some(Outcome::Unknown),
            _ => None,
        });
        prop_assert_eq!(run.map_or(Outcome::Unknown, |r| r.outcome), last_turn.unwrap_or(Outcome::Unknown));
    }

    #[test]
    fn any_claude_headless_stream_reads_whole(events in prop::collection::vec(claude_event(), 1..10), cut in any::<usize>()) {
        let mut all = vec![json!({"type": "system", "subtype": "init", "session_id": "s", "cwd": "/w"})];
        all.extend(events.iter().cloned());
        let text = lines(&all);
        let t = ingest(text.as_bytes(), IngestOptions::default());
        prop_assert_eq!(t.format, Format::ClaudeCode);
        check_accounted(&t, all.len())?;
        prop_assert_eq!(&read_in_pieces(&text, cut), &t);
        // The last result line says how the run ended.
        let end = events.iter().rev().find(|e| e["type"] == "result");
        let failed = end.is_some_and(|e| e["is_error"] == true || e["subtype"].as_str().is_some_and(|s| s.starts_with("error")));
        let outcome = t.trajectories.iter().find(|r| r.id == "s").map(|r| r.outcome);
        if end.is_some() {
            prop_assert_eq!(outcome, Some(if failed { Outcome::Failed } else { Outcome::Unknown }));
        }
    }
}

/// What the property tests leave unpinned in a `codex exec --json` stream: every step carries
/// the thread's id and comes after the steps of earlier lines; an event or an item of a type
/// the reader does not know stays a visible step; an `error` item is the system's error step,
/// a failed file change an error; a turn's failure after a different error is a second error
/// step; an item whose later state has another shape (here a web search, then a command under
/// the same id) is added after the steps of the state before, not written over them.
#[test]
fn an_exec_stream_keeps_its_thread_its_order_unknown_events_and_each_error() {
    let text = lines(&[
        json!({"type": "thread.started", "thread_id": "t-1"}),
        json!({"type": "turn.started"}),
        json!({"type": "item.started", "item": {"id": "i1", "type": "web_search", "query": "q"}}),
        json!({"type": "item.completed", "item": {"id": "i1", "type": "command_execution",
            "command": "ls", "aggregated_output": "a.txt", "exit_code": 0, "status": "completed"}}),
        json!({"type": "thread.renamed", "name": "x"}),
        json!({"type": "item.completed", "item": {"id": "i4", "type": "collab_tool_call", "x": 1}}),
        json!({"type": "item.completed", "item": {"id": "i2", "type": "error", "message": "item"}}),
        json!({"type": "item.completed", "item": {"id": "i3", "type": "file_change",
            "changes": [{"path": "a.rs", "kind": "update"}], "status": "failed"}}),
        json!({"type": "error", "message": "first"}),
        json!({"type": "turn.failed", "error": {"message": "second"}}),
    ]);
    let t = ingest(text.as_bytes(), IngestOptions::default());
    assert_eq!(t.format, Format::Codex);
    let run = &t.trajectories[0];
    assert_eq!((run.id.as_str(), run.outcome), ("t-1", Outcome::Failed));
    let shape: Vec<(&str, &str)> = run
        .steps
        .iter()
        .map(|s| (s.tool.as_deref().unwrap_or(s.role.name()), s.status.as_deref().unwrap_or("")))
        .collect();
    assert_eq!(
        shape,
        [
            ("web_search", ""),
            ("shell", "completed"),
            ("shell", "completed"),
            ("other", "thread.renamed"),
            ("other", "collab_tool_call"),
            ("system", ""),
            ("apply_patch", "failed"),
            ("system", "error"),
            ("system", "turn.failed"),
        ]
    );
    assert!(run.steps[3].text.contains("\"name\":\"x\""), "{}", run.steps[3].text);
    assert!(run.steps[4].text.contains("\"x\":1"), "{}", run.steps[4].text);
    let errors: Vec<&str> =
        run.steps.iter().filter(|s| s.is_error).map(|s| s.text.as_str()).collect();
    assert_eq!(errors, ["item", "update a.rs", "first", "second"]);
    assert!(run.steps.iter().all(|s| s.ids.run_id.as_deref() == Some("t-1")));
    let seqs: Vec<u64> = run.steps.iter().map(|s| s.ingest_seq).collect();
    assert!(seqs.windows(2).all(|w| w[0] <= w[1]) && seqs[8] > seqs[0], "{seqs:?}");
}

/// A rollout line (`{"timestamp", "type", "payload"}`) is read as a rollout's even when its
/// payload is missing: only a line without a payload whose type is an exec event's
/// (`thread.started`, `item.completed`, `error`) is one.
#[test]
fn a_rollout_line_without_its_payload_stays_a_rollout_line() {
    let meta = json!({"timestamp": "2026-05-11T10:29:40.150Z", "type": "session_meta",
        "payload": {"id": "s-1", "cwd": "/repo", "originator": "codex_cli_rs"}});
    let bare = json!({"timestamp": "2026-05-11T10:29:41.000Z", "type": "response_item"});
    let t = ingest(lines(&[meta.clone(), bare]).as_bytes(), IngestOptions::default());
    let with_payload = ingest(
        lines(&[
            meta,
            json!({"timestamp": "2026-05-11T10:29:41.000Z", "type": "response_item",
            "payload": {}}),
        ])
        .as_bytes(),
        IngestOptions::default(),
    );
    assert_eq!(t.format, Format::Codex);
    assert_eq!(t.trajectories, with_payload.trajectories);
}
