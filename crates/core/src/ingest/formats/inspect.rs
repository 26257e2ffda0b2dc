//! Inspect AI eval logs (`.json`): `{"version", "status", "eval", "plan", "results", "stats",
//! "samples": [...]}`; one trajectory per sample (and epoch).
//!
//! Steps are the sample's `messages` one to one (system / user / assistant / tool): an assistant
//! message with `tool_calls` is an action (tool = the function, args = its `cmd` / `command` /
//! `code` argument or the arguments as JSON), a tool message an observation answering
//! `tool_call_id`, flagged as an error when it carries an `error` (`{"type": "timeout", ...}`,
//! the type kept as status). Then one judge step per score in `scores` (status = the value,
//! text = the explanation), and an error step when the sample itself failed (`error`).
//! Message text stored as `attachment://<hash>` is resolved from the sample's `attachments`.
//!
//! Usage: the sample's `model_usage` (per model, summed) and `total_time` are the run's; the
//! messages record none.
//!
//! The outcome follows the scores (`scores`, else the final `score` events of `events`): every
//! score correct (`C`, `yes`, `true`, a 0–1 number at the pass threshold) passes; any incorrect
//! one (`I`, `P`, `N`, `no`, `false`, a number below it) fails; a sample error fails; no score,
//! or only values on an unknown scale, leaves it unknown (see [`score_outcome`]).

use serde_json::{Map, Value};

use super::{as_object, content_text, get, get_text, object_or, value_text, SourceLoc};
use crate::artifact::extract;
use crate::model::{Outcome, Role, Step, StepKind, Trajectory, Usage};
use crate::usage::{count, seconds_ms};

pub fn from_document(value: Value) -> Result<Vec<Trajectory>, String> {
    let o = as_object(&value, "the Inspect log")?;
    let samples = match o.get("samples") {
        Some(Value::Array(s)) => s.as_slice(),
        // A log header without samples (an interrupted or header-only log) holds no trajectory.
        None | Some(Value::Null) => &[],
        Some(other) => return Err(format!("`samples` is {}, not a list", super::json_kind(other))),
    };
    let mut out = Vec::with_capacity(samples.len());
    for (i, s) in samples.iter().enumerate() {
        let s = as_object(s, &format!("samples[{i}]"))?;
        out.push(sample(s, &format!("$.samples[{i}]"))?);
    }
    Ok(out)
}

/// One sample (also used for the per-sample files of an `.eval` archive).
pub(crate) fn sample(s: &Map<String, Value>, base: &str) -> Result<Trajectory, String> {
    let empty = Map::new();
    let attachments = get(s, &["attachments"]).and_then(Value::as_object).unwrap_or(&empty);
    let resolve = |text: String| -> String {
        match text.strip_prefix("attachment://").and_then(|h| attachments.get(h)) {
            Some(v) => value_text(v),
            None => text,
        }
    };
    let messages = match s.get("messages") {
        Some(Value::Array(m)) => m.as_slice(),
        None | Some(Value::Null) => &[],
        Some(other) => {
            return Err(format!("{base}.messages is {}, not a list", super::json_kind(other)))
        }
    };
    let mut steps = Vec::with_capacity(messages.len() + 2);
    for (i, m) in messages.iter().enumerate() {
        let m = object_or(m, || format!("{base}.messages[{i}]"))?;
        let role = super::role_word(&get_text(m, &["role"]).unwrap_or_default());
        let mut step = Step {
            loc: SourceLoc { path: format!("{base}.messages[{i}]").into(), ..SourceLoc::default() },
            role,
            text: resolve(m.get("content").map(content_text).unwrap_or_default()),
            ..Step::default()
        };
        step.ids.event_id = get_text(m, &["id"]).map(Box::from);
        if let Some(Value::Array(calls)) = m.get("tool_calls") {
            let calls: Vec<&Map<String, Value>> =
                calls.iter().filter_map(Value::as_object).collect();
            if let Some(first) = calls.first() {
                step.kind = StepKind::Action;
                let names: Vec<String> =
                    calls.iter().filter_map(|c| get_text(c, &["function"])).collect();
                step.tool = Some(Box::from(names.join(",")));
                let args: Vec<String> = calls
                    .iter()
                    .map(|c| match get(c, &["arguments"]) {
                        Some(Value::Object(a)) => get_text(a, &["cmd", "command", "code"])
                            .unwrap_or_else(|| crate::json::to_text(&Value::Object(a.clone()))),
                        Some(other) => value_text(other),
                        None => String::new(),
                    })
                    .collect();
                step.args = Some(args.join("\n"));
                step.artifact_refs = extract::refs(calls.iter().flat_map(|c| call_refs(c)), None);
                step.ids.action_id = get_text(first, &["id"]).map(Box::from);
                if step.text.is_empty() {
                    step.text = args.join("\n");
                }
            }
        }
        if role == Role::Tool {
            step.kind = StepKind::Observation;
            step.tool = get_text(m, &["function"]).map(Box::from);
            step.ids.source_action_id = get_text(m, &["tool_call_id"]).map(Box::from);
            if let Some(err) = get(m, &["error"]) {
                step.is_error = true;
                let e = err.as_object();
                step.status = e.and_then(|e| get_text(e, &["type"])).map(Box::from);
                if let Some(msg) = e.and_then(|e| get_text(e, &["message"])) {
                    if !step.text.contains(&msg) {
                        step.text = if step.text.is_empty() {
                            msg
                        } else {
                            format!("{}\n{msg}", step.text)
                        };
                    }
                }
            }
        }
        steps.push(step);
    }
    // The sample's `scores`; a log written without them still has its scorers' final `score`
    // events in `events`.
    let mut scored: Vec<(String, &Map<String, Value>, String)> = Vec::new();
    if let Some(Value::Object(scores)) = s.get("scores") {
        for (name, score) in scores {
            let Some(sc) = score.as_object() else { continue };
            scored.push((name.clone(), sc, format!("{base}.scores.{name}")));
        }
    } else if let Some(Value::Array(events)) = s.get("events") {
        for (i, e) in events.iter().enumerate() {
            let Some(e) = e.as_object() else { continue };
            let final_score = get_text(e, &["event"]).as_deref() == Some("score")
                && !matches!(e.get("intermediate"), Some(Value::Bool(true)));
            if let Some(sc) = e.get("score").and_then(Value::as_object).filter(|_| final_score) {
                scored.push(("score".to_string(), sc, format!("{base}.events[{i}].score")));
            }
        }
    }
    let mut verdicts = Vec::new();
    for (name, sc, path) in scored {
        let value = get(sc, &["value"]);
        let verdict = value.and_then(score_outcome);
        verdicts.push(verdict);
        steps.push(Step {
            loc: SourceLoc { path: path.into(), ..SourceLoc::default() },
            actor: name,
            role: Role::Judge,
            kind: StepKind::JudgeResult,
            text: get_text(sc, &["explanation"]).unwrap_or_default(),
            status: value.map(value_text).map(Box::from),
            is_error: verdict == Some(Outcome::Failed),
            ..Step::default()
        });
    }
    let sample_error = get(s, &["error"]);
    if let Some(err) = sample_error {
        let text = match err {
            Value::Object(e) => get_text(e, &["message", "traceback"]).unwrap_or_default(),
            other => value_text(other),
        };
        steps.push(Step {
            loc: SourceLoc { path: format!("{base}.error").into(), ..SourceLoc::default() },
            role: Role::Environment,
            text,
            is_error: true,
            status: Some("error".into()),
            ..Step::default()
        });
    }
    for (i, st) in steps.iter_mut().enumerate() {
        st.index = i as u32;
        st.ingest_seq = i as u64;
    }
    let outcome = match (sample_error, combined(&verdicts)) {
        (Some(_), _) => Outcome::Failed,
        (None, verdict) => verdict.unwrap_or(Outcome::Unknown),
    };
    let id = get_text(s, &["id"]).unwrap_or_else(|| "sample".to_string());
    let id = match get(s, &["epoch"]).and_then(Value::as_i64) {
        Some(e) if e > 1 => format!("{id}#{e}"),
        _ => id,
    };
    let task = get(s, &["input"]).map(content_text).map(&resolve);
    let final_answer = get(s, &["output"])
        .and_then(|o| {
            o.get("completion")
                .filter(|c| c.as_str().is_some_and(|c| !c.is_empty()))
                .or_else(|| o.get("choices")?.get(0)?.get("message")?.get("content"))
        })
        .map(content_text)
        .map(&resolve);
    let mut usage = Usage::default();
    if let Some(Value::Object(models)) = s.get("model_usage") {
        for m in models.values().filter_map(Value::as_object) {
            usage.add(&Usage {
                input_tokens: count(m.get("input_tokens")),
                output_tokens: count(m.get("output_tokens")),
                cache_read_tokens: count(m.get("input_tokens_cache_read")),
                cache_write_tokens: count(m.get("input_tokens_cache_write")),
                ..Usage::default()
            });
        }
    }
    usage.duration_ms = seconds_ms(s.get("total_time"));
    let usage = usage.non_empty();
    Ok(Trajectory { id, outcome, task, final_answer, steps, usage, ..Trajectory::default() })
}

/// What a tool call acts on: its file arguments (`text_editor`'s `path`, ...), the page a
/// `web_browser_go` opens (`url`), the files a `bash` command writes. Inspect logs name no working directory: absolute paths are flagged.
fn call_refs(call: &Map<String, Value>) -> Vec<String> {
    let Some(args) = get(call, &["arguments"]) else { return Vec::new() };
    let function = get_text(call, &["function"]).unwrap_or_default();
    let mut out = extract::file_args(args);
    if let Some(Value::String(url)) = args.get("url") {
        out.push(url.clone());
    }
    if let (true, Some(cmd)) = (extract::is_shell_tool(&function), get_text(call, &["arguments"])) {
        let cmd = args.get("cmd").or_else(|| args.get("command")).map(value_text).unwrap_or(cmd);
        out.extend(extract::shell_writes(&cmd));
    }
    out
}

/// The outcome of one score value, read as Inspect's `value_to_float` reads it
/// (docs/formats.md, "Outcome"): `C` correct, `I` incorrect, `P` partial, `N` no answer; `yes`
/// / `true` and `no` / `false`; numbers and numeric strings against [`PASS_THRESHOLD`] on the
/// 0–1 scale (a number outside it is on a scale we do not know: no verdict); a dict or list of
/// values fails when one fails and passes when all pass.
fn score_outcome(v: &Value) -> Option<Outcome> {
    let number = |f: f64| match f {
        f if !(0.0..=1.0).contains(&f) => None,
        f if f >= PASS_THRESHOLD => Some(Outcome::Passed),
        _ => Some(Outcome::Failed),
    };
    match v {
        Value::String(s) => match s.trim().to_ascii_lowercase().as_str() {
            "c" | "yes" | "true" | "correct" => Some(Outcome::Passed),
            "i" | "n" | "p" | "no" | "false" | "incorrect" => Some(Outcome::Failed),
            other => crate::num::parse_f64(other).and_then(number),
        },
        Value::Bool(b) => Some(if *b { Outcome::Passed } else { Outcome::Failed }),
        Value::Number(n) => n.as_f64().and_then(number),
        Value::Object(_) | Value::Array(_) => {
            let parts: Vec<Option<Outcome>> = match v {
                Value::Object(o) => o.values().map(score_outcome).collect(),
                Value::Array(a) => a.iter().map(score_outcome).collect(),
                _ => Vec::new(),
            };
            combined(&parts)
        }
        Value::Null => None,
    }
}

/// A numeric score passes at full credit, the value Inspect gives a `C`.
pub const PASS_THRESHOLD: f64 = 1.0;

/// Several verdicts as one: failed when one fails, passed when all pass, else none.
fn combined(parts: &[Option<Outcome>]) -> Option<Outcome> {
    if parts.contains(&Some(Outcome::Failed)) {
        Some(Outcome::Failed)
    } else if !parts.is_empty() && parts.iter().all(|p| *p == Some(Outcome::Passed)) {
        Some(Outcome::Passed)
    } else {
        None
    }
}
