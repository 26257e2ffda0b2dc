//! AWTL, the native event format (SPEC §2.2): one JSON object per line with `type` one of
//! `action`, `observation`, `judge_result`, `memory_read`, `artifact`, `run_start`, `run_end`,
//! `message`. snake_case and camelCase keys are both accepted.
//!
//! Steps are grouped into one trajectory per `run_id` (a file without run ids is one run), in
//! canonical order: `writer_seq` where present, else arrival order.

use serde_json::{Map, Value};

use super::{artifact_ref, get, get_text, parse_object, value_i64, value_strings, JsonlAdapter};
use crate::model::{Outcome, Role, SourceLoc, Step, StepIds, StepKind, Trajectory};

#[derive(Default)]
pub struct Awtl {
    runs: Vec<Run>,
}

#[derive(Default)]
struct Run {
    id: String,
    outcome: Outcome,
    task: Option<String>,
    final_answer: Option<String>,
    steps: Vec<Step>,
}

impl JsonlAdapter for Awtl {
    fn push_line(&mut self, line: &str, loc: SourceLoc, ingest_seq: u64) -> Result<(), String> {
        let o = parse_object(line)?;
        let step = step_from_event(&o, loc, ingest_seq);
        let run_id = step.ids.run_id.clone().unwrap_or_default();
        let run = match self.runs.iter().rposition(|r| r.id == run_id) {
            Some(i) => &mut self.runs[i],
            None => {
                self.runs.push(Run { id: run_id, ..Run::default() });
                self.runs.last_mut().expect("just pushed")
            }
        };
        match step.kind {
            StepKind::RunStart => {
                run.task = get_text(&o, &["task", "goal", "prompt"]).or(run.task.take());
            }
            StepKind::RunEnd => {
                run.outcome = outcome_word(step.status.as_deref()).unwrap_or(run.outcome);
                run.final_answer = get_text(&o, &["final_answer", "finalAnswer", "answer"])
                    .or(run.final_answer.take());
            }
            _ => {}
        }
        run.steps.push(step);
        Ok(())
    }

    fn finish(self: Box<Self>) -> Vec<Trajectory> {
        self.runs
            .into_iter()
            .enumerate()
            .map(|(i, mut run)| {
                run.steps.sort_by_key(|s| (s.writer_seq.unwrap_or(u64::MAX), s.ingest_seq));
                if run.steps.iter().any(|s| s.writer_seq.is_none()) {
                    // Mixed or absent writer_seq: arrival order is the only total order.
                    run.steps.sort_by_key(|s| s.ingest_seq);
                }
                for (idx, s) in run.steps.iter_mut().enumerate() {
                    s.index = idx as u32;
                }
                if run.outcome == Outcome::Unknown {
                    run.outcome = inferred_outcome(&run.steps);
                }
                let id = if run.id.is_empty() { format!("run-{}", i + 1) } else { run.id };
                Trajectory {
                    id,
                    outcome: run.outcome,
                    task: run.task,
                    final_answer: run.final_answer,
                    gold: None,
                    steps: run.steps,
                }
            })
            .collect()
    }
}

/// The last verdict decides when no `run_end` says: a failed judge result that no later judge
/// passed means the run failed.
fn inferred_outcome(steps: &[Step]) -> Outcome {
    steps
        .iter()
        .rev()
        .filter(|s| s.kind == StepKind::JudgeResult)
        .find_map(|s| outcome_word(s.status.as_deref()))
        .unwrap_or(Outcome::Unknown)
}

fn outcome_word(word: Option<&str>) -> Option<Outcome> {
    match word?.to_ascii_lowercase().as_str() {
        "failed" | "fail" | "failure" | "error" | "errored" | "rejected" | "timeout" => {
            Some(Outcome::Failed)
        }
        "passed" | "pass" | "success" | "succeeded" | "ok" | "accepted" | "completed" => {
            Some(Outcome::Passed)
        }
        _ => None,
    }
}

fn step_from_event(o: &Map<String, Value>, loc: SourceLoc, ingest_seq: u64) -> Step {
    let ty = get(o, &["type", "event", "kind"]).and_then(Value::as_str).unwrap_or("message");
    let kind = match ty {
        "action" | "tool_call" => StepKind::Action,
        "observation" | "tool_result" => StepKind::Observation,
        "judge_result" | "judgeResult" | "verifier_result" => StepKind::JudgeResult,
        "memory_read" | "memoryRead" => StepKind::MemoryRead,
        "artifact" => StepKind::Artifact,
        "run_start" | "runStart" => StepKind::RunStart,
        "run_end" | "runEnd" => StepKind::RunEnd,
        _ => StepKind::Message,
    };
    let role = match kind {
        StepKind::Action => Role::Assistant,
        StepKind::Observation => Role::Tool,
        StepKind::JudgeResult => Role::Judge,
        StepKind::MemoryRead | StepKind::Artifact | StepKind::RunStart | StepKind::RunEnd => {
            Role::Environment
        }
        StepKind::Message => match get(o, &["role"]).and_then(Value::as_str) {
            Some("system") => Role::System,
            Some("user") => Role::User,
            Some("tool") => Role::Tool,
            Some("assistant") | None => Role::Assistant,
            Some(_) => Role::Other,
        },
    };
    let ids = StepIds {
        run_id: get_text(o, &["run_id", "runId"]),
        attempt_id: get_text(o, &["attempt_id", "attemptId"]),
        turn_id: get_text(o, &["turn_id", "turnId"]),
        span_id: get_text(o, &["span_id", "spanId"]),
        action_id: get_text(o, &["action_id", "actionId"]),
        source_action_id: get_text(o, &["source_action_id", "sourceActionId"]),
        event_id: get_text(o, &["event_id", "eventId", "id", "judge_id", "judgeId"]),
        parent_id: get_text(o, &["parent_id", "parentId"]),
    };
    let status = get_text(o, &["status", "result", "verdict"]);
    let exit_code = get(o, &["exit_code", "exitCode"]).and_then(value_i64);
    let tool = get_text(o, &["tool", "tool_name", "toolName"]);
    let args = get_text(o, &["command", "cmd", "args", "arguments", "input"]);
    let detail = get_text(o, &["detail", "reason", "message_text"]);
    let body = get_text(o, &["summary", "output", "text", "content", "message", "stdout"]);
    let stderr = get_text(o, &["stderr"]);
    let mut memory_node_ids = Vec::new();
    if let Some(v) = get(o, &["node_ids", "nodeIds", "node_id", "nodeId"]) {
        memory_node_ids = value_strings(v);
    }
    let mut refs: Vec<String> =
        get(o, &["artifact_refs", "artifactRefs"]).map(value_strings).unwrap_or_default();
    if kind == StepKind::Artifact {
        if let Some(p) = get_text(o, &["path", "ref", "uri", "artifact"]) {
            refs.push(p);
        }
    }
    let error_flag = match get(o, &["error", "is_error", "isError"]) {
        Some(Value::Bool(b)) => *b,
        Some(Value::String(s)) => !s.is_empty(),
        Some(Value::Object(_)) => true,
        _ => false,
    };
    let failed_status =
        status.as_deref().is_some_and(|s| outcome_word(Some(s)) == Some(Outcome::Failed));
    let is_error = error_flag || exit_code.is_some_and(|c| c != 0) || failed_status;

    // The readable text: what a reviewer needs first.
    let mut text = String::new();
    let mut push = |s: &str| {
        if !s.is_empty() {
            if !text.is_empty() {
                text.push('\n');
            }
            text.push_str(s);
        }
    };
    match kind {
        StepKind::Action => {
            if let Some(a) = &args {
                push(a);
            }
            if let Some(b) = &body {
                push(b);
            }
        }
        StepKind::JudgeResult => {
            if let Some(b) = &body {
                push(b);
            }
            if let Some(d) = &detail {
                push(d);
            }
        }
        StepKind::MemoryRead => {
            if let Some(b) = &body {
                push(b);
            }
        }
        _ => {
            if let Some(b) = &body {
                push(b);
            }
            if let Some(d) = &detail {
                push(d);
            }
        }
    }
    if let Some(e) = &stderr {
        push(e);
    }
    if let Some(Value::String(e)) = get(o, &["error"]) {
        push(e);
    }
    let actor =
        get_text(o, &["agent", "actor", "judge_name", "judgeName", "name"]).unwrap_or_default();
    Step {
        index: 0,
        loc,
        actor,
        role,
        kind,
        text,
        tool,
        args,
        exit_code,
        is_error,
        status,
        ids,
        artifact_refs: refs.iter().map(|r| artifact_ref(r)).collect(),
        memory_node_ids,
        timestamp: get_text(o, &["ts", "timestamp", "time"]),
        writer_seq: get(o, &["writer_seq", "writerSeq", "seq"])
            .and_then(value_i64)
            .map(|n| n.max(0) as u64),
        ingest_seq,
    }
}
