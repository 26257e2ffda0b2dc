//! Arbitrary AWTL event lines for the property tests of the analysis (`analysis_props.rs`,
//! `facts_ahead.rs`): every step kind and role, agents and the terminal, ids that repeat, and
//! texts that fire the rules (tests, edits, irreversible pushes, claims, tracebacks, blockers,
//! placeholders, budgets, interpreter exits, code blocks) beside arbitrary ones.

use proptest::prelude::*;

/// One AWTL line.
pub fn event() -> impl Strategy<Value = String> {
    let kind = prop_oneof![
        Just("action"),
        Just("observation"),
        Just("judge_result"),
        Just("memory_read"),
        Just("message"),
        Just("artifact"),
        Just("run_end"),
    ];
    let role = prop_oneof![
        Just(None),
        Just(Some("user")),
        Just(Some("assistant")),
        Just(Some("system")),
        Just(Some("tool")),
        Just(Some("judge")),
        Just(Some("other")),
    ];
    let agent = prop_oneof![Just("coder"), Just("terminal"), Just("human"), Just("")];
    let text = prop_oneof![
        Just("npm test".to_string()),
        Just("sed -i 's/a/b/' src/app.py".to_string()),
        Just("git push --force origin main".to_string()),
        Just("All tests pass, done.".to_string()),
        Just("Error: boom\nTraceback (most recent call last):\nValueError: x".to_string()),
        Just("bash: chromium: command not found".to_string()),
        Just("curl: (6) Could not resolve host: <URL>".to_string()),
        Just("ReadTimeout: the request timed out".to_string()),
        Just("reached the maximum number of steps".to_string()),
        Just("exitcode: 1 (execution failed)\nCode output: x".to_string()),
        Just("```python\nprint(1)\n```".to_string()),
        "\\PC{0,60}",
    ];
    (kind, role, agent, text, 0u8..4, prop::option::of(-2i64..3), 0u8..3).prop_map(
        |(kind, role, agent, text, id, exit, status)| {
            let status = ["failed", "passed", ""][status as usize];
            let mut e = serde_json::json!({
                "type": kind,
                "span_id": format!("s-{id}"),
                "action_id": format!("a-{id}"),
                "source_action_id": format!("a-{}", (id + 1) % 4),
                "agent": agent,
                "tool": "shell",
                "command": text,
                "output": text,
                "exit_code": exit,
                "status": status,
                "artifact_refs": ["src/app.py"],
                "node_ids": ["memory:x"],
            });
            if let Some(r) = role {
                e["role"] = r.into();
            }
            e.to_string()
        },
    )
}
