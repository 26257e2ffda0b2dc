//! Building a failed turn case from an attribution record and its trajectory: ids, artifacts,
//! evidence, the actionable hint, the reflect parts and the scope tags, all from the record and
//! the trace (nothing invented).

use std::collections::HashSet;

use serde::Serialize;

use super::{
    case_id_for, check_case, class_name, shorten, FailedTurnCase, MAX_FIELD_CHARS, SCHEMA_VERSION,
};
use crate::model::{Step, StepKind, Trajectory};
use crate::record::{AttributionRecord, FailureClass, FailureMode, Phase};

/// Builds the case of one attributed failure. `content_hash` identifies the trace file (any
/// stable digest of its bytes); with the trajectory id and the failure step it fixes `case_id`.
/// The result is not validated here: run [`check_case`] (a record without artifact refs gives
/// an invalid case, on purpose: nothing is invented).
pub fn from_attribution(
    record: &AttributionRecord,
    trajectory: &Trajectory,
    content_hash: &str,
) -> FailedTurnCase {
    let failing = record
        .failure_event_step
        .and_then(|i| trajectory.steps.iter().find(|s| s.index == i))
        .or_else(|| {
            let id = record.failure_event.as_deref()?;
            trajectory.steps.iter().find(|s| s.ids.event_id.as_deref() == Some(id))
        });
    let step_key = match (record.failure_event_step, failing, &record.failure_event) {
        (Some(i), _, _) => format!("step-{i}"),
        (None, Some(s), _) => format!("step-{}", s.index),
        (None, None, Some(e)) => format!("event-{e}"),
        (None, None, None) => "step-unknown".to_string(),
    };
    let failure_turn_id = record
        .failure_turn_id
        .clone()
        .or_else(|| failing.and_then(|s| s.ids.turn_id.clone()))
        .or_else(|| failing.map(|s| format!("step-{}", s.index)))
        .unwrap_or_default();
    let failure_event_id = record
        .failure_event
        .clone()
        .or_else(|| failing.and_then(|s| s.ids.event_id.clone().or(s.ids.action_id.clone())))
        .or_else(|| failing.map(|s| format!("step-{}", s.index)))
        .unwrap_or_default();

    let artifact_refs = artifact_refs(record, trajectory, failing);
    let mut evidence_refs = dedup(record.evidence_refs.iter().cloned());
    if evidence_refs.is_empty() && !failure_event_id.is_empty() {
        evidence_refs.push(format!("event:{failure_event_id}"));
    }

    let verifier = verifier_name(record, trajectory, failing);
    let failed_action = failed_action(record, trajectory, failing);
    let command = failed_command(record, trajectory, failing);
    let failure_reason = failure_reason(record, failing);
    let artifacts_text = join_short(&artifact_refs);
    let class = record.classification;
    let hint_facts = HintFacts {
        verifier: verifier.as_deref(),
        command: command.as_deref(),
        artifacts: &artifacts_text,
        claim_turn: failing
            .filter(|s| matches!(s.kind, StepKind::Message | StepKind::RunEnd))
            .map(|_| failure_turn_id.as_str()),
    };
    let prevention_hint = prevention_hint(record, &hint_facts);
    let constraint = constraint(record, &hint_facts);

    FailedTurnCase {
        schema_version: SCHEMA_VERSION,
        case_id: case_id_for(content_hash, &trajectory.id, &step_key),
        turn_id: failure_turn_id.clone(),
        failure_turn_id,
        failure_event_id,
        applicability: applicability(class, verifier.as_deref(), &artifact_refs, failing),
        artifact_refs,
        memory_read_node_ids: dedup(record.memory_read_node_ids.iter().cloned()),
        prevention_hint,
        evidence_refs,
        classification: class,
        failure_mode: record.failure_mode,
        phase: failing.map(phase_of),
        failed_action,
        failure_reason,
        constraint,
    }
}

/// A case built from one trajectory of a trace, with its validation result.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TraceCase {
    pub trajectory_id: String,
    pub case_id: String,
    pub valid: bool,
    pub errors: Vec<String>,
    /// The case as built, also when invalid (to show what is missing); never exported then.
    pub case: FailedTurnCase,
}

/// The cases of a trace: one per trajectory for which `attribute` names a failure (a record
/// with a failure event or step). `attribute` is the analysis (`attribution::analyze_trajectory`
/// in the app and CLI); taking it as a function keeps this module testable on its own.
pub fn from_trace_with(
    trace: &crate::model::Trace,
    content_hash: &str,
    mut attribute: impl FnMut(&Trajectory) -> Option<AttributionRecord>,
) -> Vec<TraceCase> {
    let mut out = Vec::new();
    for t in &trace.trajectories {
        let Some(record) = attribute(t) else { continue };
        if record.failure_event.is_none() && record.failure_event_step.is_none() {
            continue;
        }
        let case = from_attribution(&record, t, content_hash);
        let check = check_case(&case);
        out.push(TraceCase {
            trajectory_id: t.id.clone(),
            case_id: case.case_id.clone(),
            valid: check.valid,
            errors: check.errors,
            case,
        });
    }
    out
}

/// The artifacts of the failure, first found of: the record's failed artifact refs; the failing
/// step's refs; the source actions' refs; the refs of the actions the agent took up to the
/// failure (what the verifier judged); the file paths named in the source action's command.
/// All are in the trace; references that escape the trace root are left out.
fn artifact_refs(r: &AttributionRecord, t: &Trajectory, failing: Option<&Step>) -> Vec<String> {
    let refs_of = |s: &Step| -> Vec<String> {
        s.artifact_refs.iter().filter(|a| !a.escapes_root).map(|a| a.normalized.clone()).collect()
    };
    let found = dedup(r.failed_artifact_refs.iter().cloned());
    if !found.is_empty() {
        return found;
    }
    if let Some(s) = failing {
        let found = dedup(refs_of(s).into_iter());
        if !found.is_empty() {
            return found;
        }
    }
    let sources: Vec<&Step> =
        r.source_action_ids.iter().filter_map(|id| step_by_action_id(t, id)).collect();
    let found = dedup(sources.iter().flat_map(|s| refs_of(s)));
    if !found.is_empty() {
        return found;
    }
    let upto = failing.map_or(u32::MAX, |f| f.index);
    let found = dedup(
        r.touched_action_ids
            .iter()
            .filter_map(|id| step_by_action_id(t, id))
            .filter(|s| s.index <= upto)
            .flat_map(refs_of),
    );
    if !found.is_empty() {
        return found;
    }
    let commands = sources.iter().copied().chain(failing).filter_map(|s| s.args.as_deref());
    dedup(commands.flat_map(paths_in).map(str::to_string))
}

/// Relative file paths named in a command line (`e2e/settings.spec.ts`, `src/app.py`): tokens
/// of path characters with a directory or a file extension; options, URLs, absolute paths and
/// `..` are not taken.
fn paths_in(command: &str) -> impl Iterator<Item = &str> {
    command
        .split(|c: char| c.is_whitespace() || matches!(c, '\'' | '"' | '`' | ',' | ';' | '(' | ')'))
        .filter(|w| {
            let has_ext = w.rsplit_once('.').is_some_and(|(stem, ext)| {
                !stem.is_empty()
                    && (1..=5).contains(&ext.len())
                    && ext.chars().all(|c| c.is_ascii_alphanumeric())
                    && ext.chars().any(|c| c.is_ascii_alphabetic())
            });
            !w.is_empty()
                && !w.starts_with(['-', '/', '.'])
                && !w.contains("..")
                && w.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '/' | '.' | '_' | '-'))
                && (has_ext || (w.contains('/') && w.chars().any(|c| c.is_ascii_alphabetic())))
        })
}

/// The phase a failing step belongs to, from what the step is.
fn phase_of(step: &Step) -> Phase {
    match step.kind {
        StepKind::JudgeResult => Phase::Verification,
        StepKind::Action | StepKind::Artifact => Phase::Action,
        StepKind::Observation | StepKind::MemoryRead => Phase::Observation,
        StepKind::Message | StepKind::RunStart | StepKind::RunEnd => Phase::Reasoning,
    }
}

/// The step an id names: an action with that `action_id` first, else any step with that action
/// or event id (the analysis names a judge verdict by its event id).
fn step_by_action_id<'t>(t: &'t Trajectory, id: &str) -> Option<&'t Step> {
    let named =
        |s: &&Step| s.ids.action_id.as_deref() == Some(id) || s.ids.event_id.as_deref() == Some(id);
    let mut matches = t.steps.iter().filter(named);
    let first = matches.next()?;
    if first.kind == StepKind::Action {
        return Some(first);
    }
    Some(matches.find(|s| s.kind == StepKind::Action).unwrap_or(first))
}

/// The verifier that saw the failure: the verifier action's tool or actor, else the failing
/// judge's name.
fn verifier_name(r: &AttributionRecord, t: &Trajectory, failing: Option<&Step>) -> Option<String> {
    if let Some(s) = r.verifier_action_id.as_deref().and_then(|id| step_by_action_id(t, id)) {
        if s.kind == StepKind::JudgeResult && !s.actor.is_empty() {
            return Some(s.actor.clone());
        }
        if let Some(cmd) = s.args.as_deref().filter(|a| !a.trim().is_empty()) {
            return Some(shorten(cmd, 80));
        }
        if let Some(tool) = &s.tool {
            return Some(tool.clone());
        }
    }
    let s = failing?;
    if s.kind == StepKind::JudgeResult && !s.actor.is_empty() {
        return Some(s.actor.clone());
    }
    None
}

/// What was tried: the source action's command, else the failing step's own command.
fn failed_action(r: &AttributionRecord, t: &Trajectory, failing: Option<&Step>) -> Option<String> {
    let from_source = r.source_action_ids.iter().find_map(|id| {
        let s = step_by_action_id(t, id)?;
        describe_action(s)
    });
    from_source.or_else(|| failing.and_then(describe_action))
}

/// The command line that failed (source action first), for hints that say what to run.
fn failed_command(r: &AttributionRecord, t: &Trajectory, failing: Option<&Step>) -> Option<String> {
    let command = |s: &Step| {
        s.args.as_deref().map(str::trim).filter(|a| !a.is_empty()).map(|a| shorten(a, 80))
    };
    r.source_action_ids
        .iter()
        .filter_map(|id| step_by_action_id(t, id))
        .find_map(command)
        .or_else(|| failing.and_then(command))
}

fn describe_action(s: &Step) -> Option<String> {
    let cmd = s.args.as_deref().map(str::trim).filter(|a| !a.is_empty());
    match (&s.tool, cmd) {
        (Some(tool), Some(cmd)) => Some(shorten(&format!("{tool}: {cmd}"), MAX_FIELD_CHARS)),
        (None, Some(cmd)) => Some(shorten(cmd, MAX_FIELD_CHARS)),
        (Some(tool), None) => Some(tool.clone()),
        (None, None) => None,
    }
}

/// Why it failed: the verifier's own words when a judge verdict is the failure event, the first
/// error line when a failed observation is, else the analysis' root-cause summary, else the
/// failing step's first line.
fn failure_reason(r: &AttributionRecord, failing: Option<&Step>) -> Option<String> {
    let own_words = failing.and_then(|s| {
        let mut lines = s.text.lines().map(str::trim).filter(|l| !l.is_empty());
        match s.kind {
            StepKind::JudgeResult => lines.next(),
            StepKind::Observation => lines.find(|l| is_error_line(l)),
            _ => None,
        }
    });
    if let Some(v) = own_words {
        return Some(shorten(v, MAX_FIELD_CHARS));
    }
    let summary = r.root_cause_summary.trim();
    if !summary.is_empty() {
        return Some(shorten(summary, MAX_FIELD_CHARS));
    }
    let line = failing?.text.lines().map(str::trim).find(|l| !l.is_empty())?;
    Some(shorten(line, MAX_FIELD_CHARS))
}

fn is_error_line(line: &str) -> bool {
    const WORDS: [&str; 7] =
        ["error", "fail", "denied", "not found", "exception", "cannot", "fatal"];
    let l = line.to_ascii_lowercase();
    WORDS.iter().any(|w| l.contains(w))
}

/// What the hint and the constraint are made of.
struct HintFacts<'a> {
    verifier: Option<&'a str>,
    command: Option<&'a str>,
    /// The artifacts, as text (`` `a` and `b` ``).
    artifacts: &'a str,
    /// The failing step is a message (a claim or an answer), not a command or a verdict.
    claim_turn: Option<&'a str>,
}

/// The actionable hint, by class and mode. Blockers never ask for a code change; a transient
/// failure is retried as it was; a deterministic failure of a command is not repeated unchanged.
fn prevention_hint(r: &AttributionRecord, f: &HintFacts) -> String {
    let (verifier, artifacts) = (f.verifier, f.artifacts);
    let class = r.classification;
    let check = verifier.map(|v| format!("`{v}`")).unwrap_or_else(|| "the failed check".into());
    match class {
        Some(FailureClass::EnvironmentBlocker) => {
            return format!(
                "Before the next attempt, make sure the environment provides what {check} needs, \
                 then run it again; the failure is not in the agent's code."
            )
        }
        Some(FailureClass::FlakyBlocker) => {
            return format!(
                "Run {check} once more before acting on its result: it failed intermittently, \
                 not because of the agent's work."
            )
        }
        Some(FailureClass::HarnessBlocker) => {
            return format!(
                "Report the harness fault seen by {check} to the harness owner; the agent's \
                 work is not at fault."
            )
        }
        _ => {}
    }
    if r.failure_mode == Some(FailureMode::Transient) {
        let what = f.command.map(|a| format!("`{a}`")).unwrap_or(check);
        return format!("Retry {what} after a wait; keep the same approach.");
    }
    if let (Some(FailureMode::Deterministic), None, Some(cmd)) =
        (r.failure_mode, verifier, f.command)
    {
        return format!(
            "Do not run `{cmd}` again unchanged: it fails the same way each time; change its \
             input or the approach."
        );
    }
    // A probe is either a command (`npm run test:contract`) or a sentence that already says what
    // to run ("re-run the verifier `x` on the changed artifact").
    let probe = r.verification_probe_candidate.as_deref().map(str::trim).filter(|p| !p.is_empty());
    if let Some(cmd) = probe.filter(|p| !is_prose(p)) {
        return format!("Before closeout, run `{}` again on {artifacts}.", shorten(cmd, 80));
    }
    if verifier.is_some() {
        return format!("Before closeout, run {check} again on {artifacts}.");
    }
    if let Some(prose) = probe {
        return format!("Before closeout, {}.", shorten(prose.trim_end_matches('.'), 120));
    }
    match (f.command, f.claim_turn) {
        (Some(a), _) => {
            format!("Before closeout, run `{a}` again and check that {artifacts} passes.")
        }
        (None, Some(turn)) => format!(
            "Before answering, check the claim made at {turn} against the task and the tool \
             results it relies on."
        ),
        (None, None) => format!("Before closeout, verify {artifacts} again."),
    }
}

/// True when a probe is a sentence (it quotes a command, or starts with a verb of checking)
/// rather than a command line.
fn is_prose(probe: &str) -> bool {
    const VERBS: [&str; 6] = ["re-run", "rerun", "run", "check", "verify", "retry"];
    let first = probe.split_whitespace().next().unwrap_or("").to_ascii_lowercase();
    probe.contains('`') || (probe.contains(' ') && VERBS.contains(&first.as_str()))
}

fn constraint(r: &AttributionRecord, f: &HintFacts) -> Option<String> {
    let (verifier, artifacts) = (f.verifier, f.artifacts);
    let mode = r.failure_mode;
    if r.classification.is_some_and(FailureClass::is_blocker)
        || mode == Some(FailureMode::Transient)
    {
        return Some("keep the code and the approach as they are".into());
    }
    if let (Some(FailureMode::Deterministic), None, Some(cmd)) = (mode, verifier, f.command) {
        return Some(format!("do not repeat `{cmd}` unchanged"));
    }
    Some(match verifier {
        Some(v) => format!("`{v}` must pass on {artifacts} before closeout"),
        None => format!("{artifacts} must pass verification before closeout"),
    })
}

/// Scope tags: `verifier:NAME`, `tool:NAME`, `artifact:REF`, the failure class, and the
/// meaningful words of the artifact paths and the verifier name (`src/api/orders.ts` → `api`,
/// `orders`), so a next attempt can be matched with `--scope api`.
fn applicability(
    class: Option<FailureClass>,
    verifier: Option<&str>,
    artifacts: &[String],
    failing: Option<&Step>,
) -> Vec<String> {
    let mut tags = Vec::new();
    if let Some(v) = verifier {
        tags.push(format!("verifier:{v}"));
    }
    if let Some(tool) = failing.and_then(|s| s.tool.as_deref()) {
        tags.push(format!("tool:{tool}"));
    }
    for a in artifacts {
        if a.starts_with("artifact:") {
            tags.push(a.clone());
        } else {
            tags.push(format!("artifact:{a}"));
        }
    }
    if let Some(c) = class {
        tags.push(class_name(c).to_string());
    }
    let mut words: Vec<String> = Vec::new();
    for text in artifacts.iter().map(String::as_str).chain(verifier) {
        words.extend(scope_words(text));
    }
    tags.extend(words);
    dedup(tags.into_iter())
}

const GENERIC_WORDS: [&str; 17] = [
    "src", "lib", "dist", "build", "out", "tmp", "the", "and", "artifact", "file", "index", "main",
    "mod", "npm", "run", "output", "spec",
];

fn scope_words(text: &str) -> Vec<String> {
    let text = text.strip_prefix("artifact:").unwrap_or(text);
    // The last segment's extension (`.ts`) says nothing about scope.
    let stem = match text.rfind('.') {
        Some(dot) if dot > text.rfind('/').map_or(0, |s| s + 1) => &text[..dot],
        _ => text,
    };
    stem.split(|c: char| !c.is_ascii_alphanumeric())
        .map(str::to_ascii_lowercase)
        .filter(|w| w.len() >= 3 && w.starts_with(|c: char| c.is_ascii_alphabetic()))
        .filter(|w| !GENERIC_WORDS.contains(&w.as_str()))
        .filter(|w| !w.ends_with("verifier") && w != "test" && w != "tests")
        .collect()
}

fn dedup(items: impl Iterator<Item = String>) -> Vec<String> {
    let mut seen = HashSet::new();
    items.filter(|s| !s.trim().is_empty() && seen.insert(s.clone())).collect()
}

fn join_short(refs: &[String]) -> String {
    match refs {
        [] => "the changed artifact".into(),
        [one] => format!("`{one}`"),
        [a, b] => format!("`{a}` and `{b}`"),
        [a, rest @ ..] => format!("`{a}` and {} more", rest.len()),
    }
}
