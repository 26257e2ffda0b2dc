//! Label exports: our labels JSONL, Who&When-style records and TRAJERRBENCH-style records.
//!
//! Every export is JSONL, one label per line, and every line carries the trace identity
//! (`content_hash`, `trajectory_id`) and the annotator, so [`super::import`] reads each of them
//! back without loss of the fields the style has room for. Secrets in the text fields
//! (rationale, reason) are masked on the way out (`crate::redact`, `docs/redaction.md`).

use serde::{Deserialize, Serialize};

use super::{category_camel, trajerrbench_module, Label};
use crate::record::{Category, Phase};

/// One line of the Who&When-style export. The three benchmark fields keep their names and
/// types: `mistake_step` is a string holding the 0-based step index (as in Who&When items;
/// `null` when there is no critical step), `mistake_agent` and `mistake_reason` are strings.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WhoAndWhenRecord {
    pub content_hash: String,
    pub trajectory_id: String,
    pub mistake_step: Option<String>,
    pub mistake_agent: String,
    pub mistake_reason: String,
    pub annotator: String,
    pub time: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category: Option<Category>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<Phase>,
}

impl WhoAndWhenRecord {
    pub fn from_label(l: &Label) -> WhoAndWhenRecord {
        WhoAndWhenRecord {
            content_hash: l.content_hash.clone(),
            trajectory_id: l.trajectory_id.clone(),
            mistake_step: l.critical_step.map(|s| s.to_string()),
            mistake_agent: l.responsible_agent.clone().unwrap_or_default(),
            mistake_reason: l.rationale.clone(),
            annotator: l.annotator.clone(),
            time: l.time.clone(),
            category: l.category,
            phase: l.phase,
        }
    }
}

/// One line of the TRAJERRBENCH-style export: the unified schema's `metadata.annotation`
/// (`critical_error_step`, `critical_error_type`, `human_rationale`), with our other fields in
/// `metadata.extra`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrajerrbenchRecord {
    pub content_hash: String,
    pub trajectory_id: String,
    pub metadata: TrajerrbenchMetadata,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrajerrbenchMetadata {
    /// The trajectory id (the unified schema's task id).
    pub task_id: String,
    pub annotation: TrajerrbenchAnnotation,
    pub extra: TrajerrbenchExtra,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrajerrbenchAnnotation {
    pub critical_error_step: Option<u32>,
    /// `<module>.<subtype>`: the phase as a TRAJERRBENCH module (`plan`, `reason`, `act`, `obs`,
    /// `verify`) and our category in CamelCase (`reason.HistoryConflict`); only the part that is
    /// known when one of the two is missing; `null` when neither is.
    pub critical_error_type: Option<String>,
    pub human_rationale: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrajerrbenchExtra {
    pub annotator: String,
    pub time: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub responsible_agent: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category: Option<Category>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<Phase>,
}

/// The `critical_error_type` of a label: `reason.TaskConflict`, `reason`, `TaskConflict`.
pub fn critical_error_type(phase: Option<Phase>, category: Option<Category>) -> Option<String> {
    match (phase, category) {
        (Some(p), Some(c)) => Some(format!("{}.{}", trajerrbench_module(p), category_camel(c))),
        (Some(p), None) => Some(trajerrbench_module(p).to_string()),
        (None, Some(c)) => Some(category_camel(c).to_string()),
        (None, None) => None,
    }
}

impl TrajerrbenchRecord {
    pub fn from_label(l: &Label) -> TrajerrbenchRecord {
        TrajerrbenchRecord {
            content_hash: l.content_hash.clone(),
            trajectory_id: l.trajectory_id.clone(),
            metadata: TrajerrbenchMetadata {
                task_id: l.trajectory_id.clone(),
                annotation: TrajerrbenchAnnotation {
                    critical_error_step: l.critical_step,
                    critical_error_type: critical_error_type(l.phase, l.category),
                    human_rationale: l.rationale.clone(),
                },
                extra: TrajerrbenchExtra {
                    annotator: l.annotator.clone(),
                    time: l.time.clone(),
                    responsible_agent: l.responsible_agent.clone(),
                    category: l.category,
                    phase: l.phase,
                },
            },
        }
    }
}

fn jsonl<T: Serialize>(items: impl Iterator<Item = T>) -> String {
    let mut out = String::new();
    for item in items {
        // Serialising these plain structs cannot fail (string keys, no maps with other keys).
        if let Ok(line) = serde_json::to_string(&item) {
            out.push_str(&crate::redact::redact_json_text(&line));
            out.push('\n');
        }
    }
    out
}

/// Labels JSONL: one [`Label`] per line.
pub fn to_jsonl(labels: &[Label]) -> String {
    jsonl(labels.iter())
}

/// Who&When-style JSONL: one [`WhoAndWhenRecord`] per line.
pub fn to_who_and_when_jsonl(labels: &[Label]) -> String {
    jsonl(labels.iter().map(WhoAndWhenRecord::from_label))
}

/// TRAJERRBENCH-style JSONL: one [`TrajerrbenchRecord`] per line.
pub fn to_trajerrbench_jsonl(labels: &[Label]) -> String {
    jsonl(labels.iter().map(TrajerrbenchRecord::from_label))
}
