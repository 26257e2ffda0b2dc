//! The report's own JSON writer (`report::json`, used by `analyze --json`) writes exactly the
//! bytes serde_json writes: for every fixture's report, whole and streamed in pieces
//! (`Report::write_json_head`, the overviews, `Report::JSON_TAIL`), and for random values.
#![cfg(not(target_arch = "wasm32"))]
// Tests read their fixtures from disk; the core itself does no I/O.
#![allow(clippy::disallowed_methods)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use proptest::prelude::*;
use serde_json::Value;
use trajscope_core::report::{json, Overview, Report};
use trajscope_core::{ingest, IngestOptions, Session};

fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            files_under(&p, out);
        } else if p.extension().is_none_or(|e| e != "expected" && e != "md") {
            out.push(p);
        }
    }
}

/// The streamed report: head, overviews with commas, tail. Every other overview is written
/// straight from its trajectory and analysis (`json::write_analysed`, as `analyze --json` does),
/// the others from an `Overview` built from them.
fn streamed(session: Session, spills: &mut usize) -> Vec<u8> {
    let opts = session.options().clone();
    let (trace, analyses) = session.into_parts();
    // The head whole, and in small pieces spilled as they fill (as `analyze --json` writes
    // it out): the same bytes.
    let mut out = Vec::new();
    let mut piece = Vec::new();
    Report::write_json_head_in_pieces(&trace, &mut piece, 64, |p| {
        assert!(p.len() >= 64, "a piece is spilled once it holds the size asked");
        *spills += 1;
        out.append(p);
        Ok::<_, json::Error>(())
    })
    .unwrap();
    out.append(&mut piece);
    let mut whole = Vec::new();
    Report::write_json_head(&trace, &mut whole).unwrap();
    assert_eq!(out, whole, "the head written in pieces is the head written whole");
    for (i, (t, a)) in trace.trajectories.iter().zip(analyses).enumerate() {
        if i > 0 {
            out.push(b',');
        }
        let a = a.map_or_else(|| trajscope_core::attribution::analyze_trajectory(t, &opts), |a| *a);
        if i % 2 == 0 {
            json::write_analysed(&mut out, t, &a).unwrap();
        } else {
            json::write_overview(&mut out, &Overview::owning(t, Some(a))).unwrap();
        }
    }
    out.extend_from_slice(Report::JSON_TAIL);
    out
}

#[test]
fn every_fixture_report_is_written_as_serde_json_writes_it() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures");
    let mut files = Vec::new();
    files_under(&root, &mut files);
    assert!(files.len() > 50, "fixtures found: {}", files.len());
    let (mut trajectories, mut spills) = (0, 0);
    for f in &files {
        let trace = ingest(&std::fs::read(f).unwrap(), IngestOptions::default());
        let mut session = Session::new(trace.clone(), None);
        let report = session.report();
        trajectories += report.trajectories.len();
        let expected = serde_json::to_vec(&report).unwrap();
        assert!(
            json::to_vec(&report).unwrap() == expected,
            "{}: whole report differs",
            f.display()
        );
        // Half analysed beforehand, half while streaming: the same bytes.
        let mut half = Session::new(trace, None);
        for i in (0..half.len()).step_by(2) {
            half.analyse(i);
        }
        assert!(
            streamed(half, &mut spills) == expected,
            "{}: streamed report differs",
            f.display()
        );
        for o in &report.trajectories {
            let mut out = Vec::new();
            json::write_overview(&mut out, o).unwrap();
            assert!(
                out == serde_json::to_vec(o).unwrap(),
                "{}: overview {} differs",
                f.display(),
                o.id
            );
        }
    }
    assert!(trajectories > 100, "trajectories: {trajectories}");
    // The fixtures' quarantined lines: heads written in more than one piece.
    assert!(spills > 10, "pieces spilled: {spills}");
}

/// An overview with every field set (every option some, every list non-empty, texts that need
/// escapes, a score and a cost that are not round): the hand-written overview writer gives
/// serde_json's bytes, field for field.
#[test]
fn an_overview_with_every_field_set_is_written_as_serde_json_writes_it() {
    let text = "a \"quoted\" \\ line\n\u{1}\u{1f} é数据";
    let evidence = serde_json::json!([
        {"step": 3, "kind": "wrong", "quote": text, "rule": "failed_command"},
        {"step": 1, "kind": "reference", "quote": "ref", "rule": "verifier_rejected"}
    ]);
    let usage = serde_json::json!({"input_tokens": 12, "output_tokens": 7, "cache_read_tokens": 3,
        "cache_write_tokens": 1, "cost_usd": 0.1234567, "duration_ms": 99, "steps_with_usage": 2});
    let full = serde_json::json!({
        "id": text, "steps": 12, "outcome": "failed", "task": text,
        "gold": {"step": 2, "agent": text, "reason": "r", "category": "c"},
        "errors": 3, "agents": [text, "b"], "roles": [["assistant", 4], ["tool", 8]],
        "repeated_action": [text, 3], "analysed": false,
        "critical": {"step": 3, "line": 4, "agent": text, "action_id": "a-1", "evidence": evidence},
        "candidates": [
            {"step": 3, "line": 4, "agent": text, "score": 1.725, "category": "task_conflict",
             "phase": "planning", "state": "manifest_active", "evidence": evidence, "instance": 2,
             "why": [text, "rule: plan_origin"]},
            {"step": 0, "line": 0, "agent": "", "score": -0.5, "category": "task_conflict",
             "phase": "reasoning", "state": "latent_active", "evidence": [], "instance": null,
             "why": []}
        ],
        "classification": "agent_failure", "failure_mode": "reasoning",
        "signals": {"repeated_actions": 4, "repeated_failures": 2, "attempts": 6,
            "repetition": true, "attempts_exceeded": true, "budget_exhausted": true,
            "escalate": true},
        "triggers": [
            {"step": 3, "category": "task_conflict", "phase": "planning", "wrong_quote": text,
             "reference_quote": "r", "reference_step": 1, "rule": "failed_command",
             "object": text, "blocker": "environment_blocker"},
            {"step": 4, "category": "task_conflict", "phase": "planning", "wrong_quote": "w",
             "reference_quote": "", "reference_step": null, "rule": "repeated_action",
             "object": "o"}
        ],
        "record": {"failure_event": "e", "failure_event_step": 5, "failure_turn_id": text,
            "failed_artifact_refs": ["src/a.rs"], "source_action_ids": ["a-1", "a-2"],
            "verifier_action_id": "v", "touched_action_ids": ["t"], "memory_read_node_ids": ["m"],
            "evidence_refs": [text], "root_cause_summary": text,
            "verification_probe_candidate": "p", "classification": "agent_failure",
            "failure_mode": "reasoning", "attribution_heuristics": ["h1", "h2"]},
        "usage": usage,
        "agent_usage": [{"agent": text, "steps": 2, "usage": usage},
            {"agent": "", "steps": 1, "usage": {"input_tokens": null, "output_tokens": null,
             "cache_read_tokens": null, "cache_write_tokens": null, "cost_usd": null,
             "duration_ms": null, "steps_with_usage": 0}}],
        "flagged_artifact_refs": [{"ref": "../etc/passwd", "reason": text, "step": 7}]
    });
    let o: Overview = serde_json::from_value(full.clone()).unwrap();
    let expected = serde_json::to_vec(&o).unwrap();
    // Every field of the JSON above made it into the overview and back (none ignored).
    assert_eq!(serde_json::from_slice::<Value>(&expected).unwrap(), full);
    let mut out = Vec::new();
    json::write_overview(&mut out, &o).unwrap();
    assert_eq!(String::from_utf8(out).unwrap(), String::from_utf8(expected).unwrap());
    // And with everything empty.
    let mut empty = o.clone();
    (empty.task, empty.gold, empty.repeated_action, empty.critical) = (None, None, None, None);
    (empty.candidates, empty.triggers, empty.agent_usage) = (vec![], vec![], vec![]);
    (empty.record, empty.usage) = (Default::default(), Default::default());
    (empty.classification, empty.failure_mode, empty.analysed) = (None, None, true);
    let mut out = Vec::new();
    json::write_overview(&mut out, &empty).unwrap();
    assert_eq!(String::from_utf8(out).unwrap(), serde_json::to_string(&empty).unwrap());
}

/// `json::write_analysed` (no overview built) gives the bytes of the overview built from the same
/// trajectory and analysis: a task elided (over 600 characters, multi-byte) and one kept whole,
/// several roles and agents in order of first appearance, a repeated action, and a failed
/// artifact ref that escapes the trace root (dropped from the record, flagged instead).
#[test]
fn an_overview_written_from_its_analysis_is_the_overview_built_from_it() {
    let long_task = "é".repeat(700);
    let lines = [
        format!(r#"{{"type":"run_start","run_id":"r1","task":"{long_task}"}}"#),
        r#"{"type":"message","role":"user","run_id":"r1","text":"please fix"}"#.to_string(),
        r#"{"type":"action","run_id":"r1","agent":"coder","tool":"bash","command":"cat ../../etc/passwd","artifact_refs":["../../etc/passwd","src/a.rs"]}"#.to_string(),
        r#"{"type":"observation","run_id":"r1","output":"error: no such file","exit_code":1,"artifact_refs":["../../etc/passwd"]}"#.to_string(),
        r#"{"type":"action","run_id":"r1","agent":"coder","tool":"bash","command":"cat ../../etc/passwd"}"#.to_string(),
        r#"{"type":"action","run_id":"r1","agent":"Reviewer","tool":"bash","command":"cat ../../etc/passwd"}"#.to_string(),
        r#"{"type":"judge_result","run_id":"r1","status":"failed","reason":"wrong file","artifact_refs":["../../etc/passwd","src/a.rs"]}"#.to_string(),
        r#"{"type":"run_end","run_id":"r1","status":"failed"}"#.to_string(),
        r#"{"type":"run_start","run_id":"r2","task":"a short task"}"#.to_string(),
        r#"{"type":"action","run_id":"r2","command":"ls"}"#.to_string(),
        r#"{"type":"run_end","run_id":"r2","status":"passed"}"#.to_string(),
    ];
    let trace = ingest(lines.join("\n").as_bytes(), IngestOptions::default());
    assert_eq!(trace.trajectories.len(), 2);
    let opts = Default::default();
    for t in &trace.trajectories {
        let a = trajscope_core::attribution::analyze_trajectory(t, &opts);
        let o = Overview::owning(t, Some(a.clone()));
        let mut out = Vec::new();
        json::write_analysed(&mut out, t, &a).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), serde_json::to_string(&o).unwrap());
    }
    let first = Overview::new(&trace.trajectories[0]);
    assert!(first.task.as_ref().is_some_and(|x| x.contains("characters elided")));
    assert!(first.roles.len() >= 4 && first.agents == ["coder", "Reviewer"], "{first:?}");
    assert!(first.repeated_action.is_some());
    assert!(!first.flagged_artifact_refs.is_empty());
    // The failed verdict's refs: the one that escapes is left out of the record.
    assert_eq!(first.record.failed_artifact_refs, ["src/a.rs"]);
}

#[test]
fn escapes_numbers_and_keys_match_serde_json() {
    let mut text = String::new();
    for b in 0u8..0x80 {
        text.push(b as char);
    }
    text.push_str("é数据\u{2028}\u{10ffff}\"\\/");
    let mut keys: BTreeMap<i64, f64> = BTreeMap::new();
    keys.insert(-3, 0.1);
    keys.insert(7, f64::NAN);
    keys.insert(8, 1e300);
    let mut bools: BTreeMap<bool, Option<char>> = BTreeMap::new();
    bools.insert(true, Some('"'));
    bools.insert(false, None);
    let value = (text, keys, bools, u128::MAX, i128::MIN, f32::INFINITY, 2.5f32, b'x', 'é');
    assert_eq!(json::to_vec(&value).unwrap(), serde_json::to_vec(&value).unwrap());
    // serde_json refuses a key that is not a string or a number; so does the writer.
    let mut bad: BTreeMap<(u8, u8), u8> = BTreeMap::new();
    bad.insert((1, 2), 3);
    assert!(serde_json::to_vec(&bad).is_err());
    assert!(json::to_vec(&bad).is_err());
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(Value::from),
        any::<String>().prop_map(Value::String),
        "[\\x00-\\x7f]{0,40}".prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 5, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            proptest::collection::btree_map("(?s).{0,9}", inner, 0..5)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    #[test]
    fn random_values_are_written_as_serde_json_writes_them(v in json_value()) {
        prop_assert_eq!(json::to_vec(&v).unwrap(), serde_json::to_vec(&v).unwrap());
    }
}
