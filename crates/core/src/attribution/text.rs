//! Text signals shared by the views and the trigger rules, split by what they hold:
//! `vocab` (the needle lists), `bans` (what a task forbids changing), `matching` (automata and line scans: error lines, claims,
//! blockers, budgets, quotes), `steps` (step predicates) and `hash` (the identity hasher).

mod bans;
mod hash;
mod matching;
mod steps;
mod vocab;

pub use bans::{bans, Ban};
pub use hash::{hash, FastMap, FxHasher};
pub use matching::*;
pub use steps::*;
