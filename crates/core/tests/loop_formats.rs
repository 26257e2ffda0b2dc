//! The learning loop over every real sample of every format: each failing trajectory (outcome
//! failed, or a critical step) yields a case that passes strict validation; the brief of a file
//! with failing runs is `ok` with at most five tagged lines whose every backticked name occurs
//! in the trace; a file whose runs all pass (or are not failing) gives a `no-op` brief. These
//! are properties, not the detector's exact picks.
#![cfg(not(target_arch = "wasm32"))]
// Tests read their fixtures from disk; the core itself does no I/O.
#![allow(clippy::disallowed_methods)]

use std::path::PathBuf;

use trajscope_core::attribution::{analyze_trajectory, AnalysisOptions, TrajectoryAnalysis};
use trajscope_core::brief::{self, BriefContext, BriefStatus};
use trajscope_core::cases::{self, TraceCase};
use trajscope_core::model::Trace;
use trajscope_core::record::{self, Phase};
use trajscope_core::{ingest, IngestOptions};

/// Every real sample in the repository (hand-written fixtures are left out).
const REAL: [&str; 27] = [
    "claude_code/codemie-agent-36541525.jsonl",
    "claude_code/codemie-agent-50243ee8.jsonl",
    "claude_code/codemie-main-session.jsonl",
    "claude_code/coverage-test-fix.jsonl",
    "claude_code/hello-world-script.jsonl",
    "codex/rollout-trimmed.jsonl",
    "codex/rollout-full.jsonl.gz",
    "codex/examples-one-per-kind.jsonl",
    "inspect/browser.eval",
    "inspect/browser.no_events.json",
    "inspect/log_tool_call_error.json",
    "langsmith/langsmith_js_wrap_openai_default.json",
    "langsmith/langsmith_py_wrap_openai_.json",
    "mini_swe_agent/django__django-10914.trimmed.traj.json",
    "mini_swe_agent/django__django-10914.traj.json.gz",
    "mini_swe_agent/github_issue.traj.json",
    "openhands/basic.json",
    "openhands/examples-one-per-kind.json",
    "swe_agent/pydicom__pydicom-1458.traj",
    "tau2/airline_3_simulations.json",
    "tau2/airline_run1.no_raw_data.json.gz",
    "trajerrbench/airline_failed_qwen3-max.json",
    "trajerrbench/records.jsonl",
    "who_and_when/ag_1.json",
    "who_and_when/ag_10.json",
    "who_and_when/hc_1.json",
    "who_and_when/hc_6.json",
];

struct Loaded {
    rel: &'static str,
    raw: String,
    trace: Trace,
    analyses: Vec<TrajectoryAnalysis>,
    cases: Vec<TraceCase>,
}

fn load(rel: &'static str) -> Loaded {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures").join(rel);
    let bytes = std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    let trace = ingest(&bytes, IngestOptions::default());
    let opts = AnalysisOptions::default();
    let analyses: Vec<TrajectoryAnalysis> =
        trace.trajectories.iter().map(|t| analyze_trajectory(t, &opts)).collect();
    let cases = cases::from_trace_analyses(&trace, "sha256:test", |i, _| analyses.get(i).cloned());
    Loaded { rel, raw: String::from_utf8_lossy(&bytes).into_owned(), trace, analyses, cases }
}

/// Whether `name` is text of the trace: of a step (text, args, tool, actor, status), the task,
/// the final answer, or the file itself.
fn in_trace(l: &Loaded, name: &str) -> bool {
    l.raw.contains(name)
        || l.trace.trajectories.iter().any(|t| {
            t.task.as_deref().is_some_and(|x| x.contains(name))
                || t.final_answer.as_deref().is_some_and(|x| x.contains(name))
                || t.steps.iter().any(|s| {
                    s.text.contains(name)
                        || s.args.as_deref().is_some_and(|a| a.contains(name))
                        || s.tool.as_deref().is_some_and(|a| a.contains(name))
                        || s.actor.contains(name)
                        || s.status.as_deref().is_some_and(|a| a.contains(name))
                })
        })
}

/// The backticked names of a text (`` `a` `` → `a`).
fn backticked(text: &str) -> Vec<&str> {
    assert_eq!(text.matches('`').count() % 2, 0, "unbalanced backticks: {text}");
    text.split('`').skip(1).step_by(2).collect()
}

#[test]
fn every_failing_trajectory_of_every_real_sample_yields_a_valid_case() {
    let mut failing_total = 0;
    for rel in REAL {
        let l = load(rel);
        for (t, a) in l.trace.trajectories.iter().zip(&l.analyses) {
            if !cases::is_failing(a, t) {
                continue;
            }
            failing_total += 1;
            let c = l.cases.iter().find(|c| c.trajectory_id == t.id);
            let c = c.unwrap_or_else(|| panic!("{rel}: failing trajectory {} has no case", t.id));
            assert!(c.valid, "{rel} {}: {:?}", t.id, c.errors);
            let case = &c.case;
            for r in &case.artifact_refs {
                assert!(!trajscope_core::artifact::escapes(r), "{rel}: {r}");
            }
            // Evidence from the triggers, applicability from what failed.
            assert!(
                case.evidence_refs
                    .iter()
                    .all(|e| ["step:", "judge:", "tool_error:"].iter().any(|p| e.starts_with(p))),
                "{rel}: {:?}",
                case.evidence_refs
            );
            assert!(case.applicability.iter().any(|t| t.starts_with("phase:")), "{rel}");
            assert!(case.phase.is_some(), "{rel}");
            // The hint and the constraint name only text of the trace.
            for text in [Some(case.prevention_hint.as_str()), case.constraint.as_deref()] {
                for name in text.map(backticked).unwrap_or_default() {
                    assert!(in_trace(&l, name), "{rel}: `{name}` is not in the trace");
                }
            }
            // An environment blocker tells the operator; the agent's code is not blamed.
            if case.classification == Some(record::FailureClass::EnvironmentBlocker) {
                let h = case.prevention_hint.to_ascii_lowercase();
                assert!(h.contains("operator") && !h.contains("change"), "{rel}: {h}");
            }
        }
        // Exactly the failing trajectories get a case.
        let failing =
            l.trace.trajectories.iter().zip(&l.analyses).filter(|(t, a)| cases::is_failing(a, t));
        assert_eq!(l.cases.len(), failing.count(), "{}", l.rel);
    }
    assert!(failing_total >= 10, "only {failing_total} failing trajectories in the samples");
}

#[test]
fn the_brief_of_each_real_sample_is_ok_and_names_only_the_trace_or_is_a_no_op() {
    for rel in REAL {
        let l = load(rel);
        let valid: Vec<_> = l.cases.iter().filter(|c| c.valid).map(|c| c.case.clone()).collect();
        let b = brief::build(&valid, &[], &BriefContext::default());
        let failing =
            l.trace.trajectories.iter().zip(&l.analyses).any(|(t, a)| cases::is_failing(a, t));
        if !failing {
            assert_eq!(b.status, BriefStatus::NoOp, "{rel}: a run that did not fail got a brief");
            assert_eq!(brief::to_markdown(&b), "", "{rel}");
            continue;
        }
        assert_eq!(b.status, BriefStatus::Ok, "{rel}: {:?}", b.excluded);
        assert!(!b.lines.is_empty() && b.lines.len() <= 5, "{rel}: {} lines", b.lines.len());
        let md = brief::to_markdown(&b);
        let tagged = md.lines().filter(|l| l.starts_with("- [")).count();
        assert_eq!(tagged, b.lines.len(), "{rel}:\n{md}");
        for line in &b.lines {
            assert!(!line.tags.is_empty(), "{rel}");
            for name in backticked(&line.text) {
                assert!(in_trace(&l, name), "{rel}: `{name}` is not in the trace:\n{}", line.text);
            }
        }
    }
}

#[test]
fn phase_and_scope_select_on_the_case_tags() {
    let l = load("swe_agent/pydicom__pydicom-1458.traj");
    let valid: Vec<_> = l.cases.iter().filter(|c| c.valid).map(|c| c.case.clone()).collect();
    assert!(!valid.is_empty());
    let case = &valid[0];
    let phase = case.phase.expect("a phase");
    let ctx = |phase: Option<Phase>, scope: &[&str]| BriefContext {
        phase,
        scope: scope.iter().map(|s| s.to_string()).collect(),
        ..BriefContext::default()
    };
    // The language of the patched file, the tool, the phase: each selects the case.
    assert!(case.applicability.contains(&"lang:python".to_string()), "{:?}", case.applicability);
    for scope in ["python", "pydicom"] {
        let b = brief::build(&valid, &[], &ctx(Some(phase), &[scope]));
        assert_eq!(b.status, BriefStatus::Ok, "scope {scope}");
    }
    let b = brief::build(&valid, &[], &ctx(None, &["typescript"]));
    assert_eq!(b.status, BriefStatus::NoOp);
    assert_eq!(b.excluded[0].reasons[0].code, "scope");
    let other = Phase::ALL.into_iter().find(|p| *p != phase).unwrap();
    let b = brief::build(&valid, &[], &ctx(Some(other), &[]));
    assert_eq!(b.status, BriefStatus::NoOp);
    assert_eq!(b.excluded[0].reasons[0].code, "phase");
}

#[test]
fn every_real_trajectory_marked_failed_yields_a_valid_case_and_a_brief() {
    // However an adapter derives the outcome, a failed run always gets a valid case: mark every
    // trajectory of every sample failed and check each one.
    let opts = AnalysisOptions::default();
    for rel in REAL {
        let mut l = load(rel);
        for t in &mut l.trace.trajectories {
            t.outcome = trajscope_core::model::Outcome::Failed;
        }
        l.analyses = l.trace.trajectories.iter().map(|t| analyze_trajectory(t, &opts)).collect();
        let built = cases::from_trace_analyses(&l.trace, "h", |i, _| l.analyses.get(i).cloned());
        let non_empty = l.trace.trajectories.iter().filter(|t| !t.steps.is_empty()).count();
        assert_eq!(
            built.iter().filter(|c| c.valid).count(),
            non_empty,
            "{rel}: {:?}",
            built.iter().filter(|c| !c.valid).map(|c| &c.errors).collect::<Vec<_>>()
        );
        l.cases = built;
        let valid: Vec<_> = l.cases.iter().map(|c| c.case.clone()).collect();
        let b = brief::build(&valid, &[], &BriefContext::default());
        assert_eq!(b.status, BriefStatus::Ok, "{rel}");
        for line in &b.lines {
            for name in backticked(&line.text) {
                assert!(in_trace(&l, name), "{rel}: `{name}` is not in the trace:\n{}", line.text);
            }
        }
    }
}

#[test]
fn runs_marked_passed_stay_a_no_op() {
    let opts = AnalysisOptions::default();
    for rel in REAL {
        let mut l = load(rel);
        for t in &mut l.trace.trajectories {
            t.outcome = trajscope_core::model::Outcome::Passed;
        }
        let analyses: Vec<_> =
            l.trace.trajectories.iter().map(|t| analyze_trajectory(t, &opts)).collect();
        let built = cases::from_trace_analyses(&l.trace, "h", |i, _| analyses.get(i).cloned());
        assert!(built.is_empty(), "{rel}: a passed run got a case");
        let valid: Vec<_> = built.iter().map(|c| c.case.clone()).collect();
        assert_eq!(brief::build(&valid, &[], &BriefContext::default()).status, BriefStatus::NoOp);
    }
}
