//! Benchmark dataset export (docs/dataset.md): labelled trajectories written as complete items
//! of a benchmark's own schema, one JSON object per line (JSONL), item by item.
//!
//! - [`Style::Trajerrbench`]: the unified record, `messages[]` with `step` equal to the array
//!   index, `metadata.annotation.critical_error_step`.
//! - [`Style::WhoAndWhen`]: `history[]`, `mistake_step` (a string holding the 0-based index
//!   into `history`), `mistake_agent`, `mistake_reason`.
//!
//! Every canonical step becomes one message, in order, so a step's index is the same in the
//! export as in the source (and in the label). The source file, the trajectory id and the
//! content hash go into `metadata.extra`, with every annotator's label and the agreed one
//! ([`agree`]). Secrets are masked unless the caller turns redaction off. Pure: this yields
//! each item's bytes; the shells write them.

pub mod agree;
pub mod restore;

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

pub use agree::{agree, Agreed, Vote};
pub use restore::{StepExtra, TrajectoryExtra};

use crate::labels::export::critical_error_type;
use crate::labels::{trajerrbench_module, ItemKey, Label};
use crate::model::{Format, Outcome, Role, Step, Trace, Trajectory};

/// Version of the dataset metadata (`metadata.extra.trajscope_dataset`).
pub const DATASET_VERSION: u32 = 1;

/// The benchmark schema of the items.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Style {
    Trajerrbench,
    WhoAndWhen,
}

impl Style {
    pub const ALL: [Style; 2] = [Style::Trajerrbench, Style::WhoAndWhen];

    pub fn name(self) -> &'static str {
        match self {
            Style::Trajerrbench => "trajerrbench",
            Style::WhoAndWhen => "who-and-when",
        }
    }

    pub fn from_name(name: &str) -> Option<Style> {
        Style::ALL.into_iter().find(|s| s.name().eq_ignore_ascii_case(name))
    }
}

/// How to export.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExportOptions {
    pub style: Style,
    /// Mask secrets (`crate::redact`). On for a dataset unless the user opts out.
    pub redact: bool,
}

impl ExportOptions {
    pub fn new(style: Style) -> ExportOptions {
        ExportOptions { style, redact: true }
    }
}

/// Where a trajectory came from: written into each item's `metadata.extra`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Source {
    /// The source file as the user named it.
    pub file: String,
    /// The subset the item belongs to (the folder holding the file, as `trajscope eval` names
    /// subsets; TRAJERRBENCH's `metadata.dataset`).
    pub subset: String,
    pub format: Option<Format>,
    /// `sha256:<hex>` of the source file's bytes (the labels' key).
    pub content_hash: String,
}

/// Labels indexed by the item they are about.
#[derive(Clone, Debug, Default)]
pub struct LabelIndex {
    by_item: HashMap<ItemKey, Vec<Label>>,
}

impl LabelIndex {
    pub fn new(labels: impl IntoIterator<Item = Label>) -> LabelIndex {
        let mut by_item: HashMap<ItemKey, Vec<Label>> = HashMap::new();
        for l in labels {
            by_item.entry(l.item()).or_default().push(l);
        }
        LabelIndex { by_item }
    }

    /// The labels of one trajectory of one file.
    pub fn get(&self, content_hash: &str, trajectory_id: &str) -> &[Label] {
        let key =
            ItemKey { content_hash: content_hash.into(), trajectory_id: trajectory_id.into() };
        self.by_item.get(&key).map(Vec::as_slice).unwrap_or(&[])
    }

    /// Distinct labelled items.
    pub fn len(&self) -> usize {
        self.by_item.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_item.is_empty()
    }

    /// Sets each labelled trajectory's gold label to the agreed label of its labels (what
    /// `trajscope eval --labels` scores against, the same label an export carries); returns how
    /// many trajectories had labels.
    pub fn apply_gold(&self, trace: &mut Trace, content_hash: &str) -> usize {
        let mut n = 0;
        for t in &mut trace.trajectories {
            let labels = self.get(content_hash, &t.id);
            if labels.is_empty() {
                continue;
            }
            n += 1;
            t.gold = agree(labels).gold();
        }
        n
    }
}

/// One exported item.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Item {
    pub trajectory_id: String,
    /// The item as one line of JSON, `\n`-terminated.
    pub line: Vec<u8>,
    /// The agreed step (`None`: no critical step, or a tie).
    pub step: Option<u32>,
    /// The step votes tied.
    pub tie: bool,
    /// What a reader should know (a label the style's rules do not allow where it is).
    pub warnings: Vec<String>,
}

/// The items of every labelled trajectory of one trace, in trajectory order (a trajectory
/// without labels yields nothing).
pub fn items<'a>(
    index: &'a LabelIndex,
    trace: &'a Trace,
    source: &'a Source,
    opts: ExportOptions,
) -> impl Iterator<Item = Item> + 'a {
    trace.trajectories.iter().filter_map(move |t| {
        let labels = index.get(&source.content_hash, &t.id);
        (!labels.is_empty()).then(|| item(t, source, labels, opts))
    })
}

/// The style's role word for a canonical role: both styles know `system`, `user`,
/// `assistant` and `tool` (a judge's verdict and anything unknown speak as `user`, never the
/// critical step in TRAJERRBENCH; an environment answers as a `tool`).
pub fn role_word(role: Role) -> &'static str {
    match role {
        Role::System => "system",
        Role::User | Role::Judge | Role::Other => "user",
        Role::Assistant => "assistant",
        Role::Tool | Role::Environment => "tool",
    }
}

/// A message's `content`: the step's text; a tool call whose text is nothing but its arguments
/// (or nothing) is written as TRAJERRBENCH writes one (`[tool_calls]\n- name(args)`).
fn content(step: &Step) -> String {
    let args = step.args.as_deref().unwrap_or("");
    match &step.tool {
        Some(tool) if step.text.is_empty() || step.text == args => {
            format!("[tool_calls]\n- {tool}({args})")
        }
        _ => step.text.clone(),
    }
}

fn message(step: &Step, style: Style) -> Value {
    let content = content(step);
    let extra = StepExtra::of(step, &content);
    let role = role_word(step.role);
    let name = if step.actor.is_empty() { role.to_string() } else { step.actor.clone() };
    let mut m = Map::new();
    if style == Style::Trajerrbench {
        m.insert("step".into(), json!(step.index));
    }
    m.insert("role".into(), json!(role));
    m.insert("name".into(), json!(name));
    m.insert("content".into(), json!(content));
    // Serialising a plain struct with string keys cannot fail.
    m.insert(restore::STEP_KEY.into(), serde_json::to_value(extra).unwrap_or(Value::Null));
    Value::Object(m)
}

/// `metadata.extra`: where the item came from, every label, the agreement.
fn extra(t: &Trajectory, source: &Source, agreed: &Agreed, style: Style) -> Map<String, Value> {
    let mut e = Map::new();
    e.insert("trajscope_dataset".into(), json!(DATASET_VERSION));
    e.insert("source_file".into(), json!(source.file));
    e.insert("source_format".into(), json!(source.format.map(Format::name)));
    e.insert("subset".into(), json!(source.subset));
    e.insert("trajectory_id".into(), json!(t.id));
    e.insert("content_hash".into(), json!(source.content_hash));
    e.insert("labels".into(), serde_json::to_value(&agreed.labels).unwrap_or_default());
    e.insert(
        "agreement".into(),
        json!({
            "method": "majority",
            "annotators": agreed.labels.len(),
            "step": agreed.label.as_ref().and_then(|l| l.critical_step),
            "tie": agreed.label.is_none(),
            "tied_steps": agreed.tied(),
            "votes": agreed.votes,
        }),
    );
    if style == Style::Trajerrbench {
        // The unified records' own place for each human annotator's label.
        let humans: Vec<Value> = agreed
            .labels
            .iter()
            .map(|l| {
                json!({
                    "labeler": l.annotator,
                    "step": l.critical_step,
                    "mapped_error_type": critical_error_type(l.phase, l.category),
                    "error_category": l.phase.map(trajerrbench_module),
                    "rationale": l.rationale,
                })
            })
            .collect();
        e.insert("critical_step_labels".into(), json!({ "human_annotators": humans }));
    }
    e.insert(
        restore::TRAJECTORY_KEY.into(),
        serde_json::to_value(TrajectoryExtra::of(t)).unwrap_or_default(),
    );
    e
}

/// One trajectory with its labels as an item of the style.
pub fn item(t: &Trajectory, source: &Source, labels: &[Label], opts: ExportOptions) -> Item {
    let agreed = agree(labels);
    let label = agreed.label.as_ref();
    let step = label.and_then(|l| l.critical_step);
    let agent = label.and_then(|l| l.responsible_agent.clone()).filter(|a| !a.is_empty());
    let rationale = label.map(|l| l.rationale.clone()).filter(|r| !r.is_empty());
    let error_type = label.and_then(|l| critical_error_type(l.phase, l.category));
    let mut warnings = Vec::new();
    if let Some(s) = step {
        match t.steps.get(s as usize) {
            None => warnings.push(format!(
                "the label's step {s} is past the trajectory's last step ({})",
                t.steps.len().saturating_sub(1)
            )),
            Some(st) if opts.style == Style::Trajerrbench && role_word(st.role) == "user" => {
                warnings.push(format!(
                    "the label's step {s} is a user message, which TRAJERRBENCH never takes as the critical step"
                ))
            }
            Some(_) => {}
        }
    }
    let messages: Vec<Value> = t.steps.iter().map(|s| message(s, opts.style)).collect();
    let extra = extra(t, source, &agreed, opts.style);
    let value = match opts.style {
        Style::Trajerrbench => {
            let mut annotation = Map::new();
            annotation.insert("critical_error_step".into(), json!(step));
            annotation.insert("critical_error_type".into(), json!(error_type));
            // Optional in the unified schema: absent when the label gives no rationale (an
            // empty one would read back as a label of its own).
            if let Some(r) = &rationale {
                annotation.insert("human_rationale".into(), json!(r));
            }
            if let Some(a) = &agent {
                annotation.insert("critical_error_agent".into(), json!(a));
            }
            let mut meta = Map::new();
            meta.insert("dataset".into(), json!(source.subset));
            meta.insert("task_id".into(), json!(t.id));
            meta.insert("task_description".into(), json!(t.task.clone().unwrap_or_default()));
            match t.outcome {
                Outcome::Passed => meta.insert("reward".into(), json!(1)),
                Outcome::Failed => meta.insert("reward".into(), json!(0)),
                Outcome::Unknown => None,
            };
            meta.insert("annotation".into(), Value::Object(annotation));
            meta.insert("extra".into(), Value::Object(extra));
            json!({ "messages": messages, "metadata": meta })
        }
        Style::WhoAndWhen => {
            let mut o = Map::new();
            o.insert("question".into(), json!(t.task.clone().unwrap_or_default()));
            o.insert("question_ID".into(), json!(t.id));
            match t.outcome {
                Outcome::Passed => o.insert("is_correct".into(), json!(true)),
                Outcome::Failed => o.insert("is_correct".into(), json!(false)),
                Outcome::Unknown => None,
            };
            o.insert("history".into(), Value::Array(messages));
            o.insert("mistake_agent".into(), json!(agent));
            o.insert("mistake_step".into(), json!(step.map(|s| s.to_string())));
            o.insert("mistake_reason".into(), json!(rationale));
            if let Some(ty) = &error_type {
                o.insert("mistake_type".into(), json!(ty));
            }
            o.insert("metadata".into(), json!({ "extra": extra }));
            Value::Object(o)
        }
    };
    // Serialising a `Value` cannot fail.
    let text = serde_json::to_string(&value).unwrap_or_default();
    let text = if opts.redact { crate::redact::redact_json_text(&text) } else { text };
    let mut line = text.into_bytes();
    line.push(b'\n');
    Item { trajectory_id: t.id.clone(), line, step, tie: agreed.label.is_none(), warnings }
}

/// Where an exported item came from, as its `metadata.extra` says.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Origin {
    pub source_file: String,
    #[serde(default)]
    pub subset: String,
    pub trajectory_id: String,
    #[serde(default)]
    pub content_hash: String,
}

/// The origin of one line of an export (`None` for a line that is not one of our items).
pub fn origin(line: &[u8]) -> Option<Origin> {
    #[derive(Deserialize)]
    struct Line {
        metadata: Meta,
    }
    #[derive(Deserialize)]
    struct Meta {
        extra: Extra,
    }
    #[derive(Deserialize)]
    struct Extra {
        trajscope_dataset: u32,
        #[serde(flatten)]
        origin: Origin,
    }
    let l: Line = serde_json::from_slice(line).ok()?;
    let _version = l.metadata.extra.trajscope_dataset;
    Some(l.metadata.extra.origin)
}

/// The `metadata.extra` of an item of ours (the marker `trajscope_dataset` present).
pub(crate) fn our_extra(obj: &Map<String, Value>) -> Option<&Map<String, Value>> {
    let extra = obj.get("metadata")?.get("extra")?.as_object()?;
    extra.contains_key("trajscope_dataset").then_some(extra)
}
