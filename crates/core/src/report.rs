//! The analysis report: the JSON contract of `trajscope analyze --json` (`docs/report.md`), and
//! [`Overview`], the one per-trajectory overview both the CLI and the app show.
//!
//! Field names here are a public contract (other tools and tests rely on them); add fields,
//! never rename them.

pub mod json;

use serde::{Deserialize, Serialize};

use std::borrow::Cow;

use crate::attribution::{self, AnalysisOptions, Candidate, Critical, TrajectoryAnalysis, Trigger};
use crate::classify::Signals;
use crate::model::{
    Format, GoldLabel, IngestStats, Outcome, QuarantineEntry, Role, StepKind, Trace, Trajectory,
};
use crate::record::{AttributionRecord, FailureClass, FailureMode};
use crate::session::text::elide;
use crate::usage::{self, UsageSummary};

/// One quarantined line as exported (`trajscope quarantine`, the app's quarantine export).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct QuarantineRecord {
    pub line: u64,
    pub offset: u64,
    pub reason: String,
    pub truncated_tail: bool,
    /// The exact bytes, base64.
    pub raw_base64: String,
    /// The bytes as text, invalid UTF-8 replaced (for display only).
    pub raw: String,
    /// True in the redacted export (`crate::redact::quarantine_record`): the bytes are the
    /// line with its secrets masked, not the exact bytes. Absent in the exact export.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub redacted: bool,
}

impl QuarantineRecord {
    pub fn from_entry(q: &QuarantineEntry) -> QuarantineRecord {
        use base64::Engine as _;
        QuarantineRecord {
            line: q.line,
            offset: q.offset,
            reason: q.reason.clone(),
            truncated_tail: q.truncated_tail,
            raw_base64: base64::engine::general_purpose::STANDARD.encode(&q.raw),
            raw: String::from_utf8_lossy(&q.raw).into_owned(),
            redacted: false,
        }
    }
}

/// One trajectory's overview with its analysis: what `analyze --json` reports per trajectory
/// and what the app's queue and panels show (the one overview type of both shells; see
/// `docs/report.md`). Built by [`crate::session::Session::overview`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Overview {
    pub id: String,
    /// Number of steps.
    pub steps: usize,
    pub outcome: Outcome,
    /// The task, elided to [`TASK_CHARS`] characters.
    #[serde(default)]
    pub task: Option<String>,
    /// The gold label the source carries (benchmark files), if any.
    #[serde(default)]
    pub gold: Option<GoldLabel>,
    /// Steps the source flagged as errors.
    #[serde(default)]
    pub errors: u32,
    /// Distinct actors, in order of first appearance.
    #[serde(default)]
    pub agents: Vec<String>,
    /// Steps per role name, in order of first appearance.
    #[serde(default)]
    pub roles: Vec<(String, u32)>,
    /// The most repeated identical action (tool and arguments, elided) and its count (2 or
    /// more).
    #[serde(default)]
    pub repeated_action: Option<(String, u32)>,
    /// False while the analysis fields below are still empty (the app analyses trajectories
    /// one by one after load; the CLI reports only analysed ones).
    #[serde(default = "yes")]
    pub analysed: bool,
    /// The predicted critical step; null when the run did not fail.
    pub critical: Option<Critical>,
    /// Ranked candidate critical steps (best first).
    pub candidates: Vec<Candidate>,
    pub classification: Option<FailureClass>,
    pub failure_mode: Option<FailureMode>,
    pub signals: Signals,
    /// Every trigger found, with its verbatim quotes.
    pub triggers: Vec<Trigger>,
    /// The attribution record (empty fields when the run did not fail). Its
    /// `failed_artifact_refs` never hold a ref that escapes the trace root.
    pub record: AttributionRecord,
    /// Tokens, cost and duration as the format records them, `null` where it records none
    /// (`docs/usage.md`).
    #[serde(default)]
    pub usage: UsageSummary,
    /// The same per agent (actor), in order of first appearance; empty when no step records
    /// usage.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub agent_usage: Vec<usage::AgentUsage>,
    /// Every artifact ref of the trajectory that escapes the trace root, with the reason it was
    /// flagged (never followed, never in a case or a brief).
    #[serde(default)]
    pub flagged_artifact_refs: Vec<FlaggedRef>,
}

/// An artifact ref flagged because it escapes the trace root.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlaggedRef {
    /// The ref as written in the trace.
    #[serde(rename = "ref")]
    pub reference: String,
    pub reason: String,
    /// The step that names it.
    pub step: u32,
}

/// The flagged refs of a trajectory, in step order.
pub fn flagged_refs(t: &Trajectory) -> Vec<FlaggedRef> {
    // Most trajectories flag none: nothing collected then.
    if !t.steps.iter().any(|s| s.artifact_refs.iter().any(|a| a.escapes_root)) {
        return Vec::new();
    }
    t.steps
        .iter()
        .flat_map(|s| {
            s.artifact_refs.iter().filter(|a| a.escapes_root).map(|a| FlaggedRef {
                reference: a.raw.clone(),
                reason: a.reason.clone().unwrap_or_else(|| "escapes the trace root".into()),
                step: s.index,
            })
        })
        .collect()
}

fn yes() -> bool {
    true
}

/// The old name of [`Overview`].
pub type TrajectorySummary = Overview;

/// The most characters of a task an overview carries.
pub const TASK_CHARS: usize = 600;
/// The most characters of a repeated action an overview carries.
pub const ACTION_CHARS: usize = 120;

impl Overview {
    /// Analyses `t` and gives its overview.
    pub fn new(t: &Trajectory) -> Overview {
        Overview::with_options(t, &AnalysisOptions::default())
    }

    pub fn with_options(t: &Trajectory, opts: &AnalysisOptions) -> Overview {
        Overview::owning(t, Some(attribution::analyze_trajectory(t, opts)))
    }

    /// The overview of `t` with its analysis, or with empty analysis fields (`analysed`
    /// false) when there is none yet.
    pub fn of(t: &Trajectory, a: Option<&TrajectoryAnalysis>) -> Overview {
        Overview::owning(t, a.cloned())
    }

    /// [`Overview::of`], taking the analysis (no copy of its triggers and record).
    pub fn owning(t: &Trajectory, a: Option<TrajectoryAnalysis>) -> Overview {
        let h = Head::of(t);
        let roles = h.roles().iter().map(|&(r, n)| (r.to_string(), n)).collect();
        let mut o = Overview {
            id: t.id.clone(),
            steps: h.steps,
            outcome: h.outcome,
            usage: h.usage,
            agent_usage: h.agent_usage,
            task: h.task.map(Cow::into_owned),
            gold: h.gold.cloned(),
            errors: h.errors,
            agents: h.agents.iter().map(|a| a.to_string()).collect(),
            roles,
            repeated_action: h.repeated_action,
            analysed: a.is_some(),
            critical: None,
            candidates: Vec::new(),
            classification: None,
            failure_mode: None,
            signals: Signals::default(),
            triggers: Vec::new(),
            record: AttributionRecord::default(),
            flagged_artifact_refs: h.flagged_artifact_refs,
        };
        if let Some(a) = a {
            o.critical = a.critical;
            o.candidates = a.candidates;
            o.classification = a.classification;
            o.failure_mode = a.failure_mode;
            o.signals = a.signals;
            o.triggers = a.triggers;
            o.record = a.record;
            // Refs that escape the trace root are flagged in `flagged_artifact_refs`, never
            // reported as failed artifacts.
            o.record.failed_artifact_refs.retain(|x| !crate::artifact::escapes(x));
        }
        o
    }
}

/// What an overview says of its trajectory alone (no analysis), borrowing what it can: computed
/// once for the owned [`Overview`] ([`Overview::owning`]) and for the overview JSON written
/// straight from a trajectory and its analysis ([`json::write_analysed`], no owned copy of the
/// id, agents and roles, nor of the analysis moved into an overview).
pub(crate) struct Head<'t> {
    pub steps: usize,
    pub outcome: Outcome,
    /// The task, elided to [`TASK_CHARS`] characters (borrowed when that is all of it).
    pub task: Option<Cow<'t, str>>,
    pub gold: Option<&'t GoldLabel>,
    pub errors: u32,
    pub agents: Vec<&'t str>,
    /// Steps per role, in order of first appearance: the first `role_count` entries.
    roles: [(&'static str, u32); Role::NAMES.len()],
    role_count: usize,
    pub repeated_action: Option<(String, u32)>,
    pub usage: UsageSummary,
    pub agent_usage: Vec<usage::AgentUsage>,
    pub flagged_artifact_refs: Vec<FlaggedRef>,
}

impl<'t> Head<'t> {
    pub fn of(t: &'t Trajectory) -> Head<'t> {
        let mut agents: Vec<&str> = Vec::new();
        // A set of the agents once there are too many to scan (most runs have a handful).
        // (A map to `()`: the set type the detector has, not one more table type in the web
        // bundle.)
        let mut seen: Option<crate::attribution::text::FastMap<&str, ()>> = None;
        // Each role's position in `roles` plus one, 0 while not seen (a role is one of seven).
        let mut role_at = [0u8; Role::NAMES.len()];
        let mut roles = [("", 0u32); Role::NAMES.len()];
        let mut role_count = 0;
        // An action: its tool and its arguments. The first is held apart: a run of one action
        // (most runs of one step) needs no list.
        type Action<'t> = (Option<&'t str>, Option<&'t str>);
        let mut first_action: Option<Action> = None;
        let mut actions: Vec<Action> = Vec::new();
        let mut errors = 0;
        for s in &t.steps {
            if !s.actor.is_empty() {
                let new = match &mut seen {
                    Some(set) => set.insert(&s.actor, ()).is_none(),
                    None => !agents.iter().any(|a| *a == s.actor),
                };
                if new {
                    agents.push(&s.actor);
                    if seen.is_none() && agents.len() > 16 {
                        seen = Some(agents.iter().map(|a| (*a, ())).collect());
                    }
                }
            }
            let r = s.role as usize;
            if role_at[r] == 0 {
                roles[role_count] = (s.role.name(), 0);
                role_count += 1;
                role_at[r] = role_count as u8;
            }
            roles[role_at[r] as usize - 1].1 += 1;
            if s.is_error {
                errors += 1;
            }
            if s.kind == StepKind::Action && (s.tool.is_some() || s.args.is_some()) {
                let action = (s.tool.as_deref(), s.args.as_deref());
                match first_action {
                    None => first_action = Some(action),
                    Some(first) => {
                        if actions.is_empty() {
                            actions.push(first);
                        }
                        actions.push(action);
                    }
                }
            }
        }
        // The most repeated action (2 or more), ties to the smallest (tool, args): sorted, the
        // first run of the greatest length.
        crate::sort::sort(&mut actions);
        let mut repeated: Option<(Action, u32)> = None;
        for run in actions.chunk_by(|a, b| a == b) {
            let n = run.len() as u32;
            if n >= 2 && repeated.is_none_or(|(_, best)| n > best) {
                repeated = Some((run[0], n));
            }
        }
        let repeated_action = repeated.map(|((tool, args), n)| {
            let what = [tool, args].into_iter().flatten().collect::<Vec<_>>().join(" ");
            (elide(&what, ACTION_CHARS), n)
        });
        let usage = usage::trajectory_usage(t);
        let agent_usage = if usage.steps_with_usage > 0 { usage::by_agent(t) } else { Vec::new() };
        Head {
            steps: t.steps.len(),
            outcome: t.outcome,
            // A text of at most TASK_CHARS bytes has at most that many characters: as it is.
            task: t.task.as_deref().map(|x| {
                if x.len() <= TASK_CHARS {
                    Cow::Borrowed(x)
                } else {
                    Cow::Owned(elide(x, TASK_CHARS))
                }
            }),
            gold: t.gold.as_ref(),
            errors,
            agents,
            roles,
            role_count,
            repeated_action,
            usage,
            agent_usage,
            flagged_artifact_refs: flagged_refs(t),
        }
    }

    /// Steps per role name, in order of first appearance.
    pub fn roles(&self) -> &[(&'static str, u32)] {
        &self.roles[..self.role_count]
    }
}

/// The whole report of `analyze`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub format: Format,
    pub stats: IngestStats,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub quarantine: Vec<QuarantineRecord>,
    pub trajectories: Vec<Overview>,
}

impl Report {
    pub fn new(trace: &Trace) -> Report {
        Report::with_summaries(trace, trace.trajectories.iter().map(Overview::new).collect())
    }

    /// The report with trajectory summaries computed by the caller (in trajectory order), e.g.
    /// the CLI analysing independent trajectories on several threads.
    pub fn with_summaries(trace: &Trace, trajectories: Vec<Overview>) -> Report {
        Report {
            format: trace.format,
            stats: trace.stats.clone(),
            error: trace.error.clone(),
            quarantine: trace.quarantine.iter().map(QuarantineRecord::from_entry).collect(),
            trajectories,
        }
    }

    /// The report's JSON written in pieces, so a large trace's overviews never all exist at
    /// once: this head (`{"format":…,"quarantine":[…],"trajectories":[`), then each
    /// trajectory's overview ([`json::write`]) with a comma between two, then
    /// [`Report::JSON_TAIL`]. The bytes are those of serialising the whole [`Report`] with
    /// serde_json (tested).
    pub fn write_json_head(trace: &Trace, out: &mut Vec<u8>) -> Result<(), json::Error> {
        Report::write_json_head_in_pieces(trace, out, usize::MAX, |_| Ok::<_, json::Error>(()))
    }

    /// [`Report::write_json_head`] for a caller that writes it out as it goes: whenever `out`
    /// holds `piece` bytes or more after a quarantined line's record, `spill` is handed it to
    /// write its bytes out and empty it (what it leaves in `out` is written after). A file of
    /// mostly damaged lines has a head several times its size (each line's bytes in base64 and
    /// as text): written in pieces, it is never held whole.
    pub fn write_json_head_in_pieces<E: From<json::Error>>(
        trace: &Trace,
        out: &mut Vec<u8>,
        piece: usize,
        mut spill: impl FnMut(&mut Vec<u8>) -> Result<(), E>,
    ) -> Result<(), E> {
        out.extend_from_slice(b"{\"format\":");
        json::write(out, &trace.format)?;
        out.extend_from_slice(b",\"stats\":");
        json::write(out, &trace.stats)?;
        if let Some(error) = &trace.error {
            out.extend_from_slice(b",\"error\":");
            json::write_str(out, error);
        }
        out.extend_from_slice(b",\"quarantine\":[");
        for (i, q) in trace.quarantine.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            json::write(out, &QuarantineRecord::from_entry(q))?;
            if out.len() >= piece {
                spill(out)?;
            }
        }
        out.extend_from_slice(b"],\"trajectories\":[");
        Ok(())
    }

    /// What closes the JSON [`Report::write_json_head`] opened.
    pub const JSON_TAIL: &'static [u8] = b"]}";
}
