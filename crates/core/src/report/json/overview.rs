//! A trajectory's [`Overview`] written field by field, byte for byte what serde_json writes for
//! it (tested on every fixture and on an overview with every field set, `tests/report_json.rs`).
//!
//! Why: an overview is about a kilobyte of JSON, most of it keys and empty or null fields, and a
//! file of 100,000 one-step runs writes 100,000 of them. Through serde each key is a separate
//! string (checked for escapes, copied); here each key is a literal fused with the punctuation
//! around it, and the usual all-empty record and usage are one literal each. A field added to
//! an overview type must be added here too: the tests fail until it is.

use serde_json::ser::Formatter as _;

use super::{write, write_str, Error};
use crate::attribution::{Candidate, Critical, Evidence, TrajectoryAnalysis, Trigger};
use crate::classify::Signals;
use crate::model::{GoldLabel, Outcome, Trajectory};
use crate::record::{AttributionRecord, FailureClass, FailureMode};
use crate::report::{FlaggedRef, Head, Overview};
use crate::usage::{AgentUsage, UsageSummary};

/// Serialises `o` as compact JSON onto the end of `out`: the bytes of [`super::write`] (and of
/// serde_json), faster.
pub fn write_overview(out: &mut Vec<u8>, o: &Overview) -> Result<(), Error> {
    view(
        out,
        &View {
            id: &o.id,
            steps: o.steps,
            outcome: o.outcome,
            task: o.task.as_deref(),
            gold: o.gold.as_ref(),
            errors: o.errors,
            agents: &o.agents,
            roles: &o.roles,
            repeated_action: o.repeated_action.as_ref().map(|(a, n)| (a.as_str(), *n)),
            analysed: o.analysed,
            critical: o.critical.as_ref(),
            candidates: &o.candidates,
            classification: o.classification,
            failure_mode: o.failure_mode,
            signals: &o.signals,
            triggers: &o.triggers,
            record: &o.record,
            usage: &o.usage,
            agent_usage: &o.agent_usage,
            flagged_artifact_refs: &o.flagged_artifact_refs,
        },
    )
}

/// The JSON of `Overview::owning(t, Some(a))` ([`write_overview`] of it, byte for byte), written
/// from the trajectory and its analysis as they are: no overview is built (its id, agents and
/// roles copied, the analysis moved into it), what `analyze --json` does for every trajectory.
pub fn write_analysed(
    out: &mut Vec<u8>,
    t: &Trajectory,
    a: &TrajectoryAnalysis,
) -> Result<(), Error> {
    write_analysed_with(out, t, a, &OverviewHead::of(t))
}

/// What an overview says of its trajectory alone (steps, agents, roles, the most repeated
/// action, usage), apart from the analysis: worked out by [`OverviewHead::of`], on another
/// thread if the caller likes, while the trajectory is analysed (on a run of 1,000,000 steps it
/// is a fifth of the analysis's time: its actions are sorted), then written with the analysis by
/// [`write_analysed_with`].
pub struct OverviewHead<'t>(Head<'t>);

impl<'t> OverviewHead<'t> {
    pub fn of(t: &'t Trajectory) -> OverviewHead<'t> {
        OverviewHead(Head::of(t))
    }
}

/// [`write_analysed`], with the head of `t`'s overview worked out already.
pub fn write_analysed_with(
    out: &mut Vec<u8>,
    t: &Trajectory,
    a: &TrajectoryAnalysis,
    head: &OverviewHead<'_>,
) -> Result<(), Error> {
    // The overview drops the failed artifact refs that escape the trace root (it flags them):
    // rare, so then the overview itself is built.
    if a.record.failed_artifact_refs.iter().any(|x| crate::artifact::escapes(x)) {
        return write_overview(out, &Overview::owning(t, Some(a.clone())));
    }
    let h = &head.0;
    view(
        out,
        &View {
            id: &t.id,
            steps: h.steps,
            outcome: h.outcome,
            task: h.task.as_deref(),
            gold: h.gold,
            errors: h.errors,
            agents: &h.agents,
            roles: h.roles(),
            repeated_action: h.repeated_action.as_ref().map(|(a, n)| (a.as_str(), *n)),
            analysed: true,
            critical: a.critical.as_ref(),
            candidates: &a.candidates,
            classification: a.classification,
            failure_mode: a.failure_mode,
            signals: &a.signals,
            triggers: &a.triggers,
            record: &a.record,
            usage: &h.usage,
            agent_usage: &h.agent_usage,
            flagged_artifact_refs: &h.flagged_artifact_refs,
        },
    )
}

/// An overview's fields, borrowed from an [`Overview`] or from a trajectory and its analysis.
struct View<'a, A: AsRef<str>, R: AsRef<str>> {
    id: &'a str,
    steps: usize,
    outcome: Outcome,
    task: Option<&'a str>,
    gold: Option<&'a GoldLabel>,
    errors: u32,
    agents: &'a [A],
    roles: &'a [(R, u32)],
    repeated_action: Option<(&'a str, u32)>,
    analysed: bool,
    critical: Option<&'a Critical>,
    candidates: &'a [Candidate],
    classification: Option<FailureClass>,
    failure_mode: Option<FailureMode>,
    signals: &'a Signals,
    triggers: &'a [Trigger],
    record: &'a AttributionRecord,
    usage: &'a UsageSummary,
    agent_usage: &'a [AgentUsage],
    flagged_artifact_refs: &'a [FlaggedRef],
}

fn view<A: AsRef<str>, R: AsRef<str>>(out: &mut Vec<u8>, o: &View<'_, A, R>) -> Result<(), Error> {
    out.extend_from_slice(b"{\"id\":");
    write_str(out, o.id);
    out.extend_from_slice(b",\"steps\":");
    uint(out, o.steps as u64);
    out.extend_from_slice(b",\"outcome\":");
    write(out, &o.outcome)?;
    out.extend_from_slice(b",\"task\":");
    opt_str(out, o.task);
    out.extend_from_slice(b",\"gold\":");
    match o.gold {
        Some(g) => write(out, g)?,
        None => out.extend_from_slice(b"null"),
    }
    out.extend_from_slice(b",\"errors\":");
    uint(out, u64::from(o.errors));
    out.extend_from_slice(b",\"agents\":");
    strs(out, o.agents);
    out.extend_from_slice(b",\"roles\":[");
    for (i, (role, n)) in o.roles.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        pair(out, role.as_ref(), *n);
    }
    out.extend_from_slice(b"],\"repeated_action\":");
    match o.repeated_action {
        Some((action, n)) => pair(out, action, n),
        None => out.extend_from_slice(b"null"),
    }
    out.extend_from_slice(if o.analysed {
        b",\"analysed\":true,\"critical\":"
    } else {
        b",\"analysed\":false,\"critical\":"
    });
    match o.critical {
        Some(c) => critical(out, c)?,
        None => out.extend_from_slice(b"null"),
    }
    list(out, b",\"candidates\":", o.candidates, candidate)?;
    out.extend_from_slice(b",\"classification\":");
    write(out, &o.classification)?;
    out.extend_from_slice(b",\"failure_mode\":");
    write(out, &o.failure_mode)?;
    out.extend_from_slice(b",\"signals\":");
    signals(out, o.signals);
    list(out, b",\"triggers\":", o.triggers, trigger)?;
    out.extend_from_slice(b",\"record\":");
    record(out, o.record)?;
    out.extend_from_slice(b",\"usage\":");
    usage(out, o.usage)?;
    if !o.agent_usage.is_empty() {
        list(out, b",\"agent_usage\":", o.agent_usage, agent_usage)?;
    }
    list(out, b",\"flagged_artifact_refs\":", o.flagged_artifact_refs, |out, f| {
        flagged(out, f);
        Ok(())
    })?;
    out.push(b'}');
    Ok(())
}

/// `key` (with its leading comma and colon), then `items` as a JSON array, each by `each`.
fn list<T>(
    out: &mut Vec<u8>,
    key: &[u8],
    items: &[T],
    mut each: impl FnMut(&mut Vec<u8>, &T) -> Result<(), Error>,
) -> Result<(), Error> {
    out.extend_from_slice(key);
    out.push(b'[');
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        each(out, item)?;
    }
    out.push(b']');
    Ok(())
}

/// A unit variant's contract name as serde writes it (quoted; the names are snake_case words,
/// nothing to escape: `the_variant_names_are_the_serialised_ones` checks them against serde).
fn name(out: &mut Vec<u8>, name: &'static str) {
    out.reserve(name.len() + 2);
    out.push(b'"');
    out.extend_from_slice(name.as_bytes());
    out.push(b'"');
}

fn uint(out: &mut Vec<u8>, v: u64) {
    // Most of an overview's numbers (steps, lines, counts) are one digit: written as it is.
    if v < 10 {
        out.push(b'0' + v as u8);
        return;
    }
    // Writing into a Vec cannot fail.
    let _ = serde_json::ser::CompactFormatter.write_u64(out, v);
}

fn opt_uint(out: &mut Vec<u8>, v: Option<u64>) {
    match v {
        Some(v) => uint(out, v),
        None => out.extend_from_slice(b"null"),
    }
}

fn opt_str(out: &mut Vec<u8>, s: Option<&str>) {
    match s {
        Some(s) => write_str(out, s),
        None => out.extend_from_slice(b"null"),
    }
}

fn strs<S: AsRef<str>>(out: &mut Vec<u8>, v: &[S]) {
    out.push(b'[');
    for (i, s) in v.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_str(out, s.as_ref());
    }
    out.push(b']');
}

/// `[text, n]`.
fn pair(out: &mut Vec<u8>, text: &str, n: u32) {
    out.push(b'[');
    write_str(out, text);
    out.push(b',');
    uint(out, u64::from(n));
    out.push(b']');
}

fn evidence(out: &mut Vec<u8>, list: &[Evidence]) -> Result<(), Error> {
    out.push(b'[');
    for (i, e) in list.iter().enumerate() {
        out.extend_from_slice(if i > 0 { b",{\"step\":" } else { b"{\"step\":" });
        uint(out, u64::from(e.step));
        out.extend_from_slice(b",\"kind\":");
        write_str(out, &e.kind);
        out.extend_from_slice(b",\"quote\":");
        write_str(out, &e.quote);
        out.extend_from_slice(b",\"rule\":");
        name(out, e.rule.as_str());
        out.push(b'}');
    }
    out.push(b']');
    Ok(())
}

/// The opening of a critical step's or a candidate's object: `{"step":…,"line":…,"agent":…`.
fn step_head(out: &mut Vec<u8>, step: u32, line: u32, agent: &str) {
    out.extend_from_slice(b"{\"step\":");
    uint(out, u64::from(step));
    out.extend_from_slice(b",\"line\":");
    uint(out, u64::from(line));
    out.extend_from_slice(b",\"agent\":");
    write_str(out, agent);
}

fn critical(out: &mut Vec<u8>, c: &Critical) -> Result<(), Error> {
    step_head(out, c.step, c.line, &c.agent);
    out.extend_from_slice(b",\"action_id\":");
    opt_str(out, c.action_id.as_deref());
    out.extend_from_slice(b",\"evidence\":");
    evidence(out, &c.evidence)?;
    out.push(b'}');
    Ok(())
}

fn candidate(out: &mut Vec<u8>, c: &Candidate) -> Result<(), Error> {
    step_head(out, c.step, c.line, &c.agent);
    out.extend_from_slice(b",\"score\":");
    write(out, &c.score)?;
    out.extend_from_slice(b",\"category\":");
    name(out, c.category.name());
    out.extend_from_slice(b",\"phase\":");
    name(out, c.phase.name());
    out.extend_from_slice(b",\"state\":");
    name(out, c.state.name());
    out.extend_from_slice(b",\"evidence\":");
    evidence(out, &c.evidence)?;
    out.extend_from_slice(b",\"instance\":");
    opt_uint(out, c.instance.map(|i| i as u64));
    out.extend_from_slice(b",\"why\":");
    strs(out, &c.why);
    out.push(b'}');
    Ok(())
}

fn signals(out: &mut Vec<u8>, s: &Signals) {
    fn flag(out: &mut Vec<u8>, v: bool) {
        out.extend_from_slice(if v { b"true" } else { b"false" });
    }
    out.extend_from_slice(b"{\"repeated_actions\":");
    uint(out, u64::from(s.repeated_actions));
    out.extend_from_slice(b",\"repeated_failures\":");
    uint(out, u64::from(s.repeated_failures));
    out.extend_from_slice(b",\"attempts\":");
    uint(out, u64::from(s.attempts));
    out.extend_from_slice(b",\"repetition\":");
    flag(out, s.repetition);
    out.extend_from_slice(b",\"attempts_exceeded\":");
    flag(out, s.attempts_exceeded);
    out.extend_from_slice(b",\"budget_exhausted\":");
    flag(out, s.budget_exhausted);
    out.extend_from_slice(b",\"escalate\":");
    flag(out, s.escalate);
    out.push(b'}');
}

fn trigger(out: &mut Vec<u8>, t: &Trigger) -> Result<(), Error> {
    out.extend_from_slice(b"{\"step\":");
    uint(out, u64::from(t.step));
    out.extend_from_slice(b",\"category\":");
    name(out, t.category.name());
    out.extend_from_slice(b",\"phase\":");
    name(out, t.phase.name());
    out.extend_from_slice(b",\"wrong_quote\":");
    write_str(out, &t.wrong_quote);
    out.extend_from_slice(b",\"reference_quote\":");
    write_str(out, &t.reference_quote);
    out.extend_from_slice(b",\"reference_step\":");
    opt_uint(out, t.reference_step.map(u64::from));
    out.extend_from_slice(b",\"rule\":");
    name(out, t.rule.as_str());
    out.extend_from_slice(b",\"object\":");
    write_str(out, &t.object);
    if let Some(b) = &t.blocker {
        out.extend_from_slice(b",\"blocker\":");
        write(out, b)?;
    }
    out.push(b'}');
    Ok(())
}

/// The record of a run that did not fail: every field empty.
const EMPTY_RECORD: &[u8] = b"{\"failure_event\":null,\"failure_event_step\":null,\
\"failure_turn_id\":null,\"failed_artifact_refs\":[],\"source_action_ids\":[],\
\"verifier_action_id\":null,\"touched_action_ids\":[],\"memory_read_node_ids\":[],\
\"evidence_refs\":[],\"root_cause_summary\":\"\",\"verification_probe_candidate\":null,\
\"classification\":null,\"failure_mode\":null,\"attribution_heuristics\":[]}";

fn record(out: &mut Vec<u8>, r: &AttributionRecord) -> Result<(), Error> {
    let empty = r.failure_event.is_none()
        && r.failure_event_step.is_none()
        && r.failure_turn_id.is_none()
        && r.failed_artifact_refs.is_empty()
        && r.source_action_ids.is_empty()
        && r.verifier_action_id.is_none()
        && r.touched_action_ids.is_empty()
        && r.memory_read_node_ids.is_empty()
        && r.evidence_refs.is_empty()
        && r.root_cause_summary.is_empty()
        && r.verification_probe_candidate.is_none()
        && r.classification.is_none()
        && r.failure_mode.is_none()
        && r.attribution_heuristics.is_empty();
    if empty {
        out.extend_from_slice(EMPTY_RECORD);
        return Ok(());
    }
    out.extend_from_slice(b"{\"failure_event\":");
    opt_str(out, r.failure_event.as_deref());
    out.extend_from_slice(b",\"failure_event_step\":");
    opt_uint(out, r.failure_event_step.map(u64::from));
    out.extend_from_slice(b",\"failure_turn_id\":");
    opt_str(out, r.failure_turn_id.as_deref());
    out.extend_from_slice(b",\"failed_artifact_refs\":");
    strs(out, &r.failed_artifact_refs);
    out.extend_from_slice(b",\"source_action_ids\":");
    strs(out, &r.source_action_ids);
    out.extend_from_slice(b",\"verifier_action_id\":");
    opt_str(out, r.verifier_action_id.as_deref());
    out.extend_from_slice(b",\"touched_action_ids\":");
    strs(out, &r.touched_action_ids);
    out.extend_from_slice(b",\"memory_read_node_ids\":");
    strs(out, &r.memory_read_node_ids);
    out.extend_from_slice(b",\"evidence_refs\":");
    strs(out, &r.evidence_refs);
    out.extend_from_slice(b",\"root_cause_summary\":");
    write_str(out, &r.root_cause_summary);
    out.extend_from_slice(b",\"verification_probe_candidate\":");
    opt_str(out, r.verification_probe_candidate.as_deref());
    out.extend_from_slice(b",\"classification\":");
    write(out, &r.classification)?;
    out.extend_from_slice(b",\"failure_mode\":");
    write(out, &r.failure_mode)?;
    out.extend_from_slice(b",\"attribution_heuristics\":");
    strs(out, &r.attribution_heuristics);
    out.push(b'}');
    Ok(())
}

/// The usage of a trajectory whose format records none.
const NO_USAGE: &[u8] = b"{\"input_tokens\":null,\"output_tokens\":null,\
\"cache_read_tokens\":null,\"cache_write_tokens\":null,\"cost_usd\":null,\"duration_ms\":null,\
\"steps_with_usage\":0}";

fn usage(out: &mut Vec<u8>, u: &UsageSummary) -> Result<(), Error> {
    if *u == UsageSummary::default() {
        out.extend_from_slice(NO_USAGE);
        return Ok(());
    }
    out.extend_from_slice(b"{\"input_tokens\":");
    opt_uint(out, u.input_tokens);
    out.extend_from_slice(b",\"output_tokens\":");
    opt_uint(out, u.output_tokens);
    out.extend_from_slice(b",\"cache_read_tokens\":");
    opt_uint(out, u.cache_read_tokens);
    out.extend_from_slice(b",\"cache_write_tokens\":");
    opt_uint(out, u.cache_write_tokens);
    out.extend_from_slice(b",\"cost_usd\":");
    write(out, &u.cost_usd)?;
    out.extend_from_slice(b",\"duration_ms\":");
    opt_uint(out, u.duration_ms);
    out.extend_from_slice(b",\"steps_with_usage\":");
    uint(out, u.steps_with_usage as u64);
    out.push(b'}');
    Ok(())
}

fn agent_usage(out: &mut Vec<u8>, a: &AgentUsage) -> Result<(), Error> {
    out.extend_from_slice(b"{\"agent\":");
    write_str(out, &a.agent);
    out.extend_from_slice(b",\"steps\":");
    uint(out, a.steps as u64);
    out.extend_from_slice(b",\"usage\":");
    usage(out, &a.usage)?;
    out.push(b'}');
    Ok(())
}

fn flagged(out: &mut Vec<u8>, f: &FlaggedRef) {
    out.extend_from_slice(b"{\"ref\":");
    write_str(out, &f.reference);
    out.extend_from_slice(b",\"reason\":");
    write_str(out, &f.reason);
    out.extend_from_slice(b",\"step\":");
    uint(out, u64::from(f.step));
    out.push(b'}');
}

#[cfg(test)]
mod tests {
    use crate::attribution::rules::Rule;
    use crate::attribution::InstanceState;
    use crate::record::{Category, Phase};

    #[test]
    fn the_variant_names_are_the_serialised_ones() {
        let quoted = |n: &str| format!("\"{n}\"");
        for v in Category::ALL {
            assert_eq!(serde_json::to_string(&v).unwrap(), quoted(v.name()));
        }
        for v in Phase::ALL {
            assert_eq!(serde_json::to_string(&v).unwrap(), quoted(v.name()));
        }
        for v in Rule::ALL {
            assert_eq!(serde_json::to_string(&v).unwrap(), quoted(v.as_str()));
        }
        use InstanceState::*;
        for v in [CheapResolution, CostlyResolution, ManifestActive, LatentActive] {
            assert_eq!(serde_json::to_string(&v).unwrap(), quoted(v.name()));
        }
        for n in Category::ALL.map(Category::name).iter().chain(Rule::ALL.map(Rule::as_str).iter())
        {
            assert!(n.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'), "{n}");
        }
    }
}
