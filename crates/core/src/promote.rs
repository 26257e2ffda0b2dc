//! Verified-only memory promotion (docs/learning-loop.md): one decision per case, with every reason.
//!
//! A case may become a memory candidate only when it is a valid case of an agent or verification
//! failure, and its replay passed (latest scorecard record, not excluded) or a human approved it.
//! Imported-only and trace-only candidates are blocked; environment, flaky and harness failures
//! are blocked. The core returns what *would* be written; the caller writes it only with an
//! explicit write flag (`to_write` is empty otherwise).

use serde::{Deserialize, Serialize};

use crate::cases::{check_case, class_name, FailedTurnCase};
use crate::scorecard::{self, ExclusionContext, ScorecardRecord};

/// What the caller asks for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PromotionOptions {
    /// Case ids a human approved (`--approve CASE_ID`).
    pub approvals: Vec<String>,
    /// The explicit write flag; without it nothing is to be written.
    pub write: bool,
    /// Now, in seconds since the Unix epoch (scorecard age rules); `None` skips them.
    pub now: Option<i64>,
    pub max_age_secs: i64,
}

/// The decision for one case.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    Promote,
    Blocked,
}

/// One case's decision with its reasons (reasons for `promote` say what verified it).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PromotionDecision {
    pub case_id: String,
    pub candidate_id: String,
    pub decision: Decision,
    /// `replay` or `human` when verified.
    pub verified_by: Option<String>,
    pub reasons: Vec<String>,
}

/// A promotable memory candidate: the compact rule, where it came from and what verified it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemoryCandidate {
    pub candidate_id: String,
    pub case_id: String,
    pub prevention_hint: String,
    pub applicability: Vec<String>,
    pub evidence_refs: Vec<String>,
    pub verified_by: String,
}

/// All decisions, and the candidates to write (empty unless `write` was asked for).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Promotion {
    pub decisions: Vec<PromotionDecision>,
    pub write: bool,
    pub to_write: Vec<MemoryCandidate>,
}

fn norm(s: &Option<String>) -> String {
    s.as_deref().unwrap_or("").trim().to_ascii_lowercase()
}

/// Decides every case.
pub fn decide(
    cases: &[FailedTurnCase],
    records: &[ScorecardRecord],
    options: &PromotionOptions,
) -> Promotion {
    let ctx = ExclusionContext {
        scope: Vec::new(),
        now: options.now,
        max_age_secs: options.max_age_secs,
    };
    let mut decisions = Vec::new();
    let mut to_write = Vec::new();
    for case in cases {
        let record = scorecard::latest_for(records, &case.case_id);
        let candidate_id = record
            .and_then(|r| r.candidate_id.clone())
            .filter(|c| !c.trim().is_empty())
            .unwrap_or_else(|| {
                format!("memcand-{}", case.case_id.strip_prefix("case-").unwrap_or(&case.case_id))
            });
        let mut reasons = Vec::new();

        let check = check_case(case);
        if !check.valid {
            reasons.push(format!("invalid case: {}", check.errors.join("; ")));
        }
        match case.classification {
            Some(c) if c.is_blocker() => {
                reasons.push(format!("{} failures never become memory", class_name(c)))
            }
            Some(_) => {}
            None => reasons.push(
                "failure class unknown: it may be an environment, flaky or harness failure".into(),
            ),
        }

        let exclusions = record.map(|r| scorecard::exclusions(r, &ctx)).unwrap_or_default();
        for e in &exclusions {
            reasons.push(format!("scorecard excludes the case: {}", e.detail));
        }
        let replay_ok =
            record.is_some_and(|r| scorecard::replay_passed(r) && exclusions.is_empty());
        let human = options.approvals.iter().any(|a| a.trim() == case.case_id)
            || record.is_some_and(|r| {
                norm(&r.validated_by) == "human"
                    && matches!(norm(&r.status).as_str(), "approved" | "passed")
                    && exclusions.is_empty()
            });
        if !replay_ok && !human {
            reasons.push("replay or human approval is required before promotion".into());
        }
        if let Some(r) = record {
            if scorecard::is_imported_or_trace_only(r) {
                reasons.push("imported-only or trace-only candidate is blocked".into());
            }
            let decision = norm(&r.decision);
            if !decision.is_empty()
                && !decision.contains("promot")
                && !decision.starts_with("deny")
                && !decision.starts_with("block")
            {
                reasons.push(format!("scorecard decision {decision} does not allow promotion"));
            }
        } else if !human {
            reasons.push("trace-only candidate (no replay scorecard record) is blocked".into());
        }

        let verified_by = if replay_ok {
            Some("replay".to_string())
        } else if human {
            Some("human".to_string())
        } else {
            None
        };
        let decision = if reasons.is_empty() { Decision::Promote } else { Decision::Blocked };
        if decision == Decision::Promote {
            let by = verified_by.clone().unwrap_or_default();
            reasons.push(match by.as_str() {
                "replay" => "replay passed and the scorecard allows promotion".into(),
                _ => "approved by a human".into(),
            });
            if options.write {
                to_write.push(MemoryCandidate {
                    candidate_id: candidate_id.clone(),
                    case_id: case.case_id.clone(),
                    prevention_hint: case.prevention_hint.clone(),
                    applicability: case.applicability.clone(),
                    evidence_refs: case.evidence_refs.clone(),
                    verified_by: by,
                });
            }
        }
        decisions.push(PromotionDecision {
            case_id: case.case_id.clone(),
            candidate_id,
            decision,
            verified_by,
            reasons,
        });
    }
    Promotion { decisions, write: options.write, to_write }
}
