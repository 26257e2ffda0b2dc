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
    // Scores first (cheap); evidence only for the candidates that are kept.
    struct Scored {
        step: u32,
        score: f64,
        /// Instances at this step, the best first.
        instances: Vec<usize>,
        strict: bool,
    }
    let mut scored: Vec<Scored> = Vec::new();
    for (ii, inst) in instances.iter().enumerate() {
        let base = match inst.state {
            InstanceState::ManifestActive => 1.0,
            InstanceState::CostlyResolution => 0.7,
            InstanceState::LatentActive => 0.3,
            InstanceState::CheapResolution => continue,
        };
        let rules = || inst.triggers.iter().map(|&t| triggers[t].rule.as_str());
        let mut score = base + 0.1 * inst.footprints.len() as f64;
        if rules().any(|r| r == "verifier_rejected") {
            score += 0.3;
        }
        if rules().any(|r| matches!(r, "edit_broke_test" | "memory_misapplied")) {
            score += 0.15;
        }
        // A value traced to the final answer is a weaker signal than an observed failure.
        if rules().all(|r| r == "answer_origin") {
            score -= 0.4;
        }
        if rules().any(|r| r == "repeated_action") {
            score += 0.05;
        }
        score += 0.2 * (1.0 - inst.origin_step as f64 / n);
        scored.push(Scored {
            step: inst.origin_step,
            score,
            instances: vec![ii],
            strict: inst.state.is_candidate(),
        });
    }
    // One candidate per step: merge, keeping the best.
    scored.sort_by(|a, b| a.step.cmp(&b.step).then(b.score.total_cmp(&a.score)));
    let mut merged: Vec<Scored> = Vec::new();
    for c in scored {
        match merged.last_mut() {
            Some(m) if m.step == c.step => {
                m.score += 0.05;
                m.strict |= c.strict;
                m.instances.extend(c.instances);
            }
            _ => merged.push(c),
        }
    }
    merged.sort_by(|a, b| {
        b.strict.cmp(&a.strict).then(b.score.total_cmp(&a.score)).then(a.step.cmp(&b.step))
    });
    merged.truncate(opts.max_candidates);
    let mut merged: Vec<Candidate> = merged
        .into_iter()
        .map(|m| {
            let best = &instances[m.instances[0]];
            let first = best
                .triggers
                .iter()
                .map(|&t| &triggers[t])
                .find(|t| t.step == best.origin_step)
                .unwrap_or(&triggers[best.triggers[0]]);
            let blocked = m
                .instances
                .iter()
                .any(|&i| instances[i].triggers.iter().any(|&t| triggers[t].blocker.is_some()));
            let step = traj.steps.get(m.step as usize);
            let mut evidence = Vec::new();
            for &i in &m.instances {
                for &t in instances[i].triggers.iter().take(MAX_EVIDENCE) {
                    push_evidence(&mut evidence, &triggers[t]);
                }
            }
            Candidate {
                step: m.step,
                line: step.map_or(0, |s| s.loc.line),
                agent: if blocked {
                    "environment".into()
                } else {
                    step.map(agent_of).unwrap_or_default()
                },
                score: round(m.score),
                category: first.category,
                phase: first.phase,
                state: best.state,
                evidence,
                instance: Some(m.instances[0]),
            }
        })
        .collect();
    if failed {
        // Out of set, weakest last: the agent step the top candidate followed (the instruction
        // or plan it acted on), then each agent's first contribution (the plan origin first) —
        // where a wrong plan, code or fact is usually introduced.
        let mut extra: Vec<(u32, &'static str)> = Vec::new();
        if let Some(top) = merged.first() {
            if let Some(prev) = (0..top.step as usize)
                .rev()
                .find(|&j| traj.steps.get(j).is_some_and(text::is_agent_step))
            {
                extra.push((prev as u32, "preceding_instruction"));
            }
        }
        let mut agents: std::collections::HashSet<&str> = std::collections::HashSet::new();
        for s in traj.steps.iter().filter(|s| text::is_agent_step(s)) {
            if extra.len() >= opts.max_candidates {
                break;
            }
            if agents.insert(s.actor.as_str()) {
                let rule = if agents.len() == 1 { "plan_origin" } else { "agent_first_step" };
                extra.push((s.index, rule));
            }
        }
        for (k, (step, rule)) in extra.into_iter().enumerate() {
            if merged.len() >= opts.max_candidates {
                break;
            }
            if merged.iter().any(|c| c.step == step) {
                continue;
            }
            let Some(st) = traj.steps.get(step as usize) else { continue };
            merged.push(Candidate {
                step,
                line: st.loc.line,
                agent: agent_of(st),
                score: round(0.05 - 0.001 * k as f64),
                category: Category::TaskConflict,
                phase: if rule == "preceding_instruction" {
                    Phase::Reasoning
                } else {
                    Phase::Planning
                },
                state: InstanceState::LatentActive,
                evidence: vec![Evidence {
                    step,
                    kind: "wrong".into(),
                    quote: super::triggers::action_quote(st).to_string(),
                    rule: rule.into(),
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
