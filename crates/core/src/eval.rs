//! Scoring the detector against labelled data (Who&When, TRAJERRBENCH). Pure: it takes ingested
//! trajectories with their gold labels; the CLI walks the files.
//!
//! Metrics (per subset, as fractions): step accuracy (integer equality, never substring
//! matching), within ±1 and ±2 steps, agent accuracy (case-insensitive, Magentic-One roles
//! reduced to the agent: "Orchestrator (thought)" → "orchestrator"), and candidate recall@3/@5
//! (the gold step among the top-k ranked candidates). Step metrics count the items with a gold
//! step, agent accuracy the items with a gold agent; `n` is the number of labelled items.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::attribution::ranking::rerank_with;
use crate::attribution::score::grid;
use crate::attribution::{analyze_trajectory, AnalysisOptions, Candidate, Weights};
use crate::model::Trajectory;

/// One labelled trajectory to score.
pub struct EvalInput<'a> {
    /// How the item is named in the output (a file path, with `#id` for multi-run files).
    pub file: String,
    /// The subset it belongs to (the folder name).
    pub subset: String,
    pub trajectory: &'a Trajectory,
}

/// One scored item (the JSON contract of `items[]`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EvalItem {
    pub file: String,
    pub subset: String,
    pub gold_step: Option<u32>,
    pub predicted_step: Option<u32>,
    pub gold_agent: Option<String>,
    pub predicted_agent: Option<String>,
    /// Ranked candidate steps, best first.
    pub candidate_steps: Vec<u32>,
}

/// Scores of one subset (the JSON contract of `subsets.<name>`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SubsetScore {
    pub n: usize,
    pub step_acc: f64,
    pub step_acc_within_1: f64,
    pub step_acc_within_2: f64,
    pub agent_acc: f64,
    pub recall_at_3: f64,
    pub recall_at_5: f64,
}

/// The whole evaluation.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct EvalReport {
    pub subsets: BTreeMap<String, SubsetScore>,
    pub items: Vec<EvalItem>,
}

/// An agent name for comparison: the part before " (" (Magentic-One roles), trimmed,
/// lower-cased ([`crate::lower::lower_str`]).
pub fn normalize_agent(name: &str) -> String {
    // The name before a first " (" (`split(" (").next()`), found without a substring searcher:
    // the first `(` after a space.
    let b = name.as_bytes();
    let base = match memchr::memchr_iter(b'(', b).find(|&i| i > 0 && b[i - 1] == b' ') {
        Some(at) => &name[..at - 1],
        None => name,
    };
    crate::lower::lower_str(base.trim())
}

/// Predicts each item (treating it as a failed run) and scores the predictions.
pub fn evaluate(inputs: &[EvalInput<'_>], opts: &AnalysisOptions) -> EvalReport {
    let opts = AnalysisOptions { assume_failed: true, ..opts.clone() };
    let items: Vec<EvalItem> = inputs
        .iter()
        .map(|inp| {
            let a = analyze_trajectory(inp.trajectory, &opts);
            let gold = inp.trajectory.gold.clone().unwrap_or_default();
            EvalItem {
                file: inp.file.clone(),
                subset: inp.subset.clone(),
                gold_step: gold.step,
                predicted_step: a.critical.as_ref().map(|c| c.step),
                gold_agent: gold.agent,
                predicted_agent: a.critical.map(|c| c.agent),
                candidate_steps: a.candidates.iter().map(|c| c.step).collect(),
            }
        })
        .collect();
    EvalReport { subsets: score(&items), items }
}

/// One fold of a cross-validation: weights fitted on `train`, scored on `test`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Fold {
    /// `fit on odd, score on even` and the reverse (or the alternate halves).
    pub name: String,
    /// The weights fitted for group chats.
    pub weights: Weights,
    /// The weights fitted for orchestrated runs.
    pub orchestrated_weights: Weights,
    /// The fitted weights on the items they were fitted on (optimistic; labelled as such).
    pub train_fit: BTreeMap<String, SubsetScore>,
    /// The fitted weights on the other half: the honest figure.
    pub test: BTreeMap<String, SubsetScore>,
}

/// Two-fold cross-validation of the scoring model's weights (the JSON of `eval --folds 2`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CrossValidation {
    pub split: Split,
    /// Whether every fit also fitted the agent stage.
    pub agent_stage: bool,
    pub folds: Vec<Fold>,
    /// Every item scored by the weights fitted on the fold that did not hold it.
    pub pooled_test: BTreeMap<String, SubsetScore>,
    /// Those items one by one (prediction and ranked candidates), so a reader can see which
    /// items the held-out fits got right.
    #[serde(default)]
    pub pooled_items: Vec<EvalItem>,
    /// Whether one weight set was fitted for both shapes (`--one-model`, the earlier
    /// procedure) instead of one per shape.
    pub one_model: bool,
    /// The weights fitted on every item (the shipped defaults come from this fit): group
    /// chats, then orchestrated runs.
    pub all_weights: Weights,
    pub all_orchestrated_weights: Weights,
    /// Those weights on every item (train-fit, optimistic).
    pub all_train_fit: BTreeMap<String, SubsetScore>,
    /// The shipped default weights on every item.
    pub defaults: BTreeMap<String, SubsetScore>,
}

/// An analysed item: its gold label and every candidate with its features.
struct Scored {
    file: String,
    subset: String,
    gold_step: Option<u32>,
    gold_agent: Option<String>,
    candidates: Vec<Candidate>,
    /// The run is orchestrated (scored with the orchestrated weights).
    orchestrated: bool,
    /// Each candidate's step and normalised agent.
    steps: Vec<u32>,
    agents: Vec<String>,
}

impl Scored {
    fn item(&self, w: &Weights) -> EvalItem {
        self.item_of(w)
    }

    /// Scored under the model of its shape.
    fn item_by_shape(&self, m: &Model) -> EvalItem {
        self.item_of(if self.orchestrated { &m.orchestrated } else { &m.chat })
    }

    fn item_of(&self, w: &Weights) -> EvalItem {
        let order = rerank_with(&self.candidates, &self.steps, &self.agents, w);
        let top = order.first().map(|&k| &self.candidates[k]);
        EvalItem {
            file: self.file.clone(),
            subset: self.subset.clone(),
            gold_step: self.gold_step,
            predicted_step: top.map(|c| c.step),
            gold_agent: self.gold_agent.clone(),
            predicted_agent: top.map(|c| c.agent.clone()),
            candidate_steps: order.iter().take(10).map(|&k| self.candidates[k].step).collect(),
        }
    }
}

/// The item number of a file (`…/17.json` → 17), for the odd / even folds; none when its name
/// holds no number.
pub fn item_number(file: &str) -> Option<u64> {
    let name = file.rsplit(['/', '\\']).next().unwrap_or(file);
    let stem = name.split(['.', '#']).next().unwrap_or(name);
    stem.parse().ok()
}

/// The step objective: exact steps first, then recall@5, then agents.
fn step_objective(items: &[EvalItem]) -> (usize, usize, usize) {
    let (exact, r5, agent) = counts(items);
    (exact, r5, agent)
}

/// The group chats' objective: exact steps plus exact agents, then recall@5. A group chat's
/// fit also chooses the agent vote, whose work is the agent (`eval` scores both, and the
/// agent is the predicted step's speaker); counting agents only to break ties left the vote
/// and the weights chosen for steps alone (docs/detector.md, "the group chats' objective").
fn chat_objective(items: &[EvalItem]) -> (usize, usize, usize) {
    let (exact, r5, agent) = counts(items);
    (exact + agent, r5, 0)
}

/// The agent stage's objective: exact agents plus exact steps (the stage moves both), then
/// recall@5.
fn agent_objective(items: &[EvalItem]) -> (usize, usize, usize) {
    let (exact, r5, agent) = counts(items);
    (agent + exact, r5, 0)
}

/// Exact steps, gold steps among the top five, exact agents.
fn counts(items: &[EvalItem]) -> (usize, usize, usize) {
    let mut exact = 0;
    let mut r5 = 0;
    let mut agent = 0;
    for it in items {
        if let Some(g) = it.gold_step {
            exact += (it.predicted_step == Some(g)) as usize;
            r5 += it.candidate_steps.iter().take(5).any(|&c| c == g) as usize;
        }
        if let (Some(g), Some(p)) = (&it.gold_agent, &it.predicted_agent) {
            agent += (normalize_agent(g) == normalize_agent(p)) as usize;
        }
    }
    (exact, r5, agent)
}

/// The weights of the second ranking stage (the agent support), fitted apart from the rest.
const AGENT_STAGE: [usize; 2] = [8, 9];

/// The agent vote's temperature (`agent_vote`): each value of its grid is held while the step
/// weights are fitted, and the best fit wins.
const AGENT_VOTE: usize = 10;

/// The index of `assumption` in [`Weights::NAMES`]: held at 0 in the orchestrated fit.
const ASSUMPTION: usize = 3;

/// Which runs a weight set is fitted for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shape {
    /// Group chats: the group chats' objective, and the agent vote is fitted.
    Chat,
    /// Orchestrated runs: `introduces_code` starts at 0, `assumption` is held at 0, and the
    /// answer traces (`shows_answer`, `concludes_answer`) start at 0.5 (see [`fit_steps`]).
    Orchestrated,
    /// One weight set for both shapes (`--one-model`, the earlier procedure).
    Both,
}

/// Fits the weights in stages, all on the given items only.
///
/// 1. The step features (every weight but the agent stages') by coordinate ascent over
///    [`grid`] from an uninformed start (every weight 0.5; some at 0, see [`fit_steps`]),
///    maximising exact steps, then
///    recall@5, then agents; a change is kept only when it strictly improves. With `vote`,
///    this fit runs once for each temperature of the agent vote (`agent_vote`, grid
///    [`crate::attribution::score::VOTE_GRID`], 0 = off first) held during it, and the best
///    of those fits by the same objective wins (the first on a tie, so the vote stays off
///    unless it helps on the fitted items). Without `vote` the vote stays off.
/// 2. With `agent_stage`, the agent stage (`agent_support` × `support_depth`): every grid
///    pair, the steps' weights held, maximising exact agents plus exact steps, then recall@5
///    (the first best pair wins, `agent_support` = 0 first: the stage stays off unless it helps
///    on the fitted items). Without it the stage stays off (the shipped procedure).
fn fit(items: &[&Scored], agent_stage: bool, dropped: &[usize], shape: Shape) -> Weights {
    let vote = shape == Shape::Chat;
    let run = |w: &Weights| items.iter().map(|s| s.item(w)).collect::<Vec<_>>();
    let temperatures: &[f64] =
        if vote && !dropped.contains(&AGENT_VOTE) { grid(AGENT_VOTE) } else { &[0.0] };
    let mut fitted: Option<((usize, usize, usize), Weights)> = None;
    for &t in temperatures {
        let w = fit_steps(items, dropped, t, shape);
        let o = objective(vote)(&run(&w));
        if fitted.as_ref().is_none_or(|(b, _)| o > *b) {
            fitted = Some((o, w));
        }
    }
    let w = fitted.map(|(_, w)| w).unwrap_or_default();
    if !agent_stage {
        return w;
    }
    let mut best: Option<((usize, usize, usize), Weights)> = None;
    for &a in grid(AGENT_STAGE[0]) {
        for &d in grid(AGENT_STAGE[1]) {
            let mut t = w.clone();
            t.set(AGENT_STAGE[0], a);
            t.set(AGENT_STAGE[1], d);
            let o = agent_objective(&run(&t));
            if best.as_ref().is_none_or(|(b, _)| o > *b) {
                best = Some((o, t));
            }
        }
    }
    best.map(|(_, w)| w).unwrap_or(w)
}

/// The fit's objective: [`chat_objective`] for group chats (the fits that choose the agent
/// vote), [`step_objective`] for orchestrated runs and the single model.
fn objective(chat: bool) -> fn(&[EvalItem]) -> (usize, usize, usize) {
    if chat {
        chat_objective
    } else {
        step_objective
    }
}

/// Coordinate ascent of the step weights (stage 1 of [`fit`]) with the agent vote's
/// temperature held at `vote` and the agent support off.
fn fit_steps(items: &[&Scored], dropped: &[usize], vote: f64, shape: Shape) -> Weights {
    let run = |w: &Weights| items.iter().map(|s| s.item(w)).collect::<Vec<_>>();
    let goal = objective(shape == Shape::Chat);
    // An uninformed start, so the fit owes nothing to the shipped defaults.
    let mut w = Weights::default();
    for k in 0..Weights::LEN {
        let g = grid(k);
        w.set(k, if g.contains(&0.5) { 0.5 } else { g[g.len() / 2] });
    }
    w.agent_support = 0.0;
    let orchestrated = shape == Shape::Orchestrated;
    // The claimed check starts off, so a tie keeps it off: it is kept only when it strictly
    // helps on the fitted items. So do the answer traces (`shows_answer`,
    // `concludes_answer`) outside orchestrated runs, where no worker replies and they never
    // fire. In an orchestrated run they start at the grid's middle, as the other step
    // weights do: each is the run's own words showing where its wrong final answer's value
    // came in, and each fires in a few runs only, so a fit whose half holds none of those
    // runs cannot tell whether it helps. Started at 0 such a fit turned it off for want of
    // evidence (the parity fold fitted on 3 Hand-Crafted items did); started on, a fit turns
    // it down only when its items say it hurts (docs/detector.md, the fourth round of
    // 2026-12-04).
    if !orchestrated {
        w.shows_answer = 0.0;
        w.concludes_answer = 0.0;
    }
    w.claimed_check = 0.0;
    // An orchestrated run's steps seldom speak their own words where these two features
    // read them: a worker's reply is mostly the page it passes on (OCR, metadata: "Simulated
    // Universe", a search bar's "Placeholder"), the coder's code is run at the orchestrator's
    // instruction, and every plan quotes the team's description of fenced code blocks. So
    // `introduces_code` and `assumption` start off there too, each kept only when it strictly
    // helps. Started at 0.5, `introduces_code` ended at 0 in nearly every fit all the same,
    // but the ascent had moved the other weights against it on the way, and `assumption` was
    // kept on a page's words (docs/detector.md, the round of 2026-12-04). `assumption` is
    // not fitted there at all: in a worker's reply it fires only on the words of a page the
    // worker passes on ("Simulated Universe", "Hypothetical Growth", a search bar's
    // "Placeholder"), never on the run's own assumption, so a fit that keeps it on a few
    // items has learnt those pages (the second round of 2026-12-04).
    if orchestrated {
        w.introduces_code = 0.0;
        w.assumption = 0.0;
    }
    for &k in dropped {
        w.set(k, 0.0);
    }
    w.agent_vote = vote;
    let held = |k: &usize| {
        AGENT_STAGE.contains(k)
            || *k == AGENT_VOTE
            || dropped.contains(k)
            || (orchestrated && *k == ASSUMPTION)
    };
    let mut best = goal(&run(&w));
    for _pass in 0..4 {
        let mut changed = false;
        for k in (0..Weights::LEN).filter(|k| !held(k)) {
            for &v in grid(k) {
                if v == w.get(k) {
                    continue;
                }
                let mut t = w.clone();
                t.set(k, v);
                let o = goal(&run(&t));
                if o > best {
                    best = o;
                    w = t;
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    w
}

/// The scoring model: one weight set per conversation shape.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Model {
    pub chat: Weights,
    pub orchestrated: Weights,
}

/// Fits the model: each shape's weights on the items of that shape only ([`fit`]), or with
/// `one_model` a single weight set on every item for both shapes.
fn fit_model(items: &[&Scored], agent_stage: bool, dropped: &[usize], one_model: bool) -> Model {
    if one_model {
        let w = fit(items, agent_stage, dropped, Shape::Both);
        return Model { chat: w.clone(), orchestrated: w };
    }
    let chat: Vec<&Scored> = items.iter().copied().filter(|s| !s.orchestrated).collect();
    let orch: Vec<&Scored> = items.iter().copied().filter(|s| s.orchestrated).collect();
    // The agent vote is fitted for group chats only: in an orchestrated run the orchestrator
    // speaks most steps, so the score mass follows its number of steps (docs/detector.md).
    Model {
        chat: fit(&chat, agent_stage, dropped, Shape::Chat),
        orchestrated: fit(&orch, agent_stage, dropped, Shape::Orchestrated),
    }
}

/// How the items are split into the two folds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Split {
    /// Odd item numbers against even ones (items without a number go by their position).
    #[default]
    Parity,
    /// Within each subset, the items in item-number order, alternately to one half and the
    /// other: two halves of equal size whatever numbers the set holds (the Who&When
    /// development half holds every odd item but only 8 even ones).
    Alternate,
}

/// Which items (subset, file) form the first half under `split` (the second is the rest).
pub fn first_half(items: &[(&str, &str)], split: Split) -> Vec<bool> {
    let number = |i: usize| item_number(items[i].1).unwrap_or(i as u64 + 1);
    match split {
        Split::Parity => (0..items.len()).map(|i| number(i) % 2 == 1).collect(),
        Split::Alternate => {
            let mut order: Vec<usize> = (0..items.len()).collect();
            crate::sort::sort_by(&mut order, |&a, &b| {
                items[a].0.cmp(items[b].0).then(number(a).cmp(&number(b)))
            });
            let mut first = vec![false; items.len()];
            let mut pos = 0usize;
            for (j, &i) in order.iter().enumerate() {
                if j > 0 && items[order[j - 1]].0 != items[i].0 {
                    pos = 0;
                }
                first[i] = pos % 2 == 0;
                pos += 1;
            }
            first
        }
    }
}

/// Two-fold cross-validation: fit on one half and score the other, and the reverse (the
/// halves as `split` says). Each item is analysed once; the weights only re-rank its
/// candidates. `agent_stage` also fits the agent stage in every fit (see [`fit`]).
pub fn cross_validate(
    inputs: &[EvalInput<'_>],
    opts: &AnalysisOptions,
    split: Split,
    agent_stage: bool,
) -> CrossValidation {
    cross_validate_without(inputs, opts, split, agent_stage, &[], false)
}

/// [`cross_validate`] with some features held out of the model: the weights named in
/// `dropped` ([`Weights::NAMES`] indices) stay 0 in every fit (an ablation; the figures of
/// `docs/detector.md` compare them).
pub fn cross_validate_without(
    inputs: &[EvalInput<'_>],
    opts: &AnalysisOptions,
    split: Split,
    agent_stage: bool,
    dropped: &[usize],
    one_model: bool,
) -> CrossValidation {
    let opts = AnalysisOptions { assume_failed: true, max_candidates: usize::MAX, ..opts.clone() };
    let scored: Vec<Scored> = inputs
        .iter()
        .filter(|inp| inp.trajectory.gold.is_some())
        .map(|inp| {
            let a = analyze_trajectory(inp.trajectory, &opts);
            let gold = inp.trajectory.gold.clone().unwrap_or_default();
            Scored {
                file: inp.file.clone(),
                subset: inp.subset.clone(),
                gold_step: gold.step,
                gold_agent: gold.agent,
                orchestrated: a.candidates.first().is_some_and(|c| c.features.orchestrated),
                steps: a.candidates.iter().map(|c| c.step).collect(),
                agents: a.candidates.iter().map(|c| normalize_agent(&c.agent)).collect(),
                candidates: a.candidates,
            }
        })
        .collect();
    let keys: Vec<(&str, &str)> =
        scored.iter().map(|s| (s.subset.as_str(), s.file.as_str())).collect();
    let odd = first_half(&keys, split);
    let half = |want: bool| -> Vec<&Scored> {
        scored.iter().zip(&odd).filter(|(_, &o)| o == want).map(|(s, _)| s).collect()
    };
    let items = |set: &[&Scored], m: &Model| -> Vec<EvalItem> {
        set.iter().map(|s| s.item_by_shape(m)).collect()
    };
    let mut folds = Vec::new();
    let mut pooled = Vec::new();
    let names = match split {
        Split::Parity => ["fit on odd, score on even", "fit on even, score on odd"],
        Split::Alternate => [
            "fit on the 1st, 3rd, 5th… item of each subset, score the others",
            "fit on the 2nd, 4th, 6th… item of each subset, score the others",
        ],
    };
    for (name, train_odd) in [(names[0], true), (names[1], false)] {
        let train = half(train_odd);
        let test = half(!train_odd);
        let m = fit_model(&train, agent_stage, dropped, one_model);
        let test_items = items(&test, &m);
        folds.push(Fold {
            name: name.into(),
            train_fit: score(&items(&train, &m)),
            test: score(&test_items),
            weights: m.chat,
            orchestrated_weights: m.orchestrated,
        });
        pooled.extend(test_items);
    }
    let all: Vec<&Scored> = scored.iter().collect();
    let all_model = fit_model(&all, agent_stage, dropped, one_model);
    let defaults =
        Model { chat: opts.weights.clone(), orchestrated: opts.orchestrated_weights.clone() };
    CrossValidation {
        split,
        agent_stage,
        one_model,
        folds,
        pooled_test: score(&pooled),
        pooled_items: pooled,
        all_train_fit: score(&items(&all, &all_model)),
        defaults: score(&items(&all, &defaults)),
        all_weights: all_model.chat,
        all_orchestrated_weights: all_model.orchestrated,
    }
}

/// The per-subset scores of scored items.
pub fn score(items: &[EvalItem]) -> BTreeMap<String, SubsetScore> {
    #[derive(Default)]
    struct Acc {
        n: usize,
        steps: usize,
        exact: usize,
        w1: usize,
        w2: usize,
        agents: usize,
        agent_ok: usize,
        r3: usize,
        r5: usize,
    }
    let mut acc: BTreeMap<&str, Acc> = BTreeMap::new();
    for it in items {
        if it.gold_step.is_none() && it.gold_agent.is_none() {
            continue;
        }
        let a = acc.entry(it.subset.as_str()).or_default();
        a.n += 1;
        if let Some(g) = it.gold_step {
            a.steps += 1;
            if let Some(p) = it.predicted_step {
                let d = p.abs_diff(g);
                a.exact += (d == 0) as usize;
                a.w1 += (d <= 1) as usize;
                a.w2 += (d <= 2) as usize;
            }
            a.r3 += it.candidate_steps.iter().take(3).any(|&c| c == g) as usize;
            a.r5 += it.candidate_steps.iter().take(5).any(|&c| c == g) as usize;
        }
        if let Some(g) = &it.gold_agent {
            a.agents += 1;
            a.agent_ok += it
                .predicted_agent
                .as_deref()
                .is_some_and(|p| normalize_agent(p) == normalize_agent(g))
                as usize;
        }
    }
    let frac = |x: usize, n: usize| if n == 0 { 0.0 } else { x as f64 / n as f64 };
    acc.into_iter()
        .map(|(k, a)| {
            (
                k.to_string(),
                SubsetScore {
                    n: a.n,
                    step_acc: frac(a.exact, a.steps),
                    step_acc_within_1: frac(a.w1, a.steps),
                    step_acc_within_2: frac(a.w2, a.steps),
                    agent_acc: frac(a.agent_ok, a.agents),
                    recall_at_3: frac(a.r3, a.steps),
                    recall_at_5: frac(a.r5, a.steps),
                },
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(
        subset: &str,
        gold: u32,
        pred: Option<u32>,
        ga: &str,
        pa: &str,
        cands: &[u32],
    ) -> EvalItem {
        EvalItem {
            file: format!("{subset}/{gold}.json"),
            subset: subset.into(),
            gold_step: Some(gold),
            predicted_step: pred,
            gold_agent: Some(ga.into()),
            predicted_agent: Some(pa.into()),
            candidate_steps: cands.to_vec(),
        }
    }

    #[test]
    fn steps_compare_as_integers_not_substrings() {
        // "1" is a substring of "12" — the original script's bug; here it is a miss.
        let s = score(&[item("AG", 12, Some(1), "A", "A", &[1, 2, 3])]);
        assert_eq!(s["AG"].step_acc, 0.0);
        assert_eq!(s["AG"].step_acc_within_2, 0.0);
    }

    #[test]
    fn metrics_per_subset() {
        let s = score(&[
            item("AG", 4, Some(4), "WebSurfer", "websurfer", &[4, 9]),
            item("AG", 4, Some(5), "Orchestrator", "Orchestrator (thought)", &[5, 1, 2, 4]),
            item("AG", 10, Some(8), "X", "Y", &[8, 1, 2, 3, 4, 10]),
            item("HC", 3, None, "X", "", &[]),
        ]);
        let ag = &s["AG"];
        assert_eq!(ag.n, 3);
        assert!((ag.step_acc - 1.0 / 3.0).abs() < 1e-9);
        assert!((ag.step_acc_within_1 - 2.0 / 3.0).abs() < 1e-9);
        assert!((ag.step_acc_within_2 - 1.0).abs() < 1e-9);
        assert!((ag.agent_acc - 2.0 / 3.0).abs() < 1e-9);
        assert!((ag.recall_at_3 - 1.0 / 3.0).abs() < 1e-9);
        assert!((ag.recall_at_5 - 2.0 / 3.0).abs() < 1e-9);
        assert_eq!(s["HC"].n, 1);
        assert_eq!(s["HC"].step_acc, 0.0);
    }

    #[test]
    fn parity_folds_split_odd_from_even_numbers() {
        let items =
            [("AG", "a/1.json"), ("AG", "a/2.json"), ("HC", "h/3.json"), ("HC", "h/7.json")];
        assert_eq!(first_half(&items, Split::Parity), vec![true, false, true, true]);
    }

    #[test]
    fn alternate_folds_halve_each_subset_in_number_order() {
        // Mostly odd numbers (as in the Who&When development half): parity would put almost
        // every item on one side; alternating by number order halves each subset.
        let items = [
            ("AG", "a/9.json"),
            ("AG", "a/1.json"),
            ("HC", "h/5.json"),
            ("AG", "a/3.json"),
            ("AG", "a/10.json"),
            ("HC", "h/1.json"),
            ("HC", "h/3.json"),
        ];
        // AG in number order: 1, 3, 9, 10 → first, second, first, second; HC: 1, 3, 5.
        let first = first_half(&items, Split::Alternate);
        assert_eq!(first, vec![true, true, true, false, false, true, false]);
        let ag_first = items.iter().zip(&first).filter(|(i, &f)| i.0 == "AG" && f).count();
        assert_eq!(ag_first, 2);
    }

    /// A candidate with nothing but its step, agent and features (what the fit reads).
    fn bare_candidate(step: u32, agent: &str, features: crate::attribution::Features) -> Candidate {
        use crate::attribution::InstanceState;
        use crate::record::{Category, Phase};
        Candidate {
            step,
            line: 0,
            agent: agent.into(),
            score: 0.0,
            category: Category::TaskConflict,
            phase: Phase::Reasoning,
            state: InstanceState::LatentActive,
            evidence: Vec::new(),
            instance: None,
            why: Vec::new(),
            features,
        }
    }

    /// An item whose gold step is the candidate with feature `a` (`assumption`) in a group
    /// chat, or with `b` (`introduces_code`) in an orchestrated run; the other candidate has
    /// the other feature.
    fn shaped(k: usize, orchestrated: bool) -> Scored {
        use crate::attribution::Features;
        let cand = |step: u32, assumption: bool| {
            let features = Features {
                assumption,
                introduces_code: !assumption,
                orchestrated,
                ..Features::default()
            };
            bare_candidate(step, &format!("agent{step}"), features)
        };
        let candidates = vec![cand(1, true), cand(2, false)];
        Scored {
            file: format!("{}/{k}.json", if orchestrated { "HC" } else { "AG" }),
            subset: if orchestrated { "HC" } else { "AG" }.into(),
            gold_step: Some(if orchestrated { 2 } else { 1 }),
            gold_agent: Some(format!("agent{}", if orchestrated { 2 } else { 1 })),
            orchestrated,
            steps: vec![1, 2],
            agents: vec!["agent1".into(), "agent2".into()],
            candidates,
        }
    }

    #[test]
    fn each_shape_gets_its_own_weights_when_their_evidence_conflicts() {
        // Three group chats want `assumption`, two orchestrated runs `introduces_code`.
        let items: Vec<Scored> = (0..5).map(|k| shaped(k, k >= 3)).collect::<Vec<_>>();
        let refs: Vec<&Scored> = items.iter().collect();
        let exact = |m: &Model| {
            refs.iter().filter(|s| s.item_by_shape(m).predicted_step == s.gold_step).count()
        };
        let per_shape = fit_model(&refs, false, &[], false);
        assert_eq!(exact(&per_shape), 5);
        assert!(per_shape.chat.assumption >= per_shape.chat.introduces_code);
        assert!(per_shape.orchestrated.introduces_code > per_shape.orchestrated.assumption);
        // One weight set serves the majority only.
        let one = fit_model(&refs, false, &[], true);
        assert_eq!(one.chat, one.orchestrated);
        assert_eq!(exact(&one), 3);
        // A dropped weight stays 0 in every fit.
        let k = Weights::NAMES.iter().position(|n| *n == "assumption").unwrap();
        let dropped = fit_model(&refs, false, &[k], false);
        assert_eq!(dropped.chat.assumption, 0.0);
        assert_eq!(dropped.orchestrated.assumption, 0.0);
    }

    /// An item whose first candidate (step 1, the earliest) is agent `a`'s and whose gold step
    /// is the first of agent `b`'s three steps (2, 3, 4); the features are equal but for
    /// earliness, so no step weight puts step 2 first.
    fn outvoted(k: usize, orchestrated: bool) -> Scored {
        use crate::attribution::Features;
        let cand = |step: u32, agent: &str| {
            let features = Features {
                earliness: 1.0 - step as f64 / 5.0,
                orchestrated,
                ..Features::default()
            };
            bare_candidate(step, agent, features)
        };
        let candidates = vec![cand(1, "a"), cand(2, "b"), cand(3, "b"), cand(4, "b")];
        Scored {
            file: format!("AG/{k}.json"),
            subset: "AG".into(),
            gold_step: Some(2),
            gold_agent: Some("b".into()),
            orchestrated,
            steps: candidates.iter().map(|c| c.step).collect(),
            agents: candidates.iter().map(|c| normalize_agent(&c.agent)).collect(),
            candidates,
        }
    }

    #[test]
    fn the_agent_vote_is_fitted_for_group_chats_only_and_only_when_it_helps() {
        let chats: Vec<Scored> = (0..3).map(|k| outvoted(k, false)).collect();
        let refs: Vec<&Scored> = chats.iter().collect();
        let m = fit_model(&refs, false, &[], false);
        assert!(m.chat.agent_vote > 0.0, "{:?}", m.chat);
        assert!(refs.iter().all(|s| s.item_by_shape(&m).predicted_step == Some(2)));
        // Held out of the model, the vote stays off and step 1 (agent a) stays first.
        let k = Weights::NAMES.iter().position(|n| *n == "agent_vote").unwrap();
        let off = fit_model(&refs, false, &[k], false);
        assert_eq!(off.chat.agent_vote, 0.0);
        assert!(refs.iter().all(|s| s.item_by_shape(&off).predicted_step == Some(1)));
        // Orchestrated runs never get the vote, even where it would help.
        let orch: Vec<Scored> = (0..3).map(|k| outvoted(k, true)).collect();
        let refs: Vec<&Scored> = orch.iter().collect();
        assert_eq!(fit_model(&refs, false, &[], false).orchestrated.agent_vote, 0.0);
        // Where the vote does not help (the gold step is agent a's), it stays off.
        let mut plain: Vec<Scored> = (0..3).map(|k| outvoted(k, false)).collect();
        for s in &mut plain {
            s.gold_step = Some(1);
            s.gold_agent = Some("a".into());
        }
        let refs: Vec<&Scored> = plain.iter().collect();
        assert_eq!(fit_model(&refs, false, &[], false).chat.agent_vote, 0.0);
    }

    /// An orchestrated item: three worker replies (steps 4, 8, 12), the earliest best by
    /// earliness; `shown` marks the reply that first shows the final answer's value, `gold`
    /// is the annotated step.
    fn answer_shown_item(k: usize, shown: u32, gold: u32) -> Scored {
        use crate::attribution::Features;
        let candidates: Vec<Candidate> = [4u32, 8, 12]
            .iter()
            .map(|&step| {
                let features = Features {
                    earliness: 1.0 - step as f64 / 20.0,
                    worker_reply: true,
                    shows_answer: step == shown,
                    orchestrated: true,
                    ..Features::default()
                };
                bare_candidate(step, "WebSurfer", features)
            })
            .collect();
        Scored {
            file: format!("HC/{k}.json"),
            subset: "HC".into(),
            gold_step: Some(gold),
            gold_agent: Some("WebSurfer".into()),
            orchestrated: true,
            steps: vec![4, 8, 12],
            agents: vec!["websurfer".into(); 3],
            candidates,
        }
    }

    /// [`answer_shown_item`] with no answer shown and one feature, set by `set`, on step 12 only.
    fn marked_on_12(
        k: usize,
        gold: u32,
        set: fn(&mut crate::attribution::Features, bool),
    ) -> Scored {
        let mut s = answer_shown_item(k, 0, gold);
        for c in &mut s.candidates {
            set(&mut c.features, c.step == 12);
        }
        s
    }

    #[test]
    fn the_answer_shown_weight_is_fitted_on_where_it_helps() {
        // The reply that shows the answer is the gold step: the fit keeps the feature on.
        let items: Vec<Scored> = (0..3).map(|k| answer_shown_item(k, 8, 8)).collect();
        let refs: Vec<&Scored> = items.iter().collect();
        let m = fit_model(&refs, false, &[], false);
        assert!(m.orchestrated.shows_answer > 0.0, "{:?}", m.orchestrated);
        assert!(refs.iter().all(|s| s.item_by_shape(&m).predicted_step == Some(8)));
        // Held out (`--drop shows_answer`), the earliest reply stays first.
        let k = Weights::NAMES.iter().position(|n| *n == "shows_answer").unwrap();
        let off = fit_model(&refs, false, &[k], false);
        assert_eq!(off.orchestrated.shows_answer, 0.0);
        assert!(refs.iter().all(|s| s.item_by_shape(&off).predicted_step == Some(4)));
        // Where the reply it marks is not the gold step, the fit does not let it lead.
        let items: Vec<Scored> = (0..3).map(|k| answer_shown_item(k, 12, 4)).collect();
        let refs: Vec<&Scored> = items.iter().collect();
        let m = fit_model(&refs, false, &[], false);
        assert!(refs.iter().all(|s| s.item_by_shape(&m).predicted_step == Some(4)));
    }

    #[test]
    fn the_accepted_reply_weight_is_fitted_on_where_it_helps() {
        // The reply the run accepted its answer from (step 12) is the gold step.
        let accepted = |k, gold| marked_on_12(k, gold, |f, on| f.concludes_answer = on);
        let items: Vec<Scored> = (0..3).map(|k| accepted(k, 12)).collect();
        let refs: Vec<&Scored> = items.iter().collect();
        let m = fit_model(&refs, false, &[], false);
        assert!(m.orchestrated.concludes_answer > 0.0, "{:?}", m.orchestrated);
        assert!(refs.iter().all(|s| s.item_by_shape(&m).predicted_step == Some(12)));
        // Held out (`--drop concludes_answer`), the earliest reply stays first.
        let k = Weights::NAMES.iter().position(|n| *n == "concludes_answer").unwrap();
        let off = fit_model(&refs, false, &[k], false);
        assert_eq!(off.orchestrated.concludes_answer, 0.0);
        assert!(refs.iter().all(|s| s.item_by_shape(&off).predicted_step == Some(4)));
        // Where the gold step is another reply, the fit does not let it lead.
        let items: Vec<Scored> = (0..3).map(|k| accepted(k, 4)).collect();
        let refs: Vec<&Scored> = items.iter().collect();
        let m = fit_model(&refs, false, &[], false);
        assert!(refs.iter().all(|s| s.item_by_shape(&m).predicted_step == Some(4)));
    }

    #[test]
    fn the_answer_traces_stay_on_where_the_fitted_items_cannot_tell() {
        // A half whose items hold no reply the traces mark (or mark the reply that is first
        // anyway) says nothing of them: the orchestrated fit leaves both at their start, the
        // grid's middle, instead of turning them off for want of evidence.
        for shown in [0, 4] {
            let items: Vec<Scored> = (0..3).map(|k| answer_shown_item(k, shown, 4)).collect();
            let refs: Vec<&Scored> = items.iter().collect();
            let m = fit_model(&refs, false, &[], false);
            assert_eq!(m.orchestrated.shows_answer, 0.5, "{:?}", m.orchestrated);
            assert_eq!(m.orchestrated.concludes_answer, 0.5, "{:?}", m.orchestrated);
            // `--drop` still holds each at 0.
            let k = Weights::NAMES.iter().position(|n| *n == "shows_answer").unwrap();
            assert_eq!(fit_model(&refs, false, &[k], false).orchestrated.shows_answer, 0.0);
        }
        // Group chats have no worker replies: there the traces start, and stay, off; so does
        // the single model's fit (`--one-model`).
        let items: Vec<Scored> = (0..3).map(|k| answer_shown_item(k, 0, 4)).collect();
        let refs: Vec<&Scored> = items.iter().collect();
        let both = fit_model(&refs, false, &[], true);
        assert_eq!(both.orchestrated.shows_answer, 0.0);
        assert_eq!(both.orchestrated.concludes_answer, 0.0);
    }

    #[test]
    fn the_unbacked_declaration_is_structural_whatever_a_fit_learns() {
        // The orchestrator's declaration that no reply backs (marked on step 12 here) is no
        // weight: it goes first in every fit, even one whose gold steps are elsewhere, and no
        // `--drop` can hold it off.
        let declared = |k, gold| marked_on_12(k, gold, |f, on| f.unbacked_declaration = on);
        assert!(!Weights::NAMES.contains(&"unbacked_declaration"));
        for gold in [12, 4] {
            let items: Vec<Scored> = (0..3).map(|k| declared(k, gold)).collect();
            let refs: Vec<&Scored> = items.iter().collect();
            let m = fit_model(&refs, false, &[], false);
            assert!(refs.iter().all(|s| s.item_by_shape(&m).predicted_step == Some(12)));
        }
    }

    /// A group chat: three expert steps (1, 3, 5), the earliest best by earliness and its code;
    /// `claimed` marks the step that reports a check it ran no code for, `gold` is the
    /// annotated step.
    fn claimed_check_item(k: usize, claimed: u32, gold: u32) -> Scored {
        use crate::attribution::Features;
        let candidates: Vec<Candidate> = [1u32, 3, 5]
            .iter()
            .map(|&step| {
                let features = Features {
                    earliness: 1.0 - step as f64 / 8.0,
                    introduces_code: step == 1,
                    claimed_check: step == claimed,
                    ..Features::default()
                };
                bare_candidate(step, "Expert", features)
            })
            .collect();
        Scored {
            file: format!("AG/{k}.json"),
            subset: "AG".into(),
            gold_step: Some(gold),
            gold_agent: Some("Expert".into()),
            orchestrated: false,
            steps: vec![1, 3, 5],
            agents: vec!["expert".into(); 3],
            candidates,
        }
    }

    #[test]
    fn the_claimed_check_weight_is_fitted_on_only_when_it_strictly_helps() {
        // The step that reports a check it never ran (step 5) is the gold step: the fit turns
        // the feature on, for group chats (the shape it was fitted on) only.
        let items: Vec<Scored> = (0..3).map(|k| claimed_check_item(k, 5, 5)).collect();
        let refs: Vec<&Scored> = items.iter().collect();
        let m = fit_model(&refs, false, &[], false);
        assert!(m.chat.claimed_check > 0.0, "{:?}", m.chat);
        assert!(refs.iter().all(|s| s.item_by_shape(&m).predicted_step == Some(5)));
        // Held out (`--drop claimed_check`), the earliest step, with its code, stays first.
        let k = Weights::NAMES.iter().position(|n| *n == "claimed_check").unwrap();
        let off = fit_model(&refs, false, &[k], false);
        assert_eq!(off.chat.claimed_check, 0.0);
        assert!(refs.iter().all(|s| s.item_by_shape(&off).predicted_step == Some(1)));
        // Where the gold step is another one, it stays off.
        let items: Vec<Scored> = (0..3).map(|k| claimed_check_item(k, 5, 1)).collect();
        let refs: Vec<&Scored> = items.iter().collect();
        assert_eq!(fit_model(&refs, false, &[], false).chat.claimed_check, 0.0);
    }

    /// Three agent steps (1, 3, 5), earlier ones better by earliness; `code` marks the step
    /// that introduces code, `gold` is the annotated step.
    fn code_item(k: usize, orchestrated: bool, code: u32, gold: u32) -> Scored {
        use crate::attribution::Features;
        let candidates: Vec<Candidate> = [1u32, 3, 5]
            .iter()
            .map(|&step| {
                let features = Features {
                    earliness: 1.0 - step as f64 / 8.0,
                    introduces_code: step == code,
                    worker_reply: orchestrated,
                    orchestrated,
                    ..Features::default()
                };
                bare_candidate(step, "Agent", features)
            })
            .collect();
        Scored {
            file: format!("{}/{k}.json", if orchestrated { "HC" } else { "AG" }),
            subset: if orchestrated { "HC" } else { "AG" }.into(),
            gold_step: Some(gold),
            gold_agent: Some("Agent".into()),
            orchestrated,
            steps: vec![1, 3, 5],
            agents: vec!["agent".into(); 3],
            candidates,
        }
    }

    #[test]
    fn code_and_assumption_start_off_in_the_orchestrated_fit_and_on_in_the_group_chats() {
        // The step with code is the earliest and the gold one, no step states an assumption:
        // the features change nothing, so each fit keeps its start: 0 for orchestrated runs,
        // 0.5 for group chats.
        for orchestrated in [true, false] {
            let items: Vec<Scored> = (0..3).map(|k| code_item(k, orchestrated, 1, 1)).collect();
            let refs: Vec<&Scored> = items.iter().collect();
            let m = fit_model(&refs, false, &[], false);
            if orchestrated {
                assert_eq!(m.orchestrated.introduces_code, 0.0, "{:?}", m.orchestrated);
                assert_eq!(m.orchestrated.assumption, 0.0, "{:?}", m.orchestrated);
            } else {
                assert_eq!(m.chat.introduces_code, 0.5, "{:?}", m.chat);
                assert_eq!(m.chat.assumption, 0.5, "{:?}", m.chat);
            }
        }
        // Where the code is the gold step's and earliness holds it back, the orchestrated fit
        // turns the feature on.
        let items: Vec<Scored> = (0..3).map(|k| code_item(k, true, 5, 5)).collect();
        let refs: Vec<&Scored> = items.iter().collect();
        let m = fit_model(&refs, false, &[], false);
        assert!(m.orchestrated.introduces_code > 0.0, "{:?}", m.orchestrated);
        assert!(refs.iter().all(|s| s.item_by_shape(&m).predicted_step == Some(5)));
        // The single model (`--one-model`) starts it at 0.5, as before.
        let items: Vec<Scored> = (0..3).map(|k| code_item(k, true, 1, 1)).collect();
        let refs: Vec<&Scored> = items.iter().collect();
        let one = fit_model(&refs, false, &[], true).orchestrated;
        assert_eq!((one.introduces_code, one.assumption), (0.5, 0.5));
    }

    #[test]
    fn assumption_is_held_off_in_the_orchestrated_fit_only() {
        assert_eq!(Weights::NAMES[ASSUMPTION], "assumption");
        // The gold step is the last one, the only one that states an assumption, and
        // earliness holds it back: the group chats' fit turns `assumption` on, the
        // orchestrated fit does not fit it at all.
        for orchestrated in [true, false] {
            let items: Vec<Scored> = (0..3)
                .map(|k| {
                    let mut s = code_item(k, orchestrated, 0, 5);
                    for c in &mut s.candidates {
                        c.features.assumption = c.step == 5;
                    }
                    s
                })
                .collect();
            let refs: Vec<&Scored> = items.iter().collect();
            let m = fit_model(&refs, false, &[], false);
            if orchestrated {
                assert_eq!(m.orchestrated.assumption, 0.0, "{:?}", m.orchestrated);
            } else {
                assert!(m.chat.assumption > 0.0, "{:?}", m.chat);
            }
        }
    }

    #[test]
    fn the_cross_validation_lists_every_held_out_item_it_scored() {
        // Four small group chats, the mistake at step 1 in each.
        let trajs: Vec<Trajectory> = (1..=4)
            .map(|k| {
                let doc = serde_json::json!({"question": "Which year?", "history": [
                    {"name": "Planner", "role": "assistant", "content": "The plan: look it up."},
                    {"name": "Expert", "role": "assistant", "content": format!("Let's assume it is 19{k}0.")},
                    {"name": "Checker", "role": "assistant", "content": "Verified."},
                ], "mistake_agent": "Expert", "mistake_step": "1", "mistake_reason": "assumed"});
                crate::ingest(doc.to_string().as_bytes(), crate::IngestOptions::default())
                    .trajectories
                    .remove(0)
            })
            .collect();
        let inputs: Vec<EvalInput<'_>> = trajs
            .iter()
            .enumerate()
            .map(|(i, t)| EvalInput {
                file: format!("AG/{}.json", i + 1),
                subset: "AG".into(),
                trajectory: t,
            })
            .collect();
        let cv = cross_validate(&inputs, &AnalysisOptions::default(), Split::Parity, false);
        let mut files: Vec<&str> = cv.pooled_items.iter().map(|i| i.file.as_str()).collect();
        files.sort();
        assert_eq!(files, ["AG/1.json", "AG/2.json", "AG/3.json", "AG/4.json"]);
        assert_eq!(score(&cv.pooled_items), cv.pooled_test);
        assert!(cv.pooled_items.iter().all(|i| i.gold_step == Some(1)));
    }

    #[test]
    fn item_numbers_from_file_names() {
        assert_eq!(item_number("x/Algorithm-Generated/17.json"), Some(17));
        assert_eq!(item_number("17.json#run-2"), Some(17));
        assert_eq!(item_number("x/trace.jsonl"), None);
    }

    #[test]
    fn magentic_roles_reduce_to_the_agent() {
        assert_eq!(normalize_agent("Orchestrator (thought)"), "orchestrator");
        assert_eq!(normalize_agent("Orchestrator (-> WebSurfer)"), "orchestrator");
        assert_eq!(normalize_agent(" Excel_Expert "), "excel_expert");
        // The part before the first " (", as `split(" (")` cuts it.
        for name in ["a (b (c", " (x", "(a", "a(b (c", "x  (y", "é (z)", "", " (", "Ab ((", "A ("]
        {
            let by_split = crate::lower::lower_str(name.split(" (").next().unwrap_or(name).trim());
            assert_eq!(normalize_agent(name), by_split, "{name:?}");
        }
    }
}
