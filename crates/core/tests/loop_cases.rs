//! Failed turn cases (docs/learning-loop.md) through the public API: built from attribution records over
//! real-looking AWTL runs, validated strictly on raw JSON, loaded from JSONL and merged.
#![cfg(not(target_arch = "wasm32"))]

use proptest::prelude::*;
use serde_json::{json, Value};
use trajscope_core::cases::{self, FailedTurnCase};
use trajscope_core::model::Trajectory;
use trajscope_core::record::{AttributionRecord, FailureClass, FailureMode, Phase};
use trajscope_core::{ingest, IngestOptions};

const SAMPLE: &[u8] = include_bytes!("../../../web/samples/sample.awtl.jsonl");
const ENV_BLOCKER: &[u8] = include_bytes!("../../../tests/fixtures/loop/env-blocker.awtl.jsonl");
const CASES: &[u8] = include_bytes!("../../../tests/fixtures/loop/cases.jsonl");
const INVALID: &[u8] = include_bytes!("../../../tests/fixtures/loop/cases-invalid.jsonl");

fn trajectory(bytes: &[u8]) -> Trajectory {
    let trace = ingest(bytes, IngestOptions::default());
    trace.trajectories.into_iter().next().expect("one trajectory")
}

fn step_of_event(t: &Trajectory, event_id: &str) -> u32 {
    t.steps.iter().find(|s| s.ids.event_id.as_deref() == Some(event_id)).expect("event").index
}

/// The record the analysis fills for the demo run: the contract verifier failed on the rename.
fn demo_record(t: &Trajectory) -> AttributionRecord {
    AttributionRecord {
        failure_event: Some("judge-17".into()),
        failure_event_step: Some(step_of_event(t, "judge-17")),
        failure_turn_id: Some("turn-4".into()),
        failed_artifact_refs: vec!["artifact:build-output".into(), "src/api/orders.ts".into()],
        source_action_ids: vec!["act-3".into()],
        memory_read_node_ids: vec!["memory:contract-rule".into()],
        evidence_refs: vec!["judge:contract-verifier".into()],
        root_cause_summary:
            "field userId removed from a public response without the deprecated alias".into(),
        classification: Some(FailureClass::AgentFailure),
        failure_mode: Some(FailureMode::Reasoning),
        ..AttributionRecord::default()
    }
}

/// The record for the e2e run: the judge failed because the browser binary is missing.
fn env_record(t: &Trajectory) -> AttributionRecord {
    AttributionRecord {
        failure_event: Some("judge-31".into()),
        failure_event_step: Some(step_of_event(t, "judge-31")),
        failure_turn_id: Some("turn-4".into()),
        failed_artifact_refs: vec!["e2e/reorder.spec.ts".into()],
        source_action_ids: vec!["act-4".into()],
        evidence_refs: vec!["judge:e2e-verifier".into()],
        root_cause_summary: "chromium executable missing in the runner image".into(),
        classification: Some(FailureClass::EnvironmentBlocker),
        failure_mode: Some(FailureMode::Deterministic),
        ..AttributionRecord::default()
    }
}

#[test]
fn a_case_built_from_the_demo_attribution_is_valid_compact_and_actionable() {
    let t = trajectory(SAMPLE);
    let case = cases::from_attribution(&demo_record(&t), &t, "sha256:demo");
    let check = cases::check_case(&case);
    assert!(check.valid, "{:?}", check.errors);
    assert_eq!(case.schema_version, 1);
    assert_eq!(case.turn_id, "turn-4");
    assert_eq!(case.failure_turn_id, "turn-4");
    assert_eq!(case.failure_event_id, "judge-17");
    assert_eq!(case.artifact_refs, ["artifact:build-output", "src/api/orders.ts"]);
    assert_eq!(case.memory_read_node_ids, ["memory:contract-rule"]);
    assert_eq!(case.evidence_refs, ["judge:contract-verifier"]);
    assert_eq!(case.classification, Some(FailureClass::AgentFailure));
    assert_eq!(case.failure_mode, Some(FailureMode::Reasoning));
    assert_eq!(case.phase, Some(Phase::Verification));
    assert_eq!(
        case.prevention_hint,
        "Before closeout, run `contract-verifier` again on `artifact:build-output` and \
         `src/api/orders.ts`."
    );
    assert_eq!(
        case.failed_action.as_deref(),
        Some("edit: sed -i 's/userId/customerId/g' src/api/orders.ts")
    );
    assert!(case.failure_reason.as_deref().unwrap().contains("deprecated alias"));
    assert!(case.constraint.as_deref().unwrap().contains("`contract-verifier` must pass"));
    for tag in ["verifier:contract-verifier", "agent_failure", "api", "orders", "contract"] {
        assert!(case.applicability.iter().any(|a| a == tag), "{tag} in {:?}", case.applicability);
    }
    // Compact: no raw step text beyond the short reflect parts.
    let json = serde_json::to_string(&case).unwrap();
    assert!(!json.contains("Tests: 1 failed"), "{json}");
}

#[test]
fn case_id_is_stable_for_the_same_trace_and_step_and_differs_otherwise() {
    let t = trajectory(SAMPLE);
    let r = demo_record(&t);
    let a = cases::from_attribution(&r, &t, "sha256:demo").case_id;
    let b = cases::from_attribution(&r, &t, "sha256:demo").case_id;
    assert_eq!(a, b);
    assert!(a.starts_with("case-") && a.len() == "case-".len() + 16, "{a}");
    let other_trace = cases::from_attribution(&r, &t, "sha256:other").case_id;
    let other_step = cases::from_attribution(
        &AttributionRecord { failure_event_step: Some(3), ..r.clone() },
        &t,
        "sha256:demo",
    )
    .case_id;
    assert_ne!(a, other_trace);
    assert_ne!(a, other_step);
    assert_ne!(other_trace, other_step);
}

#[test]
fn an_environment_blocker_case_says_the_code_is_not_at_fault() {
    let t = trajectory(ENV_BLOCKER);
    let case = cases::from_attribution(&env_record(&t), &t, "sha256:e2e");
    assert!(cases::check_case(&case).valid);
    assert_eq!(case.classification, Some(FailureClass::EnvironmentBlocker));
    assert_eq!(
        case.failed_action.as_deref(),
        Some("shell: npx playwright test e2e/reorder.spec.ts")
    );
    let hint = case.prevention_hint.to_lowercase();
    assert!(hint.contains("environment") && hint.contains("not in the agent's code"), "{hint}");
    assert!(!hint.contains("change"), "{hint}");
    assert_eq!(case.constraint.as_deref(), Some("keep the code and the approach as they are"));
}

#[test]
fn transient_failures_get_a_retry_hint_and_probes_are_used_when_known() {
    let t = trajectory(SAMPLE);
    let transient = AttributionRecord {
        failure_mode: Some(FailureMode::Transient),
        classification: Some(FailureClass::VerificationFailure),
        ..demo_record(&t)
    };
    let case = cases::from_attribution(&transient, &t, "h");
    assert_eq!(
        case.prevention_hint,
        "Retry `sed -i 's/userId/customerId/g' src/api/orders.ts` after a wait; keep the same \
         approach."
    );
    let probe = AttributionRecord {
        verification_probe_candidate: Some("npm run test:contract -- orders".into()),
        ..demo_record(&t)
    };
    let case = cases::from_attribution(&probe, &t, "h");
    assert_eq!(
        case.prevention_hint,
        "Before closeout, run `npm run test:contract -- orders` again on `artifact:build-output` \
         and `src/api/orders.ts`."
    );
}

#[test]
fn the_analysis_naming_the_verdict_as_verifier_and_a_prose_probe_give_the_same_hint() {
    let t = trajectory(SAMPLE);
    // The analysis names the judge verdict's event id as the verifier and writes its probe as
    // a sentence; the verifier's name still comes from the judge.
    let r = AttributionRecord {
        verifier_action_id: Some("judge-17".into()),
        verification_probe_candidate: Some(
            "re-run the verifier `contract-verifier` on the changed artifact".into(),
        ),
        ..demo_record(&t)
    };
    let case = cases::from_attribution(&r, &t, "h");
    assert_eq!(
        case.prevention_hint,
        "Before closeout, run `contract-verifier` again on `artifact:build-output` and \
         `src/api/orders.ts`."
    );
    // Without a judge, a prose probe is used as written.
    let action = t.steps.iter().find(|s| s.ids.action_id.as_deref() == Some("act-4")).unwrap();
    let r = AttributionRecord {
        failure_event: None,
        failure_event_step: Some(action.index),
        failure_turn_id: None,
        source_action_ids: vec!["act-4".into()],
        verification_probe_candidate: Some("re-run `npm test` after the fix".into()),
        ..demo_record(&t)
    };
    let case = cases::from_attribution(&r, &t, "h");
    assert_eq!(case.prevention_hint, "Before closeout, re-run `npm test` after the fix.");
    assert_eq!(case.turn_id, "turn-3");
    assert_eq!(case.phase, Some(Phase::Action));
    assert_eq!(case.failed_action.as_deref(), Some("shell: npm test"));
}

#[test]
fn case_ids_hash_with_fnv1a_and_separate_their_parts() {
    // Known FNV-1a 64 vector: "a" -> af63dc4c8601ec8c.
    assert_eq!(cases::stable_hash(&["a"]), 0xaf63dc4c8601ec8c);
    // Parts are separated, so moving a boundary changes the id.
    assert_ne!(cases::stable_hash(&["ab", "c"]), cases::stable_hash(&["a", "bc"]));
    assert_eq!(cases::case_id_for("sha256:x", "t", "3"), cases::case_id_for("sha256:x", "t", "3"));
    assert_ne!(cases::case_id_for("sha256:x", "t", "3"), cases::case_id_for("sha256:y", "t", "3"));
}

#[test]
fn a_trace_gives_one_case_per_attributed_failure() {
    let trace = ingest(SAMPLE, IngestOptions::default());
    let t = &trace.trajectories[0];
    let built = cases::from_trace_with(&trace, "sha256:demo", |_| Some(demo_record(t)));
    assert_eq!(built.len(), 1);
    assert_eq!(built[0].trajectory_id, "run-demo-7");
    assert!(built[0].valid, "{:?}", built[0].errors);
    assert_eq!(built[0].case_id, built[0].case.case_id);
    assert_eq!(built[0].case, cases::from_attribution(&demo_record(t), t, "sha256:demo"));
    // No failure named (a passed run): no case.
    assert!(cases::from_trace_with(&trace, "h", |_| None).is_empty());
    assert!(cases::from_trace_with(&trace, "h", |_| Some(AttributionRecord::default())).is_empty());
}

#[test]
fn artifacts_fall_back_to_what_the_trace_names_and_nothing_else() {
    // A judge without artifact refs, judging a command that names a spec file, after an edit.
    let run = br#"{"type":"action","run_id":"r","turn_id":"turn-1","action_id":"act-1","tool":"edit","command":"apply_patch dark-mode.diff","artifact_refs":["src/settings.tsx","../outside.txt"]}
{"type":"action","run_id":"r","turn_id":"turn-2","action_id":"act-2","tool":"shell","command":"npx playwright test e2e/settings.spec.ts --project=chromium -c ./pw.config.ts http://x/y.js /abs/p.ts ../up.ts pillow==9.0 1.2"}
{"type":"judge_result","run_id":"r","turn_id":"turn-2","judge_name":"e2e-gate","event_id":"judge-9","status":"failed","source_action_id":"act-2","reason":"browser binary missing"}
"#;
    let t = trajectory(run);
    let judge = step_of_event(&t, "judge-9");
    let base = AttributionRecord {
        failure_event: Some("judge-9".into()),
        failure_event_step: Some(judge),
        source_action_ids: vec!["act-2".into()],
        classification: Some(FailureClass::EnvironmentBlocker),
        ..AttributionRecord::default()
    };
    // The actions the agent took up to the failure: their refs (never one escaping the root).
    let touched = AttributionRecord {
        touched_action_ids: vec!["act-1".into(), "act-2".into()],
        ..base.clone()
    };
    assert_eq!(cases::from_attribution(&touched, &t, "h").artifact_refs, ["src/settings.tsx"]);
    // Else the file paths the source command names.
    let case = cases::from_attribution(&base, &t, "h");
    assert_eq!(case.artifact_refs, ["e2e/settings.spec.ts"]);
    assert!(cases::check_case(&case).valid);
    // The source action's own refs come before the touched ones.
    let run2 = String::from_utf8_lossy(run).replace(
        r#""command":"npx playwright"#,
        r#""artifact_refs":["e2e/settings.spec.ts"],"command":"npx playwright"#,
    );
    let t2 = trajectory(run2.as_bytes());
    assert_eq!(cases::from_attribution(&touched, &t2, "h").artifact_refs, ["e2e/settings.spec.ts"]);
}

#[test]
fn a_command_that_fails_the_same_way_each_time_is_not_to_be_repeated_unchanged() {
    let t = trajectory(SAMPLE);
    // The failed `npm test` observation, with no verifier: a deterministic failure of a command.
    let obs = t
        .steps
        .iter()
        .find(|s| s.ids.span_id.as_deref() == Some("s-4") && s.exit_code == Some(1))
        .unwrap();
    let r = AttributionRecord {
        failure_event_step: Some(obs.index),
        source_action_ids: vec!["act-4".into()],
        failed_artifact_refs: vec!["test/contract/orders.contract.test.ts".into()],
        classification: Some(FailureClass::AgentFailure),
        failure_mode: Some(FailureMode::Deterministic),
        root_cause_summary: "step 7 by coder (failed_command)".into(),
        ..AttributionRecord::default()
    };
    let case = cases::from_attribution(&r, &t, "h");
    assert_eq!(
        case.prevention_hint,
        "Do not run `npm test` again unchanged: it fails the same way each time; change its input \
         or the approach."
    );
    assert_eq!(case.constraint.as_deref(), Some("do not repeat `npm test` unchanged"));
    // Why it failed: the observation's own error line, not the rule summary.
    assert_eq!(case.failure_reason.as_deref(), Some("contract test failed"));
    assert_eq!(case.phase, Some(Phase::Observation));
}

#[test]
fn a_false_claim_in_a_message_gets_a_check_the_claim_hint() {
    let t = trajectory(SAMPLE);
    let claim = t
        .steps
        .iter()
        .find(|s| s.text.starts_with("The rename is complete and all tests pass."))
        .unwrap();
    let r = AttributionRecord {
        failure_event_step: Some(claim.index),
        failed_artifact_refs: vec!["src/api/orders.ts".into()],
        classification: Some(FailureClass::AgentFailure),
        failure_mode: Some(FailureMode::Reasoning),
        ..AttributionRecord::default()
    };
    let case = cases::from_attribution(&r, &t, "h");
    assert_eq!(
        case.prevention_hint,
        "Before answering, check the claim made at turn-4 against the task and the tool results \
         it relies on."
    );
    assert_eq!(case.phase, Some(Phase::Reasoning));
    assert!(cases::check_case(&case).valid);
}

#[test]
fn missing_record_fields_fall_back_to_the_trajectory_and_nothing_is_invented() {
    let t = trajectory(SAMPLE);
    let step = step_of_event(&t, "judge-17");
    // Only the failing step is known: turn, event, artifacts and evidence come from the trace.
    let sparse =
        AttributionRecord { failure_event_step: Some(step), ..AttributionRecord::default() };
    let case = cases::from_attribution(&sparse, &t, "h");
    assert_eq!(case.turn_id, "turn-4");
    assert_eq!(case.failure_event_id, "judge-17");
    assert_eq!(case.artifact_refs, ["artifact:build-output", "src/api/orders.ts"]);
    assert_eq!(case.evidence_refs, ["event:judge-17"]);
    assert!(cases::check_case(&case).valid);

    // A failing action that names no file: the tool it called is what it acted on.
    let action = t.steps.iter().find(|s| s.ids.action_id.as_deref() == Some("act-4")).unwrap();
    let no_refs = AttributionRecord {
        failure_event_step: Some(action.index),
        ..AttributionRecord::default()
    };
    let case = cases::from_attribution(&no_refs, &t, "h");
    assert_eq!(case.artifact_refs, [format!("tool:{}", action.tool.as_deref().unwrap())]);
    assert!(cases::check_case(&case).valid);
    // A case without artifacts is invalid, and never exported.
    let case = FailedTurnCase { artifact_refs: Vec::new(), ..case };
    let check = cases::check_case(&case);
    assert!(!check.valid);
    assert_eq!(check.errors, ["artifact_refs must be a non-empty array of strings"]);
    let (jsonl, rejected) = cases::export_jsonl(std::slice::from_ref(&case));
    assert_eq!(jsonl, "");
    assert_eq!(rejected.len(), 1);
    assert_eq!(rejected[0].case_id.as_deref(), Some(case.case_id.as_str()));

    // An empty record over an empty trajectory does not panic and is invalid.
    let empty = cases::from_attribution(&AttributionRecord::default(), &Trajectory::default(), "");
    assert!(!cases::check_case(&empty).valid);
}

fn errors_by_case(bytes: &[u8]) -> Vec<(u32, Option<String>, Vec<String>)> {
    cases::load_jsonl(bytes)
        .checks
        .into_iter()
        .map(|c| {
            assert_eq!(c.valid, c.errors.is_empty());
            assert_eq!(c.valid, c.case.is_some());
            (c.line, c.case_id, c.errors)
        })
        .collect()
}

#[test]
fn every_validation_rule_is_reported_with_all_errors() {
    let got = errors_by_case(INVALID);
    let s = |v: &[&str]| v.iter().map(|e| e.to_string()).collect::<Vec<_>>();
    let id = |i: &str| Some(i.to_string());
    assert_eq!(
        got[0],
        (1, id("case-turn-mismatch"), s(&["turn_id and failure_turn_id must match"]))
    );
    assert_eq!(
        got[1],
        (2, id("case-no-artifacts"), s(&["artifact_refs must be a non-empty array of strings"]))
    );
    assert_eq!(
        got[2],
        (3, id("case-bad-evidence"), s(&["evidence_refs must be a non-empty array of strings"]))
    );
    assert_eq!(
        got[3],
        (
            4,
            id("case-no-applicability"),
            s(&["applicability must be a non-empty array of strings"])
        )
    );
    assert_eq!(
        got[4],
        (
            5,
            id("case-numeric-artifact"),
            s(&["artifact_refs must be a non-empty array of strings"])
        )
    );
    assert_eq!(got[5], (6, id("case-future-schema"), s(&["unknown schema_version 2 (known: 1)"])));
    assert_eq!(
        got[6],
        (7, id("case-extra-fields"), s(&["unknown field `raw_trace`", "unknown field `severity`"]))
    );
    assert_eq!(
        got[7],
        (
            8,
            id("case-everything-wrong"),
            s(&[
                "schema_version is required",
                "failure_event_id is required",
                "prevention_hint is required",
                "turn_id and failure_turn_id must match",
                "artifact_refs must be a non-empty array of strings",
                "evidence_refs must be a non-empty array of strings",
                "applicability must be a non-empty array of strings",
                "unknown classification \"bad_luck\"",
                "unknown field `note`",
            ])
        )
    );
    assert_eq!(got[8].0, 9);
    assert_eq!(got[8].1, None);
    assert!(got[8].2[0].starts_with("not JSON: "), "{:?}", got[8]);
    assert_eq!(got[9], (10, None, s(&["case must be a JSON object"])));
    assert_eq!(got.len(), 10);
}

#[test]
fn wrong_types_and_empty_strings_are_errors_too() {
    let case = json!({
        "schema_version": "1", "case_id": "", "turn_id": 3, "failure_turn_id": 3,
        "failure_event_id": "judge-1", "artifact_refs": ["a"], "memory_read_node_ids": "memory:x",
        "prevention_hint": "  ", "applicability": ["x"], "evidence_refs": ["e"],
        "failure_mode": "sometimes", "phase": "closeout", "failed_action": 7
    });
    assert_eq!(
        cases::validate_value(&case),
        [
            "unknown schema_version \"1\" (known: 1)",
            "case_id must be a non-empty string",
            "turn_id must be a non-empty string",
            "failure_turn_id must be a non-empty string",
            "prevention_hint must be a non-empty string",
            "memory_read_node_ids must be an array of strings",
            "unknown failure_mode \"sometimes\"",
            "unknown phase \"closeout\"",
            "failed_action must be a string",
        ]
    );
}

#[test]
fn cases_from_earlier_runs_load_and_duplicates_collapse() {
    let loaded = cases::load_jsonl(CASES);
    assert_eq!(loaded.checks.len(), 7);
    assert!(loaded.checks.iter().all(|c| c.valid), "{:?}", loaded.checks);
    let (merged, collapsed) = cases::merge(loaded.valid());
    assert_eq!(collapsed, 1);
    let ids: Vec<&str> = merged.iter().map(|c| c.case_id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "case-demo-a",
            "case-e2e-browser",
            "case-staging-timeout",
            "case-migration-order",
            "case-flaky-socket",
            "case-harness-sandbox"
        ]
    );
    // The first occurrence wins: the one with the reflect parts.
    assert!(merged[0].failed_action.is_some());

    // Cases from a new trace merge with the loaded ones; the same case from a re-run collapses.
    let t = trajectory(SAMPLE);
    let fresh = cases::from_attribution(&demo_record(&t), &t, "sha256:demo");
    let again = fresh.clone();
    let (all, collapsed) = cases::merge([&fresh].into_iter().chain(merged.iter()).chain([&again]));
    assert_eq!((all.len(), collapsed), (7, 1));
}

#[test]
fn exported_cases_round_trip_through_jsonl() {
    let (merged, _) = cases::merge(cases::load_jsonl(CASES).valid());
    let (jsonl, rejected) = cases::export_jsonl(&merged);
    assert!(rejected.is_empty());
    let back: Vec<FailedTurnCase> = cases::load_jsonl(jsonl.as_bytes()).valid().cloned().collect();
    assert_eq!(back, merged);
    // The v1 wire form keeps its field names (docs/learning-loop.md, "Case records").
    let first: Value = serde_json::from_str(jsonl.lines().next().unwrap()).unwrap();
    for key in [
        "schema_version",
        "case_id",
        "turn_id",
        "failure_turn_id",
        "failure_event_id",
        "artifact_refs",
        "memory_read_node_ids",
        "prevention_hint",
        "applicability",
        "evidence_refs",
    ] {
        assert!(first.get(key).is_some(), "{key}");
    }
}

proptest! {
    #[test]
    fn loading_arbitrary_bytes_never_panics_and_accounts_for_every_line(
        bytes in proptest::collection::vec(any::<u8>(), 0..400)
    ) {
        let loaded = cases::load_jsonl(&bytes);
        let non_blank = bytes
            .split(|b| *b == b'\n')
            .filter(|l| !l.iter().all(u8::is_ascii_whitespace))
            .count();
        prop_assert_eq!(loaded.checks.len(), non_blank);
        prop_assert!(loaded.checks.iter().all(|c| !c.valid));
    }
}
