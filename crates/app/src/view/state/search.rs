//! Search in the selected trajectory: the query, the worker's hits for it, and a next /
//! previous asked before the hits arrived.

use std::rc::Rc;

use super::nav::Nav;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Search {
    pub query: String,
    /// A next / previous asked before the worker answered, done when it does.
    pub pending_move: Option<i64>,
    /// Matching step indices (all of the trajectory, ascending), once the worker answered.
    pub hits: Option<Rc<Vec<u32>>>,
}

pub enum SearchAction {
    Query(String),
    /// The next (`+1`) or previous (`-1`) hit the filter shows, wrapping around.
    Move(i64),
}

impl Search {
    /// Applies `action`; answers the step to go to, if any.
    pub fn reduce(&mut self, action: SearchAction, nav: &Nav) -> Option<u32> {
        match action {
            SearchAction::Query(q) => {
                if q != self.query {
                    *self = Search { query: q, hits: None, pending_move: None };
                }
                None
            }
            SearchAction::Move(d) => self.target(d, nav),
        }
    }

    /// Another trajectory is selected: its hits are asked again (the query stays).
    pub fn reset_hits(&mut self) {
        self.hits = None;
    }

    /// The worker's hits for `query`. An answer for another query than the current one is
    /// stale and dropped. Answers the step to go to when a move was waiting for them.
    pub fn answered(&mut self, query: String, hits: Vec<u32>, nav: &Nav) -> Option<u32> {
        if query != self.query {
            return None;
        }
        self.hits = Some(Rc::new(hits));
        let d = self.pending_move.take()?;
        self.target(d, nav)
    }

    /// The hit `d` away from the selected step among those the filter shows; without hits
    /// yet, the move waits for them.
    fn target(&mut self, d: i64, nav: &Nav) -> Option<u32> {
        let Some(hits) = &self.hits else {
            if !self.query.is_empty() {
                self.pending_move = Some(d);
            }
            return None;
        };
        let shown: Vec<u32> = hits.iter().copied().filter(|&h| nav.shows(h)).collect();
        let (first, last) = (*shown.first()?, *shown.last()?);
        Some(match nav.step {
            None => first,
            Some(s) if d > 0 => shown.iter().copied().find(|&h| h > s).unwrap_or(first),
            Some(s) => shown.iter().rev().copied().find(|&h| h < s).unwrap_or(last),
        })
    }
}
