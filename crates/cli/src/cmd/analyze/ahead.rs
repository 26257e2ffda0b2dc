//! The per-step facts of a long run worked out on a second thread while the analysis runs
//! (`trajscope_core::attribution::analyze_trajectory_with`): the analysis's pass over the steps
//! goes from the first chunk on, a helper from the last chunk back, each taking the chunks the
//! other has not; the pass takes the helper's work as it reaches it. A chunk is worked out once,
//! by one of them, so neither waits for the other but at the chunk where they meet.

use std::sync::{Condvar, Mutex};

use trajscope_core::attribution::triggers::{FactsChunk, FACTS_CHUNK};
use trajscope_core::model::Step;

enum Slot<'t> {
    /// Nobody's yet.
    Open,
    /// The helper is working it out.
    Helper,
    /// The helper's result, not taken yet.
    Done(FactsChunk<'t>),
    /// The pass's (worked out in the pass, or taken from the helper).
    Pass,
}

pub struct Ahead<'t> {
    steps: &'t [Step],
    slots: Mutex<Vec<Slot<'t>>>,
    done: Condvar,
}

impl<'t> Ahead<'t> {
    pub fn new(steps: &'t [Step]) -> Ahead<'t> {
        let chunks = steps.len().div_ceil(FACTS_CHUNK);
        let slots = Mutex::new((0..chunks).map(|_| Slot::Open).collect());
        Ahead { steps, slots, done: Condvar::new() }
    }

    /// The helper: the chunks from the last back, until one is the pass's.
    pub fn work(&self) {
        // Should the helper panic, the chunk it was working out is the pass's to work out (the
        // pass would otherwise wait for it forever); the panic reaches the pass at the join.
        struct Reopen<'a, 't>(&'a Ahead<'t>);
        impl Drop for Reopen<'_, '_> {
            fn drop(&mut self) {
                if std::thread::panicking() {
                    for slot in self.0.slots().iter_mut() {
                        if matches!(slot, Slot::Helper) {
                            *slot = Slot::Open;
                        }
                    }
                    self.0.done.notify_all();
                }
            }
        }
        let _reopen = Reopen(self);
        // (The guard of a `for` loop's head would be held through the loop.)
        let chunks = self.slots().len();
        for c in (0..chunks).rev() {
            {
                let mut slots = self.slots();
                if !matches!(slots[c], Slot::Open) {
                    return;
                }
                slots[c] = Slot::Helper;
            }
            let facts = FactsChunk::of(self.steps, c);
            self.slots()[c] = Slot::Done(facts);
            self.done.notify_all();
        }
    }

    /// For the pass, at chunk `c`: the helper's facts of it (waiting while the helper works it
    /// out), or nothing when the pass is to work it out itself.
    pub fn take(&self, c: usize) -> Option<FactsChunk<'t>> {
        let mut slots = self.slots();
        loop {
            match std::mem::replace(slots.get_mut(c)?, Slot::Pass) {
                Slot::Open | Slot::Pass => return None,
                Slot::Done(facts) => return Some(facts),
                Slot::Helper => {
                    slots[c] = Slot::Helper;
                    slots = self.done.wait(slots).unwrap_or_else(|e| e.into_inner());
                }
            }
        }
    }

    fn slots(&self) -> std::sync::MutexGuard<'_, Vec<Slot<'t>>> {
        // A panic elsewhere leaves the slots as they were: nothing half-written.
        self.slots.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn steps(n: usize) -> Vec<Step> {
        let line =
            |i| format!("{{\"type\":\"action\",\"run_id\":\"r\",\"command\":\"make t{i}\"}}\n");
        let text: String = (0..n).map(line).collect();
        let trace = trajscope_core::ingest(text.as_bytes(), Default::default());
        trace.trajectories.into_iter().next().unwrap().steps
    }

    #[test]
    fn each_chunk_is_worked_out_once_by_the_helper_or_the_pass() {
        let steps = steps(FACTS_CHUNK * 3 + 1);
        // The helper first: every chunk is its.
        let ahead = Ahead::new(&steps);
        ahead.work();
        assert!((0..4).all(|c| ahead.take(c).is_some()));
        assert!(ahead.take(4).is_none(), "no chunk past the end");
        // The pass first: every chunk is the pass's, and the helper finds nothing to do.
        let ahead = Ahead::new(&steps);
        assert!((0..4).all(|c| ahead.take(c).is_none()));
        ahead.work();
        assert!(ahead.slots().iter().all(|s| matches!(s, Slot::Pass)));
        // Both at once: the pass gets the helper's chunks from where they met on, and none
        // taken twice.
        let ahead = Ahead::new(&steps);
        let taken = std::thread::scope(|scope| {
            scope.spawn(|| ahead.work());
            (0..4).map(|c| ahead.take(c).is_some()).collect::<Vec<_>>()
        });
        let met = taken.iter().position(|&t| t).unwrap_or(4);
        assert!(taken[met..].iter().all(|&t| t), "{taken:?}");
        assert!((0..4).all(|c| ahead.take(c).is_none()), "a chunk given once");
    }
}
