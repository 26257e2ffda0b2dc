//! `--outcome failed|passed` and `--trajectory ID`: the reviewer's word on how a run ended, for
//! the commands whose answer depends on it (`analyze`, `cases`, `brief`). It is set on the trace
//! with the core's `ReviewerOutcome` before the analysis, as the app does.

use trajscope_core::model::Outcome;
use trajscope_core::outcome::{parse_outcome, ReviewerOutcome};
use trajscope_core::Session;

#[derive(clap::Args, Clone, Debug, Default)]
pub struct OutcomeArgs {
    /// The run failed or passed, whatever the file records (the reviewer's word): the
    /// critical step, cases and brief follow from it.
    #[arg(long, value_name = "failed|passed", value_parser = parse_reviewer_outcome)]
    pub outcome: Option<Outcome>,
    /// Only this trajectory takes the --outcome (default: every trajectory of the file).
    #[arg(long, value_name = "ID", requires = "outcome")]
    pub trajectory: Option<String>,
}

impl OutcomeArgs {
    /// The reviewer's outcome, when one was given.
    pub fn reviewer(&self) -> Option<ReviewerOutcome> {
        self.outcome.map(|o| ReviewerOutcome::new(o, self.trajectory.clone()))
    }
}

/// Sets the reviewer's outcome (if any) on the session's trace; an id it does not hold fails.
pub fn apply(reviewer: Option<&ReviewerOutcome>, session: &mut Session) -> anyhow::Result<()> {
    if let Some(r) = reviewer {
        session.set_outcome(r).map_err(anyhow::Error::msg)?;
    }
    Ok(())
}

fn parse_reviewer_outcome(word: &str) -> Result<Outcome, String> {
    match parse_outcome(word) {
        Some(o @ (Outcome::Failed | Outcome::Passed)) => Ok(o),
        _ => Err(format!("unknown outcome `{word}`; known: failed, passed")),
    }
}
