//! Langfuse traces: a trace as its API returns it (`id`, `name`, `input`, `output`,
//! `observations`: each `id`, `type`, `name`, `startTime`, `parentObservationId`, `input`,
//! `output`, `level`, `statusMessage`, a generation's `model` and `usage`), a JSON list of such
//! traces, or a JSON list of observations (grouped by their `traceId`).
//!
//! One trajectory per trace; its steps are its observations in start order (docs/formats.md,
//! "Langfuse traces"):
//! - a `GENERATION` is the model's answer: its `output` read as the generic fallback reads a
//!   message (an assistant's; its `tool_calls` make an action), its `usage` the step's;
//! - a `TOOL`, or a `SPAN` no other observation is under (a leaf: a tool's span, as the
//!   LangChain integration writes one), is a call and its result: an action (the tool its name,
//!   the arguments its `input`) and an observation (its `output`);
//! - an `EVENT` is a message (its `output`, else its `input`);
//! - any other observation (a span with observations under it, an `AGENT`, a `CHAIN`) holds
//!   others and is no step of its own, unless it failed: then it is an error step.
//!
//! An observation at level `ERROR` is an error, its `statusMessage` its text's first line. The
//! task is the trace's `input` (else the first user message), the final answer its `output`.
//! The outcome is failed when the trace's top observation (the one under no other) is at level
//! `ERROR`, else a verdict the trace or its `metadata` carries (`success`, `resolved`, ...), else
//! `unknown`.

use serde_json::{Map, Value};

#[cfg(not(target_arch = "wasm32"))]
pub use read::{from_document, Lines};

/// Langfuse's observation types.
const TYPES: [&str; 10] = [
    "GENERATION",
    "SPAN",
    "EVENT",
    "TOOL",
    "AGENT",
    "CHAIN",
    "RETRIEVER",
    "EVALUATOR",
    "EMBEDDING",
    "GUARDRAIL",
];

/// Whether an object is a Langfuse observation: one of Langfuse's `type`s, a `startTime` and a
/// `traceId` or a `parentObservationId` key.
pub fn is_observation(o: &Map<String, Value>) -> bool {
    o.get("type").and_then(Value::as_str).is_some_and(|t| TYPES.contains(&t))
        && o.contains_key("startTime")
        && (o.contains_key("traceId") || o.contains_key("parentObservationId"))
}

/// Whether an object is a Langfuse trace: its `observations` are Langfuse observations (or
/// none, beside the trace's `id` and `timestamp`).
pub fn is_trace(o: &Map<String, Value>) -> bool {
    match o.get("observations") {
        Some(Value::Array(obs)) => match obs.first() {
            Some(first) => first.as_object().is_some_and(is_observation),
            None => o.contains_key("id") && o.contains_key("timestamp"),
        },
        _ => false,
    }
}

/// The reader: native builds only. The web bundle's size budget (docs/performance.md, Bundle)
/// leaves no room for it yet; the app names the format and says so ([`BROWSER`]).
#[cfg(not(target_arch = "wasm32"))]
mod read {
    use std::collections::HashMap;

    use serde_json::{Map, Value};

    use super::super::{content_text, generic, get, get_text, json_kind, value_text};
    use super::{is_observation, is_trace};
    use crate::model::{Outcome, Role, SourceLoc, Step, StepKind, Trajectory, Usage};

    /// A trace, a list of traces, or a list of observations (one trajectory per `traceId`, in the
    /// order each first appears).
    pub fn from_document(value: Value) -> Result<Vec<Trajectory>, String> {
        match &value {
            Value::Object(o) => Ok(vec![trace(o, "$")?]),
            Value::Array(items) => {
                let first = items.first().and_then(Value::as_object);
                if first.is_some_and(is_observation) {
                    return Ok(by_trace(items));
                }
                let mut out = Vec::with_capacity(items.len());
                for (i, t) in items.iter().enumerate() {
                    let o = t.as_object().ok_or_else(|| {
                        format!("trace [{i}] is {}, not a Langfuse trace", json_kind(t))
                    })?;
                    out.push(trace(o, &format!("$[{i}]"))?);
                }
                Ok(out)
            }
            other => Err(format!("a Langfuse trace is an object, not {}", json_kind(other))),
        }
    }

    /// A list of observations, one trajectory per `traceId`.
    fn by_trace(items: &[Value]) -> Vec<Trajectory> {
        let at = |i: usize| SourceLoc { path: format!("$[{i}]").into(), ..SourceLoc::default() };
        let obs = items.iter().enumerate().filter_map(|(i, v)| Some((at(i), v.as_object()?)));
        grouped(obs.collect())
    }

    /// Observations (each with where it was read), one trajectory per `traceId`, in the order
    /// each trace first appears.
    fn grouped(obs: Vec<(SourceLoc, &Map<String, Value>)>) -> Vec<Trajectory> {
        let mut ids: Vec<String> = Vec::new();
        let mut groups: Vec<Vec<(SourceLoc, &Map<String, Value>)>> = Vec::new();
        let mut by_id: HashMap<String, usize> = HashMap::new();
        for (loc, o) in obs {
            let id = get_text(o, &["traceId"]).unwrap_or_default();
            let g = *by_id.entry(id).or_insert_with_key(|id| {
                ids.push(id.clone());
                groups.push(Vec::new());
                groups.len() - 1
            });
            groups[g].push((loc, o));
        }
        let none = Map::new();
        ids.into_iter()
            .zip(groups)
            .map(|(id, obs)| {
                let (locs, obs) = obs.into_iter().unzip();
                let mut t = trajectory(&none, obs, locs);
                t.id = id;
                t
            })
            .collect()
    }

    /// A JSONL file of Langfuse observations (one a line, grouped by trace at the end) or of
    /// traces (one a line, each whole).
    #[derive(Default)]
    pub struct Lines {
        observations: Vec<(SourceLoc, Map<String, Value>)>,
        traces: Vec<Trajectory>,
    }

    impl super::super::JsonlAdapter for Lines {
        fn push_line(
            &mut self,
            line: &str,
            loc: SourceLoc,
            _ingest_seq: u64,
        ) -> Result<(), String> {
            let o = super::super::parse_object(line)?;
            let loc = SourceLoc { path: Box::default(), ..loc };
            if is_trace(&o) {
                let mut t = trace(&o, "$")?;
                for s in &mut t.steps {
                    (s.loc.line, s.loc.offset) = (loc.line, loc.offset);
                }
                self.traces.push(t);
                return Ok(());
            }
            if !is_observation(&o) {
                return Err(
                    "not a Langfuse observation (a `type`, `startTime`, `traceId`)".to_string()
                );
            }
            self.observations.push((loc, o));
            Ok(())
        }

        fn finish(self: Box<Self>) -> Vec<Trajectory> {
            let Lines { observations, mut traces } = *self;
            let obs = observations.iter().map(|(loc, o)| (loc.clone(), o)).collect();
            traces.extend(grouped(obs));
            traces
        }
    }

    /// One trace object.
    fn trace(o: &Map<String, Value>, base: &str) -> Result<Trajectory, String> {
        let raw = match o.get("observations") {
            Some(Value::Array(obs)) => obs,
            Some(other) => {
                return Err(format!(
                    "the trace's observations are {}, not a list",
                    json_kind(other)
                ))
            }
            None => return Err("the Langfuse trace has no `observations` list".to_string()),
        };
        let mut obs = Vec::with_capacity(raw.len());
        let mut locs = Vec::with_capacity(raw.len());
        for (i, v) in raw.iter().enumerate() {
            let ob = v.as_object().ok_or_else(|| {
                format!("observations[{i}] is {}, not an observation", json_kind(v))
            })?;
            obs.push(ob);
            locs.push(super::super::path_at(base, "observations", i));
        }
        let mut t = trajectory(o, obs, locs);
        t.id = get_text(o, &["id"]).unwrap_or_default();
        Ok(t)
    }

    /// The trajectory of a trace's fields (`trace`; empty for a list of observations) and its
    /// observations, each with where it was read.
    fn trajectory(
        trace: &Map<String, Value>,
        obs: Vec<&Map<String, Value>>,
        locs: Vec<SourceLoc>,
    ) -> Trajectory {
        let text = |o: &Map<String, Value>, k: &str| get_text(o, &[k]);
        let ids: Vec<Option<String>> = obs.iter().map(|o| text(o, "id")).collect();
        // The ids and the parents named, sorted: looked up by binary search, not a scan each.
        let known = sorted(ids.iter().flatten().map(String::as_str).collect());
        let parents: Vec<Option<String>> =
            obs.iter().map(|o| text(o, "parentObservationId")).collect();
        let named = sorted(parents.iter().flatten().map(String::as_str).collect());
        let has = |v: &[&str], id: Option<&str>| id.is_some_and(|id| v.binary_search(&id).is_ok());
        // What each observation is (a tool's call: under another, nothing under it) and when it
        // counts: a container's error where it ended (after what it held), the rest where they
        // started; observations at the same time keep the file's order.
        let kinds: Vec<(Kind, &str, bool)> = (0..obs.len())
            .map(|i| {
                let o = obs[i];
                let top = !has(&known, parents[i].as_deref());
                let kind = match o.get("type").and_then(Value::as_str).unwrap_or("") {
                    "GENERATION" => Kind::Generation,
                    "TOOL" => Kind::Tool,
                    "SPAN" if !top && !has(&named, ids[i].as_deref()) => Kind::Tool,
                    "EVENT" => Kind::Event,
                    _ => Kind::Container,
                };
                let at = |k: &str| o.get(k).and_then(Value::as_str);
                let end = (kind == Kind::Container).then(|| at("endTime")).flatten();
                (kind, end.or_else(|| at("startTime")).unwrap_or(""), top)
            })
            .collect();
        let mut order: Vec<usize> = (0..obs.len()).collect();
        crate::sort::sort_by_key(&mut order, |&i| kinds[i].1);
        let mut steps: Vec<Step> = Vec::with_capacity(obs.len() * 2);
        let mut top_failed = false;
        // The calls generations made, by tool name and call id, not yet answered by a tool's span.
        let mut pending: Vec<(String, String)> = Vec::new();
        for i in order {
            let (o, (kind, _, top)) = (obs[i], kinds[i]);
            let failed = o
                .get("level")
                .and_then(Value::as_str)
                .is_some_and(|l| l.eq_ignore_ascii_case("error"));
            top_failed |= top && failed;
            let mut step = Step {
                loc: locs[i].clone(),
                timestamp: text(o, "startTime").map(Box::from),
                actor: text(o, "name").unwrap_or_default(),
                ..Step::default()
            };
            let output = o.get("output").filter(|v| !v.is_null());
            match kind {
                Kind::Generation => {
                    match output {
                        Some(Value::Object(m))
                            if m.contains_key("role") || m.contains_key("tool_calls") =>
                        {
                            let read = generic::generic_step(m, 0, SourceLoc::default(), 0);
                            step = Step {
                                loc: step.loc,
                                timestamp: step.timestamp,
                                actor: step.actor,
                                ..read
                            };
                        }
                        out => step.text = text_of(out),
                    }
                    step.role = Role::Assistant;
                    step.usage = usage(o);
                    let names = step.tool.as_deref().unwrap_or("").split(',');
                    let calls = step.ids.action_id.as_deref().unwrap_or("").split(',');
                    if step.kind == StepKind::Action {
                        pending
                            .extend(names.zip(calls).map(|(n, c)| (n.to_string(), c.to_string())));
                    }
                }
                Kind::Tool => {
                    let name = std::mem::take(&mut step.actor);
                    // The call a generation made of this tool, not yet answered: this is its
                    // result. Else the span is the call too.
                    let call = match pending.iter().position(|(n, _)| *n == name) {
                        Some(k) => pending.remove(k).1,
                        None => {
                            let args = [o.get("input").map(value_text).unwrap_or_default()];
                            let names = [name.clone()];
                            let mut call = Step { role: Role::Assistant, ..step.clone() };
                            let id = ids[i].clone().unwrap_or_else(|| steps.len().to_string());
                            generic::apply_calls(
                                &mut call,
                                &names,
                                &args,
                                std::slice::from_ref(&id),
                            );
                            call.text = super::super::calls_text(&names, &args);
                            steps.push(call);
                            id
                        }
                    };
                    step.role = Role::Tool;
                    step.kind = StepKind::Observation;
                    step.tool = Some(Box::from(name));
                    step.ids.source_action_id = Some(Box::from(call));
                    step.text = text_of(output);
                    step.is_error = generic::says_it_failed(&step.text);
                }
                Kind::Event => step.text = text_of(output.or_else(|| o.get("input"))),
                // A container: a step only when it failed.
                Kind::Container if !failed => continue,
                Kind::Container => {}
            }
            step.ids.event_id = ids[i].as_deref().map(Box::from);
            if failed {
                step.is_error = true;
                let status = text(o, "statusMessage").unwrap_or_default();
                step.text = match (status.is_empty(), step.text.is_empty()) {
                    (true, true) => "error".to_string(),
                    (_, true) => status,
                    (true, false) => step.text,
                    (false, false) => format!("{status}\n{}", step.text),
                };
            }
            steps.push(step);
        }
        for (i, s) in steps.iter_mut().enumerate() {
            (s.index, s.ingest_seq) = (i as u32, i as u64);
        }
        let meta = trace.get("metadata").and_then(Value::as_object);
        let outcome = match top_failed {
            true => Outcome::Failed,
            false => super::super::verdict([Some(trace), meta].into_iter().flatten()),
        };
        let given = |k: &str| Some(text_of(trace.get(k))).filter(|t| !t.is_empty());
        let settled = super::super::settle(Trajectory { steps, ..Trajectory::default() });
        Trajectory {
            outcome,
            task: given("input").or(settled.task),
            final_answer: given("output").or(settled.final_answer),
            steps: settled.steps,
            ..Trajectory::default()
        }
    }

    /// `v` sorted.
    fn sorted(mut v: Vec<&str>) -> Vec<&str> {
        crate::sort::sort(&mut v);
        v
    }

    /// What an observation is read as.
    #[derive(Clone, Copy, PartialEq)]
    enum Kind {
        Generation,
        Tool,
        Event,
        Container,
    }

    /// A field's text: a string as written, a message or a list of messages as their content, any
    /// other value as JSON (as the other readers take a content's text).
    fn text_of(v: Option<&Value>) -> String {
        v.map(content_text).unwrap_or_default()
    }

    /// A generation's usage: `usageDetails` or `usage` (`input` / `output`, or `promptTokens` /
    /// `completionTokens`), its cost (`calculatedTotalCost` / `totalCost`).
    fn usage(o: &Map<String, Value>) -> Option<Box<Usage>> {
        let u = get(o, &["usageDetails", "usage"]).and_then(Value::as_object);
        // Counts and costs as every reader takes them (a number or a numeric string).
        let count = |keys: &[&str]| crate::usage::count(u.and_then(|u| get(u, keys)));
        Usage {
            input_tokens: count(&["input", "promptTokens", "input_tokens"]),
            output_tokens: count(&["output", "completionTokens", "output_tokens"]),
            cost_usd: crate::usage::cost(get(o, &["calculatedTotalCost", "totalCost"])),
            ..Usage::default()
        }
        .non_empty()
    }
}

/// Why the web app does not read a Langfuse trace.
#[cfg(target_arch = "wasm32")]
pub const BROWSER: &str = "the browser does not read Langfuse traces yet; `trajscope analyze \
    FILE` reads them (docs/formats.md, \"Langfuse traces\")";

/// The web build: the format is named, not read ([`BROWSER`]).
#[cfg(target_arch = "wasm32")]
pub fn from_document(_: Value) -> Result<Vec<crate::model::Trajectory>, String> {
    Err(BROWSER.to_string())
}

/// The web build's adapter for a JSONL file of observations: each line quarantined, saying why.
#[cfg(target_arch = "wasm32")]
#[derive(Default)]
pub struct Lines(());

#[cfg(target_arch = "wasm32")]
impl super::JsonlAdapter for Lines {
    fn push_line(&mut self, _: &str, _: crate::model::SourceLoc, _: u64) -> Result<(), String> {
        Err(BROWSER.to_string())
    }

    fn finish(self: Box<Self>) -> Vec<crate::model::Trajectory> {
        Vec::new()
    }
}
