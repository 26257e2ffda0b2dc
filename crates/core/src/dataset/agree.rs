//! The agreed label of several annotators (docs/dataset.md): the majority answer on the
//! critical step ("no critical step" is an answer of its own); a tie agrees on nothing.

use serde::{Deserialize, Serialize};

use crate::labels::Label;
use crate::model::GoldLabel;
use crate::vecmap::VecMap;

/// The labels of one trajectory, one per annotator, and what they agree on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Agreed {
    /// One label per annotator (an annotator's latest by `time`; the later in input order on a
    /// tie), sorted by annotator name.
    pub labels: Vec<Label>,
    /// The agreed label: the majority step, and among the annotators who chose it the majority
    /// agent, category, phase and outcome (a tie there leaves that field empty) and the first
    /// one's rationale. `None` when the step votes tie.
    pub label: Option<Label>,
    pub votes: Vec<Vote>,
}

/// The annotators who chose one answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Vote {
    /// The step, or `null` for "no critical step".
    pub step: Option<u32>,
    pub annotators: Vec<String>,
}

impl Agreed {
    /// The answers that tied for the most votes (empty unless the votes tie).
    pub fn tied(&self) -> Vec<Option<u32>> {
        if self.label.is_some() {
            return Vec::new();
        }
        let top = self.votes.iter().map(|v| v.annotators.len()).max().unwrap_or(0);
        self.votes.iter().filter(|v| v.annotators.len() == top).map(|v| v.step).collect()
    }

    /// The agreed label as a gold label for scoring: `None` on a tie, and when it names
    /// neither a step, an agent nor a reason (as a benchmark item without a label reads).
    pub fn gold(&self) -> Option<GoldLabel> {
        let l = self.label.as_ref()?;
        let reason = Some(l.rationale.clone()).filter(|r| !r.is_empty());
        let agent = l.responsible_agent.clone().filter(|a| !a.is_empty());
        if l.critical_step.is_none() && agent.is_none() && reason.is_none() {
            return None;
        }
        Some(GoldLabel {
            step: l.critical_step,
            agent,
            reason,
            category: crate::labels::export::critical_error_type(l.phase, l.category),
        })
    }
}

fn annotator_key(l: &Label) -> String {
    l.annotator.trim().to_string()
}

/// The majority of `items`, or `None` when the largest count is shared (or there is nothing).
fn majority<T: PartialEq>(items: impl IntoIterator<Item = T>) -> Option<T> {
    let mut counts: Vec<(T, usize)> = Vec::new();
    for i in items {
        match counts.iter_mut().find(|(t, _)| *t == i) {
            Some((_, c)) => *c += 1,
            None => counts.push((i, 1)),
        }
    }
    let top = counts.iter().map(|(_, c)| *c).max()?;
    let mut best = counts.into_iter().filter(|(_, c)| *c == top);
    let first = best.next()?.0;
    best.next().is_none().then_some(first)
}

/// Agrees the labels of one trajectory (all of the same content hash and trajectory id).
pub fn agree<'a>(labels: impl IntoIterator<Item = &'a Label>) -> Agreed {
    let mut by_annotator: VecMap<String, &Label> = VecMap::new();
    for l in labels {
        let key = annotator_key(l);
        match by_annotator.get(&key) {
            Some(old) if old.time > l.time => {}
            _ => by_annotator.insert(key, l),
        }
    }
    let labels: Vec<Label> = by_annotator.values().map(|l| (*l).clone()).collect();
    let mut votes: VecMap<Option<u32>, Vec<String>> = VecMap::new();
    for l in &labels {
        votes.or_default(l.critical_step).push(annotator_key(l));
    }
    let votes: Vec<Vote> =
        votes.into_iter().map(|(step, annotators)| Vote { step, annotators }).collect();
    let step = majority(labels.iter().map(|l| l.critical_step));
    let label = step.map(|step| {
        let chose: Vec<&Label> = labels.iter().filter(|l| l.critical_step == step).collect();
        let mut agreed = chose[0].clone();
        agreed.annotator = if labels.len() == 1 { agreed.annotator } else { "majority".into() };
        agreed.responsible_agent = majority(
            chose
                .iter()
                .filter_map(|l| l.responsible_agent.clone().filter(|a| !a.trim().is_empty())),
        );
        agreed.category = majority(chose.iter().filter_map(|l| l.category));
        agreed.phase = majority(chose.iter().filter_map(|l| l.phase));
        agreed.outcome = majority(chose.iter().map(|l| l.outcome)).unwrap_or_default();
        agreed.time = chose.iter().map(|l| l.time.clone()).max().unwrap_or_default();
        agreed
    });
    Agreed { labels, label, votes }
}
