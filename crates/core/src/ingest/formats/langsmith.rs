//! LangSmith run-ingest payloads: `{"post": [run, ...], "patch": [run update, ...]}` (the
//! batch body the SDKs send), a plain list of runs (an export), one run tree (a run with its
//! `child_runs` nested, as `RunTree` / `Run.dict()` give it), or a JSONL file of runs (or of
//! batches), one per line. Nested `child_runs` are read as runs of their own (their parent the
//! run holding them, their trace its trace), depth-first.
//!
//! A run update is merged into its run (matched by `id`, else by `dotted_order`). Runs are
//! grouped into one trajectory per `trace_id` (a run without one takes its parent's, through
//! `parent_run_id`). The root run's input is step 0 (the user's request); then every run is one step
//! for its result, in post-order (a run after its descendants, as it finishes after them): an
//! `llm` / `chat` run the model's reply (an action when it calls tools; OpenAI `choices` or
//! LangChain `generations`, their message plain or serialised under `kwargs`), a `tool` run an
//! observation (tool, its inputs as args, the output as text), a `retriever` run a memory
//! read, other runs (`chain`, `prompt`, `parser`, ...) a message. `error` (or `status:
//! "error"`) marks the step as an error; a root run with an error fails the trajectory, and
//! without one the outcome stays unknown (a run that returned only says it stopped). Ids:
//! `span_id` = run id, `parent_id` = `parent_run_id`, `run_id` = `trace_id`. Usage:
//! `outputs.usage_metadata` (or an OpenAI `usage`), `total_cost` and end − start time per run.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::{at, content_text, get, get_text, value_text, SourceLoc};
use crate::artifact::extract;
use crate::model::{Outcome, Role, Step, StepKind, Trajectory, Usage};
use crate::usage::{cost, count, parse_timestamp_ms};

/// Whether an object is one LangSmith run (used by format detection): a `run_type` and an
/// `id`, with a trace link (`trace_id`, `dotted_order`, `parent_run_id`) or `child_runs`.
pub fn is_run(o: &Map<String, Value>) -> bool {
    o.get("run_type").is_some_and(Value::is_string)
        && o.contains_key("id")
        && ["trace_id", "dotted_order", "parent_run_id", "child_runs"]
            .iter()
            .any(|k| o.contains_key(*k))
}

/// Whether an object is a run-ingest batch (`post` / `patch` lists).
fn is_batch(o: &Map<String, Value>) -> bool {
    o.contains_key("post") || o.contains_key("patch")
}

/// Runs (each with where it was read) and run updates, in the order read.
#[derive(Default)]
struct Collected {
    runs: Vec<(SourceLoc, Map<String, Value>)>,
    patches: Vec<(SourceLoc, Map<String, Value>)>,
}

impl Collected {
    /// A batch object (`post` / `patch`), read at `base` (`$` for a document).
    fn batch(&mut self, o: Map<String, Value>, base: &SourceLoc) -> Result<(), String> {
        let mut o = o;
        for key in ["post", "patch"] {
            let items = match o.remove(key) {
                Some(Value::Array(items)) => items,
                None | Some(Value::Null) => Vec::new(),
                Some(other) => {
                    return Err(format!("`{key}` is {}, not a list", super::json_kind(&other)))
                }
            };
            for (i, r) in items.into_iter().enumerate() {
                let loc = at(base, &format!(".{key}[{i}]"));
                let Value::Object(r) = r else {
                    return Err(format!("{key}[{i}] is {}, not an object", super::json_kind(&r)));
                };
                match key {
                    "post" => self.tree(r, loc, None)?,
                    _ => self.patches.push((loc, r)),
                }
            }
        }
        Ok(())
    }

    /// A run and, depth-first, the runs nested in its `child_runs` (each linked to the run
    /// holding it and to its trace when it does not say so itself).
    fn tree(
        &mut self,
        mut run: Map<String, Value>,
        loc: SourceLoc,
        parent: Option<(&Value, &Value)>,
    ) -> Result<(), String> {
        let children = match run.remove("child_runs") {
            Some(Value::Array(c)) => c,
            None | Some(Value::Null) => Vec::new(),
            Some(other) => {
                return Err(format!(
                    "{}.child_runs is {}, not a list",
                    loc.path,
                    super::json_kind(&other)
                ))
            }
        };
        if let Some((parent_id, trace_id)) = parent {
            for (key, value) in [("parent_run_id", parent_id), ("trace_id", trace_id)] {
                if get(&run, &[key]).is_none() && !value.is_null() {
                    run.insert(key.to_string(), value.clone());
                }
            }
        }
        let id = run.get("id").cloned().unwrap_or(Value::Null);
        let trace = get(&run, &["trace_id"]).cloned().unwrap_or_else(|| id.clone());
        self.runs.push((loc.clone(), run));
        for (i, child) in children.into_iter().enumerate() {
            let child_loc = at(&loc, &format!(".child_runs[{i}]"));
            let Value::Object(child) = child else {
                return Err(format!(
                    "{} is {}, not an object",
                    child_loc.path,
                    super::json_kind(&child)
                ));
            };
            self.tree(child, child_loc, Some((&id, &trace)))?;
        }
        Ok(())
    }
}

pub fn from_document(value: Value) -> Result<Vec<Trajectory>, String> {
    let mut collected = Collected::default();
    let doc = SourceLoc { path: "$".into(), ..SourceLoc::default() };
    match value {
        Value::Object(o) if is_batch(&o) => collected.batch(o, &doc)?,
        Value::Object(o) if o.contains_key("run_type") => collected.tree(o, doc, None)?,
        Value::Array(items) => {
            for (i, r) in items.into_iter().enumerate() {
                let Value::Object(r) = r else {
                    return Err(format!("run {i} is {}, not an object", super::json_kind(&r)));
                };
                collected.tree(r, at(&doc, &format!("[{i}]")), None)?;
            }
        }
        other => {
            return Err(format!(
                "LangSmith runs are a post/patch object, a run (`run_type`) or a list of runs, \
                 not {}",
                match &other {
                    Value::Object(_) => "an object without `run_type`, `post` or `patch`",
                    other => super::json_kind(other),
                }
            ))
        }
    }
    Ok(assemble(collected))
}

/// A JSONL file of runs: each line one run (a run tree with its `child_runs`) or one batch
/// (`post` / `patch`); the runs of a trace may be on many lines, so they are grouped at the end.
#[derive(Default)]
pub struct Lines {
    collected: Collected,
}

impl super::JsonlAdapter for Lines {
    fn push_line(&mut self, line: &str, loc: SourceLoc, _ingest_seq: u64) -> Result<(), String> {
        let o = super::parse_object(line)?;
        if is_batch(&o) {
            // Whole or not at all: a damaged batch leaves no run behind.
            let mut one = Collected::default();
            one.batch(o, &loc)?;
            self.collected.runs.extend(one.runs);
            self.collected.patches.extend(one.patches);
            return Ok(());
        }
        if !o.get("run_type").is_some_and(Value::is_string) {
            return Err("not a LangSmith run (no `run_type`) nor a post/patch batch".to_string());
        }
        let mut one = Collected::default();
        one.tree(o, loc, None)?;
        self.collected.runs.extend(one.runs);
        Ok(())
    }

    fn finish(self: Box<Self>) -> Vec<Trajectory> {
        assemble(self.collected)
    }
}

fn assemble(collected: Collected) -> Vec<Trajectory> {
    let Collected { mut runs, patches } = collected;
    // `id` / `dotted_order` text → the runs that have (or had) it, so a patch finds its run
    // without scanning every run. A candidate is checked again: a patch may change a value.
    let mut index = RunIndex::new();
    for (i, (_, r)) in runs.iter().enumerate() {
        note(&mut index, i, r);
    }
    for (loc, patch) in patches {
        let same = |k: &str, r: &Map<String, Value>| {
            get_text(&patch, &[k]).is_some_and(|v| get_text(r, &[k]).as_deref() == Some(v.as_str()))
        };
        let key = if get(&patch, &["id"]).is_some() { "id" } else { "dotted_order" };
        // The first run (lowest position) that matches, as a scan from the start would find.
        let target = get_text(&patch, &[key])
            .and_then(|v| index.get(&(key, v)))
            .and_then(|at| at.iter().copied().filter(|&i| same(key, &runs[i].1)).min());
        match target {
            Some(i) => {
                let run = &mut runs[i].1;
                for (k, v) in patch {
                    if !v.is_null() || !run.contains_key(&k) {
                        run.insert(k, v);
                    }
                }
                note(&mut index, i, &runs[i].1);
            }
            // An update without its create: keep it as a run of its own.
            None => {
                note(&mut index, runs.len(), &patch);
                runs.push((loc, patch));
            }
        }
    }
    // Post-order over `dotted_order`: a run's result comes after its descendants' results
    // (a parent finishes last); siblings in start order.
    // Compared segment by segment, a run's own key ending before its descendants' (a total
    // order, which the sort requires: a byte comparison with a descendant exception is not).
    // Runs without a `dotted_order` (a run tree, a JSONL export) are ordered the same way by
    // their `parent_run_id` links and start times.
    let traced = trace_ids(&runs);
    if runs.iter().all(|(_, r)| get(r, &["dotted_order"]).is_some()) {
        crate::sort::sort_by(&mut runs, |a, b| {
            let k = |r: &Map<String, Value>| get_text(r, &["dotted_order"]).unwrap_or_default();
            post_order(&k(&a.1), &k(&b.1))
        });
    } else {
        let keys = tree_keys(&runs);
        let mut order: Vec<usize> = (0..runs.len()).collect();
        crate::sort::sort_by(&mut order, |&a, &b| post_order_keys(&keys[a], &keys[b]));
        let mut slots: Vec<Option<(SourceLoc, Map<String, Value>)>> =
            runs.into_iter().map(Some).collect();
        runs = order.iter().filter_map(|&i| slots[i].take()).collect();
    }
    let mut traces: Vec<Trajectory> = Vec::new();
    // Trace id → position in `traces` (constant-time lookup however many traces).
    let mut by_id: HashMap<String, usize> = HashMap::new();
    for (loc, run) in &runs {
        let trace_id = get_text(run, &["id"])
            .and_then(|id| traced.get(&id).cloned())
            .or_else(|| get_text(run, &["trace_id"]))
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
                    loc: at(loc, ".inputs"),
                    role: Role::User,
                    text: input,
                    timestamp: get_text(run, &["start_time"]).map(Box::from),
                    ..Step::default()
                },
            );
        }
        let step = run_step(run, loc, &trace_id);
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
    traces
}

/// Run id → its trace id: its own `trace_id`, else its nearest ancestor's (through
/// `parent_run_id`, at most 64 levels up, so a cycle ends), else the root's id.
fn trace_ids(runs: &[(SourceLoc, Map<String, Value>)]) -> HashMap<String, String> {
    let links: HashMap<String, (Option<String>, Option<String>)> = runs
        .iter()
        .filter_map(|(_, r)| {
            let id = get_text(r, &["id"])?;
            Some((id, (get_text(r, &["trace_id"]), parent_of(r))))
        })
        .collect();
    let mut out = HashMap::with_capacity(links.len());
    for (id, (trace, parent)) in &links {
        let mut found = trace.clone();
        let (mut top, mut cursor, mut hops) = (id, parent.as_ref(), 0);
        while found.is_none() && hops < 64 {
            let Some(p) = cursor else { break };
            let Some((t, up)) = links.get(p) else { break };
            (found, top, cursor, hops) = (t.clone(), p, up.as_ref(), hops + 1);
        }
        out.insert(id.clone(), found.unwrap_or_else(|| top.clone()));
    }
    out
}

/// A run's parent run id (`"None"`, as Python writes a missing one, is none).
fn parent_of(r: &Map<String, Value>) -> Option<String> {
    get_text(r, &["parent_run_id"]).filter(|p| p != "None")
}

/// One segment of a run's place in its tree: its start time (ms; none sorts after the timed)
/// and its position read.
type TreeSegment = (bool, i64, usize);

/// Each run's path from its root in the tree the `parent_run_id` links make: what a
/// `dotted_order` says, for runs without one (a parent not among the runs makes a root;
/// a cycle is cut at 64 levels).
fn tree_keys(runs: &[(SourceLoc, Map<String, Value>)]) -> Vec<Vec<TreeSegment>> {
    let by_id: HashMap<String, usize> = runs
        .iter()
        .enumerate()
        .filter_map(|(i, (_, r))| Some((get_text(r, &["id"])?, i)))
        .collect();
    let segment = |i: usize| -> TreeSegment {
        let start = get_text(&runs[i].1, &["start_time"]).and_then(|t| parse_timestamp_ms(&t));
        (start.is_none(), start.unwrap_or(0), i)
    };
    (0..runs.len())
        .map(|i| {
            let mut key = vec![segment(i)];
            let mut cursor = parent_of(&runs[i].1).and_then(|p| by_id.get(&p).copied());
            while let Some(p) = cursor.filter(|&p| p != i && key.len() < 64) {
                key.push(segment(p));
                cursor = parent_of(&runs[p].1).and_then(|up| by_id.get(&up).copied());
            }
            key.reverse();
            key
        })
        .collect()
}

/// [`post_order`] over tree keys: segments compared in turn, an ancestor after its descendants.
fn post_order_keys(a: &[TreeSegment], b: &[TreeSegment]) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    for (x, y) in a.iter().zip(b) {
        match x.cmp(y) {
            Ordering::Equal => continue,
            other => return other,
        }
    }
    b.len().cmp(&a.len())
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

fn run_step(run: &Map<String, Value>, loc: &SourceLoc, trace_id: &str) -> Step {
    let run_type = get_text(run, &["run_type"]).unwrap_or_default();
    let name = get_text(run, &["name"]).unwrap_or_default();
    let outputs = get(run, &["outputs"]);
    let message = outputs.and_then(|o| {
        o.get("choices")
            .and_then(|c| c.get(0))
            .and_then(|c| c.get("message"))
            .or_else(|| o.get("generations")?.get(0)?.get(0)?.get("message"))
            // A LangChain message serialised with its class (`{"lc": 1, "kwargs": {...}}`).
            .map(|m| m.get("kwargs").filter(|k| k.is_object()).unwrap_or(m))
    });
    let error = get_text(run, &["error"]).filter(|e| !e.is_empty() && e != "None");
    let mut step = Step {
        loc: loc.clone(),
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
                // OpenAI's `{function: {name, arguments}}`, or LangChain's `{name, args}`.
                let field = |c: &'_ Value, openai: &str, langchain: &str| {
                    match c.get("function") {
                        Some(f) => f.get(openai),
                        None => c.get(langchain),
                    }
                    .filter(|v| !v.is_null())
                    .cloned()
                };
                let f = |c: &Value, k: &str| {
                    let langchain = if k == "arguments" { "args" } else { k };
                    field(c, k, langchain).map(|v| value_text(&v))
                };
                let names: Vec<String> = calls.iter().filter_map(|c| f(c, "name")).collect();
                let args: Vec<String> = calls.iter().filter_map(|c| f(c, "arguments")).collect();
                let raw_refs = calls.iter().flat_map(|c| {
                    let a = field(c, "arguments", "args").map(|a| extract::parse_args(&a));
                    let n = field(c, "name", "name");
                    let n = n.as_ref().and_then(Value::as_str);
                    extract::tool_call(n.unwrap_or_default(), a.as_ref().unwrap_or(&Value::Null))
                });
                step.artifact_refs = extract::refs(raw_refs, None);
                if step.text.is_empty() {
                    step.text = super::calls_text(&names, &args);
                }
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
                Some(o) => get_text(o, &["input", "command", "query"])
                    .unwrap_or_else(|| crate::json::to_text(i)),
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
/// outputs (or their `llm_output.token_usage`), else the run's own `prompt_tokens` / `completion_tokens`; `total_cost`; and its
/// end − start time.
fn run_usage(run: &Map<String, Value>, outputs: Option<&Value>) -> Option<Box<Usage>> {
    let meta = outputs.and_then(|o| o.get("usage_metadata")).and_then(Value::as_object);
    // LangChain's own runs keep the OpenAI counts under `llm_output.token_usage`.
    let openai = outputs
        .and_then(|o| o.get("usage").or_else(|| o.get("llm_output")?.get("token_usage")))
        .and_then(Value::as_object);
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
