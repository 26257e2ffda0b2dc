//! Failure classification, failure mode and loop signals (see `docs/detector.md`).
//!
//! - Class: the critical candidate's instance decides. An instance with an environment, flaky or
//!   harness signature (missing binary, network, sandbox; timeouts, rate limits; harness errors)
//!   is that blocker — never the agent's failure. A failure that only a verifier saw, with no
//!   agent action it can be traced to (a verdict given before the agent acted, when the run has
//!   no other error), is a `verification_failure`. Everything else is an `agent_failure`.
//! - Mode: flaky → `transient` (retry after a wait); environment and harness blockers, and a
//!   command failing identically again and again → `deterministic`; an agent or verification
//!   failure → `reasoning` (reflect: what was tried, why it failed, what to try).
//! - Loop signals: repetition (identical actions or identical failures more than
//!   `max_repetitions` times), attempts past `max_attempts`, budget exhausted → escalate.

use serde::{Deserialize, Serialize};

use super::rules::Rule;
use super::triggers::Found;
use super::{AnalysisOptions, Candidate, Critical, ErrorInstance, Trigger};
use crate::record::{FailureClass, FailureMode};

/// Loop signals (the JSON contract of `signals`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Signals {
    /// Most occurrences of one identical agent action.
    pub repeated_actions: u32,
    /// Most occurrences of one identical failure.
    pub repeated_failures: u32,
    /// Most failed attempts of one command.
    pub attempts: u32,
    /// Identical actions or failures repeated more than `max_repetitions` times.
    pub repetition: bool,
    /// Failed attempts of one command past `max_attempts`.
    pub attempts_exceeded: bool,
    /// A step, cost or context limit was reached.
    pub budget_exhausted: bool,
    /// Any of the above: hand the run to a human.
    pub escalate: bool,
}

/// The loop signals of a trajectory.
pub fn signals(found: &Found, opts: &AnalysisOptions) -> Signals {
    let repetition = found.max_identical_failures > opts.max_repetitions
        || (found.max_identical_actions > opts.max_repetitions && found.max_failed_attempts > 1);
    let attempts_exceeded = found.max_failed_attempts > opts.max_attempts;
    Signals {
        repeated_actions: found.max_identical_actions,
        repeated_failures: found.max_identical_failures,
        attempts: found.max_failed_attempts,
        repetition,
        attempts_exceeded,
        budget_exhausted: found.budget_exhausted,
        escalate: repetition || attempts_exceeded || found.budget_exhausted,
    }
}

/// The failure class and mode of a failed trajectory, from its critical candidate.
pub fn classify(
    triggers: &[Trigger],
    instances: &[ErrorInstance],
    candidates: &[Candidate],
    signals: &Signals,
    critical: &Critical,
) -> (FailureClass, FailureMode) {
    let top = candidates.iter().find(|c| c.step == critical.step);
    let mut inst_triggers: Vec<&Trigger> = top
        .and_then(|c| c.instance)
        .and_then(|i| instances.get(i))
        .map(|i| i.triggers.iter().map(|&t| &triggers[t]).collect())
        .unwrap_or_default();
    // A verdict no agent action can be traced to (one given before the agent acted) places no
    // candidate: the critical step is then out of set, and when such verdicts are the run's
    // only errors they decide its class.
    let untraced = |t: &Trigger| {
        t.rule == Rule::VerifierRejected && t.phase == crate::record::Phase::Verification
    };
    if inst_triggers.is_empty() && triggers.iter().all(untraced) {
        inst_triggers = triggers.iter().collect();
    }
    let blocker = inst_triggers.iter().find_map(|t| t.blocker);
    let class = match blocker {
        Some(b) => b,
        None => {
            let only_verifier =
                !inst_triggers.is_empty() && inst_triggers.iter().all(|t| untraced(t));
            if only_verifier {
                FailureClass::VerificationFailure
            } else {
                FailureClass::AgentFailure
            }
        }
    };
    let mode = match class {
        FailureClass::FlakyBlocker => FailureMode::Transient,
        FailureClass::EnvironmentBlocker | FailureClass::HarnessBlocker => {
            FailureMode::Deterministic
        }
        FailureClass::AgentFailure | FailureClass::VerificationFailure => {
            if signals.repetition && inst_triggers.iter().all(|t| t.rule != Rule::VerifierRejected)
            {
                FailureMode::Deterministic
            } else {
                FailureMode::Reasoning
            }
        }
    };
    (class, mode)
}
