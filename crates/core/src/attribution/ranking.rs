//! Ranking: candidates are the CostlyResolution and ManifestActive instances, at the step where
//! each was introduced (its earliest trigger). The score prefers, in this order: an active error
//! with a terminal footprint over a costly fixed one; an explicit verifier link
//! (`source_action_id`); the point where an error was introduced (an edit a test caught, an action
//! taken after a memory read); more footprints; and, all else equal, the earlier step (the
//! critical error is the earliest decisive one). When the run failed and fewer candidates than
//! asked for exist, latent active instances and the plan origin (the first agent step) follow
//! as out-of-set candidates with low scores. A cheap resolution is never a candidate.

use super::text;
use super::{
    agent_of, AnalysisOptions, Candidate, ErrorInstance, Evidence, InstanceState, Trigger,
};
use crate::model::Trajectory;
use crate::record::{Category, Phase};

const MAX_EVIDENCE: usize = 6;

/// The ranked candidate list (best first).
pub fn rank(
    traj: &Trajectory,
    triggers: &[Trigger],
    instances: &[ErrorInstance],
    opts: &AnalysisOptions,
    failed: bool,
) -> Vec<Candidate> {
    let n = traj.steps.len().max(1) as f64;
    let mut out: Vec<Candidate> = Vec::new();
    for (ii, inst) in instances.iter().enumerate() {
        let base = match inst.state {
            InstanceState::ManifestActive => 1.0,
            InstanceState::CostlyResolution => 0.7,
            InstanceState::LatentActive => 0.3,
            InstanceState::CheapResolution => continue,
        };
        let rules: Vec<&str> = inst.triggers.iter().map(|&t| triggers[t].rule.as_str()).collect();
        let mut score = base + 0.1 * inst.footprints.len() as f64;
        if rules.contains(&"verifier_rejected") {
            score += 0.3;
        }
        if rules.iter().any(|r| matches!(*r, "edit_broke_test" | "memory_misapplied")) {
            score += 0.15;
        }
        // A value traced to the final answer is a weaker signal than an observed failure.
        if rules.iter().all(|r| *r == "answer_origin") {
            score -= 0.4;
        }
        if rules.contains(&"repeated_action") {
            score += 0.05;
        }
        score += 0.2 * (1.0 - inst.origin_step as f64 / n);
        let first = inst
            .triggers
            .iter()
            .map(|&t| &triggers[t])
            .find(|t| t.step == inst.origin_step)
            .unwrap_or(&triggers[inst.triggers[0]]);
        let blocked = inst.triggers.iter().any(|&t| triggers[t].blocker.is_some());
        let step = traj.steps.get(inst.origin_step as usize);
        let mut evidence = Vec::new();
        for &t in &inst.triggers {
            push_evidence(&mut evidence, &triggers[t]);
        }
        out.push(Candidate {
            step: inst.origin_step,
            line: step.map_or(0, |s| s.loc.line),
            agent: if blocked {
                "environment".into()
            } else {
                step.map(agent_of).unwrap_or_default()
            },
            score: round(score),
            category: first.category,
            phase: first.phase,
            state: inst.state,
            evidence,
            instance: Some(ii),
        });
    }
    // One candidate per step: merge, keeping the best and the union of the evidence.
    out.sort_by(|a, b| a.step.cmp(&b.step).then(b.score.total_cmp(&a.score)));
    let mut merged: Vec<Candidate> = Vec::new();
    for c in out {
        match merged.last_mut() {
            Some(m) if m.step == c.step => {
                m.score = round(m.score + 0.05);
                for e in c.evidence {
                    if m.evidence.len() < MAX_EVIDENCE && !m.evidence.contains(&e) {
                        m.evidence.push(e);
                    }
                }
            }
            _ => merged.push(c),
        }
    }
    let strict = |c: &Candidate| c.state.is_candidate();
    merged.sort_by(|a, b| {
        strict(b).cmp(&strict(a)).then(b.score.total_cmp(&a.score)).then(a.step.cmp(&b.step))
    });
    // The plan origin: the first agent step, when nothing else names it.
    if let Some(first) = traj.steps.iter().find(|s| text::is_agent_step(s)) {
        if failed
            && merged.len() < opts.max_candidates
            && !merged.iter().any(|c| c.step == first.index)
        {
            let q = super::triggers::action_quote(first);
            merged.push(Candidate {
                step: first.index,
                line: first.loc.line,
                agent: agent_of(first),
                score: 0.05,
                category: Category::TaskConflict,
                phase: Phase::Planning,
                state: InstanceState::LatentActive,
                evidence: vec![Evidence {
                    step: first.index,
                    kind: "wrong".into(),
                    quote: q.to_string(),
                    rule: "plan_origin".into(),
                }],
                instance: None,
            });
        }
    }
    merged.truncate(opts.max_candidates);
    merged
}

fn push_evidence(out: &mut Vec<Evidence>, t: &Trigger) {
    let w = Evidence {
        step: t.step,
        kind: "wrong".into(),
        quote: t.wrong_quote.clone(),
        rule: t.rule.clone(),
    };
    if out.len() < MAX_EVIDENCE && !out.contains(&w) {
        out.push(w);
    }
    if let Some(r) = t.reference_step {
        let e = Evidence {
            step: r,
            kind: "reference".into(),
            quote: t.reference_quote.clone(),
            rule: t.rule.clone(),
        };
        if out.len() < MAX_EVIDENCE && !out.contains(&e) {
            out.push(e);
        }
    }
}

fn round(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}
