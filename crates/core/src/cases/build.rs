//! Building a failed turn case from an attribution record and its trajectory: ids, artifacts,
//! evidence, the actionable hint, the reflect parts and the scope tags, all from the record and
//! the trace (nothing invented).

use std::collections::HashMap;

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
    build(record, trajectory, content_hash, None)
}

/// [`from_attribution`] with the evidence refs given (the analysis' triggers as `step:<n>`,
/// `judge:<name>`, `tool_error:<signature>`) instead of the record's.
pub(super) fn build(
    record: &AttributionRecord,
    trajectory: &Trajectory,
    content_hash: &str,
    evidence: Option<Vec<String>>,
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
        .or_else(|| failing.and_then(|s| s.ids.turn_id.as_deref().map(str::to_owned)))
        .or_else(|| failing.map(|s| format!("step-{}", s.index)))
        .unwrap_or_default();
    let failure_event_id = record
        .failure_event
        .clone()
        .or_else(|| {
            failing.and_then(|s| {
                s.ids.event_id.as_deref().map(str::to_owned).or(s
                    .ids
                    .action_id
                    .as_deref()
                    .map(str::to_owned))
            })
        })
        .or_else(|| failing.map(|s| format!("step-{}", s.index)))
        .unwrap_or_default();

    let artifact_refs = artifact_refs(record, trajectory, failing);
    let mut evidence_refs =
        dedup(evidence.unwrap_or_else(|| record.evidence_refs.clone()).into_iter());
    if evidence_refs.is_empty() && !failure_event_id.is_empty() {
        evidence_refs.push(format!("event:{failure_event_id}"));
    }

    let verifier = verifier_name(record, trajectory, failing);
    let failed_action = failed_action(record, trajectory, failing);
    let command = failed_command(record, trajectory, failing);
    let failure_reason = failure_reason(record, failing);
    let class = record.classification;
    let tool = failed_tool(record, trajectory, failing);
    // The tool is named on its own; the artifacts are what it acted on.
    let shown: Vec<String> = artifact_refs
        .iter()
        .filter(|a| tool.as_deref().is_none_or(|t| a.strip_prefix("tool:") != Some(t)))
        .cloned()
        .collect();
    let artifacts_text = if shown.is_empty() && !artifact_refs.is_empty() {
        String::new()
    } else {
        join_short(&shown, trajectory)
    };
    // The reason is quoted only when the trace shows an error (an error result, a verdict).
    let reason_words = failure_reason
        .as_deref()
        .filter(|_| error_seen(trajectory, failing))
        .map(|r| shorten(&r.replace('`', "'"), 100));
    let claim_label = match failing {
        Some(s) if failure_turn_id.chars().all(|c| c.is_ascii_digit()) => {
            format!("message {}", s.index)
        }
        _ => failure_turn_id.clone(),
    };
    let hint_facts = HintFacts {
        verifier: verifier.as_deref(),
        command: command.as_deref(),
        tool: tool.as_deref(),
        reason: reason_words.as_deref(),
        artifacts: &artifacts_text,
        errored: error_seen(trajectory, failing),
        claim_turn: failing
            .filter(|s| matches!(s.kind, StepKind::Message | StepKind::RunEnd))
            .map(|_| claim_label.as_str()),
    };
    let prevention_hint = prevention_hint(record, &hint_facts);
    let constraint = constraint(record, &hint_facts);

    FailedTurnCase {
        schema_version: SCHEMA_VERSION,
        case_id: case_id_for(content_hash, &trajectory.id, &step_key),
        turn_id: failure_turn_id.clone(),
        failure_turn_id,
        failure_event_id,
        applicability: applicability(
            class,
            verifier.as_deref(),
            tool.as_deref(),
            &artifact_refs,
            failing.map(phase_of),
        ),
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
/// step's refs; the refs of the action a failing observation answers; the source actions' refs;
/// the refs of the actions the agent took up to the failure (what the verifier judged); the
/// file paths named in the source action's command; else the tool the failing action called
/// (`tool:<name>`) or the failing message (`message:<step>`). All are in the trace; a reference
/// that escapes the trace root is never taken.
fn artifact_refs(r: &AttributionRecord, t: &Trajectory, failing: Option<&Step>) -> Vec<String> {
    let refs_of = |s: &Step| -> Vec<String> {
        s.artifact_refs.iter().filter(|a| !a.escapes_root).map(|a| a.normalized.clone()).collect()
    };
    let safe = |v: Vec<String>| -> Vec<String> {
        dedup(v.into_iter().filter(|a| !crate::artifact::escapes(a)))
    };
    let found = safe(r.failed_artifact_refs.clone());
    if !found.is_empty() {
        return found;
    }
    if let Some(s) = failing {
        let found = safe(refs_of(s));
        if !found.is_empty() {
            return found;
        }
        if let Some(a) = answered_action(t, s) {
            let found = safe(refs_of(a));
            if !found.is_empty() {
                return found;
            }
        }
    }
    let sources: Vec<&Step> =
        r.source_action_ids.iter().filter_map(|id| step_by_action_id(t, id)).collect();
    let found = safe(sources.iter().flat_map(|s| refs_of(s)).collect());
    if !found.is_empty() {
        return found;
    }
    let upto = failing.map_or(u32::MAX, |f| f.index);
    let found = safe(
        r.touched_action_ids
            .iter()
            .filter_map(|id| step_by_action_id(t, id))
            .filter(|s| s.index <= upto)
            .flat_map(refs_of)
            .collect(),
    );
    if !found.is_empty() {
        return found;
    }
    let commands = sources.iter().copied().chain(failing).filter_map(|s| s.args.as_deref());
    let found = safe(commands.flat_map(paths_in).map(str::to_string).collect());
    if !found.is_empty() {
        return found;
    }
    // Nothing named a file: the tool that failed, else the message that carries the error.
    let acting = failing.and_then(|s| answered_action(t, s)).or(failing);
    if let Some(tool) = acting.and_then(|s| s.tool.as_deref()).and_then(first_tool) {
        return safe(vec![format!("tool:{tool}")]);
    }
    match failing {
        Some(s) if matches!(s.kind, StepKind::Message | StepKind::RunEnd) => {
            vec![format!("message:{}", s.index)]
        }
        _ => Vec::new(),
    }
}

/// The first of several tool names (`a,b` for parallel calls), when it is a plain name.
fn first_tool(tools: &str) -> Option<&str> {
    let t = tools.split(',').next()?.trim();
    (!t.is_empty() && !t.contains(char::is_whitespace)).then_some(t)
}

/// The action an observation answers: by `source_action_id`, else the agent action just
/// before it.
pub(super) fn answered_action<'t>(t: &'t Trajectory, s: &Step) -> Option<&'t Step> {
    if s.kind != StepKind::Observation {
        return None;
    }
    if let Some(a) = s.ids.source_action_id.as_deref().and_then(|id| step_by_action_id(t, id)) {
        return Some(a);
    }
    let at = t.steps.iter().position(|x| x.index == s.index)?;
    t.steps[..at].iter().rev().take(8).find(|x| x.kind == StepKind::Action)
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
/// judge's name. Only names that are text of the trace (a command is cut at a word, never
/// shortened with a mark, so it stays an exact substring).
fn verifier_name(r: &AttributionRecord, t: &Trajectory, failing: Option<&Step>) -> Option<String> {
    if let Some(s) = r.verifier_action_id.as_deref().and_then(|id| step_by_action_id(t, id)) {
        if s.kind == StepKind::JudgeResult && !s.actor.is_empty() {
            return Some(s.actor.clone());
        }
        if let Some(cmd) = s.args.as_deref().and_then(command_name) {
            return Some(cmd);
        }
        if let Some(tool) = &s.tool {
            return Some(tool.to_string());
        }
    }
    let s = failing?;
    if s.kind == StepKind::JudgeResult && !s.actor.is_empty() {
        return Some(s.actor.clone());
    }
    None
}

/// What was tried: the source action's command, else the action a failing observation answers,
/// else the failing step's own command.
fn failed_action(r: &AttributionRecord, t: &Trajectory, failing: Option<&Step>) -> Option<String> {
    let from_source = r.source_action_ids.iter().find_map(|id| {
        let s = step_by_action_id(t, id)?;
        describe_action(s)
    });
    from_source
        .or_else(|| failing.and_then(|s| answered_action(t, s)).and_then(describe_action))
        .or_else(|| failing.and_then(describe_action))
}

/// The command line that failed (source action first), for hints that say what to run: only a
/// command of a shell-like step (not a JSON input), as an exact piece of the trace.
fn failed_command(r: &AttributionRecord, t: &Trajectory, failing: Option<&Step>) -> Option<String> {
    let command =
        |s: &Step| s.args.as_deref().filter(|_| is_command_step(s)).and_then(command_name);
    r.source_action_ids
        .iter()
        .filter_map(|id| step_by_action_id(t, id))
        .find_map(command)
        .or_else(|| failing.and_then(|s| answered_action(t, s)).and_then(command))
        .or_else(|| failing.and_then(command))
}

/// The tool the failing action called (source action first).
fn failed_tool(r: &AttributionRecord, t: &Trajectory, failing: Option<&Step>) -> Option<String> {
    let tool = |s: &Step| s.tool.as_deref().and_then(first_tool).map(str::to_string);
    r.source_action_ids
        .iter()
        .filter_map(|id| step_by_action_id(t, id))
        .find_map(tool)
        .or_else(|| failing.and_then(|s| answered_action(t, s)).and_then(tool))
        .or_else(|| failing.and_then(tool))
}

/// A step whose args are a command line: not the code of a code-running tool (Who&When's
/// `python` blocks, Inspect's `python` tool) — JSON inputs are refused by [`command_name`].
fn is_command_step(s: &Step) -> bool {
    const CODE_TOOLS: [&str; 8] =
        ["python", "py", "ipython", "javascript", "js", "code", "sql", "r"];
    const FILE_TOOLS: [&str; 12] = [
        "Edit",
        "MultiEdit",
        "Write",
        "Read",
        "NotebookEdit",
        "str_replace_editor",
        "edit_file",
        "read_file",
        "write_file",
        "create_file",
        "view",
        "text_editor",
    ];
    let tool = s.tool.as_deref().unwrap_or_default();
    let path_only = s.args.as_deref().is_some_and(|a| {
        let a = a.trim();
        a.starts_with(['/', '.', '~']) && !a.contains(char::is_whitespace)
    });
    !(CODE_TOOLS.contains(&tool.to_ascii_lowercase().as_str())
        || FILE_TOOLS.contains(&tool)
        || path_only)
}

/// Whether the trace shows an error at the failure: the failing step (or the result just
/// after a failing action) is an error, a non-zero exit or a verdict.
fn error_seen(t: &Trajectory, failing: Option<&Step>) -> bool {
    let bad = |s: &Step| {
        s.is_error || s.exit_code.is_some_and(|c| c != 0) || s.kind == StepKind::JudgeResult
    };
    let Some(f) = failing else { return false };
    if bad(f) {
        return true;
    }
    f.kind == StepKind::Action
        && t.steps
            .iter()
            .skip_while(|s| s.index <= f.index)
            .take(2)
            .any(|s| s.kind == StepKind::Observation && bad(s))
}

/// A command as it may be quoted in a hint: its first line, cut at a word to at most 80
/// characters — an exact substring of the trace. Not a JSON input, not a multi-line script
/// (first line only), not a line with a backtick.
fn command_name(args: &str) -> Option<String> {
    let line = args.trim().lines().next()?.trim();
    // A heredoc or a command substitution ends the quotable part (`cat > a.py << 'EOF'`).
    let line = ["<<", "$("].iter().filter_map(|m| line.find(m)).min().map_or(line, |i| &line[..i]);
    let line = line.trim_end_matches([' ', '"', '\'']).trim_end();
    if line.is_empty() || line.starts_with(['{', '[']) || line.contains('`') {
        return None;
    }
    if line.chars().count() <= 80 {
        return Some(line.to_string());
    }
    let mut cut = 0;
    for (i, c) in line.char_indices() {
        if i > 80 {
            break;
        }
        if c.is_whitespace() {
            cut = i;
        }
    }
    (cut > 0).then(|| line[..cut].trim_end().to_string())
}

fn describe_action(s: &Step) -> Option<String> {
    let cmd = s.args.as_deref().map(str::trim).filter(|a| !a.is_empty());
    match (&s.tool, cmd) {
        (Some(tool), Some(cmd)) => Some(shorten(&format!("{tool}: {cmd}"), MAX_FIELD_CHARS)),
        (None, Some(cmd)) => Some(shorten(cmd, MAX_FIELD_CHARS)),
        (Some(tool), None) => Some(tool.to_string()),
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

/// What the hint and the constraint are made of. Every name is text of the trace.
struct HintFacts<'a> {
    verifier: Option<&'a str>,
    command: Option<&'a str>,
    /// The tool the failing action called.
    tool: Option<&'a str>,
    /// Why it failed, in a few words (no backticks).
    reason: Option<&'a str>,
    /// The artifacts, as text (`` `a` and `b` ``); empty when the tool is all there is.
    artifacts: &'a str,
    /// The trace shows an error at the failure (an error result, a failed verdict).
    errored: bool,
    /// The failing step is a message (a claim or an answer), not a command or a verdict.
    claim_turn: Option<&'a str>,
}

impl HintFacts<'_> {
    /// ` on <artifacts>`, or nothing when the tool is all there is.
    fn on(&self) -> String {
        if self.artifacts.is_empty() {
            String::new()
        } else {
            format!(" on {}", self.artifacts)
        }
    }

    /// The check that failed, named: the verifier, else the command, else the tool.
    fn check(&self) -> String {
        match (self.verifier, self.command, self.tool) {
            (Some(v), _, _) => format!("`{v}`"),
            (None, Some(c), _) => format!("`{c}`"),
            (None, None, Some(t)) => format!("the `{t}` call"),
            (None, None, None) => "the failed check".into(),
        }
    }
}

/// The actionable hint, by class and mode. Blockers tell the operator what to fix and never
/// ask for a code change; a transient failure is retried as it was; a deterministic failure of
/// a command is not repeated unchanged; otherwise the named verifier, command or tool call must
/// pass on the named artifacts.
fn prevention_hint(r: &AttributionRecord, f: &HintFacts) -> String {
    let (verifier, artifacts) = (f.verifier, f.artifacts);
    let class = r.classification;
    let check = f.check();
    let why = f.reason.map(|w| format!(" ({w})")).unwrap_or_default();
    // The step changed what the task forbids changing: running it again is the wrong advice.
    if broke_task_constraint(r) {
        let what = if artifacts.is_empty() { "what the task protects" } else { artifacts };
        return format!(
            "Leave {what} as it was: the task forbids changing it. Make the change the task \
             asks for elsewhere, and check it with the checks as they are."
        );
    }
    match class {
        Some(FailureClass::EnvironmentBlocker) => {
            return format!(
                "Operator: before the next attempt, make sure the environment provides what \
                 {check} needs{why}, then run it again; the failure is not in the agent's code."
            )
        }
        Some(FailureClass::FlakyBlocker) => {
            return format!(
                "Run {check} once more before acting on its result: it failed intermittently{why}, \
                 not because of the agent's work."
            )
        }
        Some(FailureClass::HarnessBlocker) => {
            return format!(
                "Operator: report the harness fault seen by {check}{why} to the harness owner; \
                 the agent's work is not at fault."
            )
        }
        _ => {}
    }
    if r.failure_mode == Some(FailureMode::Transient) {
        let what = f.command.map(|c| format!("`{c}`")).unwrap_or(check);
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
    let on = f.on();
    if let Some(cmd) = probe.filter(|p| !is_prose(p)).and_then(command_name) {
        return format!("Before closeout, run `{cmd}` again{on}.");
    }
    if verifier.is_some() {
        return format!("Before closeout, run {check} again{on}.");
    }
    // A prose probe is quoted only when it names the verifier or the command of this failure.
    let named = |n: &str| Some(n) == verifier || Some(n) == f.command;
    let plain_probe =
        probe.filter(|p| only_trace_names(p) && p.split('`').skip(1).step_by(2).all(named));
    if let Some(prose) = plain_probe {
        return format!("Before closeout, {}.", prose.trim_end_matches('.'));
    }
    let _ = artifacts;
    match (f.command, f.tool, f.claim_turn) {
        (Some(a), _, _) if on.is_empty() => {
            format!("Before closeout, run `{a}` again and check that it succeeds.")
        }
        (Some(a), _, _) => format!("Before closeout, run `{a}` again and check it{on}."),
        (None, Some(t), _) if f.errored => format!(
            "Before calling `{t}` again{on}, fix its input against the error it returned{why}."
        ),
        (None, Some(t), _) => format!(
            "Before relying on the `{t}` call{on}, check its arguments and its result against \
             the task: the run failed from this step."
        ),
        (None, None, Some(turn)) => format!(
            "Before answering, check the claim made at {turn} against the task and the tool \
             results it relies on."
        ),
        (None, None, None) if on.is_empty() => "Before closeout, verify the result again.".into(),
        (None, None, None) => format!("Before closeout, verify{on} again."),
    }
}

/// A prose probe may be quoted when it backticks nothing, or only short names (the analysis
/// quotes a judge's name or a command's first line).
fn only_trace_names(prose: &str) -> bool {
    prose.split('`').skip(1).step_by(2).all(|name| !name.contains('…') && name.len() <= 80)
        && prose.matches('`').count() % 2 == 0
}

/// True when a probe is a sentence (it quotes a command, or starts with a verb of checking)
/// rather than a command line.
fn is_prose(probe: &str) -> bool {
    const VERBS: [&str; 6] = ["re-run", "rerun", "run", "check", "verify", "retry"];
    let first = probe.split_whitespace().next().unwrap_or("").to_ascii_lowercase();
    probe.contains('`') || (probe.contains(' ') && VERBS.contains(&first.as_str()))
}

/// The critical step changed what the task forbids changing (`task_constraint_broken`).
fn broke_task_constraint(r: &AttributionRecord) -> bool {
    r.attribution_heuristics.iter().any(|h| h == "task_constraint_broken")
}

fn constraint(r: &AttributionRecord, f: &HintFacts) -> Option<String> {
    let (verifier, artifacts) = (f.verifier, f.artifacts);
    let mode = r.failure_mode;
    if broke_task_constraint(r) {
        let what = if artifacts.is_empty() { "what the task protects" } else { artifacts };
        return Some(format!("{what} must stay unchanged, as the task says"));
    }
    if r.classification.is_some_and(FailureClass::is_blocker)
        || mode == Some(FailureMode::Transient)
    {
        return Some("keep the code and the approach as they are".into());
    }
    if let (Some(FailureMode::Deterministic), None, Some(cmd)) = (mode, verifier, f.command) {
        return Some(format!("do not repeat `{cmd}` unchanged"));
    }
    let on = f.on();
    if let (None, None, None, Some(turn)) = (verifier, f.command, f.tool, f.claim_turn) {
        return Some(format!(
            "the claim at {turn} must agree with the task and the tool results before answering"
        ));
    }
    Some(match (verifier, f.command, f.tool) {
        (Some(v), _, _) => format!("`{v}` must pass{on} before closeout"),
        (None, Some(c), _) => format!("`{c}` must succeed{on} before closeout"),
        (None, None, Some(t)) => format!("the `{t}` call{on} must succeed before closeout"),
        (None, None, None) if on.is_empty() => {
            "the result must pass verification before closeout".into()
        }
        (None, None, None) => format!("{} must pass verification before closeout", artifacts),
    })
}

/// Scope tags (the applicability vocabulary, documented in `docs/learning-loop.md`):
/// `verifier:NAME`, `tool:NAME`, `artifact:REF`, `lang:LANGUAGE` (from the file extension),
/// `area:DIR` (the first directory of a path), `phase:PHASE`, the failure class, and the
/// meaningful words of the artifact paths and the verifier name (`src/api/orders.ts` → `api`,
/// `orders`), so a next attempt can be matched with `--scope api` or `--scope python`.
fn applicability(
    class: Option<FailureClass>,
    verifier: Option<&str>,
    tool: Option<&str>,
    artifacts: &[String],
    phase: Option<Phase>,
) -> Vec<String> {
    let mut tags = Vec::new();
    if let Some(v) = verifier {
        tags.push(format!("verifier:{v}"));
    }
    if let Some(t) = tool {
        tags.push(format!("tool:{t}"));
    }
    for a in artifacts {
        if a.starts_with("artifact:") || a.starts_with("tool:") {
            tags.push(a.clone());
        } else {
            tags.push(format!("artifact:{a}"));
        }
    }
    for a in artifacts
        .iter()
        .filter(|a| crate::artifact::classify(a).kind == crate::artifact::RefKind::Path)
    {
        if let Some(lang) = language_of(a) {
            tags.push(format!("lang:{lang}"));
        }
        if let Some((dir, _)) = a.split_once('/') {
            tags.push(format!("area:{dir}"));
        }
    }
    if let Some(p) = phase {
        tags.push(format!("phase:{}", p.name()));
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

/// The language of a file, from its extension.
fn language_of(path: &str) -> Option<&'static str> {
    let ext = path.rsplit('/').next()?.rsplit_once('.')?.1.to_ascii_lowercase();
    Some(match ext.as_str() {
        "py" | "pyi" | "ipynb" => "python",
        "rs" => "rust",
        "ts" | "tsx" | "mts" => "typescript",
        "js" | "jsx" | "mjs" | "cjs" => "javascript",
        "go" => "go",
        "java" => "java",
        "kt" => "kotlin",
        "c" | "h" => "c",
        "cc" | "cpp" | "hpp" | "cxx" => "cpp",
        "cs" => "csharp",
        "rb" => "ruby",
        "php" => "php",
        "swift" => "swift",
        "sh" | "bash" | "zsh" => "shell",
        "md" | "rst" | "txt" => "docs",
        "json" | "yaml" | "yml" | "toml" | "ini" | "cfg" => "config",
        "html" | "css" | "scss" => "web",
        "sql" => "sql",
        _ => return None,
    })
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
    // A set as a map to nothing of a type the web bundle already has.
    let mut seen = HashMap::<String, usize>::new();
    items.filter(|s| !s.trim().is_empty() && seen.insert(s.clone(), 0).is_none()).collect()
}

/// The artifacts as they read in a hint: each through [`crate::artifact::display`], a path in
/// backticks only when that exact text is in the trace (a ref normalised from `./a//b` is not).
fn join_short(refs: &[String], t: &Trajectory) -> String {
    let show = |r: &String| -> String {
        let d = crate::artifact::display(r);
        let is_path = crate::artifact::classify(r).kind == crate::artifact::RefKind::Path;
        let in_trace =
            t.steps.iter().any(|s| s.artifact_refs.iter().any(|a| a.raw.contains(r.as_str())));
        if is_path && !in_trace {
            r.clone()
        } else {
            d
        }
    };
    match refs {
        [] => "the changed artifact".into(),
        [one] => show(one),
        [a, b] => format!("{} and {}", show(a), show(b)),
        [a, rest @ ..] => format!("{} and {} more", show(a), rest.len()),
    }
}
