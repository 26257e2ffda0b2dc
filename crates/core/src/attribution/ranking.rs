//! Ranking: every candidate step gets the features of [`super::score`] and is ranked by the
//! scoring model (best first; ties go to the earlier step, the critical error being the earliest
//! decisive one). The pool:
//!
//! - every error instance that is not a cheap resolution, at the step where it was introduced
//!   (its earliest trigger). A judge's or verifier's report is never a candidate: an instance
//!   whose origin is one moves to the latest agent action before it;
//! - when the run failed, or its outcome is unknown (then worded as candidates, not a verdict),
//!   the agent steps with no observed error as out-of-set candidates (the plan origin, each
//!   agent's first step, the step the top candidate followed, every other agent step), ranked
//!   by their features alone. At most [`MAX_OUT_OF_SET`] of them are scored.
//!
//! One candidate per step. A cheap resolution is never a candidate, and in a passed run only
//! instances that are costly or manifest are.

use super::rules::Rule;
use super::score::{self, Features, Weights};
use super::text;
use super::triggers::{self, Found};
use super::{AnalysisOptions, Candidate, ErrorInstance, Evidence, InstanceState};
use crate::eval;
use crate::model::{Outcome, Role, Step, StepKind, Trajectory};
use crate::record::{Category, Phase};

const MAX_EVIDENCE: usize = 6;

/// Most agent steps scored as out-of-set candidates (the earliest ones: a wrong plan, code or
/// fact is introduced before the failure shows). Keeps the ranking linear on huge runs.
pub const MAX_OUT_OF_SET: usize = 512;

struct Pooled {
    step: u32,
    features: Features,
    /// Instances at this step, the best first.
    instances: Vec<usize>,
    blocked: bool,
}

/// A judge's or verifier's report (it detects an error, it never is the critical one).
pub fn is_judge_step(s: &Step) -> bool {
    s.kind == StepKind::JudgeResult || s.role == Role::Judge
}

/// Whether the step directly follows the output of a command its own speaker issued, and that
/// output did not fail: the outputs right before it (at most 8 are read) and the agent step
/// they answer, which has the step's speaker and ran a command or code.
fn answers_own_command(steps: &[Step], step: usize) -> bool {
    let s = &steps[step];
    for (outputs, j) in (0..step).rev().take(9).enumerate() {
        let o = &steps[j];
        if text::is_agent_step(o) {
            let ran = o.args.as_deref().is_some_and(|a| !a.trim().is_empty())
                || memchr::memmem::find(o.text.as_bytes(), b"```").is_some();
            return outputs > 0 && ran && o.actor == s.actor && o.role == s.role;
        }
        if o.is_error || o.exit_code.is_some_and(|c| c != 0) {
            return false;
        }
    }
    false
}

/// The ranked candidate list (best first).
pub fn rank(
    traj: &Trajectory,
    found: &Found,
    instances: &[ErrorInstance],
    opts: &AnalysisOptions,
    failed: bool,
) -> Vec<Candidate> {
    let orchestrated = !found.instructed.is_empty();
    let weights = opts.weights_for(orchestrated);
    let steps = &traj.steps;
    let triggers = &found.triggers;
    let n = steps.len().max(1) as f64;
    let first_error = found.first_error;
    // The task as given (its words are no agent's assumption): the trajectory's task, else a
    // first step that is not an agent's.
    let task = match traj.task.as_deref() {
        Some(t) => t,
        None => steps.first().filter(|s| !text::is_agent_step(s)).map_or("", |s| s.text.as_str()),
    };
    let author = first_error.and_then(|e| {
        (0..e as usize).rev().find(|&j| text::is_agent_step(&steps[j])).map(|j| j as u32)
    });
    let base = |step: u32| -> Features {
        let s = &steps[step as usize];
        let mut f = Features {
            orchestrated,
            introduces_first_error: author == Some(step),
            before_first_error: first_error.is_some_and(|e| step < e),
            assumption: score::states_own_assumption(&s.text, task),
            introduces_code: s.args.as_deref().is_some_and(|a| !a.trim().is_empty())
                || memchr::memmem::find(s.text.as_bytes(), b"```").is_some(),
            earliness: 1.0 - step as f64 / n,
            worker_reply: found.instructed.binary_search(&step).is_ok(),
            first_error_step: first_error,
            ..Features::default()
        };
        // A step that ran code or a command checked something; only a step that ran
        // nothing can report a check no step made. Nor does a step that sums up what its
        // own speaker's command just returned (a tool-using agent's "I have checked").
        if !f.introduces_code && !answers_own_command(steps, step as usize) {
            if let Some(claim) = score::claimed_check(&s.text, task) {
                f.claimed_check = true;
                f.claim = claim.to_string();
            }
        }
        if let Some(e) = found.answer_shown.as_ref().filter(|e| e.step == step) {
            f.shows_answer = true;
            f.shown_value = e.value.clone();
            f.shown_item = e.item;
        }
        f.unbacked_declaration = found.unbacked_declaration == Some(step);
        if let Some(e) = found.answer_accepted.as_ref().filter(|e| e.shown.step == step) {
            f.concludes_answer = true;
            f.accepted = Some((e.shown.value.clone(), e.declared));
        }
        f
    };
    // Sized once: the instances' steps and the out-of-set agent steps (a run of a few steps
    // allocates each list once, not once per growth).
    let room = instances.len() + steps.len().min(MAX_OUT_OF_SET);
    let mut pool: Vec<Pooled> = Vec::with_capacity(room);
    // Each step's place in `pool` (`NONE` for none), indexed by step: one filled list, no hash
    // table to build and hash into for every run. An instance's step may lie past the steps.
    const NONE: u32 = u32::MAX;
    let open = failed || traj.outcome == Outcome::Unknown;
    let span = instances.iter().map(|i| i.origin_step as usize + 1).fold(steps.len(), usize::max);
    let mut at: Vec<u32> = vec![NONE; span];
    for (ii, inst) in instances.iter().enumerate() {
        // An error fixed at once is no evidence: its instance never places a candidate (its
        // step may still be an out-of-set candidate on its own features).
        if inst.state == InstanceState::CheapResolution {
            continue;
        }
        // A passed run's latent errors are no candidates; a failed run's are, and so are an
        // unknown run's: its candidates are those "if this run failed".
        if !open && !inst.state.is_candidate() {
            continue;
        }
        let mut step = inst.origin_step;
        if steps.get(step as usize).is_some_and(is_judge_step) {
            match (0..step as usize).rev().find(|&j| text::is_agent_step(&steps[j])) {
                Some(j) => step = j as u32,
                None => continue,
            }
        }
        let rules: Vec<Rule> = inst.triggers.iter().map(|&t| triggers[t].rule).collect();
        let blocked = inst.triggers.iter().any(|&t| triggers[t].blocker.is_some());
        let k = match at[step as usize] {
            NONE => {
                at[step as usize] = pool.len() as u32;
                pool.push(Pooled {
                    step,
                    features: base(step),
                    instances: Vec::new(),
                    blocked: false,
                });
                pool.len() - 1
            }
            k => k as usize,
        };
        let p = &mut pool[k];
        let better = p.features.state.is_none_or(|s| state_rank(inst.state) > state_rank(s));
        if better {
            p.features.state = Some(inst.state);
            p.instances.insert(0, ii);
        } else {
            p.instances.push(ii);
        }
        p.features.footprints = p.features.footprints.max(inst.footprints.len() as u32);
        for r in rules {
            if !p.features.rules.contains(&r) {
                p.features.rules.push(r);
            }
        }
        p.features.states_answer |= p.features.rules.contains(&Rule::AnswerOrigin);
        p.blocked |= blocked;
    }
    for p in &mut pool {
        crate::sort::sort(&mut p.features.rules);
    }
    if open {
        // The agents seen so far: the first apart, so a run of one agent allocates no list.
        let mut first_agent: Option<&str> = None;
        let mut agents: Vec<&str> = Vec::new();
        let mut scored = 0;
        for (i, s) in steps.iter().enumerate() {
            if scored >= MAX_OUT_OF_SET {
                break;
            }
            if !text::is_agent_step(s) {
                continue;
            }
            scored += 1;
            let actor = s.actor.as_str();
            let first_of_agent = match first_agent {
                None => {
                    first_agent = Some(actor);
                    true
                }
                Some(a) => {
                    let new = a != actor && !agents.contains(&actor);
                    if new {
                        agents.push(actor);
                    }
                    new
                }
            };
            if at[i] != NONE {
                continue;
            }
            let rule = match (1 + agents.len(), first_of_agent) {
                (1, true) => Rule::PlanOrigin,
                (_, true) => Rule::AgentFirstStep,
                _ => Rule::AgentStep,
            };
            let mut features = base(i as u32);
            features.rules = vec![rule];
            at[i] = pool.len() as u32;
            pool.push(Pooled { step: i as u32, features, instances: Vec::new(), blocked: false });
        }
    }
    let first: Vec<f64> = pool.iter().map(|p| score::score(&p.features, weights)).collect();
    let at_steps: Vec<u32> = pool.iter().map(|p| p.step).collect();
    // Agents are looked up only when an agent stage reads them: not with both stages off, nor
    // for the vote alone over one candidate (its share needs no name, see `stages`; most runs
    // of a step or two have one candidate), where an unnamed agent stands for it.
    let unnamed = [String::new()];
    let agents: Vec<String> =
        if weights.agent_support == 0.0 && (weights.agent_vote == 0.0 || pool.len() == 1) {
            Vec::new()
        } else {
            pool.iter()
                .map(|p| {
                    if p.blocked {
                        "environment".to_string()
                    } else {
                        eval::normalize_agent(responsible_agent_name(steps, p.step as usize))
                    }
                })
                .collect()
        };
    let one_unnamed = agents.is_empty() && pool.len() == 1 && weights.agent_vote != 0.0;
    let st = stages(&first, &at_steps, if one_unnamed { &unnamed } else { &agents }, weights);
    let order = st.order;
    if weights.agent_support != 0.0 {
        for (p, s) in pool.iter_mut().zip(&st.support) {
            p.features.agent_support = *s;
            p.features.support_depth = depth(weights) as u32;
        }
    }
    for (p, s) in pool.iter_mut().zip(&st.mass) {
        p.features.agent_mass = *s;
    }
    if let Some(k) = st.promoted {
        pool[k].features.promoted = true;
    }
    let mut order = order;
    // The agent step the top candidate followed (the instruction or plan it acted on).
    if open {
        if let Some(&(_, top)) = order.first() {
            let top_step = pool[top].step as usize;
            if let Some(prev) = (0..top_step).rev().find(|&j| text::is_agent_step(&steps[j])) {
                let k = at[prev] as usize;
                if at[prev] != NONE && pool[k].instances.is_empty() {
                    pool[k].features.rules = vec![Rule::PrecedingInstruction];
                }
            }
        }
    }
    order.truncate(opts.max_candidates);
    // Each pooled step is in `order` once: its features move into its candidate.
    order.into_iter().map(|(sc, k)| candidate(traj, found, instances, &mut pool[k], sc)).collect()
}

fn state_rank(s: InstanceState) -> u8 {
    match s {
        InstanceState::ManifestActive => 3,
        InstanceState::CostlyResolution => 2,
        InstanceState::LatentActive => 1,
        InstanceState::CheapResolution => 0,
    }
}

/// The agent responsible for a step: its speaker, or for a tool's output the agent that called
/// the tool (the agent step before it).
pub fn responsible_agent(steps: &[Step], step: usize) -> String {
    responsible_agent_name(steps, step).to_string()
}

/// [`responsible_agent`], borrowed from the step that names it (no copy before normalising).
fn responsible_agent_name(steps: &[Step], step: usize) -> &str {
    fn name(s: &Step) -> &str {
        if !s.actor.is_empty() {
            &s.actor
        } else {
            s.role.name()
        }
    }
    match steps.get(step) {
        Some(s) if text::is_env_step(s) => (0..step)
            .rev()
            .find(|&j| text::is_agent_step(&steps[j]))
            .map_or_else(|| name(s), |j| name(&steps[j])),
        Some(s) => name(s),
        None => "",
    }
}

fn candidate(
    traj: &Trajectory,
    found: &Found,
    instances: &[ErrorInstance],
    p: &mut Pooled,
    score: f64,
) -> Candidate {
    let steps = &traj.steps;
    let st = &steps[p.step as usize];
    let mut evidence = Vec::with_capacity(if p.instances.is_empty() { 1 } else { MAX_EVIDENCE });
    let (category, phase, state) = match p.instances.first() {
        Some(&best) => {
            let inst = &instances[best];
            let first = inst
                .triggers
                .iter()
                .map(|&t| &found.triggers[t])
                .find(|t| t.step == inst.origin_step)
                .unwrap_or(&found.triggers[inst.triggers[0]]);
            for &i in &p.instances {
                for &t in instances[i].triggers.iter().take(MAX_EVIDENCE) {
                    push_evidence(&mut evidence, &found.triggers[t]);
                }
            }
            (first.category, first.phase, inst.state)
        }
        None => {
            let rule = p.features.rules.first().copied().unwrap_or(Rule::AgentStep);
            evidence.push(Evidence {
                step: p.step,
                kind: "wrong".into(),
                quote: triggers::action_quote(st).to_string(),
                rule,
            });
            let phase = if rule == Rule::PlanOrigin { Phase::Planning } else { Phase::Reasoning };
            (Category::TaskConflict, phase, InstanceState::LatentActive)
        }
    };
    // The first worker reply showing the final answer's value: the line that shows it.
    if let Some(e) = found.answer_shown.as_ref().filter(|e| e.step == p.step) {
        let shown = Evidence {
            step: e.step,
            kind: "wrong".into(),
            quote: e.quote.clone(),
            rule: Rule::AnswerOrigin,
        };
        if evidence.len() < MAX_EVIDENCE && !evidence.contains(&shown) {
            evidence.push(shown);
        }
    }
    // The worker reply the run accepted its answer from: the line that states it.
    if let Some(e) = found.answer_accepted.as_ref().filter(|e| e.shown.step == p.step) {
        let stated = Evidence {
            step: e.shown.step,
            kind: "wrong".into(),
            quote: e.shown.quote.clone(),
            rule: Rule::AnswerOrigin,
        };
        if evidence.len() < MAX_EVIDENCE && !evidence.contains(&stated) {
            evidence.push(stated);
        }
    }
    Candidate {
        step: p.step,
        line: st.loc.line,
        agent: if p.blocked {
            "environment".into()
        } else {
            responsible_agent(steps, p.step as usize)
        },
        score: round(score),
        category,
        phase,
        state,
        evidence,
        instance: p.instances.first().copied(),
        why: score::why(&p.features),
        features: std::mem::take(&mut p.features),
    }
}

fn push_evidence(out: &mut Vec<Evidence>, t: &super::Trigger) {
    let w =
        Evidence { step: t.step, kind: "wrong".into(), quote: t.wrong_quote.clone(), rule: t.rule };
    if out.len() < MAX_EVIDENCE && !out.contains(&w) {
        out.push(w);
    }
    if let Some(r) = t.reference_step {
        let e = Evidence {
            step: r,
            kind: "reference".into(),
            quote: t.reference_quote.clone(),
            rule: t.rule,
        };
        if out.len() < MAX_EVIDENCE && !out.contains(&e) {
            out.push(e);
        }
    }
}

/// Re-ranks candidates under other weights (what `eval` fits): best first, ties to the earlier
/// step, exactly as [`rank`] orders them (both stages).
pub fn rerank(cands: &[Candidate], weights: &Weights) -> Vec<usize> {
    let at_steps: Vec<u32> = cands.iter().map(|c| c.step).collect();
    let agents: Vec<String> = cands.iter().map(|c| eval::normalize_agent(&c.agent)).collect();
    rerank_with(cands, &at_steps, &agents, weights)
}

/// [`rerank`] with each candidate's step and normalised agent given (a fit re-ranks the same
/// candidates many times).
pub fn rerank_with(
    cands: &[Candidate],
    at_steps: &[u32],
    agents: &[String],
    weights: &Weights,
) -> Vec<usize> {
    let first: Vec<f64> = cands.iter().map(|c| score::score(&c.features, weights)).collect();
    stages(&first, at_steps, agents, weights).order.into_iter().map(|(_, k)| k).collect()
}

fn depth(w: &Weights) -> usize {
    w.support_depth.round().max(0.0) as usize
}

/// Best first; ties go to the earlier step.
fn sort_order(order: &mut [(f64, usize)], at_steps: &[u32]) {
    crate::sort::sort_by(order, |a, b| b.0.total_cmp(&a.0).then(at_steps[a.1].cmp(&at_steps[b.1])));
}

/// What the ranking stages decided.
struct Stages {
    /// (score, index) best first.
    order: Vec<(f64, usize)>,
    /// Each candidate's agent support (empty while that stage is off: all 0).
    support: Vec<f64>,
    /// Each candidate's agent's share of the score mass (empty while the vote is off: all 0).
    mass: Vec<f64>,
    /// The candidate the agent vote moved to the top, if it moved one.
    promoted: Option<usize>,
}

/// The ranking stages: the first orders candidates by [`score::score`]; the second adds
/// `agent_support` × the support of each candidate's agent among the first stage's top
/// `support_depth` ([`score::agent_support`]); the third, the agent vote, moves the best
/// candidate of the agent holding the most score mass ([`score::agent_mass`], temperature
/// `agent_vote`) to the top, the rest keeping their order. Each stage is skipped while its
/// weight is 0 (and when `agents` is empty).
fn stages(first: &[f64], at_steps: &[u32], agents: &[String], w: &Weights) -> Stages {
    let n = first.len();
    let mut order: Vec<(f64, usize)> = first.iter().copied().zip(0..).collect();
    sort_order(&mut order, at_steps);
    // A stage that is off leaves its list empty (read as all 0: the features' default).
    let mut out = Stages { order, support: Vec::new(), mass: Vec::new(), promoted: None };
    if agents.len() != n {
        return out;
    }
    if w.agent_support != 0.0 {
        let ranked: Vec<usize> = out.order.iter().map(|o| o.1).collect();
        out.support = score::agent_support(&ranked, agents, depth(w));
        for o in &mut out.order {
            o.0 += w.agent_support * out.support[o.1];
        }
        sort_order(&mut out.order, at_steps);
    }
    if w.agent_vote > 0.0 && n == 1 {
        // One candidate (most runs of one step): its agent holds all the mass and it is first
        // already. The share exactly as `score::agent_mass` computes it (1, or NaN for a score
        // that is not finite: v / v), without its lists.
        let (score, best) = (out.order[0].0, out.order[0].0);
        let v = ((score - best) / w.agent_vote).exp();
        let total = v;
        out.mass = vec![v / total];
    } else if w.agent_vote > 0.0 {
        let ranked: Vec<usize> = out.order.iter().map(|o| o.1).collect();
        let mut scores = vec![0.0; n];
        for &(score, k) in &out.order {
            scores[k] = score;
        }
        let (winner, share) = score::agent_mass(&ranked, &scores, agents, w.agent_vote);
        out.mass = share;
        if let Some(winner) = winner {
            if let Some(pos) = out.order.iter().position(|o| agents[o.1] == winner) {
                if pos > 0 {
                    let best = out.order.remove(pos);
                    out.promoted = Some(best.1);
                    out.order.insert(0, best);
                }
            }
        }
    }
    out
}

fn round(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_agent_stage_promotes_the_agent_most_top_candidates_name() {
        // First stage: a (step 1) best, then b, b, b just below it.
        let first = [3.0, 2.95, 2.9, 2.85];
        let at_steps = [1, 2, 3, 4];
        let agents: Vec<String> = ["a", "b", "b", "b"].iter().map(|s| s.to_string()).collect();
        let mut w = Weights {
            agent_support: 0.0,
            support_depth: 4.0,
            agent_vote: 0.0,
            ..Weights::default()
        };
        let Stages { order, support, .. } = stages(&first, &at_steps, &agents, &w);
        assert_eq!(order[0].1, 0, "off: the first stage's order stands");
        assert!(support.iter().all(|&s| s == 0.0));
        w.agent_support = 1.0;
        let Stages { order, support, .. } = stages(&first, &at_steps, &agents, &w);
        // Votes 1 / rank: a gets 1, b gets 1/2 + 1/3 + 1/4.
        assert!((support[0] - 1.0).abs() < 1e-9);
        assert!((support[1] - (0.5 + 1.0 / 3.0 + 0.25)).abs() < 1e-9);
        // a: 3 + 1; b: 2.95 + 1.083, 2.9 + 1.083, 2.85 + 1.083.
        let ks: Vec<usize> = order.iter().map(|o| o.1).collect();
        assert_eq!(ks, vec![1, 0, 2, 3], "on: b's best step goes first");
        // Depth 1: only the top candidate votes, so its agent keeps the lead.
        w.support_depth = 1.0;
        let Stages { order, .. } = stages(&first, &at_steps, &agents, &w);
        assert_eq!(order[0].1, 0);
    }

    #[test]
    fn one_candidate_gets_the_agent_vote_share_the_general_vote_gives_it() {
        let agents = vec!["a".to_string()];
        for score in [2.5, -0.25, 0.0, 1e300, f64::INFINITY, f64::NAN] {
            for vote in [0.0, 0.5, 3.0] {
                let w = Weights { agent_vote: vote, ..Weights::default() };
                let one = stages(&[score], &[4], &agents, &w);
                assert_eq!(one.order.len(), 1);
                assert_eq!(one.order[0].1, 0);
                assert!(one.promoted.is_none());
                let expected = if vote > 0.0 {
                    score::agent_mass(&[0], &[one.order[0].0], &agents, vote).1[0]
                } else {
                    0.0
                };
                let mass = one.mass.first().copied().unwrap_or(0.0);
                assert_eq!(mass.to_bits(), expected.to_bits(), "{score} {vote}");
            }
        }
    }

    #[test]
    fn the_agent_vote_puts_first_the_best_step_of_the_agent_holding_most_score_mass() {
        // a's one step is best by a little; b's three steps just below it hold more mass.
        let first = [3.0, 2.9, 2.8, 2.7, 0.5];
        let at_steps = [1, 2, 3, 4, 5];
        let agents: Vec<String> = ["a", "b", "b", "b", "c"].iter().map(|s| s.to_string()).collect();
        let mut w = Weights { agent_vote: 0.0, ..Weights::default() };
        let off = stages(&first, &at_steps, &agents, &w);
        assert_eq!(off.order[0].1, 0, "off: the first stage's order stands");
        assert!(off.mass.iter().all(|&m| m == 0.0) && off.promoted.is_none());
        w.agent_vote = 0.5;
        let on = stages(&first, &at_steps, &agents, &w);
        let ks: Vec<usize> = on.order.iter().map(|o| o.1).collect();
        assert_eq!(ks, vec![1, 0, 2, 3, 4], "b's best step first, the rest in their order");
        assert_eq!(on.promoted, Some(1));
        // Shares: exp(0), exp(-0.2)+exp(-0.4)+exp(-0.6), exp(-5) over their sum.
        let (ma, mb) = (1.0f64, (-0.2f64).exp() + (-0.4f64).exp() + (-0.6f64).exp());
        let total = ma + mb + (-5.0f64).exp();
        assert!((on.mass[0] - ma / total).abs() < 1e-9);
        assert!((on.mass[2] - mb / total).abs() < 1e-9);
        // A reported error (+100) keeps its agent first whatever the others hold.
        let linked = [103.0, 2.9, 2.8, 2.7, 0.5];
        let kept = stages(&linked, &at_steps, &agents, &w);
        assert_eq!(kept.order[0].1, 0);
        assert!(kept.promoted.is_none());
    }
}
