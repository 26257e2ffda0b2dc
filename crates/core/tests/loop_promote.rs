//! Verified-only memory promotion (docs/learning-loop.md) through the public API: one decision per case with
//! its reasons, and nothing to write without the explicit write flag.
#![cfg(not(target_arch = "wasm32"))]

use trajscope_core::cases::{self, FailedTurnCase};
use trajscope_core::promote::{self, Decision, Promotion, PromotionOptions};
use trajscope_core::record::{AttributionRecord, FailureClass, FailureMode};
use trajscope_core::scorecard::{self, ScorecardRecord, DEFAULT_MAX_AGE_SECS};
use trajscope_core::{ingest, IngestOptions};

const CASES: &[u8] = include_bytes!("../../../tests/fixtures/loop/cases.jsonl");
const SCORECARD: &[u8] = include_bytes!("../../../tests/fixtures/loop/scorecard.jsonl");
const ENV_BLOCKER: &[u8] = include_bytes!("../../../tests/fixtures/loop/env-blocker.awtl.jsonl");

fn options(approvals: &[&str], write: bool) -> PromotionOptions {
    PromotionOptions {
        approvals: approvals.iter().map(|s| s.to_string()).collect(),
        write,
        now: scorecard::parse_timestamp("2026-05-25T00:00:00Z"),
        max_age_secs: DEFAULT_MAX_AGE_SECS,
    }
}

fn run(
    cases: &[FailedTurnCase],
    records: &[ScorecardRecord],
    opts: &PromotionOptions,
) -> Promotion {
    promote::decide(cases, records, opts)
}

fn fixture() -> (Vec<FailedTurnCase>, Vec<ScorecardRecord>) {
    let cases = cases::merge(cases::load_jsonl(CASES).valid()).0;
    (cases, scorecard::load_jsonl(SCORECARD).records)
}

fn reasons<'a>(p: &'a Promotion, id: &str) -> (Decision, Vec<&'a str>) {
    let d = p.decisions.iter().find(|d| d.case_id == id).unwrap();
    (d.decision, d.reasons.iter().map(String::as_str).collect())
}

#[test]
fn each_fixture_case_gets_its_decision_and_reasons() {
    let (cases, records) = fixture();
    let p = run(&cases, &records, &options(&[], false));
    assert_eq!(p.decisions.len(), 6);
    assert_eq!(
        reasons(&p, "case-demo-a"),
        (Decision::Promote, vec!["replay passed and the scorecard allows promotion"])
    );
    let demo = p.decisions.iter().find(|d| d.case_id == "case-demo-a").unwrap();
    assert_eq!(demo.candidate_id, "memcand-demo-a");
    assert_eq!(demo.verified_by.as_deref(), Some("replay"));
    assert_eq!(
        reasons(&p, "case-e2e-browser"),
        (
            Decision::Blocked,
            vec![
                "environment_blocker failures never become memory",
                "scorecard excludes the case: scorecard status is blocked",
                "replay or human approval is required before promotion",
                "scorecard decision allow_brief_only does not allow promotion",
            ]
        )
    );
    assert_eq!(
        reasons(&p, "case-staging-timeout"),
        (
            Decision::Blocked,
            vec![
                "scorecard excludes the case: last validated 83 days ago (maximum 30 days)",
                "replay or human approval is required before promotion",
            ]
        )
    );
    assert_eq!(
        reasons(&p, "case-migration-order"),
        (
            Decision::Blocked,
            vec![
                "scorecard excludes the case: risk_level is high",
                "replay or human approval is required before promotion",
            ]
        )
    );
    let (d, r) = reasons(&p, "case-flaky-socket");
    assert_eq!(d, Decision::Blocked);
    assert_eq!(r[0], "flaky_blocker failures never become memory");
    // Harness blocker, and its only record is an import: blocked twice over.
    let (d, r) = reasons(&p, "case-harness-sandbox");
    assert_eq!(d, Decision::Blocked);
    assert_eq!(
        r,
        [
            "harness_blocker failures never become memory",
            "replay or human approval is required before promotion",
            "imported-only or trace-only candidate is blocked"
        ]
    );
}

#[test]
fn nothing_is_to_be_written_without_the_write_flag() {
    let (cases, records) = fixture();
    let dry = run(&cases, &records, &options(&[], false));
    assert!(!dry.write);
    assert!(dry.to_write.is_empty());
    let wet = run(&cases, &records, &options(&[], true));
    assert!(wet.write);
    assert_eq!(wet.decisions, dry.decisions);
    let ids: Vec<&str> = wet.to_write.iter().map(|c| c.case_id.as_str()).collect();
    assert_eq!(ids, ["case-demo-a"]);
    let c = &wet.to_write[0];
    assert_eq!(c.candidate_id, "memcand-demo-a");
    assert_eq!(c.verified_by, "replay");
    assert_eq!(
        c.prevention_hint,
        "Before closeout, run the same verifier again on the changed artifact."
    );
    assert_eq!(c.evidence_refs, ["judge:contract-verifier"]);
}

fn agent_case(id: &str) -> FailedTurnCase {
    let mut c = cases::load_jsonl(CASES).valid().next().unwrap().clone();
    c.case_id = id.into();
    c
}

fn record(id: &str) -> ScorecardRecord {
    ScorecardRecord {
        case_id: id.into(),
        status: Some("passed".into()),
        decision: Some("allow_brief_and_promotion".into()),
        validated_by: Some("replay".into()),
        last_validated_at: Some("2026-05-24T00:00:00Z".into()),
        replay_status: Some("passed".into()),
        risk_level: Some("low".into()),
        ..Default::default()
    }
}

#[test]
fn a_trace_only_candidate_needs_replay_or_a_human() {
    let c = agent_case("case-trace-only");
    let p = run(std::slice::from_ref(&c), &[], &options(&[], true));
    assert_eq!(
        reasons(&p, "case-trace-only"),
        (
            Decision::Blocked,
            vec![
                "replay or human approval is required before promotion",
                "trace-only candidate (no replay scorecard record) is blocked",
            ]
        )
    );
    assert!(p.to_write.is_empty());
    assert_eq!(p.decisions[0].candidate_id, "memcand-trace-only");

    let approved = run(&[c], &[], &options(&["case-trace-only"], true));
    assert_eq!(
        reasons(&approved, "case-trace-only"),
        (Decision::Promote, vec!["approved by a human"])
    );
    assert_eq!(approved.decisions[0].verified_by.as_deref(), Some("human"));
    assert_eq!(approved.to_write[0].verified_by, "human");
}

#[test]
fn a_replay_that_did_not_pass_is_not_verification() {
    let c = agent_case("case-c");
    for (replay, want) in [
        ("not_run", vec!["replay or human approval is required before promotion"]),
        (
            "failed",
            vec![
                "scorecard excludes the case: replay_status is failed: the replay did not hold",
                "replay or human approval is required before promotion",
            ],
        ),
    ] {
        let r = ScorecardRecord { replay_status: Some(replay.into()), ..record("case-c") };
        let p = run(std::slice::from_ref(&c), &[r], &options(&[], false));
        assert_eq!(reasons(&p, "case-c"), (Decision::Blocked, want), "{replay}");
    }
    // A human approval stands in for the missing replay.
    let r = ScorecardRecord { replay_status: Some("not_run".into()), ..record("case-c") };
    let p = run(std::slice::from_ref(&c), &[r], &options(&["case-c"], false));
    assert_eq!(p.decisions[0].decision, Decision::Promote);
    // A record validated by a human counts as approval.
    let r = ScorecardRecord {
        validated_by: Some("human".into()),
        status: Some("approved".into()),
        replay_status: None,
        ..record("case-c")
    };
    let p = run(&[c], &[r], &options(&[], false));
    assert_eq!(p.decisions[0].decision, Decision::Promote);
    assert_eq!(p.decisions[0].verified_by.as_deref(), Some("human"));
}

#[test]
fn the_scorecard_names_the_memory_candidate_unless_its_name_is_blank() {
    let c = agent_case("case-named");
    let named = ScorecardRecord { candidate_id: Some("mc-7".into()), ..record("case-named") };
    let p = run(std::slice::from_ref(&c), &[named], &options(&[], true));
    assert_eq!(p.decisions[0].decision, Decision::Promote);
    assert_eq!(p.decisions[0].candidate_id, "mc-7");
    assert_eq!(p.to_write[0].candidate_id, "mc-7");
    // A blank name is no name: the id derived from the case stands in.
    for blank in ["", "  "] {
        let r = ScorecardRecord { candidate_id: Some(blank.into()), ..record("case-named") };
        let p = run(std::slice::from_ref(&c), &[r], &options(&[], true));
        assert_eq!(p.decisions[0].candidate_id, "memcand-named", "{blank:?}");
        assert_eq!(p.to_write[0].candidate_id, "memcand-named", "{blank:?}");
    }
}

#[test]
fn imported_only_candidates_stay_blocked_even_when_approved() {
    let c = agent_case("case-imp");
    let r = ScorecardRecord { validated_by: Some("import".into()), ..record("case-imp") };
    let p = run(std::slice::from_ref(&c), &[r], &options(&["case-imp"], true));
    assert_eq!(
        reasons(&p, "case-imp"),
        (Decision::Blocked, vec!["imported-only or trace-only candidate is blocked"])
    );
    assert!(p.to_write.is_empty());
    // Without approval, an imported "passed" replay is no replay either.
    let r = ScorecardRecord { validated_by: Some("trace".into()), ..record("case-imp") };
    let p = run(&[c], &[r], &options(&[], false));
    assert_eq!(
        reasons(&p, "case-imp").1,
        [
            "replay or human approval is required before promotion",
            "imported-only or trace-only candidate is blocked"
        ]
    );
}

#[test]
fn unknown_class_and_invalid_cases_are_blocked() {
    let mut c = agent_case("case-u");
    c.classification = None;
    let p = run(std::slice::from_ref(&c), &[record("case-u")], &options(&[], false));
    assert_eq!(
        reasons(&p, "case-u"),
        (
            Decision::Blocked,
            vec!["failure class unknown: it may be an environment, flaky or harness failure"]
        )
    );
    let mut bad = agent_case("case-u");
    bad.evidence_refs.clear();
    let p = run(&[bad], &[record("case-u")], &options(&[], true));
    assert_eq!(
        reasons(&p, "case-u"),
        (
            Decision::Blocked,
            vec!["invalid case: evidence_refs must be a non-empty array of strings"]
        )
    );
    assert!(p.to_write.is_empty());
}

#[test]
fn an_environment_blocker_trace_yields_a_case_whose_promotion_is_blocked() {
    let trace = ingest(ENV_BLOCKER, IngestOptions::default());
    let t = &trace.trajectories[0];
    let judge = t.steps.iter().find(|s| s.ids.event_id.as_deref() == Some("judge-31")).unwrap();
    let rec = AttributionRecord {
        failure_event: Some("judge-31".into()),
        failure_event_step: Some(judge.index),
        failed_artifact_refs: vec!["e2e/reorder.spec.ts".into()],
        evidence_refs: vec!["judge:e2e-verifier".into()],
        classification: Some(FailureClass::EnvironmentBlocker),
        failure_mode: Some(FailureMode::Deterministic),
        ..AttributionRecord::default()
    };
    let case = cases::from_attribution(&rec, t, "sha256:e2e");
    // Even a passed replay and a human approval cannot promote an environment failure.
    let p = run(
        std::slice::from_ref(&case),
        &[record(&case.case_id)],
        &options(&[&case.case_id], true),
    );
    assert_eq!(p.decisions[0].decision, Decision::Blocked);
    assert_eq!(p.decisions[0].reasons, ["environment_blocker failures never become memory"]);
    assert!(p.to_write.is_empty());
}
