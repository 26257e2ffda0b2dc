//! Replay scorecard exclusions and the Failure Prevention Brief (docs/learning-loop.md) through the public
//! API, on fixture cases and scorecards shaped like real runs.
#![cfg(not(target_arch = "wasm32"))]

use expect_test::{expect, expect_file};
use trajscope_core::brief::{self, BriefContext, BriefStatus};
use trajscope_core::cases::{self, FailedTurnCase};
use trajscope_core::record::{AttributionRecord, FailureClass, FailureMode, Phase};
use trajscope_core::scorecard::{self, ExclusionCode, ExclusionContext, ScorecardRecord};
use trajscope_core::{ingest, IngestOptions};

const CASES: &[u8] = include_bytes!("../../../tests/fixtures/loop/cases.jsonl");
const SCORECARD: &[u8] = include_bytes!("../../../tests/fixtures/loop/scorecard.jsonl");
const ENV_BLOCKER: &[u8] = include_bytes!("../../../tests/fixtures/loop/env-blocker.awtl.jsonl");

fn now() -> i64 {
    scorecard::parse_timestamp("2026-05-25T00:00:00Z").unwrap()
}

fn loaded_cases() -> Vec<FailedTurnCase> {
    cases::merge(cases::load_jsonl(CASES).valid()).0
}

fn records() -> Vec<ScorecardRecord> {
    scorecard::load_jsonl(SCORECARD).records
}

fn ctx(phase: Option<Phase>, scope: &[&str]) -> BriefContext {
    BriefContext {
        phase,
        scope: scope.iter().map(|s| s.to_string()).collect(),
        now: Some(now()),
        ..BriefContext::default()
    }
}

#[test]
fn timestamps_parse_as_rfc3339_or_dates_and_garbage_is_none() {
    assert_eq!(scorecard::parse_timestamp("1970-01-01T00:00:00Z"), Some(0));
    assert_eq!(scorecard::parse_timestamp("2026-05-25"), Some(now()));
    assert_eq!(
        scorecard::parse_timestamp("2026-05-25T02:00:00.123+02:00"),
        Some(now()),
        "offset and fraction"
    );
    assert_eq!(scorecard::parse_timestamp("2024-02-29T00:00:00Z"), Some(1_709_164_800));
    for bad in [
        "example-timestamp",
        "",
        "2026-02-30",
        "2026-13-01",
        "2026-05-25T25:00:00Z",
        "2026-05-25T10:00:00",
        "2026-05-25T10:00:00+0200",
        "2026-05-25T10:00:00.Z",
        "２０２６-05-25",
    ] {
        assert_eq!(scorecard::parse_timestamp(bad), None, "{bad}");
    }
}

#[test]
fn every_part_of_a_timestamp_counts_and_each_separator_is_checked() {
    let t = scorecard::parse_timestamp;
    // Seconds, minutes and hours each add; offsets east subtract, west add, minutes included.
    assert_eq!(t("1970-01-01T00:00:01Z"), Some(1));
    assert_eq!(t("1970-01-01T00:01:00Z"), Some(60));
    assert_eq!(t("1970-01-01t01:00:00z"), Some(3600));
    assert_eq!(t("1970-01-01 05:30:00+05:30"), Some(0));
    assert_eq!(t("1969-12-31T22:00:00-02:00"), Some(0));
    assert_eq!(t("2026-05-24T22:00:00.5-02:00"), Some(now()));
    // The largest hour, minute and second (a leap second) are times; one more is not.
    assert_eq!(t("1970-01-01T23:59:60Z"), Some(86_400));
    // Month lengths and the Gregorian leap years (every fourth, not centuries, but every 400th).
    assert_eq!(t("1970-04-30"), Some(119 * 86_400));
    assert_eq!(t("2000-02-29"), Some(951_782_400));
    for bad in ["1970-04-31", "1970-06-31", "1970-09-31", "1970-11-31", "2023-02-29", "1900-02-29"]
    {
        assert_eq!(t(bad), None, "{bad}");
    }
    for bad in [
        "1970-01-01T24:00:00Z",
        "1970-01-01T00:60:00Z",
        "1970-01-01T00:00:61Z",
        // Each separator in its place.
        "2026/05/25",
        "2026-05/25",
        "2026/05-25",
        "2026-05-25X10:00:00Z",
        "2026-05-25T10-00:00Z",
        "2026-05-25T10:00-00Z",
        "2026-05-25T10:00",
        "2026-05-25T10:00:00+02-00",
        "2026-05-25T10:00:00*02:00",
        "2026-05-25T10:00:00+02:000",
    ] {
        assert_eq!(t(bad), None, "{bad}");
    }
}

#[test]
fn bad_scorecard_lines_are_reported_and_the_rest_is_read() {
    let loaded = scorecard::load_jsonl(SCORECARD);
    assert_eq!(loaded.records.len(), 14);
    let bad: Vec<(u32, &str)> =
        loaded.bad_lines.iter().map(|b| (b.line, b.reason.as_str())).collect();
    assert_eq!(bad.len(), 2);
    assert_eq!(bad[0].0, 15);
    assert!(bad[0].1.starts_with("not JSON"), "{bad:?}");
    assert_eq!(bad[1], (16, "case_id must be a non-empty string"));
    // `result` / `outcome` are read as `status` (docs/learning-loop.md, "Replay scorecard").
    let r = scorecard::load_jsonl(br#"{"case_id":"c","outcome":"Skipped"}"#).records;
    assert_eq!(r[0].status.as_deref(), Some("Skipped"));
    let ex = scorecard::exclusions(&r[0], &ExclusionContext::default());
    assert_eq!(ex.iter().map(|e| e.code).collect::<Vec<_>>(), [ExclusionCode::Status]);
}

#[test]
fn every_exclusion_reason_of_the_scorecard() {
    use ExclusionCode::*;
    let ctx = ExclusionContext {
        scope: vec!["public_api".into()],
        now: Some(now()),
        ..Default::default()
    };
    let got: Vec<(String, Vec<ExclusionCode>)> = records()
        .iter()
        .map(|r| {
            let codes = scorecard::exclusions(r, &ctx).iter().map(|e| e.code).collect();
            (r.record_id.clone().unwrap(), codes)
        })
        .collect();
    let want: Vec<(&str, Vec<ExclusionCode>)> = vec![
        ("replay-demo-a", vec![]),
        ("replay-e2e-browser", vec![Status, OutOfScope]),
        ("replay-migration-order", vec![Risky, OutOfScope]),
        ("replay-flaky-socket", vec![Stale]),
        ("replay-staging-timeout-old", vec![TooOld]),
        ("replay-denied", vec![Status, Denied, Stale]),
        ("replay-skipped", vec![Status]),
        ("replay-unavailable", vec![Status]),
        ("replay-failed", vec![ReplayFailed]),
        ("replay-critical", vec![Risky]),
        ("replay-no-time", vec![UnknownAge]),
        ("replay-retired", vec![Stale]),
        ("replay-internal-only", vec![DoesNotApply, OutOfScope]),
        ("replay-imported", vec![]),
    ];
    let want: Vec<(String, Vec<ExclusionCode>)> =
        want.into_iter().map(|(id, c)| (id.to_string(), c)).collect();
    assert_eq!(got, want);

    let by_id =
        |id: &str| records().into_iter().find(|r| r.record_id.as_deref() == Some(id)).unwrap();
    let details = |id: &str| -> Vec<String> {
        scorecard::exclusions(&by_id(id), &ctx).into_iter().map(|e| e.detail).collect()
    };
    assert_eq!(
        details("replay-staging-timeout-old"),
        ["last validated 83 days ago (maximum 30 days)"]
    );
    assert_eq!(
        details("replay-no-time")[0],
        "last_validated_at `example-timestamp` is not a time: age unknown"
    );
    assert_eq!(details("replay-internal-only")[0], "does_not_apply_to public_api");
    assert_eq!(details("replay-critical"), ["risk_level is critical"]);
    assert_eq!(
        details("replay-denied"),
        [
            "scorecard status is denied",
            "scorecard decision is deny_brief_and_promotion",
            "memory_graph_status is rejected"
        ]
    );

    // Without a clock the age rules are off; without scope tags the scope rules are off.
    let no_clock = ExclusionContext::default();
    assert!(scorecard::exclusions(&by_id("replay-staging-timeout-old"), &no_clock).is_empty());
    assert!(scorecard::exclusions(&by_id("replay-no-time"), &no_clock).is_empty());
    assert!(scorecard::exclusions(&by_id("replay-internal-only"), &no_clock).is_empty());
    // A missing time with a clock is an unknown age too.
    let no_time = ScorecardRecord { case_id: "c".into(), ..Default::default() };
    assert_eq!(
        scorecard::exclusions(&no_time, &ctx).iter().map(|e| e.detail.as_str()).collect::<Vec<_>>(),
        ["last_validated_at is missing: age unknown"]
    );
    // A longer maximum age keeps the old record.
    let lenient = ExclusionContext { max_age_secs: 100 * 86_400, ..ctx.clone() };
    assert!(scorecard::exclusions(&by_id("replay-staging-timeout-old"), &lenient).is_empty());
    // Exactly the maximum age is not too old; a second more is.
    let aged = |secs: i64| {
        let r = ScorecardRecord {
            case_id: "c".into(),
            last_validated_at: Some("2026-05-01T00:00:00Z".into()),
            ..Default::default()
        };
        let at = scorecard::parse_timestamp("2026-05-01T00:00:00Z").unwrap();
        let c = ExclusionContext { now: Some(at + secs), max_age_secs: 30 * 86_400, ..ctx.clone() };
        scorecard::exclusions(&r, &c).into_iter().map(|e| e.code).collect::<Vec<_>>()
    };
    assert_eq!(aged(30 * 86_400), []);
    assert_eq!(aged(30 * 86_400 + 1), [TooOld]);
}

#[test]
fn a_replay_passed_when_its_status_says_so_or_a_replay_validated_a_pass() {
    let r = |replay: Option<&str>, status: Option<&str>, by: Option<&str>| ScorecardRecord {
        case_id: "c".into(),
        replay_status: replay.map(Into::into),
        status: status.map(Into::into),
        validated_by: by.map(Into::into),
        ..Default::default()
    };
    assert!(scorecard::replay_passed(&r(Some("passed"), None, None)));
    assert!(scorecard::replay_passed(&r(Some(" Passed "), None, Some("replay"))));
    // No replay status: a pass validated by a replay counts, by anything else not.
    assert!(scorecard::replay_passed(&r(None, Some("passed"), Some("replay"))));
    assert!(!scorecard::replay_passed(&r(None, Some("passed"), Some("human"))));
    assert!(!scorecard::replay_passed(&r(None, Some("failed"), Some("replay"))));
    assert!(!scorecard::replay_passed(&r(None, None, Some("replay"))));
    // A replay status that is not a pass wins over the status.
    assert!(!scorecard::replay_passed(&r(Some("failed"), Some("passed"), Some("replay"))));
    // Imported or read off a trace: no replay here, whatever it says.
    assert!(!scorecard::replay_passed(&r(Some("passed"), None, Some("import"))));
    assert!(!scorecard::replay_passed(&r(None, Some("passed"), Some("trace"))));
}

#[test]
fn the_latest_record_of_a_case_speaks_for_it() {
    let old_fail = ScorecardRecord {
        case_id: "c".into(),
        replay_status: Some("failed".into()),
        last_validated_at: Some("2026-05-01T00:00:00Z".into()),
        ..Default::default()
    };
    let new_pass = ScorecardRecord {
        replay_status: Some("passed".into()),
        last_validated_at: Some("2026-05-20T00:00:00Z".into()),
        ..old_fail.clone()
    };
    let list = [new_pass.clone(), old_fail.clone()];
    assert_eq!(scorecard::latest_for(&list, "c"), Some(&new_pass));
    assert_eq!(scorecard::latest_for(&list, "other"), None);
}

#[test]
fn the_brief_for_a_public_api_verification_keeps_one_verified_reflect_line() {
    let b =
        brief::build(&loaded_cases(), &records(), &ctx(Some(Phase::Verification), &["public_api"]));
    assert_eq!(b.status, BriefStatus::Ok);
    assert_eq!(b.lines.len(), 1);
    let line = &b.lines[0];
    assert_eq!(line.case_id, "case-demo-a");
    assert_eq!(line.tags, ["high-confidence", "scope: public_api", "reflect"]);
    assert_eq!(line.evidence_refs, ["judge:contract-verifier"]);
    // The reflect form: what was tried, why it failed, what to try next, the constraint.
    assert_eq!(
        line.text,
        "What you tried: edit: sed -i 's/userId/customerId/g' src/api/orders.ts. Why it failed: \
         contract mismatch: field userId removed from a public response without the deprecated \
         alias. What to try next: Before closeout, run the same verifier again on the changed \
         artifact. Constraint for the next attempt: `contract-verifier` must pass on \
         `artifact:build-output` before closeout."
    );
    let excluded: Vec<(&str, Vec<&str>)> = b
        .excluded
        .iter()
        .map(|e| (e.case_id.as_str(), e.reasons.iter().map(|r| r.code.as_str()).collect()))
        .collect();
    assert_eq!(
        excluded,
        [
            ("case-e2e-browser", vec!["scope", "status", "out_of_scope"]),
            ("case-staging-timeout", vec!["too_old"]),
            ("case-migration-order", vec!["phase", "scope", "risky", "out_of_scope"]),
            ("case-flaky-socket", vec!["scope", "stale"]),
            ("case-harness-sandbox", vec!["phase", "scope"]),
        ]
    );
    expect![[r#"
        ## Failure Prevention Brief

        - [high-confidence] [scope: public_api] [reflect] What you tried: edit: sed -i 's/userId/customerId/g' src/api/orders.ts. Why it failed: contract mismatch: field userId removed from a public response without the deprecated alias. What to try next: Before closeout, run the same verifier again on the changed artifact. Constraint for the next attempt: `contract-verifier` must pass on `artifact:build-output` before closeout. (case case-demo-a; evidence judge:contract-verifier)
    "#]]
    .assert_eq(&brief::to_markdown(&b));
}

#[test]
fn golden_briefs_of_the_fixture_cases() {
    // Everything that matches a public API change, and the whole set for an action phase.
    for (name, c) in [
        ("brief-public-api.expected.json", ctx(None, &["public_api"])),
        (
            "brief-action.expected.json",
            BriefContext { max_lines: 10, ..ctx(Some(Phase::Action), &[]) },
        ),
    ] {
        let b = brief::build(&loaded_cases(), &records(), &c);
        let mut text = serde_json::to_string_pretty(&b).unwrap();
        text.push('\n');
        let path = format!("../../../tests/fixtures/loop/{name}");
        expect_file![path].assert_eq(&text);
    }
}

#[test]
fn no_matching_case_is_a_no_op_with_an_empty_section() {
    let b = brief::build(&loaded_cases(), &records(), &ctx(None, &["billing"]));
    assert_eq!(b.status, BriefStatus::NoOp);
    assert!(b.lines.is_empty());
    assert_eq!(brief::to_markdown(&b), "");
    assert_eq!(b.excluded.len(), 6);
    assert!(b.excluded.iter().all(|e| e.reasons[0].code == "scope"));
    // No cases at all is a no-op too.
    let empty = brief::build(&[], &[], &BriefContext::default());
    assert_eq!(empty.status, BriefStatus::NoOp);
    let json = serde_json::to_value(&empty).unwrap();
    assert_eq!(json["status"], "no-op");
}

#[test]
fn a_transient_failure_says_retry_after_a_wait_not_change_approach() {
    // No clock: the old staging record is not aged out.
    let c = BriefContext { scope: vec!["contract".into()], ..BriefContext::default() };
    let b = brief::build(&loaded_cases(), &records(), &c);
    assert_eq!(b.lines.len(), 1);
    let line = &b.lines[0];
    assert_eq!(line.case_id, "case-staging-timeout");
    assert_eq!(line.tags, ["high-confidence", "scope: contract", "retry"]);
    assert_eq!(
        line.text,
        "Transient failure (staging contract check timed out after 120s (HTTP 504 from the \
         gateway)): Retry `shell: npm run contract:staging` after a wait; keep the same approach."
    );
}

#[test]
fn blocker_lines_never_tell_the_agent_to_change_its_code() {
    let c = BriefContext { max_lines: 10, ..BriefContext::default() };
    let b = brief::build(&loaded_cases(), &[], &c);
    for (id, tag) in [
        ("case-e2e-browser", "environment-blocker"),
        ("case-flaky-socket", "flaky-blocker"),
        ("case-harness-sandbox", "harness-blocker"),
    ] {
        let line = b.lines.iter().find(|l| l.case_id == id).unwrap();
        assert!(line.tags.iter().any(|t| t == tag), "{line:?}");
        assert!(line.tags.iter().any(|t| t == "unverified"), "{line:?}");
        let text = line.text.to_lowercase();
        assert!(text.contains("not a code fault"), "{text}");
        assert!(text.contains("keep the code and the approach as they are"), "{text}");
        for word in ["change", "rewrite", "edit", "refactor", "fix the"] {
            assert!(!text.contains(word), "{word} in {text}");
        }
    }
}

#[test]
fn an_environment_blocker_trace_gives_a_brief_that_leaves_the_code_alone() {
    let trace = ingest(ENV_BLOCKER, IngestOptions::default());
    let t = &trace.trajectories[0];
    let judge = t.steps.iter().find(|s| s.ids.event_id.as_deref() == Some("judge-31")).unwrap();
    let record = AttributionRecord {
        failure_event: Some("judge-31".into()),
        failure_event_step: Some(judge.index),
        failed_artifact_refs: vec!["e2e/reorder.spec.ts".into()],
        source_action_ids: vec!["act-4".into()],
        evidence_refs: vec!["judge:e2e-verifier".into()],
        root_cause_summary: "chromium executable missing in the runner image".into(),
        classification: Some(FailureClass::EnvironmentBlocker),
        failure_mode: Some(FailureMode::Deterministic),
        ..AttributionRecord::default()
    };
    let case = cases::from_attribution(&record, t, "sha256:e2e");
    let b =
        brief::build(std::slice::from_ref(&case), &[], &ctx(Some(Phase::Verification), &["e2e"]));
    assert_eq!(b.status, BriefStatus::Ok);
    assert_eq!(b.lines[0].case_id, case.case_id);
    assert_eq!(b.lines[0].tags, ["unverified", "scope: e2e", "environment-blocker"]);
    assert_eq!(
        b.lines[0].text,
        "Environment blocker, not a code fault (e2e suite did not run: chromium executable missing \
         in the runner image): \
         the operator must make sure the environment provides what the check needs, then run it again; keep the \
         code and the approach as they are."
    );
}

#[test]
fn only_a_replay_run_here_makes_a_line_high_confidence() {
    let c = BriefContext { max_lines: 10, ..BriefContext::default() };
    let b = brief::build(&loaded_cases(), &records(), &c);
    let tag = |id: &str| b.lines.iter().find(|l| l.case_id == id).map(|l| l.tags[0].clone());
    assert_eq!(tag("case-demo-a").as_deref(), Some("high-confidence"));
    // Its record says replay passed, but validated_by import: not verified here.
    assert_eq!(tag("case-harness-sandbox").as_deref(), Some("unverified"));
}

fn agent_case(id: &str, hint: &str) -> FailedTurnCase {
    FailedTurnCase {
        schema_version: 1,
        case_id: id.into(),
        turn_id: "turn-2".into(),
        failure_turn_id: "turn-2".into(),
        failure_event_id: format!("judge-{id}"),
        artifact_refs: vec![format!("src/{id}.rs")],
        memory_read_node_ids: vec![],
        prevention_hint: hint.into(),
        applicability: vec!["agent_failure".into()],
        evidence_refs: vec![format!("judge:{id}")],
        classification: Some(FailureClass::AgentFailure),
        failure_mode: Some(FailureMode::Deterministic),
        phase: None,
        failed_action: None,
        failure_reason: None,
        constraint: None,
    }
}

#[test]
fn the_line_limit_keeps_the_brief_small_and_verified_lines_come_first() {
    let cases: Vec<FailedTurnCase> = (1..=8)
        .map(|i| {
            agent_case(
                &format!("case-{i}"),
                &format!("Before closeout, run `cargo test -p m{i}` again."),
            )
        })
        .collect();
    let passed = ScorecardRecord {
        case_id: "case-7".into(),
        replay_status: Some("passed".into()),
        ..Default::default()
    };
    let b = brief::build(&cases, &[passed], &BriefContext::default());
    assert_eq!(b.lines.len(), brief::DEFAULT_MAX_LINES);
    let ids: Vec<&str> = b.lines.iter().map(|l| l.case_id.as_str()).collect();
    assert_eq!(ids, ["case-7", "case-1", "case-2", "case-3", "case-4"]);
    assert_eq!(b.lines[0].tags[0], "high-confidence");
    assert_eq!(b.lines[1].tags[0], "unverified");
    let limited: Vec<&str> = b
        .excluded
        .iter()
        .filter(|e| e.reasons[0].code == "line_limit")
        .map(|e| e.case_id.as_str())
        .collect();
    assert_eq!(limited, ["case-5", "case-6", "case-8"]);
    assert_eq!(b.excluded[0].reasons[0].detail, "the brief is limited to 5 lines");

    let two = brief::build(&cases, &[], &BriefContext { max_lines: 2, ..BriefContext::default() });
    assert_eq!(two.lines.len(), 2);
    assert_eq!(brief::to_markdown(&two).lines().filter(|l| l.starts_with("- [")).count(), 2);
}

#[test]
fn duplicate_lines_and_invalid_cases_are_left_out_with_reasons() {
    let a = agent_case("case-a", "Before closeout, run `npm test` again.");
    let b = agent_case("case-b", "Before closeout, run `npm test` again.");
    let mut broken = agent_case("case-broken", "Run it.");
    broken.failure_turn_id = "turn-9".into();
    let brief = brief::build(&[a, b, broken], &[], &BriefContext::default());
    assert_eq!(brief.lines.len(), 1);
    assert_eq!(brief.excluded.len(), 2);
    assert_eq!(brief.excluded[0].case_id, "case-broken");
    assert_eq!(brief.excluded[0].reasons[0].code, "invalid");
    assert!(brief.excluded[0].reasons[0].detail.contains("turn_id and failure_turn_id must match"));
    assert_eq!(brief.excluded[1].case_id, "case-b");
    assert_eq!(brief.excluded[1].reasons[0].detail, "same line as case-a");
}

#[test]
fn a_case_without_phase_matches_any_phase_and_scope_tags_match_by_value() {
    let mut c = agent_case("case-x", "Before closeout, run `contract-verifier` again.");
    c.applicability = vec!["verifier:contract-verifier".into()];
    let b = brief::build(
        std::slice::from_ref(&c),
        &[],
        &ctx(Some(Phase::Planning), &["contract-verifier"]),
    );
    assert_eq!(b.lines[0].tags, ["unverified", "scope: contract-verifier"]);
    c.phase = Some(Phase::Action);
    let b = brief::build(&[c], &[], &ctx(Some(Phase::Planning), &["contract-verifier"]));
    assert_eq!(b.status, BriefStatus::NoOp);
    assert_eq!(
        b.excluded[0].reasons[0].detail,
        "case is for phase action, the next attempt is in planning"
    );
}

mod fuzz {
    use proptest::prelude::*;
    use trajscope_core::brief::{self, BriefContext};
    use trajscope_core::cases::FailedTurnCase;
    use trajscope_core::scorecard::{self, ExclusionContext, ScorecardRecord};

    fn word() -> impl Strategy<Value = String> {
        prop_oneof![
            Just(String::new()),
            Just("passed".to_string()),
            Just("blocked".to_string()),
            Just("deny_all".to_string()),
            Just("high".to_string()),
            Just("2026-05-24T00:00:00Z".to_string()),
            ".{0,24}",
        ]
    }

    proptest! {
        #[test]
        fn timestamps_and_scorecard_lines_never_panic(text in ".{0,40}", bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
            let _ = scorecard::parse_timestamp(&text);
            let loaded = scorecard::load_jsonl(&bytes);
            prop_assert!(loaded.records.len() + loaded.bad_lines.len() <= bytes.split(|b| *b == b'\n').count());
        }

        #[test]
        fn any_records_and_cases_give_a_bounded_brief(
            fields in proptest::collection::vec((word(), word(), word(), word(), word()), 0..6),
            hints in proptest::collection::vec(".{1,30}", 0..8),
            max_lines in 0usize..4,
        ) {
            let cases: Vec<FailedTurnCase> = hints.iter().enumerate().map(|(i, h)| FailedTurnCase {
                schema_version: 1,
                case_id: format!("case-{}", i % 5),
                turn_id: "t".into(),
                failure_turn_id: "t".into(),
                failure_event_id: "e".into(),
                artifact_refs: vec!["a".into()],
                memory_read_node_ids: vec![],
                prevention_hint: h.clone(),
                applicability: vec!["x".into()],
                evidence_refs: vec!["e".into()],
                classification: None,
                failure_mode: None,
                phase: None,
                failed_action: None,
                failure_reason: None,
                constraint: None,
            }).collect();
            let records: Vec<ScorecardRecord> = fields.into_iter().enumerate().map(|(i, (s, d, r, risk, t))| ScorecardRecord {
                case_id: format!("case-{i}"),
                status: Some(s),
                decision: Some(d),
                replay_status: Some(r),
                risk_level: Some(risk),
                last_validated_at: Some(t),
                ..Default::default()
            }).collect();
            let ctx = BriefContext { max_lines, now: Some(1_780_000_000), ..BriefContext::default() };
            let b = brief::build(&cases, &records, &ctx);
            prop_assert!(b.lines.len() <= max_lines);
            prop_assert_eq!(b.lines.len() + b.excluded.len(), cases.len());
            for r in &records {
                let _ = scorecard::exclusions(r, &ExclusionContext::default());
            }
        }
    }
}

#[test]
fn a_deterministic_failure_with_what_was_tried_or_why_gets_the_reflect_form() {
    let c = BriefContext { max_lines: 10, ..BriefContext::default() };
    let reflects = |case: FailedTurnCase| {
        let b = brief::build(&[case], &[], &c);
        b.lines[0].tags.iter().any(|t| t == "reflect")
    };
    let plain = agent_case("case-plain", "Keep the alias.");
    assert!(
        !reflects(plain.clone()),
        "a deterministic failure, nothing tried or why: the hint alone"
    );
    let tried = FailedTurnCase { failed_action: Some("shell: sed".into()), ..plain.clone() };
    assert!(reflects(tried), "what was tried");
    let why = FailedTurnCase { failure_reason: Some("alias dropped".into()), ..plain };
    assert!(reflects(why), "why it failed");
}
