//! Replay scorecard records and the exclusion rules (docs/learning-loop.md).
//!
//! A record says how a case fared when replayed (`schema_version`, `record_id`,
//! `status`, `decision`, `candidate_id`, `case_id`, `validated_by`, `last_validated_at`,
//! `memory_graph_status`, `replay_status`, `risk_level`, `applies_to`, `does_not_apply_to`,
//! `evidence_refs`). A case whose record is stale or risky, or whose status is blocked, skipped,
//! unavailable or denied, is left out of the brief and of promotion, each time with its reason.
//!
//! The core has no clock: freshness is judged against a `now` the caller passes in.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One replay scorecard record. Every field but `case_id` may be missing in a real file.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ScorecardRecord {
    #[serde(default)]
    pub schema_version: Option<u64>,
    #[serde(default)]
    pub record_id: Option<String>,
    /// The record's status (`passed`, `blocked`, ...); `result` or `outcome` are read as it too.
    #[serde(default, alias = "result", alias = "outcome")]
    pub status: Option<String>,
    /// `allow_brief_and_promotion`, `allow_brief_only`, `deny...`.
    #[serde(default)]
    pub decision: Option<String>,
    #[serde(default)]
    pub candidate_id: Option<String>,
    pub case_id: String,
    /// Who validated it: `replay`, `human`, `import`, `trace`.
    #[serde(default)]
    pub validated_by: Option<String>,
    /// RFC 3339 time (or a plain `YYYY-MM-DD` date).
    #[serde(default)]
    pub last_validated_at: Option<String>,
    /// `candidate`, `promoted`, `imported`, `retired`, ...
    #[serde(default)]
    pub memory_graph_status: Option<String>,
    /// `passed`, `failed`, `stale`, `not_run`, ...
    #[serde(default)]
    pub replay_status: Option<String>,
    /// `low`, `medium`, `high`, `critical`.
    #[serde(default)]
    pub risk_level: Option<String>,
    #[serde(default)]
    pub applies_to: Vec<String>,
    #[serde(default)]
    pub does_not_apply_to: Vec<String>,
    #[serde(default)]
    pub evidence_refs: Vec<String>,
}

/// Why a record excludes its case. `code` is stable (tests and tools match it); `detail` is for
/// people.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Exclusion {
    pub code: ExclusionCode,
    pub detail: String,
}

/// The exclusion rules, one code each.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExclusionCode {
    /// `status` is blocked, skipped, unavailable or denied.
    Status,
    /// `decision` starts with `deny` (or is `block...`).
    Denied,
    /// `risk_level` is high or critical.
    Risky,
    /// `replay_status` is failed, error or flaky: replaying the case did not hold.
    ReplayFailed,
    /// `replay_status` or `memory_graph_status` says stale, expired, retired, deprecated or
    /// rejected.
    Stale,
    /// `last_validated_at` is older than the maximum age relative to `now`.
    TooOld,
    /// `last_validated_at` is missing or not a time, while a `now` is given: age unknown.
    UnknownAge,
    /// A `does_not_apply_to` tag is one of the next attempt's scope tags.
    DoesNotApply,
    /// `applies_to` names scopes and none is one of the next attempt's scope tags.
    OutOfScope,
}

/// The exclusion context: the next attempt's scope tags and the freshness clock.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExclusionContext {
    /// Scope tags of the next attempt (`--scope`).
    pub scope: Vec<String>,
    /// Now, in seconds since the Unix epoch; `None` skips the age rules.
    pub now: Option<i64>,
    /// Maximum age of `last_validated_at`, in seconds.
    pub max_age_secs: i64,
}

/// Default maximum age of a validation: 30 days.
pub const DEFAULT_MAX_AGE_SECS: i64 = 30 * 24 * 3600;

impl Default for ExclusionContext {
    fn default() -> Self {
        ExclusionContext { scope: Vec::new(), now: None, max_age_secs: DEFAULT_MAX_AGE_SECS }
    }
}

fn norm(s: &Option<String>) -> String {
    s.as_deref().unwrap_or("").trim().to_ascii_lowercase()
}

/// True when scope tag `wanted` (from the context) names `tag` (from a case or record): equal,
/// or `tag` is `kind:wanted` (`verifier:contract-verifier` answers to `contract-verifier`).
pub fn tag_matches(tag: &str, wanted: &str) -> bool {
    let tag = tag.trim();
    let wanted = wanted.trim();
    tag.eq_ignore_ascii_case(wanted)
        || tag.split_once(':').is_some_and(|(_, v)| v.trim().eq_ignore_ascii_case(wanted))
}

/// Every reason `record` excludes its case in `ctx` (empty: the case may be used).
pub fn exclusions(record: &ScorecardRecord, ctx: &ExclusionContext) -> Vec<Exclusion> {
    let mut out = Vec::new();
    let mut push = |code, detail: String| out.push(Exclusion { code, detail });
    let status = norm(&record.status);
    if ["blocked", "skipped", "unavailable", "denied"].contains(&status.as_str()) {
        push(ExclusionCode::Status, format!("scorecard status is {status}"));
    }
    let decision = norm(&record.decision);
    if decision.starts_with("deny") || decision.starts_with("block") {
        push(ExclusionCode::Denied, format!("scorecard decision is {decision}"));
    }
    let risk = norm(&record.risk_level);
    if risk == "high" || risk == "critical" {
        push(ExclusionCode::Risky, format!("risk_level is {risk}"));
    }
    let replay = norm(&record.replay_status);
    if ["failed", "fail", "error", "flaky"].contains(&replay.as_str()) {
        push(
            ExclusionCode::ReplayFailed,
            format!("replay_status is {replay}: the replay did not hold"),
        );
    }
    const STALE_WORDS: [&str; 5] = ["stale", "expired", "retired", "deprecated", "rejected"];
    if STALE_WORDS.contains(&replay.as_str()) {
        push(ExclusionCode::Stale, format!("replay_status is {replay}"));
    }
    let memory = norm(&record.memory_graph_status);
    if STALE_WORDS.contains(&memory.as_str()) {
        push(ExclusionCode::Stale, format!("memory_graph_status is {memory}"));
    }
    if let Some(now) = ctx.now {
        match record.last_validated_at.as_deref().and_then(parse_timestamp) {
            Some(at) if now - at > ctx.max_age_secs => push(
                ExclusionCode::TooOld,
                format!(
                    "last validated {} days ago (maximum {} days)",
                    (now - at) / 86_400,
                    ctx.max_age_secs / 86_400
                ),
            ),
            Some(_) => {}
            None => push(
                ExclusionCode::UnknownAge,
                match &record.last_validated_at {
                    Some(t) => format!("last_validated_at `{t}` is not a time: age unknown"),
                    None => "last_validated_at is missing: age unknown".to_string(),
                },
            ),
        }
    }
    let hits: Vec<&str> = record
        .does_not_apply_to
        .iter()
        .filter(|t| ctx.scope.iter().any(|w| tag_matches(t, w)))
        .map(String::as_str)
        .collect();
    if !hits.is_empty() {
        push(ExclusionCode::DoesNotApply, format!("does_not_apply_to {}", hits.join(", ")));
    }
    if !record.applies_to.is_empty()
        && !ctx.scope.is_empty()
        && !record.applies_to.iter().any(|t| ctx.scope.iter().any(|w| tag_matches(t, w)))
    {
        push(
            ExclusionCode::OutOfScope,
            format!(
                "applies_to {} does not include the scope {}",
                record.applies_to.join(", "),
                ctx.scope.join(", ")
            ),
        );
    }
    out
}

/// True when the record says the replay passed here (`replay_status` passed, or `status` passed
/// with `validated_by` replay). A result carried over from an import or read off a trace is not
/// a replay.
pub fn replay_passed(record: &ScorecardRecord) -> bool {
    if is_imported_or_trace_only(record) {
        return false;
    }
    let replay = norm(&record.replay_status);
    replay == "passed"
        || (replay.is_empty()
            && norm(&record.status) == "passed"
            && norm(&record.validated_by) == "replay")
}

/// True when the record was validated only by an import or by reading a trace
/// (`validated_by` import / imported / trace / trace_only, or `memory_graph_status` imported).
pub fn is_imported_or_trace_only(record: &ScorecardRecord) -> bool {
    matches!(norm(&record.validated_by).as_str(), "import" | "imported" | "trace" | "trace_only")
        || norm(&record.memory_graph_status) == "imported"
}

/// The record that speaks for `case_id`: the most recently validated one (records without a
/// readable time count as oldest; on a tie, the later one in the list).
pub fn latest_for<'a>(
    records: &'a [ScorecardRecord],
    case_id: &str,
) -> Option<&'a ScorecardRecord> {
    records
        .iter()
        .enumerate()
        .filter(|(_, r)| r.case_id == case_id)
        .max_by_key(|(i, r)| (r.last_validated_at.as_deref().and_then(parse_timestamp), *i))
        .map(|(_, r)| r)
}

/// A line of a scorecard JSONL that could not be read.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BadLine {
    pub line: u32,
    pub reason: String,
}

/// The records of a scorecard JSONL and the lines that were not records.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct LoadedScorecard {
    pub records: Vec<ScorecardRecord>,
    pub bad_lines: Vec<BadLine>,
}

/// Reads scorecard JSONL. A line that is not JSON, not an object, lacks a string `case_id` or
/// has a field of the wrong type is reported, the rest are read.
pub fn load_jsonl(bytes: &[u8]) -> LoadedScorecard {
    let mut out = LoadedScorecard::default();
    for (i, raw) in bytes.split(|b| *b == b'\n').enumerate() {
        let line = u32::try_from(i + 1).unwrap_or(u32::MAX);
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        if raw.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let parsed = serde_json::from_slice::<Value>(raw)
            .map_err(|e| format!("not JSON: {e}"))
            .and_then(|v| {
                if !v.is_object() {
                    return Err("record must be a JSON object".to_string());
                }
                let has_case_id =
                    matches!(v.get("case_id"), Some(Value::String(s)) if !s.is_empty());
                if !has_case_id {
                    return Err("case_id must be a non-empty string".to_string());
                }
                serde_json::from_value::<ScorecardRecord>(v).map_err(|e| format!("bad record: {e}"))
            });
        match parsed {
            Ok(r) => out.records.push(r),
            Err(reason) => out.bad_lines.push(BadLine { line, reason }),
        }
    }
    out
}

/// Parses an RFC 3339 time (`2026-05-11T13:28:45Z`, `...+09:00`, fractions allowed) or a plain
/// date (`2026-05-11`, read as midnight UTC) into seconds since the Unix epoch.
pub fn parse_timestamp(text: &str) -> Option<i64> {
    let t = text.trim();
    let b = t.as_bytes();
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let s = t.get(r)?;
        if s.bytes().all(|c| c.is_ascii_digit()) {
            s.parse().ok()
        } else {
            None
        }
    };
    if b.len() < 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let (year, month, day) = (num(0..4)?, num(5..7)?, num(8..10)?);
    if !(1..=12).contains(&month) || day < 1 || day > days_in_month(year, month) {
        return None;
    }
    let days = days_from_civil(year, month, day);
    if b.len() == 10 {
        return Some(days * 86_400);
    }
    if !matches!(b[10], b'T' | b't' | b' ') || b.len() < 19 || b[13] != b':' || b[16] != b':' {
        return None;
    }
    let (h, m, s) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if h > 23 || m > 59 || s > 60 {
        return None;
    }
    let mut rest = &t[19..];
    if let Some(frac) = rest.strip_prefix('.') {
        let digits = frac.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return None;
        }
        rest = &frac[digits..];
    }
    let offset = match rest {
        "Z" | "z" => 0,
        _ => {
            let rb = rest.as_bytes();
            if rb.len() != 6 || !matches!(rb[0], b'+' | b'-') || rb[3] != b':' {
                return None;
            }
            let oh: i64 = rest.get(1..3)?.parse().ok()?;
            let om: i64 = rest.get(4..6)?.parse().ok()?;
            let sign = if rb[0] == b'-' { -1 } else { 1 };
            sign * (oh * 3600 + om * 60)
        }
    };
    Some(days * 86_400 + h * 3600 + m * 60 + s - offset)
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}
