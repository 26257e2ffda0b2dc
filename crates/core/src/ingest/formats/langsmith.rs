//! LangSmith run-ingest payloads: `{"post": [run, ...], "patch": [run update, ...]}` (the
//! batch body the SDKs send), or a plain list of runs (an export).
//!
//! A run update is merged into its run (matched by `id`, else by `dotted_order`). Runs are
//! grouped into one trajectory per `trace_id`. The root run's input is step 0 (the user's request); then every run is one step
//! for its result, in post-order (a run after its descendants, as it finishes after them): an
//! `llm` / `chat` run the model's reply (an action when it calls tools), a `tool` run an
//! observation (tool, its inputs as args, the output as text), a `retriever` run a memory
//! read, other runs (`chain`, `prompt`, `parser`, ...) a message. `error` (or `status:
//! "error"`) marks the step as an error; a root run with an error fails the trajectory, and
//! without one the outcome stays unknown (a run that returned only says it stopped). Ids:
//! `span_id` = run id, `parent_id` = `parent_run_id`, `run_id` = `trace_id`. Usage:
//! `outputs.usage_metadata` (or an OpenAI `usage`), `total_cost` and end − start time per run.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::{content_text, get, get_text, value_text, SourceLoc};
use crate::artifact::extract;
use crate::model::{Outcome, Role, Step, StepKind, Trajectory, Usage};
use crate::usage::{cost, count, parse_timestamp_ms};

pub fn from_document(value: Value) -> Result<Vec<Trajectory>, String> {
    let mut runs: Vec<(String, Map<String, Value>)> = Vec::new();
    let mut patches: Vec<(String, &Map<String, Value>)> = Vec::new();
    match &value {
        Value::Object(o) if o.contains_key("post") || o.contains_key("patch") => {
            for (key, list) in [("post", o.get("post")), ("patch", o.get("patch"))] {
                let items = match list {
                    Some(Value::Array(items)) => items.as_slice(),
                    None | Some(Value::Null) => &[],
                    Some(other) => {
                        return Err(format!("`{key}` is {}, not a list", super::json_kind(other)))
                    }
                };
                for (i, r) in items.iter().enumerate() {
                    let r = super::as_object(r, &format!("{key}[{i}]"))?;
                    let path = format!("$.{key}[{i}]");
                    if key == "post" {
                        runs.push((path, r.clone()));
                    } else {
                        patches.push((path, r));
                    }
                }
            }
        }
        Value::Array(items) => {
            for (i, r) in items.iter().enumerate() {
                runs.push((format!("$[{i}]"), super::as_object(r, &format!("run {i}"))?.clone()));
            }
        }
        other => {
            return Err(format!(
                "LangSmith runs are a post/patch object or a list, not {}",
                super::json_kind(other)
            ))
        }
    }
    // `id` / `dotted_order` text → the runs that have (or had) it, so a patch finds its run
    // without scanning every run. A candidate is checked again: a patch may change a value.
    let mut index = RunIndex::new();
    for (i, (_, r)) in runs.iter().enumerate() {
        note(&mut index, i, r);
    }
    for (path, patch) in patches {
        let same = |k: &str, r: &Map<String, Value>| {
            get_text(patch, &[k]).is_some_and(|v| get_text(r, &[k]).as_deref() == Some(v.as_str()))
        };
        let key = if get(patch, &["id"]).is_some() { "id" } else { "dotted_order" };
        // The first run (lowest position) that matches, as a scan from the start would find.
        let target = get_text(patch, &[key])
            .and_then(|v| index.get(&(key, v)))
            .and_then(|at| at.iter().copied().filter(|&i| same(key, &runs[i].1)).min());
        match target {
            Some(i) => {
                let run = &mut runs[i].1;
                for (k, v) in patch {
                    if !v.is_null() || !run.contains_key(k) {
                        run.insert(k.clone(), v.clone());
                    }
                }
                note(&mut index, i, &runs[i].1);
            }
            // An update without its create: keep it as a run of its own.
            None => {
                runs.push((path, patch.clone()));
                note(&mut index, runs.len() - 1, patch);
            }
        }
    }
    // Post-order over `dotted_order`: a run's result comes after its descendants' results
    // (a parent finishes last); siblings in start order.
    // Compared segment by segment, a run's own key ending before its descendants' (a total
    // order, which the sort requires: a byte comparison with a descendant exception is not).
    crate::sort::sort_by(&mut runs, |a, b| {
        let k = |r: &Map<String, Value>| get_text(r, &["dotted_order"]).unwrap_or_default();
        post_order(&k(&a.1), &k(&b.1))
    });
    let mut traces: Vec<Trajectory> = Vec::new();
    // Trace id → position in `traces` (constant-time lookup however many traces).
    let mut by_id: HashMap<String, usize> = HashMap::new();
    for (path, run) in &runs {
        let trace_id = get_text(run, &["trace_id"])
            .or_else(|| get_text(run, &["id"]))
            .unwrap_or_else(|| "trace-1".to_string());
        let pos = *by_id.entry(trace_id.clone()).or_insert_with(|| {
            traces.push(Trajectory { id: trace_id.clone(), ..Trajectory::default() });
            traces.len() - 1
        });
        let tr = &mut traces[pos];
        let is_root = get_text(run, &["parent_run_id"]).is_none_or(|p| p == "None");
        if is_root && tr.task.is_none() {
            let input = inputs_text(run);
            tr.task = Some(input.clone());
            tr.steps.insert(
                0,
                Step {
                    loc: SourceLoc {
                        path: format!("{path}.inputs").into(),
                        ..SourceLoc::default()
                    },
                    role: Role::User,
                    text: input,
                    timestamp: get_text(run, &["start_time"]).map(Box::from),
                    ..Step::default()
                },
            );
        }
        let step = run_step(run, path, &trace_id);
        if is_root {
            if step.is_error {
                tr.outcome = Outcome::Failed;
            }
            tr.final_answer = Some(step.text.clone()).filter(|t| !t.is_empty());
        }
        tr.steps.push(step);
    }
    for tr in &mut traces {
        for (i, s) in tr.steps.iter_mut().enumerate() {
            s.index = i as u32;
            s.ingest_seq = i as u64;
        }
    }
    Ok(traces)
}

/// The request a run received: the last user message of chat inputs, else the inputs.
fn inputs_text(run: &Map<String, Value>) -> String {
    let Some(inputs) = get(run, &["inputs"]) else { return String::new() };
    if let Some(Value::Array(msgs)) = inputs.get("messages") {
        let last_user = msgs.iter().rev().find(|m| {
            m.get("role").and_then(Value::as_str).is_some_and(|r| r == "user" || r == "human")
        });
        if let Some(m) = last_user.or(msgs.last()) {
            return m.get("content").map(content_text).unwrap_or_default();
        }
    }
    match inputs.as_object().and_then(|i| get(i, &["input", "question", "query", "prompt"])) {
        Some(v) => content_text(v),
        None => value_text(inputs),
    }
}

fn run_step(run: &Map<String, Value>, path: &str, trace_id: &str) -> Step {
    let run_type = get_text(run, &["run_type"]).unwrap_or_default();
    let name = get_text(run, &["name"]).unwrap_or_default();
    let outputs = get(run, &["outputs"]);
    let message = outputs.and_then(|o| {
        o.get("choices")
            .and_then(|c| c.get(0))
            .and_then(|c| c.get("message"))
            .or_else(|| o.get("generations")?.get(0)?.get(0)?.get("message"))
    });
    let error = get_text(run, &["error"]).filter(|e| !e.is_empty() && e != "None");
    let mut step = Step {
        loc: SourceLoc { path: path.into(), ..SourceLoc::default() },
        actor: name.clone(),
        timestamp: get_text(run, &["start_time"]).map(Box::from),
        // `error` holds the message; a run exported from the API also says `status: "error"`.
        is_error: error.is_some() || get_text(run, &["status"]).as_deref() == Some("error"),
        status: Some(run_type.clone()).filter(|t| !t.is_empty()).map(Box::from),
        ..Step::default()
    };
    step.usage = run_usage(run, outputs);
    step.ids.run_id = Some(trace_id.to_string().into());
    step.ids.span_id = get_text(run, &["id"]).map(Box::from);
    step.ids.parent_id = get_text(run, &["parent_run_id"]).filter(|p| p != "None").map(Box::from);
    let output_text = match (message, outputs) {
        (Some(m), _) => m.get("content").map(content_text).unwrap_or_default(),
        (None, Some(o)) => {
            match o.as_object().and_then(|o| get(o, &["output", "text", "result"])) {
                Some(v) => content_text(v),
                None if o.as_object().is_some_and(Map::is_empty) => String::new(),
                None => value_text(o),
            }
        }
        (None, None) => String::new(),
    };
    match run_type.as_str() {
        "llm" | "chat" => {
            step.role = Role::Assistant;
            step.text = output_text;
            let calls = message.and_then(|m| m.get("tool_calls")).and_then(Value::as_array);
            if let Some(calls) = calls.filter(|c| !c.is_empty()) {
                step.kind = StepKind::Action;
                let f =
                    |c: &Value, k: &str| c.get("function").and_then(|f| f.get(k)).map(value_text);
                let names: Vec<String> = calls.iter().filter_map(|c| f(c, "name")).collect();
                let args: Vec<String> = calls.iter().filter_map(|c| f(c, "arguments")).collect();
                let raw_refs = calls.iter().flat_map(|c| {
                    let func = c.get("function");
                    let a = func.and_then(|f| f.get("arguments")).map(extract::parse_args);
                    let n = func.and_then(|f| f.get("name")).and_then(Value::as_str);
                    extract::tool_call(n.unwrap_or_default(), a.as_ref().unwrap_or(&Value::Null))
                });
                step.artifact_refs = extract::refs(raw_refs, None);
                step.tool = Some(Box::from(names.join(",")));
                step.args = Some(args.join("\n"));
            }
        }
        "tool" => {
            // The call itself is the llm run's action; the tool run is its execution and result.
            step.role = Role::Tool;
            step.kind = StepKind::Observation;
            let inputs = get(run, &["inputs"]).cloned().unwrap_or(Value::Null);
            step.artifact_refs = extract::refs(extract::tool_call(&name, &inputs), None);
            step.tool = Some(name.into());
            step.args = get(run, &["inputs"]).map(|i| match i.as_object() {
                Some(o) => {
                    get_text(o, &["input", "command", "query"]).unwrap_or_else(|| i.to_string())
                }
                None => value_text(i),
            });
            step.text = output_text;
        }
        "retriever" => {
            step.role = Role::Environment;
            step.kind = StepKind::MemoryRead;
            step.text = output_text;
        }
        _ => {
            step.role = Role::Other;
            step.text = output_text;
        }
    }
    if let Some(e) = error {
        step.text = if step.text.is_empty() { e } else { format!("{}\n{e}", step.text) };
    }
    step
}

/// A run's usage: `outputs.usage_metadata` (LangChain names), else the OpenAI `usage` of the
/// outputs, else the run's own `prompt_tokens` / `completion_tokens`; `total_cost`; and its
/// end − start time.
fn run_usage(run: &Map<String, Value>, outputs: Option<&Value>) -> Option<Box<Usage>> {
    let meta = outputs.and_then(|o| o.get("usage_metadata")).and_then(Value::as_object);
    let openai = outputs.and_then(|o| o.get("usage")).and_then(Value::as_object);
    let from = |o: Option<&Map<String, Value>>, keys: &[&str]| {
        o.and_then(|o| keys.iter().find_map(|k| count(o.get(*k))))
    };
    let detail = |o: Option<&Map<String, Value>>, group: &str, key: &str| {
        count(o.and_then(|o| o.get(group)).and_then(|d| d.get(key)))
    };
    let duration_ms = match (
        get_text(run, &["start_time"]).and_then(|t| parse_timestamp_ms(&t)),
        get_text(run, &["end_time"]).and_then(|t| parse_timestamp_ms(&t)),
    ) {
        (Some(s), Some(e)) if e >= s => Some((e - s) as u64),
        _ => None,
    };
    Usage {
        input_tokens: from(meta, &["input_tokens"])
            .or(from(openai, &["prompt_tokens", "input_tokens"]))
            .or(from(Some(run), &["prompt_tokens"])),
        output_tokens: from(meta, &["output_tokens"])
            .or(from(openai, &["completion_tokens", "output_tokens"]))
            .or(from(Some(run), &["completion_tokens"])),
        cache_read_tokens: detail(meta, "input_token_details", "cache_read").or(detail(
            openai,
            "prompt_tokens_details",
            "cached_tokens",
        )),
        cache_write_tokens: detail(meta, "input_token_details", "cache_creation"),
        cost_usd: cost(run.get("total_cost")),
        duration_ms,
    }
    .non_empty()
}

/// `id` / `dotted_order` text → the positions of the runs that have (or had) it.
type RunIndex = HashMap<(&'static str, String), Vec<usize>>;

/// Records run `i`'s current `id` and `dotted_order` in the index.
fn note(index: &mut RunIndex, i: usize, r: &Map<String, Value>) {
    for k in ["id", "dotted_order"] {
        if let Some(v) = get_text(r, &[k]) {
            let at = index.entry((k, v)).or_default();
            if at.last() != Some(&i) {
                at.push(i);
            }
        }
    }
}

/// Post-order over dotted keys: segments compared in turn, and a key that is a prefix of the
/// other (its ancestor) after it. An empty key is no one's ancestor: it sorts first.
fn post_order(a: &str, b: &str) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    if a.is_empty() || b.is_empty() {
        return a.cmp(b);
    }
    let (mut sa, mut sb) = (a.split('.'), b.split('.'));
    loop {
        match (sa.next(), sb.next()) {
            (Some(x), Some(y)) => match x.cmp(y) {
                Ordering::Equal => continue,
                other => return other,
            },
            (None, Some(_)) => return Ordering::Greater,
            (Some(_), None) => return Ordering::Less,
            (None, None) => return Ordering::Equal,
        }
    }
}
