//! Cases from the analysis: which trajectories fail (outcome failed, or a critical step), the
//! record to build from (the analysis' record, or — for a failed run where no step was
//! singled out — the run's last error or last agent step), and the evidence refs from the
//! triggers: `step:<n>`, `judge:<name>`, `tool_error:<signature>` (vocabulary in
//! `docs/learning-loop.md`).

use super::build::{answered_action, build, TraceCase};
use super::check_case;
use crate::attribution::{TrajectoryAnalysis, Trigger};
use crate::model::{Outcome, Role, Step, StepKind, Trace, Trajectory};
use crate::record::AttributionRecord;

/// Most evidence refs a case lists.
const MAX_EVIDENCE: usize = 8;

/// Whether a trajectory is failing: its outcome is failed, or the analysis names a critical
/// step in a run not known to have passed (a passing run stays a `no-op`).
pub fn is_failing(a: &TrajectoryAnalysis, t: &Trajectory) -> bool {
    match t.outcome {
        Outcome::Failed => true,
        Outcome::Passed => false,
        Outcome::Unknown => a.critical.is_some(),
    }
}

/// The case of a failing trajectory (`None` for one that is not failing). Its evidence refs
/// come from the triggers of the critical step; a ref that escapes the trace root is never
/// taken.
pub fn from_analysis(
    a: &TrajectoryAnalysis,
    t: &Trajectory,
    content_hash: &str,
) -> Option<super::FailedTurnCase> {
    if !is_failing(a, t) {
        return None;
    }
    let mut record = a.record.clone();
    record.failed_artifact_refs.retain(|r| !crate::artifact::escapes(r));
    if record.failure_event.is_none() && record.failure_event_step.is_none() {
        record = unattributed_failure(t)?;
    }
    let evidence = evidence_refs(a, &record, t);
    Some(build(&record, t, content_hash, Some(evidence)))
}

/// The cases of a trace, one per failing trajectory; `analyze` gives the analysis of each
/// (`None` skips it).
pub fn from_trace_analyses(
    trace: &Trace,
    content_hash: &str,
    mut analyze: impl FnMut(usize, &Trajectory) -> Option<TrajectoryAnalysis>,
) -> Vec<TraceCase> {
    let mut out = Vec::new();
    for (i, t) in trace.trajectories.iter().enumerate() {
        let Some(a) = analyze(i, t) else { continue };
        out.extend(trace_case(&a, t, content_hash));
    }
    out
}

/// One trajectory's entry of [`from_trace_analyses`]: its case with the case's validation
/// (`None` for a trajectory that is not failing).
pub fn trace_case(a: &TrajectoryAnalysis, t: &Trajectory, content_hash: &str) -> Option<TraceCase> {
    let case = from_analysis(a, t, content_hash)?;
    let check = check_case(&case);
    Some(TraceCase {
        trajectory_id: t.id.clone(),
        case_id: case.case_id.clone(),
        valid: check.valid,
        errors: check.errors,
        case,
    })
}

/// A failed run in which the analysis singled out no step: the failure is the last step the
/// source flagged as an error, else the last agent step, else the last step.
fn unattributed_failure(t: &Trajectory) -> Option<AttributionRecord> {
    let step = t
        .steps
        .iter()
        .rev()
        .find(|s| s.is_error)
        .or_else(|| t.steps.iter().rev().find(|s| s.role == Role::Assistant))
        .or(t.steps.last())?;
    Some(AttributionRecord {
        failure_event: step
            .ids
            .event_id
            .as_deref()
            .map(str::to_owned)
            .or_else(|| step.ids.action_id.as_deref().map(str::to_owned)),
        failure_event_step: Some(step.index),
        failure_turn_id: Some(
            step.ids
                .turn_id
                .as_deref()
                .map(str::to_owned)
                .unwrap_or_else(|| format!("step-{}", step.index)),
        ),
        source_action_ids: answered_action(t, step)
            .and_then(|a| a.ids.action_id.as_deref().map(str::to_owned))
            .into_iter()
            .collect(),
        root_cause_summary: step
            .text
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .map(str::to_string)
            .unwrap_or_else(|| {
                format!("the run failed; no step was singled out (step {})", step.index)
            }),
        attribution_heuristics: vec!["run_failed".into()],
        ..AttributionRecord::default()
    })
}

/// Evidence refs: the failing judge (`judge:<name>`), the tool errors that show the failure
/// (`tool_error:<tool>:<signature>`), then the steps the evidence quotes (`step:<n>`), critical
/// step first.
fn evidence_refs(a: &TrajectoryAnalysis, r: &AttributionRecord, t: &Trajectory) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut push = |s: String| {
        if !out.contains(&s) && out.len() < MAX_EVIDENCE {
            out.push(s);
        }
    };
    let step_at = |i: u32| t.steps.iter().find(|s| s.index == i);
    let failing = r.failure_event_step.and_then(step_at);
    if let Some(j) = failing.filter(|s| s.kind == StepKind::JudgeResult && !s.actor.is_empty()) {
        push(format!("judge:{}", j.actor));
    }
    for e in r.evidence_refs.iter().filter(|e| e.starts_with("judge:")) {
        push(e.clone());
    }
    let critical = a.critical.as_ref().map(|c| c.step).or(r.failure_event_step);
    let on_critical: Vec<&Trigger> = a
        .triggers
        .iter()
        .filter(|tr| Some(tr.step) == critical || tr.reference_step == critical)
        .collect();
    let mut steps: Vec<u32> = critical.into_iter().collect();
    if let Some(c) = &a.critical {
        steps.extend(c.evidence.iter().map(|e| e.step));
    }
    steps.extend(
        on_critical.iter().flat_map(|tr| std::iter::once(tr.step).chain(tr.reference_step)),
    );
    steps.extend(r.failure_event_step);
    for s in steps.iter().filter_map(|&i| step_at(i)) {
        if let Some(sig) = tool_error(t, s) {
            push(sig);
        }
    }
    for i in steps {
        push(format!("step:{i}"));
    }
    out
}

/// `tool_error:<tool>:<signature>` for a failed tool result: the signature is the exit code
/// (`exit-1`), else the source's error type (`timeout`), else the first words of the error
/// line, lower-case, digits folded to `#`.
fn tool_error(t: &Trajectory, s: &Step) -> Option<String> {
    let failed = s.is_error || s.exit_code.is_some_and(|c| c != 0);
    if s.kind != StepKind::Observation || !failed {
        return None;
    }
    let named =
        |x: &Step| x.tool.as_deref().map(str::trim).filter(|t| !t.is_empty()).map(str::to_string);
    let tool =
        named(s).or_else(|| answered_action(t, s).and_then(named)).unwrap_or_else(|| "tool".into());
    let sig = match (s.exit_code.filter(|c| *c != 0), s.status.as_deref()) {
        (Some(c), _) => format!("exit-{c}"),
        (None, Some(st)) if ERROR_TYPES.contains(&st) => st.to_string(),
        _ => {
            let line = s.text.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("error");
            slug(&line.split_whitespace().take(6).collect::<Vec<_>>().join(" "))
        }
    };
    Some(format!("tool_error:{tool}:{sig}"))
}

/// Error types a source writes as the status of a failed tool result (Inspect's ToolCallError
/// types, OTel's `error.type` words).
const ERROR_TYPES: [&str; 12] = [
    "parsing",
    "timeout",
    "unicode_decode",
    "permission",
    "file_not_found",
    "is_a_directory",
    "limit",
    "approval",
    "unknown",
    "output_limit",
    "PolicyViolation",
    "TimeoutError",
];

fn slug(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars().take(48) {
        let c = if c.is_ascii_digit() { '#' } else { c.to_ascii_lowercase() };
        if c.is_ascii_alphanumeric() || c == '#' {
            out.push(c);
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    let out = out.trim_end_matches('-').to_string();
    if out.is_empty() {
        "error".into()
    } else {
        out
    }
}
