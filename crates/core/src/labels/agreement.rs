//! Agreement between annotators on the critical step.
//!
//! The unit is an *item* (content hash + trajectory id). Each annotator gives an item at most one
//! answer: their label's `critical_step` — a step index, or "no critical step" (`None`), which is
//! an answer of its own. When an annotator labelled an item more than once, the label with the
//! latest `time` wins (the later one in input order on a tie).
//!
//! - *Compared items*: items every annotator labelled. `exact` is the share of them on which all
//!   annotators chose the same answer; `within_one` the share on which all chosen steps lie
//!   within one step of each other (a "no critical step" answer matches only another one).
//! - `agent_exact`: among compared items on which every annotator named a responsible agent, the
//!   share on which all named the same one (case-insensitive).
//! - The kappa statistics treat answers as nominal categories: the category space is the set of
//!   answers (step indices, and "none") that occur among the compared items. Cohen's kappa is
//!   given for every pair of annotators, over the items both labelled; Fleiss' kappa over the
//!   compared items with every annotator as a rater. A kappa is `None` when it is undefined
//!   (no items, or chance agreement of 1: every rater always gave the same single answer).

use serde::{Deserialize, Serialize};

use super::{ItemKey, Label};
use crate::vecmap::VecMap;

/// Agreement of two annotators over the items both labelled.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PairAgreement {
    pub a: String,
    pub b: String,
    pub items: usize,
    pub exact: Option<f64>,
    pub within_one: Option<f64>,
    pub cohen_kappa: Option<f64>,
}

/// One annotator's answer on a disagreed item.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Answer {
    pub annotator: String,
    pub critical_step: Option<u32>,
    pub responsible_agent: Option<String>,
}

/// A compared item on which the annotators did not all choose the same answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Disagreement {
    pub item: ItemKey,
    /// One answer per annotator, in annotator order.
    pub answers: Vec<Answer>,
    /// Largest minus smallest step when every answer is a step; `None` otherwise.
    pub spread: Option<u32>,
}

/// The agreement figures for a set of labels by two or more annotators.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Agreement {
    /// Annotators, sorted by name.
    pub annotators: Vec<String>,
    /// Distinct items labelled by anyone.
    pub items_labelled: usize,
    /// Items labelled by every annotator (the base of `exact`, `within_one`, Fleiss' kappa).
    pub items_compared: usize,
    pub exact: Option<f64>,
    pub within_one: Option<f64>,
    /// Cohen's kappa when there are exactly two annotators.
    pub cohen_kappa: Option<f64>,
    pub fleiss_kappa: Option<f64>,
    /// Compared items on which every annotator named a responsible agent.
    pub agent_items: usize,
    /// Share of those on which all named the same agent (case-insensitive, trimmed).
    pub agent_exact: Option<f64>,
    pub pairs: Vec<PairAgreement>,
    /// Compared items without exact agreement, in item order.
    pub disagreements: Vec<Disagreement>,
}

/// Each item's answers by annotator, in item then name order (sorted vectors, not `BTreeMap`s:
/// `core::vecmap`).
type Answers<'a> = VecMap<ItemKey, VecMap<String, &'a Label>>;

fn annotator_name(l: &Label) -> String {
    let name = l.annotator.trim();
    if name.is_empty() {
        "(unnamed)".to_string()
    } else {
        name.to_string()
    }
}

fn collect(labels: &[Label]) -> Answers<'_> {
    let by_item = VecMap::grouped(labels.iter().map(|l| (l.item(), l)).collect());
    by_item.map_values(|labels| {
        let mut slot: VecMap<String, &Label> = VecMap::new();
        for l in labels {
            let name = annotator_name(l);
            match slot.get(&name) {
                Some(old) if old.time > l.time => {}
                _ => slot.insert(name, l),
            }
        }
        slot
    })
}

fn within_one(a: Option<u32>, b: Option<u32>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => a.abs_diff(b) <= 1,
        (None, None) => true,
        _ => false,
    }
}

fn ratio(n: usize, d: usize) -> Option<f64> {
    (d > 0).then(|| n as f64 / d as f64)
}

fn kappa(observed: f64, chance: f64) -> Option<f64> {
    let denom = 1.0 - chance;
    (denom.abs() > 1e-12).then(|| (observed - chance) / denom)
}

/// Cohen's kappa for two raters' paired answers.
pub fn cohen_kappa(pairs: &[(Option<u32>, Option<u32>)]) -> Option<f64> {
    if pairs.is_empty() {
        return None;
    }
    let n = pairs.len() as f64;
    let mut ma: VecMap<Option<u32>, f64> = VecMap::new();
    let mut mb: VecMap<Option<u32>, f64> = VecMap::new();
    let mut agree = 0.0;
    for (a, b) in pairs {
        *ma.or_default(*a) += 1.0;
        *mb.or_default(*b) += 1.0;
        if a == b {
            agree += 1.0;
        }
    }
    let chance: f64 =
        ma.iter().map(|(k, ca)| (ca / n) * (mb.get(k).copied().unwrap_or(0.0) / n)).sum();
    kappa(agree / n, chance)
}

/// Fleiss' kappa: one row per item, each row the answers of the same number (≥ 2) of raters.
/// `None` when the rows are empty, of unequal length, shorter than two, or chance agreement is 1.
pub fn fleiss_kappa(rows: &[Vec<Option<u32>>]) -> Option<f64> {
    let m = rows.first()?.len();
    if m < 2 || rows.iter().any(|r| r.len() != m) {
        return None;
    }
    let n_items = rows.len() as f64;
    let mf = m as f64;
    let mut totals: VecMap<Option<u32>, f64> = VecMap::new();
    let mut p_sum = 0.0;
    for row in rows {
        let mut counts: VecMap<Option<u32>, f64> = VecMap::new();
        for a in row {
            *counts.or_default(*a) += 1.0;
            *totals.or_default(*a) += 1.0;
        }
        let sq: f64 = counts.values().map(|c| c * c).sum();
        p_sum += (sq - mf) / (mf * (mf - 1.0));
    }
    let p_bar = p_sum / n_items;
    let chance: f64 = totals.values().map(|t| (t / (n_items * mf)).powi(2)).sum();
    kappa(p_bar, chance)
}

/// Agreement on the critical step among all annotators found in `labels`.
pub fn agreement(labels: &[Label]) -> Agreement {
    let by_item = collect(labels);
    let mut names: VecMap<String, ()> = VecMap::new();
    for name in by_item.values().flat_map(|m| m.keys()) {
        if names.get(name).is_none() {
            names.insert(name.clone(), ());
        }
    }
    let annotators: Vec<String> = names.into_iter().map(|(name, ())| name).collect();

    let mut pairs = Vec::new();
    for (i, a) in annotators.iter().enumerate() {
        for b in &annotators[i + 1..] {
            let both: Vec<(Option<u32>, Option<u32>)> = by_item
                .values()
                .filter_map(|m| Some((m.get(a)?.critical_step, m.get(b)?.critical_step)))
                .collect();
            pairs.push(PairAgreement {
                a: a.clone(),
                b: b.clone(),
                items: both.len(),
                exact: ratio(both.iter().filter(|(x, y)| x == y).count(), both.len()),
                within_one: ratio(
                    both.iter().filter(|(x, y)| within_one(*x, *y)).count(),
                    both.len(),
                ),
                cohen_kappa: cohen_kappa(&both),
            });
        }
    }

    let mut rows = Vec::new();
    let mut exact = 0;
    let mut near = 0;
    let mut agent_items = 0;
    let mut agent_same = 0;
    let mut disagreements = Vec::new();
    let many = annotators.len() >= 2;
    for (item, answers) in &by_item {
        if !many || answers.len() != annotators.len() {
            continue;
        }
        let row: Vec<Option<u32>> = answers.values().map(|l| l.critical_step).collect();
        let all_same = row.iter().all(|s| *s == row[0]);
        let all_near = row.iter().all(|x| row.iter().all(|y| within_one(*x, *y)));
        exact += usize::from(all_same);
        let agents: Option<Vec<String>> = answers
            .values()
            .map(|l| l.responsible_agent.as_deref().map(|a| crate::lower::lower_str(a.trim())))
            .map(|a| a.filter(|a| !a.is_empty()))
            .collect();
        if let Some(agents) = agents {
            agent_items += 1;
            agent_same += usize::from(agents.iter().all(|a| *a == agents[0]));
        }
        near += usize::from(all_near);
        if !all_same {
            let steps: Option<Vec<u32>> = row.iter().copied().collect();
            let spread = steps.and_then(|s| Some(s.iter().max()? - s.iter().min()?));
            disagreements.push(Disagreement {
                item: item.clone(),
                answers: answers
                    .iter()
                    .map(|(name, l)| Answer {
                        annotator: name.clone(),
                        critical_step: l.critical_step,
                        responsible_agent: l.responsible_agent.clone(),
                    })
                    .collect(),
                spread,
            });
        }
        rows.push(row);
    }

    Agreement {
        cohen_kappa: if annotators.len() == 2 {
            pairs.first().and_then(|p| p.cohen_kappa)
        } else {
            None
        },
        fleiss_kappa: if many { fleiss_kappa(&rows) } else { None },
        items_labelled: by_item.len(),
        items_compared: rows.len(),
        exact: ratio(exact, rows.len()),
        within_one: ratio(near, rows.len()),
        agent_items,
        agent_exact: ratio(agent_same, agent_items),
        annotators,
        pairs,
        disagreements,
    }
}
