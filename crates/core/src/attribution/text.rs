//! Text signals shared by the views and the trigger rules, split by what they hold:
//! `vocab` (the needle lists), `matching` (automata and line scans: error lines, claims,
//! blockers, budgets, quotes), `steps` (step predicates) and `hash` (the identity hasher).

mod hash;
mod matching;
mod steps;
mod vocab;

pub use hash::{hash, FastMap, FxHasher};
pub use matching::*;
pub use steps::*;
