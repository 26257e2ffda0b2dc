//! Artifact refs: every adapter records what a step acted on (checked on a real fixture per
//! format), refs are normalised against the trace root, and a ref that escapes it is flagged in
//! the report with its reason and never enters a valid case or a brief (one regression test per
//! reproduction of the reliability report, and a property test over hostile strings).
#![cfg(not(target_arch = "wasm32"))]
// Tests read their fixtures from disk; the core itself does no I/O.
#![allow(clippy::disallowed_methods)]

use std::path::PathBuf;

use proptest::prelude::*;
use trajscope_core::artifact::{self, RefKind};
use trajscope_core::attribution::{analyze_trajectory, AnalysisOptions};
use trajscope_core::brief::{self, BriefContext};
use trajscope_core::cases;
use trajscope_core::model::Trace;
use trajscope_core::report::Report;
use trajscope_core::{ingest, IngestOptions};

fn fixture(rel: &str) -> Trace {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures").join(rel);
    let bytes = std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    ingest(&bytes, IngestOptions::default())
}

/// Every ref recorded anywhere in the trace, normalised, with its kind.
fn all_refs(t: &Trace) -> Vec<(String, RefKind, bool)> {
    t.trajectories
        .iter()
        .flat_map(|tr| tr.steps.iter())
        .flat_map(|s| s.artifact_refs.iter())
        .map(|a| (a.normalized.clone(), a.kind, a.escapes_root))
        .collect()
}

fn has_ref(t: &Trace, want: &str) -> bool {
    all_refs(t).iter().any(|(r, _, esc)| r == want && !esc)
}

/// The reproductions of the reliability report, each with the word its reason must contain.
const ESCAPING: [(&str, &str); 14] = [
    ("../../etc/passwd", "`..`"),
    ("/abs/path", "absolute path"),
    ("file:///etc/shadow", "`file:` URL"),
    ("file:/etc/passwd", "`file:` URL"),
    ("file:../../secret", "`..`"),
    ("file:C:/Windows", "`file:` URL"),
    ("~/.ssh/id_rsa", "home-directory"),
    (" /etc/passwd", "whitespace"),
    ("C:..\\..\\x", "drive-relative"),
    ("%2e%2e/%2e%2e/etc/passwd", "percent-encoded"),
    ("%252e%252e/secret", "percent-encoded"),
    ("src/../../x", "`..`"),
    ("\\\\server\\share\\x", "absolute path"),
    ("a/\u{ff0e}\u{ff0e}/b", "look-alike"),
];

#[test]
fn each_reproduction_is_flagged_with_its_reason() {
    for (raw, word) in ESCAPING {
        let a = artifact::classify(raw);
        assert!(a.escapes_root, "{raw:?} not flagged");
        assert_eq!(a.kind, RefKind::Escaping, "{raw:?}");
        let reason = a.reason.unwrap_or_default();
        assert!(reason.contains(word), "{raw:?}: reason {reason:?} lacks {word:?}");
        // Known root or not, it stays flagged.
        assert!(artifact::classify_in(raw, Some("/work/repo")).escapes_root, "{raw:?}");
    }
}

#[test]
fn paths_inside_the_root_become_relative_and_labels_stay_labels() {
    let root = Some("/tmp/proj/");
    for (raw, want, kind) in [
        ("/tmp/proj/src/a.py", "src/a.py", RefKind::Path),
        ("file:///tmp/proj/src/a.py", "src/a.py", RefKind::Path),
        ("./src/./b/../a.py", "src/a.py", RefKind::Path),
        ("src\\win\\a.rs", "src/win/a.rs", RefKind::Path),
        ("tool:Bash", "tool:Bash", RefKind::Label),
        ("reservation:EHGLP3", "reservation:EHGLP3", RefKind::Label),
        ("https://example.org/a", "https://example.org/a", RefKind::Url),
    ] {
        let a = artifact::classify_in(raw, root);
        assert!(!a.escapes_root, "{raw:?}: {:?}", a.reason);
        assert_eq!((a.normalized.as_str(), a.kind), (want, kind), "{raw:?}");
    }
    // Outside the root, or `..` out of it: flagged, the reason names the root.
    let out = artifact::classify_in("/tmp/projx/a.py", root);
    assert!(out.escapes_root);
    assert!(out.reason.unwrap().contains("outside the trace root `/tmp/proj/`"));
    assert!(artifact::classify_in("/tmp/proj/../etc/passwd", root).escapes_root);
}

/// An AWTL run whose failed verdict names every reproduction, plus one good file.
fn hostile_run() -> Vec<u8> {
    let refs: Vec<String> =
        ESCAPING.iter().map(|(r, _)| serde_json::to_string(r).unwrap()).collect();
    format!(
        "{{\"type\":\"run_start\",\"run_id\":\"r1\"}}\n\
         {{\"type\":\"action\",\"run_id\":\"r1\",\"action_id\":\"a1\",\"tool\":\"shell\",\"command\":\"npm test\",\"artifact_refs\":[\"src/app.ts\",{}]}}\n\
         {{\"type\":\"observation\",\"run_id\":\"r1\",\"action_id\":\"a1\",\"exit_code\":1,\"output\":\"1 test failed\"}}\n\
         {{\"type\":\"judge_result\",\"run_id\":\"r1\",\"judge_name\":\"unit-verifier\",\"event_id\":\"j1\",\"status\":\"failed\",\"source_action_id\":\"a1\",\"artifact_refs\":[{}],\"reason\":\"1 test failed\"}}\n\
         {{\"type\":\"run_end\",\"run_id\":\"r1\",\"status\":\"failed\"}}\n",
        refs.join(","),
        refs.join(",")
    )
    .into_bytes()
}

#[test]
fn escaping_refs_are_named_in_the_report_and_never_reach_a_case_or_a_brief() {
    let trace = ingest(&hostile_run(), IngestOptions::default());
    let report = serde_json::to_value(Report::new(&trace)).unwrap();
    let t = &report["trajectories"][0];
    let flagged = t["flagged_artifact_refs"].as_array().expect("flagged_artifact_refs");
    for (raw, _) in ESCAPING {
        let hit = flagged.iter().find(|f| f["ref"] == raw);
        let hit = hit.unwrap_or_else(|| panic!("{raw:?} not named in {flagged:?}"));
        assert!(hit["reason"].as_str().is_some_and(|r| !r.is_empty()), "{hit}");
    }
    assert!(!flagged.iter().any(|f| f["ref"] == "src/app.ts"));
    for r in t["record"]["failed_artifact_refs"].as_array().unwrap() {
        assert!(!artifact::escapes(r.as_str().unwrap()), "record lists {r}");
    }

    let opts = AnalysisOptions::default();
    let built = cases::from_trace_analyses(&trace, "h", |_, t| Some(analyze_trajectory(t, &opts)));
    assert_eq!(built.len(), 1);
    let case = &built[0];
    assert!(case.valid, "{:?}", case.errors);
    assert_eq!(case.case.artifact_refs, ["src/app.ts"]);
    let b = brief::build(std::slice::from_ref(&case.case), &[], &BriefContext::default());
    let md = brief::to_markdown(&b);
    for (raw, _) in ESCAPING {
        assert!(!md.contains(raw.trim()), "{raw:?} in the brief:\n{md}");
    }
    assert!(!md.contains("etc/passwd") && !md.contains("secret") && !md.contains("id_rsa"));
}

#[test]
fn a_case_naming_an_escaping_ref_is_invalid_and_left_out_of_the_brief() {
    for (raw, _) in ESCAPING {
        let case = serde_json::json!({
            "schema_version": 1, "case_id": "case-x", "turn_id": "t", "failure_turn_id": "t",
            "failure_event_id": "e", "artifact_refs": ["src/ok.rs", raw],
            "prevention_hint": "Run it again.", "applicability": ["x"], "evidence_refs": ["step:1"],
        });
        let errors = cases::validate_value(&case);
        assert!(errors.iter().any(|e| e.contains("escapes the trace root")), "{raw:?}: {errors:?}");
        let line = format!("{case}\n");
        let loaded = cases::load_jsonl(line.as_bytes());
        assert_eq!(loaded.valid().count(), 0, "{raw:?}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Whatever the pieces, a ref that is not flagged is a clean relative ref: no `..`
    /// segment (plain or encoded), nothing absolute, no whitespace or control character at its
    /// ends; classifying it again gives it back unflagged; under a root it stays under it.
    #[test]
    fn unflagged_refs_never_leave_the_root(
        pieces in proptest::collection::vec(prop_oneof![
            Just(".."), Just("."), Just("/"), Just("\\"), Just("%2e"), Just("%2f"), Just("%25"),
            Just("file:"), Just("file://"), Just("~"), Just(" "), Just("C:"), Just("a"),
            Just("b.rs"), Just("src"), Just(":"), Just("tool:"), Just("$HOME"), Just("\t"),
            Just("\u{ff0e}"), Just("http://x"), Just("localhost"), Just("..."),
        ], 1..8),
        root in prop_oneof![Just(None), Just(Some("/r/o")), Just(Some("C:\\w"))],
    ) {
        let raw: String = pieces.concat();
        let a = artifact::classify_in(&raw, root);
        if !a.escapes_root {
            let n = &a.normalized;
            prop_assert!(!n.starts_with(['/', '\\', '~', '$', '%', ' ']), "{raw:?} -> {n:?}");
            prop_assert!(n.trim() == n && !n.chars().any(char::is_control), "{raw:?} -> {n:?}");
            if a.kind == RefKind::Path {
                prop_assert!(!n.split(['/', '\\']).any(|s| s == ".."), "{raw:?} -> {n:?}");
                let drive = n.len() >= 2 && n.as_bytes()[0].is_ascii_alphabetic() && n.as_bytes()[1] == b':';
                prop_assert!(!drive, "{raw:?} -> {n:?}");
            }
            let again = artifact::classify(n);
            prop_assert!(!again.escapes_root, "{raw:?} -> {n:?} -> {:?}", again.reason);
            prop_assert_eq!(&again.normalized, n);
            prop_assert!(!artifact::escapes(n));
        } else {
            prop_assert!(a.reason.is_some());
            prop_assert!(artifact::escapes(&a.normalized), "{raw:?}");
        }
    }
}

#[test]
fn every_adapter_records_what_its_steps_acted_on() {
    // Claude Code: Edit / Read / Write file_path, relative to the session's cwd.
    let t = fixture("claude_code/coverage-test-fix.jsonl");
    assert!(has_ref(&t, "src/math_utils.py") && has_ref(&t, "tests/test_math_utils.py"));
    let t = fixture("claude_code/hello-world-script.jsonl");
    assert!(has_ref(&t, "hello.sh"));
    // A Bash command that deletes a file.
    let t = fixture("claude_code/codemie-main-session.jsonl");
    assert!(has_ref(&t, "hello.py") && has_ref(&t, "hello.js"));
    // Codex: the files of an apply_patch.
    let t = fixture("codex/examples-one-per-kind.jsonl");
    assert!(all_refs(&t)
        .iter()
        .any(|(r, k, _)| r.starts_with("src/agents/") && *k == RefKind::Path));
    // SWE-agent: create, the open file of `edit`, the submitted patch.
    let t = fixture("swe_agent/pydicom__pydicom-1458.traj");
    assert!(has_ref(&t, "reproduce_bug.py"));
    assert!(has_ref(&t, "pydicom/pixel_data_handlers/numpy_handler.py"));
    // mini-swe-agent: the files of the submitted diff.
    let t = fixture("mini_swe_agent/django__django-10914.trimmed.traj.json");
    assert!(has_ref(&t, "django/conf/global_settings.py"));
    // OpenHands: the edited file, relative to /workspace.
    let t = fixture("openhands/basic.json");
    assert!(has_ref(&t, "game_2048.py"));
    // Inspect: the page a browser tool opens.
    let t = fixture("inspect/browser.no_events.json");
    assert!(all_refs(&t).iter().any(|(r, k, _)| r.starts_with("https://") && *k == RefKind::Url));
    // tau2: the tool and the record it acts on.
    let t = fixture("tau2/airline_3_simulations.json");
    assert!(has_ref(&t, "tool:get_reservation_details") && has_ref(&t, "reservation:EHGLP3"));
    // Who&When and TRAJERRBENCH: the message itself.
    let t = fixture("who_and_when/ag_1.json");
    assert!(has_ref(&t, "message:0"));
    let t = fixture("trajerrbench/airline_failed_qwen3-max.json");
    assert!(has_ref(&t, "message:5"));
    // OTel and LangSmith: the tool and its arguments' records.
    let t = fixture("otel/genai_handoff.jsonl");
    assert!(has_ref(&t, "tool:cancel_reservation"));
    let t = fixture("langsmith/nested_tool_error.json");
    assert!(has_ref(&t, "tool:run_tests"));
    // No real fixture names an escaping ref that a case could pick up unflagged.
    for rel in ["codex/rollout-trimmed.jsonl", "claude_code/codemie-agent-36541525.jsonl"] {
        for (r, _, esc) in all_refs(&fixture(rel)) {
            assert_eq!(esc, artifact::escapes(&r), "{rel}: {r}");
        }
    }
}

/// A bare list of Anthropic messages (as Cline keeps a task's history) is read by the
/// mini-swe-agent reader's older layout: its tool calls keep the files they act on (the refs
/// were once replaced by those of a shell command read from the calls' JSON: none), so an edit
/// of a file the task protects is seen.
#[test]
fn a_list_of_anthropic_messages_keeps_the_files_its_calls_edit() {
    let messages = serde_json::json!([
        {"role": "user", "content": [{"type": "text",
            "text": "Fix the failing test in tests/test_api.py without changing the test."}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1",
            "name": "execute_command", "input": {"command": "pytest -q > log/out.txt"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1",
            "content": "FAILED tests/test_api.py::test_get - assert 404 == 200"}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t2",
            "name": "replace_in_file", "input": {"path": "tests/test_api.py",
            "diff": "- assert r.status == 200\n+ assert r.status == 404"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t2",
            "content": "saved"}]}
    ]);
    let t = ingest(messages.to_string().as_bytes(), IngestOptions::default());
    let tr = &t.trajectories[0];
    let refs = |i: usize| -> Vec<&str> {
        tr.steps[i].artifact_refs.iter().map(|r| r.raw.as_str()).collect()
    };
    assert!(refs(3).contains(&"tests/test_api.py"), "{:?}", refs(3));
    // A shell call still names the file its command writes.
    assert!(refs(1).contains(&"log/out.txt"), "{:?}", refs(1));
    let a = analyze_trajectory(tr, &AnalysisOptions::default());
    let banned: Vec<u32> = a
        .triggers
        .iter()
        .filter(|t| t.rule.as_str() == "task_constraint_broken")
        .map(|t| t.step)
        .collect();
    assert_eq!(banned, [3]);
}
