//! Navigation inside the selected trajectory: its step columns and the steps the filter lets
//! through, the selected step and the scroll to it, the grain (or focus + context), and the step
//! texts asked of the worker so far.

use std::collections::HashMap;
use std::rc::Rc;

use crate::protocol::{Grain, StepColumns, StepView};

/// Which steps the transcript shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Filter {
    pub errors_only: bool,
    pub agent: Option<u16>,
    pub role: Option<u8>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Nav {
    /// The selected trajectory's columns, once the worker sent them.
    pub columns: Option<Rc<StepColumns>>,
    /// Step indices passing the filter, ascending.
    pub visible: Rc<Vec<u32>>,
    /// Step texts by (step, grain), as the worker sent them.
    pub cache: Rc<HashMap<(u32, Grain), Rc<StepView>>>,
    pub step: Option<u32>,
    pub grain: Grain,
    /// Focus + context: the selected step high, its neighbours medium, the rest low.
    pub focus: bool,
    pub filter: Filter,
    /// (step, nonce): the list scrolls to the step when the nonce changes.
    pub scroll_to: Option<(u32, u32)>,
    nonce: u32,
    /// Counts the times the columns were dropped to be asked again (another trajectory
    /// opened, or the open one changed): part of the columns effect's key, so a change is
    /// never hidden by two renders between the effect's runs (columns in, then dropped again
    /// before the effect saw them in).
    pub columns_wanted: u32,
}

pub enum NavAction {
    /// Select a step where it is (a click on it).
    Select(u32),
    /// Select a step and scroll to it.
    Go(u32),
    /// The next (`+1`) or previous (`-1`) step the filter shows.
    Move(i64),
    SetGrain(Grain),
    ToggleFocus,
    ErrorsOnly(bool),
    Agent(Option<u16>),
    Role(Option<u8>),
}

/// Most step texts kept on the page; beyond it the cache starts over.
const CACHE_MAX: usize = 3000;

impl Nav {
    pub fn reduce(&mut self, action: NavAction) {
        match action {
            NavAction::Select(i) => self.step = Some(i),
            NavAction::Go(i) => self.go(i),
            NavAction::Move(d) => self.move_step(d),
            NavAction::SetGrain(g) => {
                self.grain = g;
                self.focus = false;
                if let Some(step) = self.step {
                    self.go(step);
                }
            }
            NavAction::ToggleFocus => self.focus = !self.focus,
            NavAction::ErrorsOnly(b) => {
                self.filter.errors_only = b;
                self.compute_visible();
            }
            NavAction::Agent(a) => {
                self.filter.agent = a;
                self.compute_visible();
            }
            NavAction::Role(r) => {
                self.filter.role = r;
                self.compute_visible();
            }
        }
    }

    /// Another trajectory (or none) is selected: no columns, texts, step or filter yet (the
    /// grain, focus and scroll position carry over). An empty trajectory has its (empty)
    /// columns at once: there is nothing to ask for.
    pub fn reset(&mut self, empty: bool) {
        self.columns = empty.then(|| Rc::new(StepColumns::default()));
        self.columns_wanted += 1;
        self.cache = Rc::new(HashMap::new());
        self.step = None;
        self.filter = Filter::default();
        self.visible = Rc::new(Vec::new());
    }

    /// The selected trajectory changed under the page (a later line of the file): its columns
    /// and texts are asked again; the step, filter and grain stay.
    pub fn refresh(&mut self) {
        self.columns = None;
        self.columns_wanted += 1;
        self.cache = Rc::new(HashMap::new());
    }

    /// The selected trajectory's columns arrived.
    pub fn set_columns(&mut self, columns: StepColumns) {
        self.columns = Some(Rc::new(columns));
        self.compute_visible();
    }

    /// Step texts of the selected trajectory arrived.
    pub fn add_steps(&mut self, steps: Vec<StepView>) {
        let mut cache = (*self.cache).clone();
        if cache.len() > CACHE_MAX {
            cache.clear();
        }
        for s in steps {
            cache.insert((s.index, s.grain), Rc::new(s));
        }
        self.cache = Rc::new(cache);
    }

    /// The grain step `i` is shown at.
    pub fn grain_of(&self, i: u32) -> Grain {
        match (self.focus, self.step) {
            (true, Some(sel)) => match sel.abs_diff(i) {
                0 => Grain::High,
                1..=2 => Grain::Medium,
                _ => Grain::Low,
            },
            (true, None) => Grain::Low,
            (false, _) => self.grain,
        }
    }

    /// Selects `step` and scrolls to it.
    pub fn go(&mut self, step: u32) {
        self.step = Some(step);
        self.nonce += 1;
        self.scroll_to = Some((step, self.nonce));
    }

    /// Whether the filter shows step `i`.
    pub fn shows(&self, i: u32) -> bool {
        self.visible.binary_search(&i).is_ok()
    }

    fn compute_visible(&mut self) {
        let Some(c) = &self.columns else {
            self.visible = Rc::new(Vec::new());
            return;
        };
        let f = &self.filter;
        let v = (0..c.line.len() as u32)
            .filter(|&i| {
                let i = i as usize;
                (!f.errors_only || c.is_error[i])
                    && f.agent.is_none_or(|a| c.actor[i] == a)
                    && f.role.is_none_or(|r| c.role[i] == r)
            })
            .collect();
        self.visible = Rc::new(v);
    }

    fn move_step(&mut self, d: i64) {
        if self.visible.is_empty() {
            return;
        }
        let last = self.visible.len() as i64 - 1;
        // The position of the selected step in `visible`, or where it would be.
        let pos = self.step.map(|s| self.visible.binary_search(&s));
        let target = match pos {
            None => 0,
            Some(Ok(p)) => (p as i64 + d).clamp(0, last),
            Some(Err(p)) if d > 0 => (p as i64).min(last),
            Some(Err(p)) => (p as i64 - 1).clamp(0, last),
        };
        self.go(self.visible[target as usize]);
    }
}
