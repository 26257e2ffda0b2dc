//! The reviewer's word on how a run ended: an outcome given by a person (the CLI's `--outcome`,
//! the app's "this run failed" / "this run passed") set on a trace before it is analysed, so the
//! critical step, cases and brief follow from it exactly as from an outcome the file records.
//!
//! Both shells use [`ReviewerOutcome`]: the CLI for a whole file or one `--trajectory`, the app
//! for the trajectory whose label carries the outcome.

use crate::model::{Outcome, Trace, Trajectory};

/// An outcome a reviewer gave, for every trajectory of a file or for one of them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReviewerOutcome {
    /// `Unknown` takes nothing back: it leaves each trajectory's own outcome as the file says.
    pub outcome: Outcome,
    /// The trajectory id it is about; `None` for every trajectory of the file.
    pub trajectory: Option<String>,
}

impl ReviewerOutcome {
    pub fn new(outcome: Outcome, trajectory: Option<String>) -> ReviewerOutcome {
        ReviewerOutcome { outcome, trajectory }
    }

    /// Whether this outcome is about `t`.
    pub fn applies_to(&self, t: &Trajectory) -> bool {
        self.trajectory.as_deref().is_none_or(|id| id == t.id)
    }

    /// Sets the outcome on `t` when it is about it and says something (failed or passed);
    /// returns whether the trajectory's outcome is now the reviewer's.
    pub fn apply(&self, t: &mut Trajectory) -> bool {
        if self.outcome == Outcome::Unknown || !self.applies_to(t) {
            return false;
        }
        t.outcome = self.outcome;
        true
    }

    /// Sets the outcome on every trajectory it is about. An id that names no trajectory of the
    /// trace is an error (with the ids there are), not a silent no-op.
    pub fn apply_to_trace(&self, trace: &mut Trace) -> Result<usize, String> {
        let mut about = 0;
        for t in &mut trace.trajectories {
            if self.applies_to(t) {
                about += 1;
                self.apply(t);
            }
        }
        match &self.trajectory {
            Some(id) if about == 0 => {
                Err(format!("no trajectory `{id}` in the trace (it holds: {})", trace.ids_named()))
            }
            _ => Ok(about),
        }
    }
}

/// The trajectory with `outcome` set when it says something (failed or passed); as it is for
/// `Unknown`. For a caller that holds the trajectory by reference (the app's worker).
pub fn with_outcome(t: &Trajectory, outcome: Outcome) -> std::borrow::Cow<'_, Trajectory> {
    if outcome == Outcome::Unknown || outcome == t.outcome {
        return std::borrow::Cow::Borrowed(t);
    }
    let mut owned = t.clone();
    owned.outcome = outcome;
    std::borrow::Cow::Owned(owned)
}

/// Parses `failed`, `passed` or `unknown` (any case).
pub fn parse_outcome(word: &str) -> Option<Outcome> {
    match word.trim().to_ascii_lowercase().as_str() {
        "failed" | "fail" => Some(Outcome::Failed),
        "passed" | "pass" => Some(Outcome::Passed),
        "unknown" => Some(Outcome::Unknown),
        _ => None,
    }
}

/// The outcome's name as serialised (`failed`, `passed`, `unknown`).
pub fn outcome_name(o: Outcome) -> &'static str {
    match o {
        Outcome::Failed => "failed",
        Outcome::Passed => "passed",
        Outcome::Unknown => "unknown",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trace(ids: &[&str]) -> Trace {
        Trace {
            format: crate::model::Format::Generic,
            stats: Default::default(),
            quarantine: Vec::new(),
            trajectories: ids
                .iter()
                .map(|id| Trajectory { id: id.to_string(), ..Trajectory::default() })
                .collect(),
            error: None,
        }
    }

    #[test]
    fn a_file_wide_outcome_sets_every_trajectory_and_one_id_only_its_own() {
        let mut t = trace(&["a", "b"]);
        assert_eq!(ReviewerOutcome::new(Outcome::Failed, None).apply_to_trace(&mut t), Ok(2));
        assert!(t.trajectories.iter().all(|t| t.outcome == Outcome::Failed));
        let one = ReviewerOutcome::new(Outcome::Passed, Some("b".into()));
        assert_eq!(one.apply_to_trace(&mut t), Ok(1));
        assert_eq!(t.trajectories[0].outcome, Outcome::Failed);
        assert_eq!(t.trajectories[1].outcome, Outcome::Passed);
    }

    #[test]
    fn an_unknown_id_is_an_error_and_unknown_changes_nothing() {
        let mut t = trace(&["a"]);
        let err = ReviewerOutcome::new(Outcome::Failed, Some("zz".into())).apply_to_trace(&mut t);
        assert!(err.unwrap_err().contains("`zz`"));
        t.trajectories[0].outcome = Outcome::Passed;
        ReviewerOutcome::new(Outcome::Unknown, None).apply_to_trace(&mut t).unwrap();
        assert_eq!(t.trajectories[0].outcome, Outcome::Passed);
        assert_eq!(with_outcome(&t.trajectories[0], Outcome::Unknown).outcome, Outcome::Passed);
        assert_eq!(with_outcome(&t.trajectories[0], Outcome::Failed).outcome, Outcome::Failed);
    }

    #[test]
    fn outcome_words_round_trip() {
        for o in [Outcome::Failed, Outcome::Passed, Outcome::Unknown] {
            assert_eq!(parse_outcome(outcome_name(o)), Some(o));
            assert_eq!(serde_json::to_value(o).unwrap(), outcome_name(o));
        }
        assert_eq!(parse_outcome("maybe"), None);
    }
}
