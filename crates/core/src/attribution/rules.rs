//! The attribution rules by name: every rule a trigger or an out-of-set candidate can carry, with
//! what it means and its prior weight in the scoring model (see `docs/detector.md`).
//!
//! Rule names are an enum, never strings compared in several files; the JSON contract spells
//! them in snake_case (`failed_command`, `verifier_rejected`, ...), as before.

use serde::{Deserialize, Serialize};

/// The rule that placed a trigger or a candidate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Rule {
    /// An action whose observation failed: the action introduced the error.
    FailedCommand,
    /// A test or verify command failed after an edit: the edit introduced the error.
    EditBrokeTest,
    /// A failed judge or verifier result, traced to the action it names.
    VerifierRejected,
    /// The rejected action followed a memory read whose rule it applied.
    MemoryMisapplied,
    /// A success claim against an unresolved failure (or an error in the same step).
    ClaimContradicted,
    /// An action identical to one that already failed, with nothing fixed in between.
    RepeatedAction,
    /// A failure whose signature is the environment's (missing binary, network, sandbox).
    EnvironmentBlocker,
    /// A transient failure (timeouts, rate limits).
    FlakyBlocker,
    /// The harness or the grader failed.
    HarnessBlocker,
    /// A step, cost or context limit reached.
    BudgetExhausted,
    /// A failed action whose failure names a placeholder it still held (a lookup of `<URL>`).
    PlaceholderCommand,
    /// An edit that writes what the task forbids changing ("do not change the tests").
    TaskConstraintBroken,
    /// The earliest agent step stating the wrong final answer's value.
    AnswerOrigin,
    /// Out of set: the agent step the top candidate followed (the instruction it acted on).
    PrecedingInstruction,
    /// Out of set: the first agent step (where the plan is laid out).
    PlanOrigin,
    /// Out of set: another agent's first contribution.
    AgentFirstStep,
    /// Out of set: any other agent step of a failed run, ranked by its features alone.
    AgentStep,
}

impl Rule {
    /// Every rule, in declaration order.
    pub const ALL: [Rule; 17] = [
        Rule::FailedCommand,
        Rule::EditBrokeTest,
        Rule::VerifierRejected,
        Rule::MemoryMisapplied,
        Rule::ClaimContradicted,
        Rule::RepeatedAction,
        Rule::EnvironmentBlocker,
        Rule::FlakyBlocker,
        Rule::HarnessBlocker,
        Rule::BudgetExhausted,
        Rule::PlaceholderCommand,
        Rule::TaskConstraintBroken,
        Rule::AnswerOrigin,
        Rule::PrecedingInstruction,
        Rule::PlanOrigin,
        Rule::AgentFirstStep,
        Rule::AgentStep,
    ];

    /// The contract name (snake_case).
    pub fn as_str(self) -> &'static str {
        match self {
            Rule::FailedCommand => "failed_command",
            Rule::EditBrokeTest => "edit_broke_test",
            Rule::VerifierRejected => "verifier_rejected",
            Rule::MemoryMisapplied => "memory_misapplied",
            Rule::ClaimContradicted => "claim_contradicted",
            Rule::RepeatedAction => "repeated_action",
            Rule::EnvironmentBlocker => "environment_blocker",
            Rule::FlakyBlocker => "flaky_blocker",
            Rule::HarnessBlocker => "harness_blocker",
            Rule::BudgetExhausted => "budget_exhausted",
            Rule::PlaceholderCommand => "placeholder_command",
            Rule::TaskConstraintBroken => "task_constraint_broken",
            Rule::AnswerOrigin => "answer_origin",
            Rule::PrecedingInstruction => "preceding_instruction",
            Rule::PlanOrigin => "plan_origin",
            Rule::AgentFirstStep => "agent_first_step",
            Rule::AgentStep => "agent_step",
        }
    }

    /// The rule's prior in the scoring model: what the rule alone says about a candidate
    /// (an explicit verifier link is the strongest evidence, a value traced to the answer the
    /// weakest observed one). Fixed by what a critical error is, not fitted to any benchmark.
    pub fn prior(self) -> f64 {
        match self {
            Rule::VerifierRejected => 0.3,
            Rule::EditBrokeTest | Rule::MemoryMisapplied | Rule::TaskConstraintBroken => 0.15,
            Rule::RepeatedAction => 0.05,
            Rule::AnswerOrigin => -0.4,
            _ => 0.0,
        }
    }

    /// Whether the rule rests on an explicit report of the failure: a verifier or a test that
    /// rejected the step, the environment's own error, the environment's output naming a
    /// placeholder the action held, the same failure reported again for the same action
    /// (a loop), or the task's own words forbidding what the action changed. Such a candidate
    /// outranks every
    /// inferred one (see [`super::score::LINKED`]).
    pub fn is_linked(self) -> bool {
        matches!(
            self,
            Rule::VerifierRejected
                | Rule::RepeatedAction
                | Rule::EditBrokeTest
                | Rule::MemoryMisapplied
                | Rule::EnvironmentBlocker
                | Rule::FlakyBlocker
                | Rule::HarnessBlocker
                | Rule::PlaceholderCommand
                | Rule::TaskConstraintBroken
        )
    }
}

impl std::fmt::Display for Rule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_through_the_contract() {
        for r in Rule::ALL {
            let json = serde_json::to_string(&r).unwrap();
            assert_eq!(json, format!("\"{}\"", r.as_str()));
            assert_eq!(serde_json::from_str::<Rule>(&json).unwrap(), r);
        }
    }
}
