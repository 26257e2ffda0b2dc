//! Failed turn cases (docs/learning-loop.md): building, strict validation, loading and merging.
//!
//! A case is the compact metadata of one failed turn, built from an [`crate::record::AttributionRecord`] and
//! its trajectory: schema v1 (`schema_version`, `case_id`, `turn_id`,
//! `failure_turn_id`, `failure_event_id`, `artifact_refs`, `memory_read_node_ids`,
//! `prevention_hint`, `applicability`, `evidence_refs`) plus the classification, the failure mode,
//! the phase, and the reflect parts (`failed_action`, `failure_reason`, `constraint`).
//!
//! Invariant: validation runs on the raw JSON (a case read from a file is checked field by field,
//! unknown fields included) and every error is reported; an invalid case is never exported.

mod build;
mod evidence;

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::record::{FailureClass, FailureMode, Phase};

pub use build::{from_attribution, from_trace_with, TraceCase};
pub use evidence::{from_analysis, from_trace_analyses, is_failing, trace_case};

/// The only case schema version this build reads and writes.
pub const SCHEMA_VERSION: u64 = 1;

/// Longest `failed_action` / `failure_reason` kept in a case (characters).
const MAX_FIELD_CHARS: usize = 160;

/// One failed turn case.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FailedTurnCase {
    pub schema_version: u64,
    pub case_id: String,
    pub turn_id: String,
    pub failure_turn_id: String,
    pub failure_event_id: String,
    pub artifact_refs: Vec<String>,
    #[serde(default)]
    pub memory_read_node_ids: Vec<String>,
    /// One actionable sentence for the next attempt ("what to try next").
    pub prevention_hint: String,
    /// Scope tags: which next attempts the case is about (`verifier:contract-verifier`, `api`).
    pub applicability: Vec<String>,
    pub evidence_refs: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub classification: Option<FailureClass>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure_mode: Option<FailureMode>,
    /// Phase of the failing step; a brief for another phase leaves the case out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<Phase>,
    /// Reflect form: what was tried.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed_action: Option<String>,
    /// Reflect form: why it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure_reason: Option<String>,
    /// Reflect form: the constraint for the next attempt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub constraint: Option<String>,
}

/// Every field a v1 case may carry; anything else is reported as unknown.
const KNOWN_FIELDS: [&str; 16] = [
    "schema_version",
    "case_id",
    "turn_id",
    "failure_turn_id",
    "failure_event_id",
    "artifact_refs",
    "memory_read_node_ids",
    "prevention_hint",
    "applicability",
    "evidence_refs",
    "classification",
    "failure_mode",
    "phase",
    "failed_action",
    "failure_reason",
    "constraint",
];

/// A case (or a line that should have been one) with its validation result.
#[derive(Clone, Debug, PartialEq)]
pub struct CaseCheck {
    /// 1-based line in the JSONL it came from (0 for a case built from a trace).
    pub line: u32,
    /// The `case_id` when it is a string (also for invalid cases, to find them).
    pub case_id: Option<String>,
    pub valid: bool,
    pub errors: Vec<String>,
    /// The typed case when it is valid.
    pub case: Option<FailedTurnCase>,
}

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

/// The FNV-1a 64-bit hash of `parts` joined by NUL: stable across platforms and runs. Case ids
/// are derived with it from the trace's content hash (`labels::ContentHasher`, SHA-256), the
/// trajectory id and the failure step.
pub fn stable_hash(parts: &[&str]) -> u64 {
    let mut state = FNV_OFFSET;
    for (i, part) in parts.iter().enumerate() {
        let sep: &[u8] = if i > 0 { b"\0" } else { b"" };
        for b in sep.iter().chain(part.as_bytes()) {
            state ^= u64::from(*b);
            state = state.wrapping_mul(FNV_PRIME);
        }
    }
    state
}

/// The case id for a failure: stable for the same trace content, trajectory and step.
pub fn case_id_for(content_hash: &str, trajectory_id: &str, step_key: &str) -> String {
    format!("case-{:016x}", stable_hash(&[content_hash, trajectory_id, step_key]))
}

/// The snake_case name of a class, as serialised.
pub fn class_name(c: FailureClass) -> &'static str {
    match c {
        FailureClass::AgentFailure => "agent_failure",
        FailureClass::VerificationFailure => "verification_failure",
        FailureClass::EnvironmentBlocker => "environment_blocker",
        FailureClass::FlakyBlocker => "flaky_blocker",
        FailureClass::HarnessBlocker => "harness_blocker",
    }
}

/// Cuts `text` to at most `max` characters on a char boundary, marking the cut with `…`.
/// Secrets are masked first (`crate::redact`), so a cut never leaves part of one.
pub fn shorten(text: &str, max: usize) -> String {
    let text = crate::redact::redact_text(text);
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= max {
        return flat;
    }
    let cut: String = flat.chars().take(max.saturating_sub(1)).collect();
    format!("{}…", cut.trim_end())
}

/// Checks a typed case (serialised, then [`validate_value`]).
pub fn check_case(case: &FailedTurnCase) -> CaseCheck {
    let value = serde_json::to_value(case).unwrap_or(Value::Null);
    check_value(&value, 0)
}

/// Checks one raw JSON value as a v1 case; the typed case is kept only when it is valid.
pub fn check_value(value: &Value, line: u32) -> CaseCheck {
    let errors = validate_value(value);
    let case_id = value.get("case_id").and_then(Value::as_str).map(str::to_string);
    let case = if errors.is_empty() {
        serde_json::from_value::<FailedTurnCase>(value.clone()).ok()
    } else {
        None
    };
    // A value that passes every rule but still does not type-check is reported, not accepted.
    let mut errors = errors;
    if errors.is_empty() && case.is_none() {
        errors.push("case does not match the v1 schema".into());
    }
    CaseCheck { line, case_id, valid: errors.is_empty(), errors, case }
}

/// Every rule of docs/learning-loop.md, on raw JSON. Returns all errors (empty when the case is valid).
pub fn validate_value(value: &Value) -> Vec<String> {
    let Some(obj) = value.as_object() else {
        return vec!["case must be a JSON object".into()];
    };
    let mut errors = Vec::new();
    match obj.get("schema_version") {
        None => errors.push("schema_version is required".into()),
        Some(v) if v.as_u64() == Some(SCHEMA_VERSION) => {}
        Some(v) => errors.push(format!(
            "unknown schema_version {} (known: {SCHEMA_VERSION})",
            crate::json::to_text(v)
        )),
    }
    for key in ["case_id", "turn_id", "failure_turn_id", "failure_event_id", "prevention_hint"] {
        require_string(obj, key, &mut errors);
    }
    if let (Some(Value::String(a)), Some(Value::String(b))) =
        (obj.get("turn_id"), obj.get("failure_turn_id"))
    {
        if a != b {
            errors.push("turn_id and failure_turn_id must match".into());
        }
    }
    for key in ["artifact_refs", "evidence_refs", "applicability"] {
        if !is_string_list(obj.get(key), false) {
            errors.push(format!("{key} must be a non-empty array of strings"));
        }
    }
    // A ref that escapes the trace root never enters a valid case (nor, so, a brief).
    if let Some(Value::Array(refs)) = obj.get("artifact_refs") {
        for r in refs.iter().filter_map(Value::as_str) {
            let a = crate::artifact::classify(r);
            if let Some(reason) = a.reason.filter(|_| a.escapes_root) {
                errors.push(format!("artifact_refs: {r:?} escapes the trace root ({reason})"));
            }
        }
    }
    if obj.contains_key("memory_read_node_ids")
        && !is_string_list(obj.get("memory_read_node_ids"), true)
    {
        errors.push("memory_read_node_ids must be an array of strings".into());
    }
    check_enum::<FailureClass>(obj, "classification", &mut errors);
    check_enum::<FailureMode>(obj, "failure_mode", &mut errors);
    check_enum::<Phase>(obj, "phase", &mut errors);
    for key in ["failed_action", "failure_reason", "constraint"] {
        if let Some(v) = obj.get(key) {
            if !v.is_string() {
                errors.push(format!("{key} must be a string"));
            }
        }
    }
    let mut unknown: Vec<&String> =
        obj.keys().filter(|k| !KNOWN_FIELDS.contains(&k.as_str())).collect();
    crate::sort::sort(&mut unknown);
    for k in unknown {
        errors.push(format!("unknown field `{k}`"));
    }
    errors
}

fn require_string(obj: &Map<String, Value>, key: &str, errors: &mut Vec<String>) {
    match obj.get(key) {
        None => errors.push(format!("{key} is required")),
        Some(Value::String(s)) if !s.trim().is_empty() => {}
        Some(_) => errors.push(format!("{key} must be a non-empty string")),
    }
}

fn is_string_list(v: Option<&Value>, may_be_empty: bool) -> bool {
    match v {
        Some(Value::Array(items)) => {
            (may_be_empty || !items.is_empty())
                && items.iter().all(|i| i.as_str().is_some_and(|s| !s.trim().is_empty()))
        }
        _ => false,
    }
}

fn check_enum<T: serde::de::DeserializeOwned>(
    obj: &Map<String, Value>,
    key: &str,
    errors: &mut Vec<String>,
) {
    if let Some(v) = obj.get(key) {
        if !v.is_null() && serde_json::from_value::<T>(v.clone()).is_err() {
            errors.push(format!("unknown {key} {}", crate::json::to_text(v)));
        }
    }
}

/// The result of reading a cases JSONL: every line checked, nothing fatal.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LoadedCases {
    /// One check per non-blank line, in file order (a line that is not JSON is an invalid entry).
    pub checks: Vec<CaseCheck>,
}

impl LoadedCases {
    /// The valid cases, in file order.
    pub fn valid(&self) -> impl Iterator<Item = &FailedTurnCase> {
        self.checks.iter().filter_map(|c| c.case.as_ref())
    }
}

/// Reads cases JSONL (bytes; invalid UTF-8 is reported per line).
pub fn load_jsonl(bytes: &[u8]) -> LoadedCases {
    let mut checks = Vec::new();
    for (i, raw) in bytes.split(|b| *b == b'\n').enumerate() {
        let line = u32::try_from(i + 1).unwrap_or(u32::MAX);
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        if raw.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let check = match serde_json::from_slice::<Value>(raw) {
            Ok(v) => check_value(&v, line),
            Err(e) => CaseCheck {
                line,
                case_id: None,
                valid: false,
                errors: vec![format!("not JSON: {e}")],
                case: None,
            },
        };
        checks.push(check);
    }
    LoadedCases { checks }
}

/// Merges case lists in order; a later case with an already seen `case_id` collapses into the
/// first (the earliest source wins). Returns the merged cases and how many collapsed.
pub fn merge<'a>(
    sources: impl IntoIterator<Item = &'a FailedTurnCase>,
) -> (Vec<FailedTurnCase>, usize) {
    // A set as a map to nothing of a type the web bundle already has.
    let mut seen = HashMap::<String, usize>::new();
    let mut out = Vec::new();
    let mut collapsed = 0;
    for c in sources {
        if seen.insert(c.case_id.clone(), 0).is_none() {
            out.push(c.clone());
        } else {
            collapsed += 1;
        }
    }
    (out, collapsed)
}

/// Exports cases as JSONL: only cases that pass validation are written; the others come back
/// with their errors. Secrets in the written text are masked (`crate::redact`).
pub fn export_jsonl(cases: &[FailedTurnCase]) -> (String, Vec<CaseCheck>) {
    let mut out = String::new();
    let mut rejected = Vec::new();
    for c in cases {
        let check = check_case(c);
        if check.valid {
            if let Ok(line) = serde_json::to_string(c) {
                out.push_str(&crate::redact::redact_json_text(&line));
                out.push('\n');
            }
        } else {
            rejected.push(check);
        }
    }
    (out, rejected)
}
