//! Failed turn cases (SPEC §2.7): building, strict validation, loading and merging.
//!
//! A case is the compact metadata of one failed turn, built from an [`AttributionRecord`] and
//! its trajectory: schema v1 of seed 001 (`schema_version`, `case_id`, `turn_id`,
//! `failure_turn_id`, `failure_event_id`, `artifact_refs`, `memory_read_node_ids`,
//! `prevention_hint`, `applicability`, `evidence_refs`) plus the classification, the failure mode,
//! the phase, and the reflect parts of seed 004 (`failed_action`, `failure_reason`, `constraint`).
//!
//! Invariant: validation runs on the raw JSON (a case read from a file is checked field by field,
//! unknown fields included) and every error is reported; an invalid case is never exported.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::model::{Step, StepKind, Trajectory};
use crate::record::{AttributionRecord, FailureClass, FailureMode, Phase};

/// The only case schema version this build reads and writes.
pub const SCHEMA_VERSION: u64 = 1;

/// Longest `failed_action` / `failure_reason` kept in a case (characters).
const MAX_FIELD_CHARS: usize = 160;

/// One failed turn case.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FailedTurnCase {
    pub schema_version: u64,
    pub case_id: String,
    pub turn_id: String,
    pub failure_turn_id: String,
    pub failure_event_id: String,
    pub artifact_refs: Vec<String>,
    #[serde(default)]
    pub memory_read_node_ids: Vec<String>,
    /// One actionable sentence for the next attempt (seed 004's "what to try next").
    pub prevention_hint: String,
    /// Scope tags: which next attempts the case is about (`verifier:contract-verifier`, `api`).
    pub applicability: Vec<String>,
    pub evidence_refs: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub classification: Option<FailureClass>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure_mode: Option<FailureMode>,
    /// Phase of the failing step; a brief for another phase leaves the case out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<Phase>,
    /// Reflect form (seed 004): what was tried.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed_action: Option<String>,
    /// Reflect form: why it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure_reason: Option<String>,
    /// Reflect form: the constraint for the next attempt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub constraint: Option<String>,
}

/// Every field a v1 case may carry; anything else is reported as unknown.
const KNOWN_FIELDS: [&str; 16] = [
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
    "classification",
    "failure_mode",
    "phase",
    "failed_action",
    "failure_reason",
    "constraint",
];

/// A case (or a line that should have been one) with its validation result.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CaseCheck {
    /// 1-based line in the JSONL it came from (0 for a case built from a trace).
    #[serde(skip_serializing_if = "is_zero")]
    pub line: u32,
    /// The `case_id` when it is a string (also for invalid cases, to find them).
    pub case_id: Option<String>,
    pub valid: bool,
    pub errors: Vec<String>,
    /// The typed case when it is valid.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub case: Option<FailedTurnCase>,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

/// The FNV-1a 64-bit hash of `parts` joined by NUL: stable across platforms and runs.
pub fn stable_hash(parts: &[&str]) -> u64 {
    let mut h = ContentHasher::new();
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            h.update(b"\0");
        }
        h.update(part.as_bytes());
    }
    h.state
}

/// A streaming FNV-1a 64 digest of a trace's bytes, fed chunk by chunk as they are read: the
/// `content_hash` that fixes case ids (`fnv1a64:` + 16 hex digits).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ContentHasher {
    state: u64,
}

impl Default for ContentHasher {
    fn default() -> Self {
        ContentHasher { state: FNV_OFFSET }
    }
}

impl ContentHasher {
    pub fn new() -> Self {
        ContentHasher::default()
    }

    pub fn update(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.state ^= u64::from(*b);
            self.state = self.state.wrapping_mul(FNV_PRIME);
        }
    }

    pub fn finish(&self) -> String {
        format!("fnv1a64:{:016x}", self.state)
    }
}

/// The case id for a failure: stable for the same trace content, trajectory and step.
pub fn case_id_for(content_hash: &str, trajectory_id: &str, step_key: &str) -> String {
    format!("case-{:016x}", stable_hash(&[content_hash, trajectory_id, step_key]))
}

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
    match f.command {
        Some(a) => format!("Before closeout, run `{a}` again and check that {artifacts} passes."),
        None => format!("Before closeout, verify {artifacts} again."),
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

/// The snake_case name of a class, as serialised.
pub fn class_name(c: FailureClass) -> &'static str {
    match c {
        FailureClass::AgentFailure => "agent_failure",
        FailureClass::VerificationFailure => "verification_failure",
        FailureClass::EnvironmentBlocker => "environment_blocker",
        FailureClass::FlakyBlocker => "flaky_blocker",
        FailureClass::HarnessBlocker => "harness_blocker",
    }
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

/// Cuts `text` to at most `max` characters on a char boundary, marking the cut with `…`.
pub fn shorten(text: &str, max: usize) -> String {
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= max {
        return flat;
    }
    let cut: String = flat.chars().take(max.saturating_sub(1)).collect();
    format!("{}…", cut.trim_end())
}

/// Checks a typed case (serialised, then [`validate_value`]).
pub fn check_case(case: &FailedTurnCase) -> CaseCheck {
    let value = serde_json::to_value(case).unwrap_or(Value::Null);
    check_value(&value, 0)
}

/// Checks one raw JSON value as a v1 case; the typed case is kept only when it is valid.
pub fn check_value(value: &Value, line: u32) -> CaseCheck {
    let errors = validate_value(value);
    let case_id = value.get("case_id").and_then(Value::as_str).map(str::to_string);
    let case = if errors.is_empty() {
        serde_json::from_value::<FailedTurnCase>(value.clone()).ok()
    } else {
        None
    };
    // A value that passes every rule but still does not type-check is reported, not accepted.
    let mut errors = errors;
    if errors.is_empty() && case.is_none() {
        errors.push("case does not match the v1 schema".into());
    }
    CaseCheck { line, case_id, valid: errors.is_empty(), errors, case }
}

/// Every rule of SPEC §2.7, on raw JSON. Returns all errors (empty when the case is valid).
pub fn validate_value(value: &Value) -> Vec<String> {
    let Some(obj) = value.as_object() else {
        return vec!["case must be a JSON object".into()];
    };
    let mut errors = Vec::new();
    match obj.get("schema_version") {
        None => errors.push("schema_version is required".into()),
        Some(v) if v.as_u64() == Some(SCHEMA_VERSION) => {}
        Some(v) => errors.push(format!("unknown schema_version {v} (known: {SCHEMA_VERSION})")),
    }
    for key in ["case_id", "turn_id", "failure_turn_id", "failure_event_id", "prevention_hint"] {
        require_string(obj, key, &mut errors);
    }
    if let (Some(Value::String(a)), Some(Value::String(b))) =
        (obj.get("turn_id"), obj.get("failure_turn_id"))
    {
        if a != b {
            errors.push("turn_id and failure_turn_id must match".into());
        }
    }
    for key in ["artifact_refs", "evidence_refs", "applicability"] {
        if !is_string_list(obj.get(key), false) {
            errors.push(format!("{key} must be a non-empty array of strings"));
        }
    }
    if obj.contains_key("memory_read_node_ids")
        && !is_string_list(obj.get("memory_read_node_ids"), true)
    {
        errors.push("memory_read_node_ids must be an array of strings".into());
    }
    check_enum::<FailureClass>(obj, "classification", &mut errors);
    check_enum::<FailureMode>(obj, "failure_mode", &mut errors);
    check_enum::<Phase>(obj, "phase", &mut errors);
    for key in ["failed_action", "failure_reason", "constraint"] {
        if let Some(v) = obj.get(key) {
            if !v.is_string() {
                errors.push(format!("{key} must be a string"));
            }
        }
    }
    let mut unknown: Vec<&String> =
        obj.keys().filter(|k| !KNOWN_FIELDS.contains(&k.as_str())).collect();
    unknown.sort();
    for k in unknown {
        errors.push(format!("unknown field `{k}`"));
    }
    errors
}

fn require_string(obj: &Map<String, Value>, key: &str, errors: &mut Vec<String>) {
    match obj.get(key) {
        None => errors.push(format!("{key} is required")),
        Some(Value::String(s)) if !s.trim().is_empty() => {}
        Some(_) => errors.push(format!("{key} must be a non-empty string")),
    }
}

fn is_string_list(v: Option<&Value>, may_be_empty: bool) -> bool {
    match v {
        Some(Value::Array(items)) => {
            (may_be_empty || !items.is_empty())
                && items.iter().all(|i| i.as_str().is_some_and(|s| !s.trim().is_empty()))
        }
        _ => false,
    }
}

fn check_enum<T: serde::de::DeserializeOwned>(
    obj: &Map<String, Value>,
    key: &str,
    errors: &mut Vec<String>,
) {
    if let Some(v) = obj.get(key) {
        if !v.is_null() && serde_json::from_value::<T>(v.clone()).is_err() {
            errors.push(format!("unknown {key} {v}"));
        }
    }
}

/// The result of reading a cases JSONL: every line checked, nothing fatal.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct LoadedCases {
    /// One check per non-blank line, in file order (a line that is not JSON is an invalid entry).
    pub checks: Vec<CaseCheck>,
}

impl LoadedCases {
    /// The valid cases, in file order.
    pub fn valid(&self) -> impl Iterator<Item = &FailedTurnCase> {
        self.checks.iter().filter_map(|c| c.case.as_ref())
    }
}

/// Reads cases JSONL (bytes; invalid UTF-8 is reported per line).
pub fn load_jsonl(bytes: &[u8]) -> LoadedCases {
    let mut checks = Vec::new();
    for (i, raw) in bytes.split(|b| *b == b'\n').enumerate() {
        let line = u32::try_from(i + 1).unwrap_or(u32::MAX);
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        if raw.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let check = match serde_json::from_slice::<Value>(raw) {
            Ok(v) => check_value(&v, line),
            Err(e) => CaseCheck {
                line,
                case_id: None,
                valid: false,
                errors: vec![format!("not JSON: {e}")],
                case: None,
            },
        };
        checks.push(check);
    }
    LoadedCases { checks }
}

/// Merges case lists in order; a later case with an already seen `case_id` collapses into the
/// first (the earliest source wins). Returns the merged cases and how many collapsed.
pub fn merge<'a>(
    sources: impl IntoIterator<Item = &'a FailedTurnCase>,
) -> (Vec<FailedTurnCase>, usize) {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    let mut collapsed = 0;
    for c in sources {
        if seen.insert(c.case_id.clone()) {
            out.push(c.clone());
        } else {
            collapsed += 1;
        }
    }
    (out, collapsed)
}

/// Exports cases as JSONL: only cases that pass validation are written; the others come back
/// with their errors.
pub fn export_jsonl(cases: &[FailedTurnCase]) -> (String, Vec<CaseCheck>) {
    let mut out = String::new();
    let mut rejected = Vec::new();
    for c in cases {
        let check = check_case(c);
        if check.valid {
            if let Ok(line) = serde_json::to_string(c) {
                out.push_str(&line);
                out.push('\n');
            }
        } else {
            rejected.push(check);
        }
    }
    (out, rejected)
}
