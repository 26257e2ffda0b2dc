//! Annotation labels (docs/learning-loop.md): the label model, benchmark exports, imports, agreement.
//!
//! A [`Label`] names the critical step of one trajectory of one trace file, as one annotator
//! judged it. The trace is identified by the SHA-256 of its bytes ([`ContentHasher`], fed the
//! same chunks the ingest gets) plus the trajectory id, so labels made on one machine match the
//! same file anywhere else. Times are strings passed in: the core has no clock.
//!
//! - [`export`]: labels JSONL, Who&When-style and TRAJERRBENCH-style records.
//! - [`import`]: reads any of those three back (bad lines reported, never fatal).
//! - [`agreement`]: exact / ±1 step agreement, Cohen's and Fleiss' kappa, disagreements.

pub mod agreement;
pub mod export;
pub mod import;

use serde::{Deserialize, Serialize};
use sha2::Digest as _;

use crate::model::Outcome;
use crate::record::{Category, Phase};

pub use agreement::{agreement, Agreement, Disagreement, PairAgreement};
pub use export::{to_jsonl, to_trajerrbench_jsonl, to_who_and_when_jsonl};
pub use import::{import, ImportOptions, ImportProblem, LabelImport, LabelStyle};

/// Version of the labels JSONL schema (the `schema_version` field of each line).
pub const LABEL_SCHEMA_VERSION: u32 = 1;

/// One annotator's judgement of one trajectory.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Label {
    #[serde(default = "schema_version")]
    pub schema_version: u32,
    /// `sha256:<64 hex digits>` of the trace file's bytes (see [`ContentHasher`]); may be empty
    /// for a label imported from a file that does not say.
    pub content_hash: String,
    pub trajectory_id: String,
    /// 0-based step index (the index space of `Step::index` and of the benchmarks' gold labels);
    /// `None` when the annotator judged that there is no critical step.
    pub critical_step: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub responsible_agent: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category: Option<Category>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<Phase>,
    #[serde(default)]
    pub rationale: String,
    #[serde(default)]
    pub annotator: String,
    /// When the label was last changed, as given by the caller (RFC 3339 in the app).
    #[serde(default)]
    pub time: String,
    /// How the annotator judged the run ended: `failed`, `passed` or `unknown` (also what a
    /// label file written before this field existed reads as). A `failed` or `passed` label is
    /// the reviewer's word on the run: the analysis takes it as the run's outcome.
    #[serde(default)]
    pub outcome: Outcome,
}

fn schema_version() -> u32 {
    LABEL_SCHEMA_VERSION
}

impl Label {
    /// An empty label (no critical step yet) for a trajectory.
    pub fn new(content_hash: &str, trajectory_id: &str) -> Label {
        Label {
            schema_version: LABEL_SCHEMA_VERSION,
            content_hash: content_hash.to_string(),
            trajectory_id: trajectory_id.to_string(),
            critical_step: None,
            responsible_agent: None,
            category: None,
            phase: None,
            rationale: String::new(),
            annotator: String::new(),
            time: String::new(),
            outcome: Outcome::Unknown,
        }
    }

    /// The item this label is about: the same for every annotator of the same trajectory.
    pub fn item(&self) -> ItemKey {
        ItemKey {
            content_hash: self.content_hash.clone(),
            trajectory_id: self.trajectory_id.clone(),
        }
    }
}

/// The identity of a labelled item: a trace file's content hash and a trajectory id in it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ItemKey {
    pub content_hash: String,
    pub trajectory_id: String,
}

/// Streaming SHA-256 of a trace file: feed it the chunks as they are read (any sizes), then
/// [`ContentHasher::finish`] gives `sha256:<hex>` — the same digest `sha256sum` prints.
#[derive(Clone, Debug, Default)]
pub struct ContentHasher {
    inner: sha2::Sha256,
}

impl ContentHasher {
    pub fn new() -> ContentHasher {
        ContentHasher::default()
    }

    pub fn update(&mut self, chunk: &[u8]) {
        self.inner.update(chunk);
    }

    pub fn finish(self) -> String {
        let digest = self.inner.finalize();
        let mut out = String::with_capacity(7 + 64);
        out.push_str("sha256:");
        for b in digest.iter() {
            out.push(char::from(HEX[usize::from(b >> 4)]));
            out.push(char::from(HEX[usize::from(b & 0x0f)]));
        }
        out
    }
}

const HEX: &[u8; 16] = b"0123456789abcdef";

/// The content hash of a whole byte slice (`sha256:<hex>`).
pub fn content_hash(bytes: &[u8]) -> String {
    let mut h = ContentHasher::new();
    h.update(bytes);
    h.finish()
}

/// Parses a category name as written by us (`task_conflict`) or in CamelCase / with spaces
/// (`TaskConflict`, `Task Conflict`), case-insensitively.
pub fn parse_category(text: &str) -> Option<Category> {
    let key = squash(text);
    Category::ALL.into_iter().find(|c| squash(c.name()) == key)
}

/// Parses a phase name (`planning`) or a TRAJERRBENCH module (`plan`, `reason`, `act`, `obs`,
/// `verify`), case-insensitively.
pub fn parse_phase(text: &str) -> Option<Phase> {
    let key = squash(text);
    Phase::ALL.into_iter().find(|p| squash(p.name()) == key || trajerrbench_module(*p) == key)
}

/// The TRAJERRBENCH taxonomy module of a phase (`plan`, `reason`, `act`, `obs`, `verify`).
pub fn trajerrbench_module(phase: Phase) -> &'static str {
    match phase {
        Phase::Planning => "plan",
        Phase::Reasoning => "reason",
        Phase::Action => "act",
        Phase::Observation => "obs",
        Phase::Verification => "verify",
    }
}

/// Lower case, letters and digits only: `Task Conflict` and `task_conflict` compare equal.
fn squash(text: &str) -> String {
    text.chars().filter(|c| c.is_alphanumeric()).flat_map(crate::lower::lower).collect()
}

/// A human-readable name for a category (`Task Conflict`).
pub fn category_title(c: Category) -> &'static str {
    match c {
        Category::TaskConflict => "Task Conflict",
        Category::HistoryConflict => "History Conflict",
        Category::IntraStepConflict => "Intra-Step Conflict",
        Category::EnvironmentAnomaly => "Environment Anomaly",
    }
}

/// `TaskConflict`: the subtype written after the module in a TRAJERRBENCH error type.
pub fn category_camel(c: Category) -> &'static str {
    match c {
        Category::TaskConflict => "TaskConflict",
        Category::HistoryConflict => "HistoryConflict",
        Category::IntraStepConflict => "IntraStepConflict",
        Category::EnvironmentAnomaly => "EnvironmentAnomaly",
    }
}
