//! The annotator's labels as the queue sees them (the label form keeps its own state and saves
//! it, `crate::annotate`): which trajectories carry one, how far the annotation is, and the `c`
//! presses that mark the selected step.

use std::collections::HashMap;
use std::rc::Rc;

use trajscope_core::model::Outcome;

use super::queue::{Queue, QueueFilter};

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Labels {
    /// Label status per (file id, trajectory id): the labelled critical step, if any.
    pub by_trajectory: Rc<HashMap<(u32, String), Option<u32>>>,
    /// Counts the `c` presses on a selected step (the annotate panel marks it on change).
    pub mark_count: u32,
}

pub enum LabelAction {
    /// The annotate panel changed (or restored) the label of a trajectory.
    Set { file: u32, trajectory_id: String, critical: Option<u32> },
}

impl Labels {
    pub fn reduce(&mut self, action: LabelAction) {
        match action {
            LabelAction::Set { file, trajectory_id, critical } => {
                let mut labels = (*self.by_trajectory).clone();
                labels.insert((file, trajectory_id), critical);
                self.by_trajectory = Rc::new(labels);
            }
        }
    }

    /// One more `c` press on the selected step.
    pub fn mark(&mut self) {
        self.mark_count += 1;
    }

    /// The label of trajectory `id` of `file`: `None` without one, `Some(critical step)`.
    pub fn get(&self, file: u32, id: &str) -> Option<Option<u32>> {
        self.by_trajectory.get(&(file, id.to_string())).copied()
    }

    /// Whether trajectory `id` of `file` carries a saved label.
    pub fn is_labelled(&self, file: u32, id: &str) -> bool {
        self.by_trajectory.contains_key(&(file, id.to_string()))
    }

    /// (labelled, total) over every trajectory of every loaded file.
    pub fn progress(&self, queue: &Queue) -> (usize, usize) {
        let (mut done, mut total) = (0, 0);
        for (file, s) in queue.ready() {
            total += s.trajectories.len();
            // Drawn on every render: a file without labels costs no lookup per trajectory.
            if self.by_trajectory.keys().any(|(f, _)| *f == file) {
                done += s.trajectories.iter().filter(|t| self.is_labelled(file, &t.id)).count();
            }
        }
        (done, total)
    }

    /// The next trajectory without a label after `after`, in queue order (wrapping), among
    /// those the queue's filter shows.
    pub fn next_unlabelled(&self, queue: &Queue, after: Option<(u32, u32)>) -> Option<(u32, u32)> {
        // Unlabelled ones are wanted whatever the "unlabelled only" box says.
        let filter = QueueFilter { unlabelled_only: false, ..queue.filter.clone() };
        let mut all: Vec<(u32, u32)> = Vec::new();
        for (file, s) in queue.ready() {
            for (i, t) in s.trajectories.iter().enumerate() {
                let shown = filter.format.as_deref().is_none_or(|w| w == s.format)
                    && (!filter.failed_only || t.outcome == Outcome::Failed);
                if shown && !self.is_labelled(file, &t.id) {
                    all.push((file, i as u32));
                }
            }
        }
        let order = |k: &(u32, u32)| (queue.position(k.0).unwrap_or(usize::MAX), k.1);
        let cur = after.map(|k| order(&k));
        all.iter()
            .copied()
            .find(|k| cur.is_none_or(|c| order(k) > c))
            .or_else(|| all.iter().copied().find(|k| Some(*k) != after))
    }
}
