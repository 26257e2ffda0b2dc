//! Reading label files back: our labels JSONL, Who&When-style and TRAJERRBENCH-style records
//! (our exports, or the benchmarks' own item files). A line or item that is not a label is
//! reported with its position and reason; the rest of the file is still read.

use serde_json::{Map, Value};

use super::{parse_category, parse_phase, Label};
use crate::model::Outcome;
use crate::record::{Category, Phase};

/// Which style a label was read from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LabelStyle {
    /// Our labels JSONL (objects with `critical_step`).
    Labels,
    /// Objects with `mistake_step` (Who&When items or our Who&When-style export).
    WhoAndWhen,
    /// Objects with `metadata.annotation` (TRAJERRBENCH unified records or our export).
    Trajerrbench,
}

/// What to fill in when a file does not say.
#[derive(Clone, Debug, Default)]
pub struct ImportOptions {
    /// Annotator for labels that name none (the app passes the file name).
    pub default_annotator: String,
    /// The content hash of the imported file itself. A benchmark item file (one pretty-printed
    /// Who&When or TRAJERRBENCH document) *is* the trace, so its labels take this as their
    /// `content_hash` when they carry none.
    pub file_hash: String,
}

/// A line (JSONL) or item (a JSON array document) that did not yield a label.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportProblem {
    /// 1-based line for JSONL; 1-based item index for a JSON array; 1 for a single document.
    pub line: u32,
    pub reason: String,
}

/// The labels read from one file and the problems met.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LabelImport {
    pub labels: Vec<Label>,
    pub styles: Vec<LabelStyle>,
    pub problems: Vec<ImportProblem>,
}

/// Reads a label file: JSONL (one record per line), a JSON array of records, or one JSON
/// document (a benchmark item file). Never fails: what cannot be read is in `problems`.
pub fn import(bytes: &[u8], opts: &ImportOptions) -> LabelImport {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let mut out = LabelImport::default();
    let first = bytes.iter().position(|b| !b.is_ascii_whitespace()).map(|i| bytes[i]);
    // A whole-file JSON document: an array of records, or one (pretty-printed) record.
    if matches!(first, Some(b'[') | Some(b'{')) {
        if let Ok(doc) = serde_json::from_slice::<Value>(bytes) {
            match doc {
                Value::Array(items) => {
                    for (i, item) in items.iter().enumerate() {
                        take(&mut out, item, u32::try_from(i + 1).unwrap_or(u32::MAX), opts, "");
                    }
                }
                other => take(&mut out, &other, 1, opts, &opts.file_hash),
            }
            return out;
        }
    }
    for (i, line) in bytes.split(|b| *b == b'\n').enumerate() {
        let line_no = u32::try_from(i + 1).unwrap_or(u32::MAX);
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match serde_json::from_slice::<Value>(line) {
            Ok(v) => take(&mut out, &v, line_no, opts, ""),
            Err(e) => out.problems.push(ImportProblem { line: line_no, reason: json_reason(&e) }),
        }
    }
    out
}

/// serde_json's message without its "at line 1 column N" (the line is reported already).
fn json_reason(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let msg = text.split(" at line ").next().unwrap_or(&text);
    format!("not valid JSON ({msg} at column {})", e.column())
}

fn take(out: &mut LabelImport, v: &Value, line: u32, opts: &ImportOptions, fallback_hash: &str) {
    match read_record(v, opts, fallback_hash) {
        Ok((style, labels)) => {
            if !out.styles.contains(&style) {
                out.styles.push(style);
            }
            out.labels.extend(labels);
        }
        Err(reason) => out.problems.push(ImportProblem { line, reason }),
    }
}

fn read_record(
    v: &Value,
    opts: &ImportOptions,
    fallback_hash: &str,
) -> Result<(LabelStyle, Vec<Label>), String> {
    let obj = v.as_object().ok_or("not a JSON object")?;
    let (style, mut labels) = if let Some(extra) = crate::dataset::our_extra(obj) {
        // A dataset item exported by trajscope: every annotator's own label is in
        // `metadata.extra.labels` (the item's top-level label is their agreement).
        let style = if obj.contains_key("history") {
            LabelStyle::WhoAndWhen
        } else {
            LabelStyle::Trajerrbench
        };
        (style, dataset_labels(extra)?)
    } else if obj.contains_key("critical_step") {
        let label: Label = serde_json::from_value(v.clone()).map_err(|e| e.to_string())?;
        (LabelStyle::Labels, vec![label])
    } else if obj.contains_key("mistake_step") {
        (LabelStyle::WhoAndWhen, vec![who_and_when(obj)?])
    } else if let Some(meta) = obj.get("metadata").and_then(Value::as_object) {
        if !meta.contains_key("annotation") {
            return Err("metadata has no annotation".into());
        }
        (LabelStyle::Trajerrbench, trajerrbench(obj, meta)?)
    } else {
        return Err("not a label: no critical_step, mistake_step or metadata.annotation".into());
    };
    for l in &mut labels {
        if l.annotator.is_empty() {
            l.annotator = opts.default_annotator.clone();
        }
        if l.content_hash.is_empty() {
            l.content_hash = fallback_hash.to_string();
        }
    }
    Ok((style, labels))
}

/// The labels of a trajscope dataset item, keyed by the source file's hash and trajectory id.
fn dataset_labels(extra: &Map<String, Value>) -> Result<Vec<Label>, String> {
    let hash = string(extra, "content_hash").unwrap_or_default();
    let id = string(extra, "trajectory_id").unwrap_or_default();
    let items = extra
        .get("labels")
        .and_then(Value::as_array)
        .ok_or("metadata.extra.labels is not a list")?;
    let mut labels = Vec::with_capacity(items.len());
    for (i, v) in items.iter().enumerate() {
        let mut l: Label = serde_json::from_value(v.clone())
            .map_err(|e| format!("metadata.extra.labels[{i}]: {e}"))?;
        l.content_hash = hash.clone();
        l.trajectory_id = id.clone();
        labels.push(l);
    }
    Ok(labels)
}

fn string(obj: &Map<String, Value>, key: &str) -> Option<String> {
    match obj.get(key)? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn nonempty(s: Option<String>) -> Option<String> {
    s.filter(|s| !s.trim().is_empty())
}

/// A step index written as a number or a string of digits; `null` means "no critical step".
fn step(v: Option<&Value>, key: &str) -> Result<Option<u32>, String> {
    let bad = |v: &Value| format!("{key} is not a step index: {}", crate::json::to_text(v));
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => match n.as_u64().and_then(|n| u32::try_from(n).ok()) {
            Some(s) => Ok(Some(s)),
            None => Err(bad(v.unwrap_or(&Value::Null))),
        },
        Some(Value::String(s)) if s.trim().is_empty() => Ok(None),
        Some(Value::String(s)) => {
            s.trim().parse::<u32>().map(Some).map_err(|_| bad(v.unwrap_or(&Value::Null)))
        }
        Some(other) => Err(bad(other)),
    }
}

/// The `outcome` a record states (`failed`, `passed`, `unknown`); `None` when it names none.
fn outcome(obj: &Map<String, Value>) -> Option<Outcome> {
    string(obj, "outcome").as_deref().and_then(crate::outcome::parse_outcome)
}

fn category(obj: &Map<String, Value>) -> Option<Category> {
    string(obj, "category").as_deref().and_then(parse_category)
}

fn phase(obj: &Map<String, Value>) -> Option<Phase> {
    string(obj, "phase").as_deref().and_then(parse_phase)
}

fn who_and_when(obj: &Map<String, Value>) -> Result<Label, String> {
    let mut l = Label::new(
        &string(obj, "content_hash").unwrap_or_default(),
        &string(obj, "trajectory_id").or_else(|| string(obj, "question_ID")).unwrap_or_default(),
    );
    l.critical_step = step(obj.get("mistake_step"), "mistake_step")?;
    l.responsible_agent = nonempty(string(obj, "mistake_agent"));
    l.rationale = string(obj, "mistake_reason").unwrap_or_default();
    l.annotator = string(obj, "annotator").unwrap_or_default();
    l.time = string(obj, "time").unwrap_or_default();
    l.category = category(obj);
    l.phase = phase(obj);
    // A Who&When item says whether its run got the answer right (`is_correct`).
    // `true` / `false`, or their text in any case, as the Who&When adapter reads it.
    l.outcome =
        outcome(obj).unwrap_or(match crate::ingest::formats::value_bool(obj.get("is_correct")) {
            Some(true) => Outcome::Passed,
            Some(false) => Outcome::Failed,
            None => Outcome::Unknown,
        });
    Ok(l)
}

/// `reason.TaskConflict` → (reasoning, task conflict); `reason.MissingAssumptionCheck` →
/// (reasoning, none): a subtype outside our four categories is not guessed at.
fn parse_error_type(text: &str) -> (Option<Phase>, Option<Category>) {
    match text.split_once('.') {
        Some((module, subtype)) => (parse_phase(module), parse_category(subtype)),
        None => (parse_phase(text), parse_category(text)),
    }
}

fn trajerrbench(obj: &Map<String, Value>, meta: &Map<String, Value>) -> Result<Vec<Label>, String> {
    let ann = meta
        .get("annotation")
        .and_then(Value::as_object)
        .ok_or("metadata.annotation is not an object")?;
    let empty = Map::new();
    let extra = meta.get("extra").and_then(Value::as_object).unwrap_or(&empty);
    let content_hash = string(obj, "content_hash").unwrap_or_default();
    let trajectory_id =
        string(obj, "trajectory_id").or_else(|| string(meta, "task_id")).unwrap_or_default();

    let mut main = Label::new(&content_hash, &trajectory_id);
    main.critical_step = step(ann.get("critical_error_step"), "critical_error_step")?;
    let (p, c) =
        string(ann, "critical_error_type").as_deref().map_or((None, None), parse_error_type);
    main.phase = phase(extra).or(p);
    main.category = category(extra).or(c);
    main.rationale = string(ann, "human_rationale").unwrap_or_default();
    main.annotator = string(extra, "annotator").unwrap_or_default();
    main.time = string(extra, "time").unwrap_or_default();
    main.responsible_agent = nonempty(string(extra, "responsible_agent"));
    // A unified record says how its run ended by its `reward` (full reward passes).
    let reward = meta.get("reward").map(crate::ingest::formats::reward_outcome);
    main.outcome = outcome(extra).or(reward).unwrap_or(Outcome::Unknown);
    let run_outcome = main.outcome;
    let mut labels = vec![main];

    // The unified records keep each human annotator's own label: one label per labeler.
    let humans = extra
        .get("critical_step_labels")
        .and_then(|c| c.get("human_annotators"))
        .and_then(Value::as_array);
    for h in humans.into_iter().flatten() {
        let Some(h) = h.as_object() else { continue };
        let Some(labeler) = nonempty(string(h, "labeler")) else { continue };
        let Ok(step) = step(h.get("step"), "step") else { continue };
        let mut l = Label::new(&content_hash, &trajectory_id);
        l.critical_step = step;
        let (p, c) =
            string(h, "mapped_error_type").as_deref().map_or((None, None), parse_error_type);
        l.phase = p;
        l.category = c;
        l.rationale = string(h, "rationale").unwrap_or_default();
        l.annotator = labeler;
        l.outcome = run_outcome;
        labels.push(l);
    }
    Ok(labels)
}
