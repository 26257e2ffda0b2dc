//! Error instances: triggers grouped by the reference object they violate, and their state.
//!
//! A trigger joins the open instance of its object, except that a failed command repeated after
//! a *different* agent action (a repair attempt) starts a new instance: the repair failed again.
//! Resolution: a command object is resolved when the same command later succeeds; a verified
//! action or an edit when a later verifier or test run passes; claims, budget and answers never
//! resolve. Footprints: an irreversible action after the error (before its fix), a semantic
//! footprint (still active and reaching the end: a success claim over it, a failed verdict, the
//! final answer, or it is the run's last error), and budget debt (the instance spans more than
//! `budget_debt` of the trajectory).

use super::rules::Rule;
use super::text::FastMap;
use super::triggers::Found;
use super::{AnalysisOptions, ErrorInstance, Footprint, InstanceState};
use crate::model::Trajectory;

/// Groups the triggers into instances and classifies each one's state.
pub fn build(
    traj: &Trajectory,
    found: &Found,
    opts: &AnalysisOptions,
    failed: bool,
) -> Vec<ErrorInstance> {
    let n = traj.steps.len().max(1);
    let mut out: Vec<ErrorInstance> = Vec::new();
    let mut open: FastMap<&str, usize> = FastMap::default();
    for (ti, t) in found.triggers.iter().enumerate() {
        let reach = t.step.max(t.reference_step.unwrap_or(t.step));
        if let Some(&ii) = open.get(t.object.as_str()) {
            let inst = &out[ii];
            let splits = matches!(
                t.rule,
                Rule::FailedCommand | Rule::PlaceholderCommand | Rule::RepeatedAction
            ) && repaired_between(found, inst.last_step, t.step, t.object.as_str());
            if !splits {
                let inst = &mut out[ii];
                inst.triggers.push(ti);
                inst.origin_step = inst.origin_step.min(t.step);
                inst.last_step = inst.last_step.max(reach);
                continue;
            }
        }
        open.insert(t.object.as_str(), out.len());
        out.push(ErrorInstance {
            object: t.object.clone(),
            triggers: vec![ti],
            origin_step: t.step,
            last_step: reach,
            resolved_at: None,
            footprints: Vec::new(),
            state: InstanceState::LatentActive,
        });
    }
    let last_error_step = out.iter().map(|i| i.last_step).max();
    let last_judge = found.failed_judges.last().map(|&j| j as u32);
    for inst in &mut out {
        inst.resolved_at = resolution(traj, found, inst);
        let end = inst.resolved_at.unwrap_or((n - 1) as u32);
        let mut fp = Vec::new();
        if first_after(&found.irreversible_steps, inst.origin_step).is_some_and(|s| s <= end) {
            fp.push(Footprint::Irreversible);
        }
        if inst.resolved_at.is_none() && failed {
            let mut semantic = inst.object == "answer"
                || Some(inst.last_step) == last_error_step
                || inst.triggers.iter().any(|&t| found.triggers[t].rule == Rule::ClaimContradicted);
            semantic |= inst
                .triggers
                .iter()
                .any(|&t| found.triggers[t].reference_step.is_some_and(|r| Some(r) == last_judge));
            if semantic {
                fp.push(Footprint::Semantic);
            }
        }
        let span = inst.resolved_at.unwrap_or(inst.last_step).saturating_sub(inst.origin_step);
        if span as f64 > opts.budget_debt * n as f64 {
            fp.push(Footprint::BudgetDebt);
        }
        inst.state = match (inst.resolved_at.is_some(), fp.is_empty()) {
            (true, true) => InstanceState::CheapResolution,
            (true, false) => {
                if fp.iter().any(|f| matches!(f, Footprint::Irreversible | Footprint::BudgetDebt)) {
                    InstanceState::CostlyResolution
                } else {
                    InstanceState::CheapResolution
                }
            }
            (false, false) => InstanceState::ManifestActive,
            (false, true) => InstanceState::LatentActive,
        };
        inst.footprints = fp;
    }
    out
}

/// Whether an agent action other than the failing command itself happened in `(from, to)`.
/// Scans back from `to` and stops at the first such action, so loops of one repeated command
/// cost O(1) per repetition.
fn repaired_between(found: &Found, from: u32, to: u32, object: &str) -> bool {
    let h = object.strip_prefix("cmd:").and_then(|x| u64::from_str_radix(x, 16).ok()).unwrap_or(0);
    let mut i = to as usize;
    while i > from as usize + 1 {
        i -= 1;
        let a = found.action_hash.get(i).copied().unwrap_or(0);
        if a != 0 && a != h {
            return true;
        }
    }
    false
}

fn first_after(sorted: &[u32], s: u32) -> Option<u32> {
    let i = sorted.partition_point(|&x| x <= s);
    sorted.get(i).copied()
}

fn resolution(traj: &Trajectory, found: &Found, inst: &ErrorInstance) -> Option<u32> {
    let o = inst.object.as_str();
    if let Some(hex) = o.strip_prefix("cmd:") {
        let h = u64::from_str_radix(hex, 16).unwrap_or(0);
        let same = found.successes.get(&h).and_then(|v| first_after(v, inst.last_step));
        // The same program run again, corrected (`grep` on the right path), also fixes it.
        let program = traj
            .steps
            .get(inst.origin_step as usize)
            .map(super::triggers::program_key)
            .and_then(|k| found.successes.get(&k))
            .and_then(|v| first_after(v, inst.last_step));
        return match (same, program) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
    }
    if o.starts_with("env:") {
        // The command that hit the blocker later succeeded.
        let cause = inst
            .triggers
            .iter()
            .flat_map(|&t| [Some(found.triggers[t].step), found.triggers[t].reference_step])
            .flatten()
            .find(|&r| found.action_hash.get(r as usize).is_some_and(|&h| h != 0));
        if let Some(a) = cause {
            let key = found.action_hash[a as usize];
            return found.successes.get(&key).and_then(|v| first_after(v, inst.last_step));
        }
        return first_after(&found.green_steps, inst.last_step);
    }
    if o.starts_with("act:") || o.starts_with("edit:") || o.starts_with("judge:") {
        return first_after(&found.green_steps, inst.last_step);
    }
    None
}
