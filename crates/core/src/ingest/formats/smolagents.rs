//! smolagents agent memory (Hugging Face): the steps of `agent.memory.get_full_steps()` (or
//! `get_succinct_steps()`) written out, as a JSON list or one step a line (a step callback's
//! `step.dict()`), or the `RunResult` of `agent.run(..., return_full_result=True)` as a document
//! (`output`, `state`, `steps`).
//!
//! Each memory step is read for what it is: a task step (`task`) the user's message and the
//! run's task; a planning step (`plan`) the agent's message; a system prompt step; an action
//! step (`step_number`, `model_output`, `tool_calls`, `observations`, `error`,
//! `action_output`, `is_final_answer`, `token_usage`, `timing`) an action of its tool calls (a
//! CodeAgent's one `python_interpreter` call of its code) whose text is the model's output,
//! followed by the tools' reply: its observations, with the step's error after them (`type:
//! message`), an error when there is one. A final answer step (`output`) or the action step
//! marked `is_final_answer` gives the run's final answer. Any other object is a step as the
//! generic fallback reads it.
//!
//! The outcome is `failed` when the run stopped at its step limit (`AgentMaxStepsError`, or a
//! `RunResult` whose `state` is `max_steps_error`); otherwise `unknown`: the memory holds the
//! answer, not whether it was right. Steps whose `step_number` does not go up start a new run
//! (a callback's lines of several runs in one file), with the task and planning steps just
//! before them.

use serde_json::{Map, Value};

use super::{content_text, generic, get, get_text, parse_object, value_text, JsonlAdapter};
use crate::ingest::{LineParse, Settled};
use crate::model::{Outcome, Role, SourceLoc, Step, StepIds, StepKind, Trajectory, Usage};

/// Whether an object is a smolagents memory step: an action step (`step_number` with the
/// model's output or the tools' observations), a task step (`task` and `task_images`) or a
/// planning step (`plan` and `model_output_message`).
pub fn is_step(o: &Map<String, Value>) -> bool {
    (o.contains_key("step_number")
        && ["model_output", "observations", "code_action", "is_final_answer"]
            .iter()
            .any(|k| o.contains_key(*k)))
        || (o.contains_key("task") && o.contains_key("task_images"))
        || (o.contains_key("plan") && o.contains_key("model_output_message"))
}

/// Whether an object is a `RunResult`: its `steps` are memory steps, beside its `state`.
pub fn is_run_result(o: &Map<String, Value>) -> bool {
    o.contains_key("state")
        && o.get("steps")
            .and_then(Value::as_array)
            .and_then(|s| s.first())
            .and_then(Value::as_object)
            .is_some_and(is_step)
}

/// The reader of memory steps, one a line (or an element of a list).
#[derive(Default)]
pub struct Smolagents {
    /// The runs closed so far; those before `handed` were handed over (placeholders left).
    done: Vec<Trajectory>,
    handed: usize,
    steps: Vec<Step>,
    /// The last action step's `step_number`, and where the steps after it (or after the final
    /// answer that follows it) start.
    last_number: Option<u64>,
    after_action: usize,
    final_answer: Option<String>,
    max_steps: bool,
}

/// A line read on its own, before it is filed in its run (what a parser thread makes ahead of
/// the line's turn: [`JsonlAdapter::push_parsed`]).
pub struct Parsed(Entry);

enum Entry {
    /// A `RunResult`: a run of its own, filed whole.
    RunResult(Map<String, Value>),
    Step(MemoryStep),
}

/// What one memory step says: its steps (numbered and placed when filed), its step number
/// (an action step's), the final answer it gives and whether it hit the step limit.
struct MemoryStep {
    number: Option<u64>,
    steps: Vec<Step>,
    answer: Option<String>,
    limit: bool,
}

/// A line's parse: the pure half of [`JsonlAdapter::push_line`].
pub fn parse(line: &str) -> Result<Parsed, String> {
    let o = parse_object(line)?;
    Ok(Parsed(match is_run_result(&o) {
        true => Entry::RunResult(o),
        false => Entry::Step(read(&o)),
    }))
}

impl Smolagents {
    /// Closes the run read so far, leaving `keep` (its last steps, of the next run).
    fn close(&mut self, keep: usize) {
        let mut next = self.steps.split_off(keep);
        let steps = std::mem::take(&mut self.steps);
        self.steps.append(&mut next);
        for (i, s) in self.steps.iter_mut().enumerate() {
            s.index = i as u32;
        }
        let task = steps.iter().find(|s| s.role == Role::User).map(|s| s.text.clone());
        self.done.push(Trajectory {
            id: format!("smolagents-{}", self.done.len() + 1),
            outcome: if self.max_steps { Outcome::Failed } else { Outcome::Unknown },
            task,
            final_answer: self.final_answer.take(),
            steps,
            ..Trajectory::default()
        });
        self.max_steps = false;
        self.after_action = 0;
    }

    fn push(&mut self, o: &Map<String, Value>, loc: SourceLoc, ingest_seq: u64) {
        match is_run_result(o) {
            true => self.push_run_result(o, loc, ingest_seq),
            false => self.file(read(o), loc, ingest_seq),
        }
    }

    fn push_parsed_entry(&mut self, entry: Entry, loc: SourceLoc, ingest_seq: u64) {
        match entry {
            Entry::RunResult(o) => self.push_run_result(&o, loc, ingest_seq),
            Entry::Step(m) => self.file(m, loc, ingest_seq),
        }
    }

    /// Files a memory step's steps in the run read so far (or, when its step number does not
    /// go up, in the next run, with the steps read since the run's last action or final
    /// answer).
    fn file(&mut self, m: MemoryStep, loc: SourceLoc, ingest_seq: u64) {
        if let (Some(n), Some(last)) = (m.number, self.last_number) {
            if n <= last {
                self.close(self.after_action);
            }
        }
        for mut step in m.steps {
            step.index = self.steps.len() as u32;
            step.loc = loc.clone();
            step.ingest_seq = ingest_seq;
            self.steps.push(step);
        }
        if m.number.is_some() {
            self.last_number = m.number;
        }
        // A final answer ends its run's part too: what follows it (a task) opens the next run.
        if m.number.is_some() || m.answer.is_some() {
            self.after_action = self.steps.len();
        }
        if m.answer.is_some() {
            self.final_answer = m.answer;
        }
        self.max_steps |= m.limit;
    }

    /// A `RunResult` (a document, or one a line): its steps are a run of their own, its
    /// `state` (`max_steps_error` fails) and `output` (the final answer) that run's.
    fn push_run_result(&mut self, o: &Map<String, Value>, loc: SourceLoc, ingest_seq: u64) {
        if !self.steps.is_empty() {
            self.close(self.steps.len());
        }
        self.last_number = None;
        let steps = o.get("steps").and_then(Value::as_array).map_or(&[][..], Vec::as_slice);
        for (i, s) in steps.iter().enumerate() {
            let at = super::at(&loc, &format!(".steps[{i}]"));
            match s {
                Value::Object(s) => self.push(s, at, ingest_seq),
                other => self.steps.push(Step {
                    index: self.steps.len() as u32,
                    loc: at,
                    ingest_seq,
                    text: content_text(other),
                    ..Step::default()
                }),
            }
        }
        self.max_steps |= get_text(o, &["state"]).as_deref() == Some("max_steps_error");
        if let Some(out) = o.get("output").filter(|v| !v.is_null()) {
            self.final_answer = Some(content_text(out));
        }
        match self.steps.is_empty() {
            true => (self.max_steps, self.final_answer) = (false, None),
            false => self.close(self.steps.len()),
        }
        self.last_number = None;
    }

    fn finish_all(mut self) -> Vec<Trajectory> {
        if !self.steps.is_empty() {
            self.close(self.steps.len());
        }
        self.done
    }
}

/// A memory step's steps, read from the step alone (numbered and placed when filed).
fn read(o: &Map<String, Value>) -> MemoryStep {
    let number = o.get("step_number").and_then(Value::as_u64);
    let mut m = MemoryStep { number, steps: Vec::new(), answer: None, limit: false };
    let message = |role, text| Step { role, text, ..Step::default() };
    if number.is_some() {
        action(o, &mut m);
        return m;
    }
    let step = if let Some(task) = o.get("task").filter(|_| o.contains_key("task_images")) {
        message(Role::User, content_text(task))
    } else if let Some(plan) = o.get("plan") {
        message(Role::Assistant, content_text(plan))
    } else if let Some(prompt) = o.get("system_prompt").filter(|_| o.len() == 1) {
        message(Role::System, content_text(prompt))
    } else if let Some(out) = o.get("output").filter(|_| o.len() == 1) {
        m.answer = Some(content_text(out));
        message(Role::Assistant, content_text(out))
    } else {
        generic::generic_step(o, 0, SourceLoc::default(), 0)
    };
    m.steps.push(step);
    m
}

/// An action step: the action (its calls, the model's output as its text), then the tools'
/// reply and the step's error.
fn action(o: &Map<String, Value>, m: &mut MemoryStep) {
    let calls: Vec<&Map<String, Value>> = match o.get("tool_calls") {
        Some(Value::Array(c)) => c.iter().filter_map(Value::as_object).collect(),
        _ => Vec::new(),
    };
    let said = o
        .get("model_output")
        .filter(|v| !v.is_null())
        .or_else(|| o.get("model_output_message").and_then(|m| m.get("content")))
        .map(content_text)
        .unwrap_or_default();
    let mut step = Step {
        role: Role::Assistant,
        text: said,
        ids: StepIds {
            event_id: o.get("step_number").map(|n| value_text(n).into()),
            ..StepIds::default()
        },
        usage: usage(o),
        ..Step::default()
    };
    let (names, args, ids) = generic::calls_of(&calls, &["id"]);
    if !calls.is_empty() {
        generic::apply_calls(&mut step, &names, &args, &ids);
        if step.text.is_empty() {
            step.text = super::calls_text(&names, &args);
        }
    }
    let action_id = step.ids.action_id.clone();
    // The step a run ends on at its limit holds no model output nor call: only its error.
    if !step.text.is_empty() || !calls.is_empty() {
        m.steps.push(step);
    }
    let error = o.get("error").filter(|e| generic::is_error_value(e)).map(|e| match e {
        Value::Object(e) => {
            let kind = get_text(e, &["type"]).unwrap_or_default();
            m.limit = kind == "AgentMaxStepsError";
            let text = e.get("message").map(content_text).unwrap_or_default();
            if kind.is_empty() {
                text
            } else {
                format!("{kind}: {text}")
            }
        }
        other => content_text(other),
    });
    // The answer: the final step's output, or the one asked for once the limit was hit.
    if m.limit || super::value_bool(o.get("is_final_answer")) == Some(true) {
        m.answer = o.get("action_output").filter(|v| !v.is_null()).map(content_text);
    }
    let observed = o.get("observations").map(content_text).unwrap_or_default();
    if observed.is_empty() && error.is_none() {
        return;
    }
    let is_error = error.is_some() || generic::says_it_failed(&observed);
    let text = match (observed.is_empty(), error) {
        (_, None) => observed,
        (true, Some(e)) => e,
        (false, Some(e)) => format!("{observed}\n{e}"),
    };
    m.steps.push(Step {
        role: Role::Tool,
        kind: StepKind::Observation,
        tool: (!names.is_empty()).then(|| names.join(",").into()),
        ids: StepIds { source_action_id: action_id, ..StepIds::default() },
        is_error,
        text,
        ..Step::default()
    });
}

/// An action step's usage: its `token_usage` and its `timing.duration` (seconds).
fn usage(o: &Map<String, Value>) -> Option<Box<Usage>> {
    let tokens = o.get("token_usage").and_then(Value::as_object);
    let count = |k: &str| tokens.and_then(|t| get(t, &[k])).and_then(Value::as_u64);
    let seconds = o.get("timing").and_then(|t| t.get("duration")).and_then(Value::as_f64);
    Usage {
        input_tokens: count("input_tokens"),
        output_tokens: count("output_tokens"),
        duration_ms: seconds.filter(|s| *s >= 0.0).map(|s| (s * 1000.0).round() as u64),
        ..Usage::default()
    }
    .non_empty()
}

impl JsonlAdapter for Smolagents {
    fn push_line(&mut self, line: &str, loc: SourceLoc, ingest_seq: u64) -> Result<(), String> {
        let Parsed(entry) = parse(line)?;
        self.push_parsed_entry(entry, loc, ingest_seq);
        Ok(())
    }

    /// A line parsed ahead is filed as read: its parse depends on the line alone.
    fn push_parsed(
        &mut self,
        parsed: LineParse,
        loc: SourceLoc,
        ingest_seq: u64,
    ) -> Result<Result<(), String>, SourceLoc> {
        let LineParse::Smolagents(parsed) = parsed else { return Err(loc) };
        Ok(parsed.map(|Parsed(entry)| self.push_parsed_entry(entry, loc, ingest_seq)))
    }

    fn finish(self: Box<Self>) -> Vec<Trajectory> {
        (*self).finish_all()
    }

    fn ids_distinct(&self) -> bool {
        true
    }

    /// The runs closed since the last call (a run closes when the next one starts): nothing
    /// read later changes them, so the CLI analyses them while the rest is read.
    fn take_settled(&mut self) -> Vec<Settled> {
        let first = self.handed;
        self.handed = self.done.len();
        (first..self.handed)
            .map(|position| {
                let trajectory = std::mem::take(&mut self.done[position]);
                Settled { position, trajectory }
            })
            .collect()
    }

    fn finish_with(self: Box<Self>, returned: Vec<Settled>) -> (Vec<Trajectory>, Vec<usize>) {
        let mut runs = (*self).finish_all();
        for s in returned {
            if let Some(t) = runs.get_mut(s.position) {
                *t = s.trajectory;
            }
        }
        (runs, Vec::new())
    }
}

/// A `RunResult` document (or one a line, or a list of them): read as
/// [`Smolagents::push_run_result`] reads one.
pub fn from_document(value: Value) -> Result<Vec<Trajectory>, String> {
    let o = super::as_object(&value, "the smolagents run result")?;
    super::array_field(o, "steps", "the smolagents run result")?;
    let mut reader = Smolagents::default();
    reader.push(o, SourceLoc::default(), 0);
    // Named where it was read (`smolagents-1`, `line-N`, or its place in a list).
    let mut runs = reader.finish_all();
    runs.iter_mut().for_each(|t| t.id.clear());
    Ok(runs)
}
