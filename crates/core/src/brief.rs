//! The Failure Prevention Brief (docs/learning-loop.md): the few cases that match the next attempt, as short
//! tagged lines to paste before it.
//!
//! Selection: a case is used when it is valid, its phase is the next attempt's phase (or it has
//! none, or no phase is given), its applicability meets the scope tags (or no scope is given),
//! and its latest replay scorecard record (if any) does not exclude it. No case left → status
//! `no-op` and an empty section. Each line is traceable to its `case_id` and evidence.
//!
//! Invariant: a line for an environment, flaky or harness blocker never asks the agent to change
//! its code; a transient failure says retry after a wait, a reasoning failure says reflect.

use serde::{Deserialize, Serialize};

use crate::cases::{check_case, shorten, FailedTurnCase};
use crate::record::{FailureClass, FailureMode, Phase};
use crate::scorecard::{self, tag_matches, ExclusionContext, ScorecardRecord};

/// Default limit on the number of lines.
pub const DEFAULT_MAX_LINES: usize = 5;

/// The next attempt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BriefContext {
    pub phase: Option<Phase>,
    /// Scope tags of the next attempt (`public_api`, `api`, `contract-verifier`, ...).
    pub scope: Vec<String>,
    pub max_lines: usize,
    /// Now, in seconds since the Unix epoch (for the scorecard age rules); `None` skips them.
    pub now: Option<i64>,
    pub max_age_secs: i64,
}

impl Default for BriefContext {
    fn default() -> Self {
        BriefContext {
            phase: None,
            scope: Vec::new(),
            max_lines: DEFAULT_MAX_LINES,
            now: None,
            max_age_secs: scorecard::DEFAULT_MAX_AGE_SECS,
        }
    }
}

/// `ok` with lines, or `no-op` with none.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum BriefStatus {
    #[serde(rename = "ok")]
    Ok,
    #[serde(rename = "no-op")]
    NoOp,
}

/// One line of the brief.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BriefLine {
    pub text: String,
    /// Without brackets: `high-confidence`, `scope: public_api`, `reflect`, ...
    pub tags: Vec<String>,
    pub case_id: String,
    pub evidence_refs: Vec<String>,
}

/// One reason a case is not in the brief.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reason {
    /// `invalid`, `phase`, `scope`, `line_limit`, `duplicate`, or a scorecard
    /// [`scorecard::ExclusionCode`] name (`stale`, `risky`, `status`, ...).
    pub code: String,
    pub detail: String,
}

/// A case left out, with every reason.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExcludedCase {
    pub case_id: String,
    pub reasons: Vec<Reason>,
}

/// The brief.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Brief {
    pub status: BriefStatus,
    pub lines: Vec<BriefLine>,
    pub excluded: Vec<ExcludedCase>,
}

fn reason(code: &str, detail: impl Into<String>) -> Reason {
    Reason { code: code.to_string(), detail: detail.into() }
}

/// Builds the brief for `ctx` from `cases` (already merged) and the scorecard `records`.
pub fn build(cases: &[FailedTurnCase], records: &[ScorecardRecord], ctx: &BriefContext) -> Brief {
    let ex_ctx =
        ExclusionContext { scope: ctx.scope.clone(), now: ctx.now, max_age_secs: ctx.max_age_secs };
    let mut excluded = Vec::new();
    // (verified, input order, line)
    let mut candidates: Vec<(bool, usize, BriefLine)> = Vec::new();
    for (order, case) in cases.iter().enumerate() {
        let mut reasons = Vec::new();
        let check = check_case(case);
        if !check.valid {
            reasons.push(reason("invalid", format!("invalid case: {}", check.errors.join("; "))));
        }
        if let (Some(want), Some(have)) = (ctx.phase, case.phase) {
            if want != have {
                reasons.push(reason(
                    "phase",
                    format!(
                        "case is for phase {}, the next attempt is in {}",
                        have.name(),
                        want.name()
                    ),
                ));
            }
        }
        let matched: Vec<&String> = ctx
            .scope
            .iter()
            .filter(|w| case.applicability.iter().any(|t| tag_matches(t, w)))
            .collect();
        if !ctx.scope.is_empty() && matched.is_empty() {
            reasons.push(reason(
                "scope",
                format!("applicability does not meet the scope {}", ctx.scope.join(", ")),
            ));
        }
        let record = scorecard::latest_for(records, &case.case_id);
        if let Some(r) = record {
            for e in scorecard::exclusions(r, &ex_ctx) {
                let code = serde_json::to_value(e.code)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_default();
                reasons.push(Reason { code, detail: e.detail });
            }
        }
        if !reasons.is_empty() {
            excluded.push(ExcludedCase { case_id: case.case_id.clone(), reasons });
            continue;
        }
        let verified = record.is_some_and(scorecard::replay_passed);
        candidates.push((verified, order, line_for(case, verified, &matched)));
    }
    crate::sort::sort_by_key(&mut candidates, |(verified, order, _)| (!*verified, *order));
    let mut lines: Vec<BriefLine> = Vec::new();
    for (_, _, line) in candidates {
        if let Some(first) = lines.iter().find(|l| l.text == line.text) {
            let detail = format!("same line as {}", first.case_id);
            excluded.push(ExcludedCase {
                case_id: line.case_id,
                reasons: vec![reason("duplicate", detail)],
            });
        } else if lines.len() >= ctx.max_lines {
            let detail = format!("the brief is limited to {} lines", ctx.max_lines);
            excluded.push(ExcludedCase {
                case_id: line.case_id,
                reasons: vec![reason("line_limit", detail)],
            });
        } else {
            lines.push(line);
        }
    }
    let status = if lines.is_empty() { BriefStatus::NoOp } else { BriefStatus::Ok };
    Brief { status, lines, excluded }
}

fn line_for(case: &FailedTurnCase, verified: bool, matched_scope: &[&String]) -> BriefLine {
    let mut tags = vec![if verified { "high-confidence" } else { "unverified" }.to_string()];
    if matched_scope.is_empty() {
        if let Some(first) = case.applicability.first() {
            tags.push(format!("scope: {first}"));
        }
    } else {
        tags.extend(matched_scope.iter().take(2).map(|s| format!("scope: {s}")));
    }
    // Free text of the trace (the reason, what was tried) is quoted without backticks: only the
    // hint and the constraint, built from names of the trace, carry backticked names.
    let plain = |t: &str, max: usize| shorten(&t.replace('`', "'"), max);
    let reason_text = case
        .failure_reason
        .as_deref()
        .map(|r| plain(r, 100))
        .unwrap_or_else(|| format!("failure event {}", plain(&case.failure_event_id, 60)));
    let tried = case
        .failed_action
        .as_deref()
        .map(|a| plain(a, 80))
        .unwrap_or_else(|| format!("the reply at {}", plain(&case.failure_turn_id, 60)));
    // Hint and constraint are whole: cutting them could cut a backticked name.
    let hint = case.prevention_hint.trim();
    const KEEP: &str = "keep the code and the approach as they are";
    let text = match (case.classification, case.failure_mode) {
        (Some(FailureClass::EnvironmentBlocker), _) => {
            tags.push("environment-blocker".into());
            format!(
                "Environment blocker, not a code fault ({reason_text}): the operator must make \
                 sure the environment provides what the check needs, then run it again; {KEEP}."
            )
        }
        (Some(FailureClass::FlakyBlocker), _) => {
            tags.push("flaky-blocker".into());
            format!(
                "Flaky check, not a code fault ({reason_text}): run it once more before acting on \
                 its result; {KEEP}."
            )
        }
        (Some(FailureClass::HarnessBlocker), _) => {
            tags.push("harness-blocker".into());
            format!(
                "Harness fault, not a code fault ({reason_text}): the operator must report it to \
                 the harness owner; {KEEP}."
            )
        }
        (_, Some(FailureMode::Transient)) => {
            tags.push("retry".into());
            if hint.to_ascii_lowercase().starts_with("retry") {
                format!("Transient failure ({reason_text}): {hint}")
            } else {
                format!(
                    "Transient failure ({reason_text}): retry {tried} after a wait; do not \
                     change approach."
                )
            }
        }
        (_, mode)
            if mode == Some(FailureMode::Reasoning)
                || case.failed_action.is_some()
                || case.failure_reason.is_some() =>
        {
            // Seed 004's reflect form: what was tried, why it failed, what next, the constraint.
            tags.push("reflect".into());
            let constraint = case
                .constraint
                .as_deref()
                .map(|c| c.trim().trim_end_matches('.').to_string())
                .unwrap_or_else(|| "the failed check must pass before closeout".into());
            format!(
                "What you tried: {tried}. Why it failed: {reason_text}. What to try next: {hint} \
                 Constraint for the next attempt: {constraint}."
            )
        }
        _ => hint.to_string(),
    };
    BriefLine {
        text,
        tags,
        case_id: case.case_id.clone(),
        evidence_refs: case.evidence_refs.clone(),
    }
}

/// The brief as Markdown: a `Failure Prevention Brief` heading and `- [tag] … text` lines, each
/// ending with its case and evidence. A `no-op` brief is an empty section (empty string).
/// Secrets are masked (`crate::redact`).
pub fn to_markdown(brief: &Brief) -> String {
    if brief.status == BriefStatus::NoOp {
        return String::new();
    }
    let mut out = String::from("## Failure Prevention Brief\n\n");
    for l in &brief.lines {
        out.push('-');
        for t in &l.tags {
            out.push_str(&format!(" [{t}]"));
        }
        out.push_str(&format!(" {} (case {}", l.text, l.case_id));
        if !l.evidence_refs.is_empty() {
            out.push_str(&format!("; evidence {}", l.evidence_refs.join(", ")));
        }
        out.push_str(")\n");
    }
    crate::redact::redact_text(&out).into_owned()
}
