//! The Codex rollout reader's rules, one record kind at a time (docs/formats.md, "Codex CLI
//! rollouts"): what each line becomes, which ids and root the steps take, how exit codes,
//! usage and the outcome are read. The real rollouts of `tests/fixtures/codex/` are checked
//! whole in `golden.rs`; these lines are written to reach what they do not hold.
#![cfg(not(target_arch = "wasm32"))]

use serde_json::{json, Value};
use trajscope_core::model::{Format, Outcome, Role, Step, StepKind, Trajectory};
use trajscope_core::{ingest, IngestOptions};

/// One rollout line: `{"timestamp", "type", "payload"}`.
fn line(ty: &str, payload: Value) -> String {
    json!({"timestamp": "2026-11-30T10:00:00Z", "type": ty, "payload": payload}).to_string()
}

fn read(lines: &[String]) -> Trajectory {
    let opts = IngestOptions { format: Some(Format::Codex), ..IngestOptions::default() };
    let mut t = ingest(lines.join("\n").as_bytes(), opts);
    assert_eq!((t.format, t.trajectories.len()), (Format::Codex, 1), "{:?}", t.error);
    t.trajectories.remove(0)
}

fn meta(cwd: &str) -> String {
    line(
        "session_meta",
        json!({"id": "sess-1", "cwd": cwd, "originator": "codex-tui",
            "base_instructions": {"text": "You are Codex."}}),
    )
}

fn event(ty: &str, mut fields: Value) -> String {
    fields["type"] = json!(ty);
    line("event_msg", fields)
}

fn item(ty: &str, mut fields: Value) -> String {
    fields["type"] = json!(ty);
    line("response_item", fields)
}

fn patch(call: &str, file: &str) -> String {
    let input = format!("*** Begin Patch\n*** Update File: {file}\n@@\n-a\n+b\n*** End Patch\n");
    item("custom_tool_call", json!({"call_id": call, "name": "apply_patch", "input": input}))
}

fn refs(s: &Step) -> Vec<(&str, bool)> {
    s.artifact_refs.iter().map(|a| (a.normalized.as_str(), a.escapes_root)).collect()
}

#[test]
fn the_session_meta_names_the_run_and_roots_its_paths_until_a_turn_moves_it() {
    let lines = [
        meta("/home/u/proj"),
        patch("c1", "/home/u/proj/src/a.rs"),
        // A command's own working directory moves no root.
        event("exec_command_begin", json!({"call_id": "c2", "cwd": "/tmp/elsewhere"})),
        patch("c3", "/home/u/proj/src/b.rs"),
        line("turn_context", json!({"turn_id": "turn-2", "cwd": "/home/u/proj/sub"})),
        patch("c4", "/home/u/proj/sub/c.rs"),
    ];
    let t = read(&lines);
    assert_eq!(t.id, "sess-1");
    let start = &t.steps[0];
    assert_eq!(
        (start.role, start.kind, start.text.as_str(), start.status.as_deref()),
        (Role::System, StepKind::RunStart, "You are Codex.", Some("codex-tui"))
    );
    // Every step carries the run's id and the line it came from, in order.
    assert!(t.steps.iter().all(|s| s.ids.run_id.as_deref() == Some("sess-1")));
    let seqs: Vec<u64> = t.steps.iter().map(|s| s.ingest_seq).collect();
    let lines_of: Vec<u32> = t.steps.iter().map(|s| s.loc.line).collect();
    assert_eq!(lines_of, [1, 2, 4, 6]);
    assert!(seqs.windows(2).all(|w| w[0] < w[1]), "{seqs:?}");
    assert_eq!(refs(&t.steps[1]), [("src/a.rs", false)]);
    assert_eq!(refs(&t.steps[2]), [("src/b.rs", false)]);
    assert_eq!(refs(&t.steps[3]), [("c.rs", false)]);
    // The turn's id from its context, on the steps after it only.
    let turns: Vec<Option<&str>> = t.steps.iter().map(|s| s.ids.turn_id.as_deref()).collect();
    assert_eq!(turns, [None, None, None, Some("turn-2")]);
}

#[test]
fn a_run_start_takes_instructions_when_no_base_instructions_and_a_later_meta_renames() {
    let lines = [
        line("session_meta", json!({"id": "old", "instructions": "Be brief."})),
        line("session_meta", json!({"cwd": "/w"})),
    ];
    let t = read(&lines);
    assert_eq!(t.steps[0].text, "Be brief.");
    // A meta without an id keeps the run's.
    assert_eq!(t.id, "old");
    assert_eq!(t.steps[1].ids.run_id.as_deref(), Some("old"));
    // No meta at all: the run is `codex-1`.
    let t = read(&[item("message", json!({"role": "user", "content": "hi"}))]);
    assert_eq!(t.id, "codex-1");
}

#[test]
fn compacted_and_unknown_records_stay_visible_with_their_kind() {
    let lines = [
        meta("/w"),
        line("compacted", json!({"message": "summary of the turns so far"})),
        line("ghost_snapshot", json!({"commit": "abc123"})),
        item("image_generation_call", json!({"id": "img-1"})),
    ];
    let t = read(&lines);
    let got: Vec<(Role, &str, Option<&str>)> =
        t.steps[1..].iter().map(|s| (s.role, s.text.as_str(), s.status.as_deref())).collect();
    assert_eq!(got[0], (Role::System, "summary of the turns so far", Some("compacted")));
    assert_eq!((got[1].0, got[1].2), (Role::Other, Some("ghost_snapshot")));
    assert!(got[1].1.contains("abc123"), "{}", got[1].1);
    assert_eq!((got[2].0, got[2].2), (Role::Other, Some("image_generation_call")));
    assert!(got[2].1.contains("img-1"), "{}", got[2].1);
    // A payload that is no object is quarantined with a reason; a missing one reads as empty.
    let opts = IngestOptions { format: Some(Format::Codex), ..IngestOptions::default() };
    let bad = [meta("/w"), r#"{"type":"event_msg","payload":[1]}"#.to_string()];
    let t = ingest(bad.join("\n").as_bytes(), opts);
    assert_eq!(t.quarantine.len(), 1);
    assert!(t.quarantine[0].reason.contains("payload"), "{}", t.quarantine[0].reason);
}

#[test]
fn messages_roles_reasoning_and_ui_mirrors() {
    let lines = [
        meta("/w"),
        event("task_started", json!({"turn_id": "t1"})),
        item("message", json!({"role": "developer", "content": "rules"})),
        item("message", json!({"role": "system", "content": "more rules"})),
        item("message", json!({"role": "critic", "content": "hmm"})),
        item("message", json!({"role": "user", "content": "fix the bug"})),
        // The UI's copy of the same message: not a step.
        event("user_message", json!({"message": "fix the bug"})),
        // A UI message with no item: a step.
        event("agent_message", json!({"message": "on it"})),
        item("reasoning", json!({"summary": [{"type": "summary_text", "text": "plan"}]})),
        item("reasoning", json!({"summary": [], "content": [{"type": "text", "text": "raw"}]})),
        // A turn id on another event does not start a turn.
        event("exec_command_end", json!({"call_id": "none", "turn_id": "t9"})),
        item("message", json!({"role": "assistant", "content": "done"})),
    ];
    let t = read(&lines);
    let got: Vec<(Role, &str, Option<&str>)> =
        t.steps[1..].iter().map(|s| (s.role, s.text.as_str(), s.status.as_deref())).collect();
    assert_eq!(
        got,
        [
            (Role::System, "rules", None),
            (Role::System, "more rules", None),
            (Role::Other, "hmm", None),
            (Role::User, "fix the bug", None),
            (Role::Assistant, "on it", None),
            (Role::Assistant, "plan", Some("reasoning")),
            (Role::Assistant, "raw", Some("reasoning")),
            (Role::Assistant, "done", None),
        ]
    );
    assert_eq!(t.task.as_deref(), Some("fix the bug"));
    assert!(t.steps[1..].iter().all(|s| s.ids.turn_id.as_deref() == Some("t1")));
    // In a new turn the same words are a new message, not a mirror.
    let lines = [
        meta("/w"),
        event("task_started", json!({"turn_id": "t1"})),
        event("user_message", json!({"message": "again"})),
        event("task_started", json!({"turn_id": "t2"})),
        event("user_message", json!({"message": "again"})),
    ];
    assert_eq!(read(&lines).steps.len(), 3);
}

#[test]
fn calls_are_named_by_their_kind_and_outputs_take_their_exit_codes() {
    let lines = [
        meta("/w"),
        item("local_shell_call", json!({"call_id": "s1", "action": {"command": ["ls", "-la"]}})),
        item(
            "web_search_call",
            json!({"id": "w1", "status": "completed",
            "action": {"type": "search", "query": "rust wasm"}}),
        ),
        item("tool_search_call", json!({"call_id": "x1", "arguments": "not json"})),
        item(
            "function_call",
            json!({"call_id": "f1", "name": "exec_command",
            "arguments": "{\"cmd\": \"cargo test\"}"}),
        ),
        // The end event before the output: kept until the output comes.
        event("exec_command_end", json!({"call_id": "f1", "exit_code": 101})),
        // The end event's code over the output's words.
        item(
            "function_call_output",
            json!({"call_id": "f1", "output": "Process exited with code 1\ntest failed"}),
        ),
        item(
            "function_call",
            json!({"call_id": "f2", "name": "exec_command",
            "arguments": {"cmd": "make"}}),
        ),
        item(
            "function_call_output",
            json!({"call_id": "f2",
            "output": "Chunk ID: 1\nWall time: 0.2 seconds\nProcess exited with code 2\nOutput:\nboom"}),
        ),
        // An end event after the output: its code over the output's words.
        event("exec_command_end", json!({"call_id": "f2", "exit_code": 7})),
        item(
            "custom_tool_call",
            json!({"call_id": "p1", "name": "apply_patch", "input": "*** Begin Patch\n*** End Patch\n"}),
        ),
        item(
            "custom_tool_call_output",
            json!({"call_id": "p1", "output": "{\"output\": \"Done!\", \"metadata\": {\"exit_code\": 0}}"}),
        ),
        // The end event after the output: folded into it.
        event("patch_apply_end", json!({"call_id": "p1", "success": false})),
        item(
            "local_shell_call_output",
            json!({"call_id": "s1",
            "output": "1\n2\n3\n4\n5\n6\nProcess exited with code 3"}),
        ),
    ];
    let t = read(&lines);
    let calls: Vec<(&str, &str, Option<&str>)> = t
        .steps
        .iter()
        .filter(|s| s.kind == StepKind::Action)
        .map(|s| (s.tool.as_deref().unwrap_or(""), s.text.as_str(), s.ids.action_id.as_deref()))
        .collect();
    assert_eq!(
        calls,
        [
            ("shell", "ls -la", Some("s1")),
            ("web_search", "rust wasm", Some("w1")),
            ("tool_search_call", "not json", Some("x1")),
            ("exec_command", "cargo test", Some("f1")),
            ("exec_command", "make", Some("f2")),
            ("apply_patch", "*** Begin Patch\n*** End Patch\n", Some("p1")),
        ]
    );
    assert_eq!(t.steps[2].status.as_deref(), Some("completed"));
    let outs: Vec<_> = t
        .steps
        .iter()
        .filter(|s| s.kind == StepKind::Observation)
        .map(|s| {
            let tool = s.tool.as_deref();
            (tool, s.text.as_str(), s.exit_code, s.is_error, s.ids.source_action_id.as_deref())
        })
        .collect();
    assert_eq!(outs[0].2, Some(101));
    assert_eq!((outs[0].0, outs[0].3, outs[0].4), (Some("exec_command"), true, Some("f1")));
    assert_eq!((outs[1].2, outs[1].3), (Some(7), true));
    assert_eq!(outs[2], (Some("apply_patch"), "Done!", Some(0), true, Some("p1")));
    // An exit code is read from the output's first six lines only.
    assert_eq!((outs[3].0, outs[3].2, outs[3].3), (Some("shell"), None, false));
}

#[test]
fn the_outcome_is_how_the_last_turn_ended() {
    let outcome = |tail: &[String]| {
        let mut lines = vec![meta("/w"), event("task_started", json!({"turn_id": "t1"}))];
        lines.extend_from_slice(tail);
        read(&lines).outcome
    };
    let error = event("error", json!({"message": "stream disconnected"}));
    let complete =
        event("task_complete", json!({"turn_id": "t1", "last_agent_message": "all done"}));
    let started = event("task_started", json!({"turn_id": "t2"}));
    let aborted = |reason: Option<&str>| match reason {
        Some(r) => event("turn_aborted", json!({"reason": r})),
        None => event("turn_aborted", json!({})),
    };
    assert_eq!(outcome(&[]), Outcome::Unknown);
    assert_eq!(outcome(std::slice::from_ref(&error)), Outcome::Failed);
    assert_eq!(outcome(&[error.clone(), complete.clone()]), Outcome::Unknown);
    assert_eq!(outcome(&[error.clone(), started]), Outcome::Unknown);
    assert_eq!(outcome(&[aborted(Some("Interrupted"))]), Outcome::Failed);
    assert_eq!(outcome(&[aborted(None)]), Outcome::Failed);
    assert_eq!(outcome(&[aborted(Some("replaced"))]), Outcome::Unknown);
    assert_eq!(outcome(&[event("stream_error", json!({"message": "retrying"}))]), Outcome::Unknown);
    // Each is an error step with its words; the final answer is the completed turn's.
    let t = read(&[meta("/w"), error, aborted(Some("replaced")), complete]);
    let errs: Vec<(&str, Option<&str>)> = t
        .steps
        .iter()
        .filter(|s| s.is_error)
        .map(|s| (s.text.as_str(), s.status.as_deref()))
        .collect();
    assert_eq!(errs, [("stream disconnected", Some("error")), ("replaced", Some("turn_aborted"))]);
    assert_eq!(t.final_answer.as_deref(), Some("all done"));
}

#[test]
fn token_counts_go_on_the_latest_assistant_step_as_increases() {
    let total = |i: u64, o: u64| {
        event(
            "token_count",
            json!({"info": {"total_token_usage":
            {"input_tokens": i, "output_tokens": o, "cache_write_input_tokens": 1}}}),
        )
    };
    let last = |i: u64, o: u64| {
        event(
            "token_count",
            json!({"info": {"last_token_usage": {"input_tokens": i, "output_tokens": o}}}),
        )
    };
    let say = |t: &str| item("message", json!({"role": "assistant", "content": t}));
    let user = |t: &str| item("message", json!({"role": "user", "content": t}));
    // Counts before any step wait for the first; with no assistant step, the last step takes
    // them, else the latest assistant step, not the last; a total that went down (reset) falls
    // back to the event's last usage; an event of nothing adds nothing.
    let lines = [
        total(10, 1),
        user("task"),
        total(30, 2),
        say("a"),
        event(
            "token_count",
            json!({"info": {"total_token_usage": {"input_tokens": 5, "output_tokens": 1},
            "last_token_usage": {"input_tokens": 7, "output_tokens": 3}}}),
        ),
        last(0, 0),
        say("b"),
        user("more"),
        last(4, 4),
        event("token_count", json!({})),
    ];
    let t = read(&lines);
    let usage: Vec<_> = t
        .steps
        .iter()
        .map(|s| s.usage.as_ref().map(|u| (u.input_tokens, u.output_tokens, u.cache_write_tokens)))
        .collect();
    assert_eq!(
        usage,
        [
            Some((Some(30), Some(2), Some(1))),
            Some((Some(7), Some(3), None)),
            Some((Some(4), Some(4), None)),
            None
        ]
    );
}

#[test]
fn a_copy_while_read_is_the_session_so_far() {
    use trajscope_core::Ingestor;
    let lines = [
        meta("/w"),
        item("message", json!({"role": "user", "content": "task one"})),
        item("message", json!({"role": "assistant", "content": "ok"})),
        item("message", json!({"role": "user", "content": "task two"})),
        event("error", json!({"message": "boom"})),
    ];
    let opts = IngestOptions { format: Some(Format::Codex), ..IngestOptions::default() };
    let mut ingestor = Ingestor::new(opts);
    ingestor.feed(format!("{}\n", lines.join("\n")).as_bytes());
    let copy = ingestor.snapshot_first(2).expect("a copy");
    assert_eq!(copy.id, "sess-1");
    assert_eq!(copy.steps.len(), 2);
    assert_eq!(copy.steps.iter().map(|s| s.index).collect::<Vec<_>>(), [0, 1]);
    assert_eq!((copy.task.as_deref(), copy.outcome), (Some("task one"), Outcome::Failed));
    // An empty file: no copy, no trajectory.
    let opts = IngestOptions { format: Some(Format::Codex), ..IngestOptions::default() };
    assert!(Ingestor::new(opts).snapshot_first(2).is_none());
    let t = ingest(b"", IngestOptions { format: Some(Format::Codex), ..IngestOptions::default() });
    assert!(t.trajectories.is_empty());
}
