//! Outcomes: each signal a format carries, read from a real fixture of the format (where the
//! real file lacks the signal, the test writes it into the real document at the field the
//! format defines, and says so), and the reviewer's word: on every fixture whose outcome is
//! unknown, "this run failed" gives a critical step and a case (docs/formats.md, "Outcome").
#![cfg(not(target_arch = "wasm32"))]
// Tests read their fixtures from disk; the core itself does no I/O.
#![allow(clippy::disallowed_methods)]

use std::path::{Path, PathBuf};

use serde_json::{json, Value};
use trajscope_core::attribution::{analyze_trajectory, AnalysisOptions};
use trajscope_core::cases;
use trajscope_core::labels::content_hash;
use trajscope_core::model::{Format, Outcome, Role, Trace};
use trajscope_core::outcome::ReviewerOutcome;
use trajscope_core::{ingest, IngestOptions};

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures")
}

fn read(rel: &str) -> Vec<u8> {
    let p = fixtures().join(rel);
    std::fs::read(&p).unwrap_or_else(|e| panic!("cannot read fixture {}: {e}", p.display()))
}

fn doc(rel: &str) -> Value {
    serde_json::from_slice(&read(rel)).expect("the fixture is JSON")
}

fn trace_of(bytes: &[u8]) -> Trace {
    ingest(bytes, IngestOptions::default())
}

/// The outcomes of a document's trajectories (format detected from the content).
fn outcomes(v: &Value, format: Format) -> Vec<Outcome> {
    let trace = trace_of(&serde_json::to_vec(v).unwrap());
    assert_eq!(trace.format, format);
    assert_eq!(trace.error, None);
    trace.trajectories.iter().map(|t| t.outcome).collect()
}

fn jsonl_outcomes(text: &str, format: Format) -> Vec<Outcome> {
    let trace = trace_of(text.as_bytes());
    assert_eq!(trace.format, format);
    assert!(trace.quarantine.is_empty(), "{:?}", trace.quarantine);
    trace.trajectories.iter().map(|t| t.outcome).collect()
}

use Outcome::{Failed, Passed, Unknown};

#[test]
fn mini_swe_agent_exit_status_and_submission() {
    let real = doc("mini_swe_agent/django__django-10914.trimmed.traj.json");
    // As recorded: `Submitted` with a patch, which tests the file does not hold would judge.
    assert_eq!(real["info"]["exit_status"], "Submitted");
    assert_eq!(outcomes(&real, Format::MiniSweAgent), [Unknown]);
    let mut limits = real.clone();
    limits["info"]["exit_status"] = json!("LimitsExceeded");
    limits["info"]["submission"] = json!("");
    let n = limits["messages"].as_array().unwrap().len();
    limits["messages"][n - 1]["extra"]["exit_status"] = json!("LimitsExceeded");
    assert_eq!(outcomes(&limits, Format::MiniSweAgent), [Failed]);
    let mut empty = real.clone();
    empty["info"]["submission"] = json!("  \n");
    assert_eq!(outcomes(&empty, Format::MiniSweAgent), [Failed], "an empty patch");
    // Without them in `info`, the exit message's own status and submission are read.
    let mut bare = real.clone();
    let info = bare["info"].as_object_mut().unwrap();
    info.remove("exit_status");
    info.remove("submission");
    assert_eq!(outcomes(&bare, Format::MiniSweAgent), [Unknown]);
    bare["messages"][n - 1]["extra"]["exit_status"] = json!("TimeoutError");
    assert_eq!(outcomes(&bare, Format::MiniSweAgent), [Failed]);
    let mut interrupted = real;
    interrupted["info"]["exit_status"] = json!("KeyboardInterrupt");
    assert_eq!(outcomes(&interrupted, Format::MiniSweAgent), [Unknown], "only stopped");
}

#[test]
fn swe_agent_exit_status_and_submission() {
    let real = doc("swe_agent/pydicom__pydicom-1458.traj");
    assert_eq!(real["info"]["exit_status"], "submitted");
    assert_eq!(outcomes(&real, Format::SweAgent), [Unknown]);
    for (status, want) in [
        ("exit_cost", Failed),
        ("exit_context", Failed),
        ("exit_format", Failed),
        ("submitted (exit_cost)", Unknown),
    ] {
        let mut v = real.clone();
        v["info"]["exit_status"] = json!(status);
        assert_eq!(outcomes(&v, Format::SweAgent), [want], "{status}");
    }
    let mut empty = real;
    empty["info"]["submission"] = json!("");
    assert_eq!(outcomes(&empty, Format::SweAgent), [Failed]);
}

#[test]
fn openhands_final_state_and_errors_against_the_finish_action() {
    for rel in ["openhands/basic.json", "openhands/examples-one-per-kind.json"] {
        // Both real runs end with a `finish` action: the agent stopped, nothing more.
        assert_eq!(outcomes(&doc(rel), Format::Openhands), [Unknown], "{rel}");
    }
    let real = doc("openhands/examples-one-per-kind.json");
    let events = real.as_array().unwrap().clone();
    let finish = events.last().unwrap().clone();
    assert_eq!(finish["action"], "finish");
    let run_obs = events.iter().find(|e| e["observation"] == "run").unwrap().clone();

    // The run ends on a failed command, with no finish after it.
    let mut failed_cmd = run_obs.clone();
    failed_cmd["extras"]["metadata"]["exit_code"] = json!(1);
    let mut cut: Vec<Value> = events[..events.len() - 1].to_vec();
    cut.push(failed_cmd.clone());
    assert_eq!(outcomes(&Value::Array(cut.clone()), Format::Openhands), [Failed]);
    // The same error, then the finish action: the agent went on and stopped; unknown.
    cut.push(finish.clone());
    assert_eq!(outcomes(&Value::Array(cut), Format::Openhands), [Unknown]);

    // The final agent state.
    let state = |s: &str| {
        json!({"id": 99, "source": "environment", "observation": "agent_state_changed",
               "content": "", "extras": {"agent_state": s}, "message": ""})
    };
    for (s, want) in
        [("error", Failed), ("rejected", Failed), ("finished", Unknown), ("stopped", Unknown)]
    {
        let mut v = events.clone();
        v.push(state(s));
        assert_eq!(outcomes(&Value::Array(v), Format::Openhands), [want], "{s}");
    }
    // An error state superseded by a later one is not the final state.
    let mut v = events.clone();
    v.insert(1, state("error"));
    v.push(state("finished"));
    assert_eq!(outcomes(&Value::Array(v), Format::Openhands), [Unknown]);

    // The finish action's own word, and the evaluation output's `error`.
    let mut v = events.clone();
    v.last_mut().unwrap()["args"]["task_completed"] = json!("false");
    assert_eq!(outcomes(&Value::Array(v), Format::Openhands), [Failed]);
    let eval = json!({"instance_id": "x-1", "history": events.clone(),
                      "error": "Agent reached maximum iteration in headless mode"});
    assert_eq!(outcomes(&eval, Format::Openhands), [Failed]);
    let eval = json!({"instance_id": "x-1", "history": events, "error": null});
    assert_eq!(outcomes(&eval, Format::Openhands), [Unknown]);
}

#[test]
fn codex_aborted_turns_and_error_events() {
    let real = String::from_utf8(read("codex/rollout-trimmed.jsonl")).unwrap();
    assert_eq!(jsonl_outcomes(&real, Format::Codex), [Unknown]);
    let kinds = String::from_utf8(read("codex/examples-one-per-kind.jsonl")).unwrap();
    assert!(
        kinds.contains(r#""type": "task_complete""#) || kinds.contains(r#""type":"task_complete""#)
    );
    assert_eq!(jsonl_outcomes(&kinds, Format::Codex), [Unknown], "task_complete: stopped");

    let line = |payload: Value| {
        json!({"timestamp": "2026-05-11T10:00:00.000Z", "type": "event_msg", "payload": payload})
            .to_string()
    };
    let with = |extra: &[String]| format!("{real}{}\n", extra.join("\n"));
    let aborted = line(json!({"type": "turn_aborted", "reason": "interrupted"}));
    assert_eq!(jsonl_outcomes(&with(std::slice::from_ref(&aborted)), Format::Codex), [Failed]);
    let error = line(json!({"type": "error", "message": "stream disconnected before completion"}));
    assert_eq!(jsonl_outcomes(&with(std::slice::from_ref(&error)), Format::Codex), [Failed]);
    // Retried stream errors and a turn replaced by another do not end the run failed.
    let retry = line(json!({"type": "stream_error", "message": "Reconnecting... 1/5"}));
    assert_eq!(jsonl_outcomes(&with(&[retry]), Format::Codex), [Unknown]);
    let replaced = line(json!({"type": "turn_aborted", "reason": "replaced"}));
    assert_eq!(jsonl_outcomes(&with(&[replaced]), Format::Codex), [Unknown]);
    // A later turn that completes, or starts, takes the failure back.
    let done = line(json!({"type": "task_complete", "last_agent_message": "Done."}));
    assert_eq!(jsonl_outcomes(&with(&[aborted.clone(), done]), Format::Codex), [Unknown]);
    let next = line(json!({"type": "task_started", "turn_id": "t-2"}));
    assert_eq!(jsonl_outcomes(&with(&[error, next]), Format::Codex), [Unknown]);
}

#[test]
fn inspect_scores_against_the_target() {
    let real = doc("inspect/browser.no_events.json");
    assert_eq!(real["samples"][0]["scores"]["includes"]["value"], "C");
    assert_eq!(outcomes(&real, Format::Inspect), [Passed]);
    let with_value = |value: Value| {
        let mut v = real.clone();
        v["samples"][0]["scores"]["includes"]["value"] = value;
        outcomes(&v, Format::Inspect)
    };
    assert_eq!(with_value(json!("I")), [Failed]);
    assert_eq!(with_value(json!("P")), [Failed], "partial credit is not a pass");
    assert_eq!(with_value(json!(1)), [Passed]);
    assert_eq!(with_value(json!(0)), [Failed]);
    assert_eq!(with_value(json!(0.75)), [Failed], "below the 1.0 threshold");
    assert_eq!(with_value(json!("1.0")), [Passed]);
    assert_eq!(with_value(json!("yes")), [Passed]);
    assert_eq!(with_value(json!(false)), [Failed]);
    assert_eq!(with_value(json!(7)), [Unknown], "a scale we do not know");
    assert_eq!(with_value(json!({"a": "C", "b": "I"})), [Failed]);
    assert_eq!(with_value(json!({"a": "C", "b": 1})), [Passed]);
    assert_eq!(with_value(Value::Null), [Unknown]);
    // A log without `scores` keeps the scorer's final `score` event (this one as the real log
    // of this run records it, explanation shortened); an intermediate score is not a verdict.
    let event = |intermediate: bool, value: &str| {
        json!({"event": "score", "score": {"value": value, "explanation": "The AI Security…"},
               "target": "", "intermediate": intermediate})
    };
    let mut v = real.clone();
    v["samples"][0].as_object_mut().unwrap().remove("scores");
    assert_eq!(outcomes(&v, Format::Inspect), [Unknown]);
    v["samples"][0]["events"] = json!([event(true, "I"), event(false, "C")]);
    assert_eq!(outcomes(&v, Format::Inspect), [Passed]);
    v["samples"][0]["events"] = json!([event(false, "I")]);
    assert_eq!(outcomes(&v, Format::Inspect), [Failed]);
    // The hand-made upstream log has no score at all: unknown.
    assert_eq!(outcomes(&doc("inspect/log_tool_call_error.json"), Format::Inspect), [Unknown]);
}

#[test]
fn langsmith_and_otel_error_status_on_the_root() {
    for rel in [
        "langsmith/langsmith_py_wrap_openai_.json",
        "langsmith/langsmith_js_wrap_openai_default.json",
    ] {
        let real = doc(rel);
        assert_eq!(outcomes(&real, Format::Langsmith), [Unknown], "{rel}: returned, no error");
        let mut failed = real.clone();
        failed["post"][0]["error"] = json!("openai.RateLimitError: Error code: 429");
        assert_eq!(outcomes(&failed, Format::Langsmith), [Failed], "{rel}");
        let mut status = real;
        status["post"][0]["status"] = json!("error");
        assert_eq!(outcomes(&status, Format::Langsmith), [Failed], "{rel}: status");
    }
    let otel = String::from_utf8(read("otel/genai_handoff.jsonl")).unwrap();
    // Trace 5b8e…: a failed tool span under a root that ended OK; trace 0af7…: a failed root.
    assert_eq!(jsonl_outcomes(&otel, Format::Otel), [Unknown, Failed]);
}

/// Every fixture file of every format (not the corrupt-input, label or loop material).
fn format_fixtures() -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(fixtures())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .filter(|p| !matches!(name(p), "corrupt" | "labels" | "loop"))
        .collect();
    dirs.sort();
    for d in dirs {
        let mut files: Vec<PathBuf> = std::fs::read_dir(&d)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.is_file())
            .filter(|p| {
                let n = name(p);
                !n.ends_with(".expected") && !n.contains(".expected.") && !n.ends_with(".md")
            })
            .collect();
        files.sort();
        out.extend(files);
    }
    out
}

fn name(p: &Path) -> &str {
    p.file_name().and_then(|n| n.to_str()).unwrap_or("")
}

/// Hand-made upstream fixtures that are not a run: `log_tool_call_error.json` lists one tool
/// error of each type with the text "..." and no action, so there is nothing to point at. The
/// QA's Anthropic request log and LangGraph stream are read by the generic fallback as records
/// of no role (their messages are nested in each record): no agent's step to point at.
const NOT_A_RUN: [&str; 3] = [
    "inspect/log_tool_call_error.json",
    "generic/qa_04_anthropic_messages.jsonl",
    "generic/qa_05_langgraph_stream.jsonl",
];

#[test]
fn the_reviewers_failed_gives_every_unknown_run_a_critical_step_and_a_case() {
    let opts = AnalysisOptions::default();
    let mut checked = 0;
    let mut problems = Vec::new();
    for path in format_fixtures() {
        let bytes = std::fs::read(&path).unwrap();
        let trace = trace_of(&bytes);
        let label = path.strip_prefix(fixtures()).unwrap().display().to_string();
        if NOT_A_RUN.contains(&label.as_str()) {
            continue;
        }
        for t in trace.trajectories.iter().filter(|t| t.outcome == Unknown) {
            let mut said = trace.clone();
            let reviewer = ReviewerOutcome::new(Failed, Some(t.id.clone()));
            assert_eq!(reviewer.apply_to_trace(&mut said), Ok(1));
            let failed = said.trajectories.iter().find(|x| x.id == t.id).unwrap();
            assert_eq!(failed.outcome, Failed);
            let a = analyze_trajectory(failed, &opts);
            // A trajectory with no assistant's step (a batch's request never answered, a request
            // that errored or expired before any reply) has no agent's step to point at: a
            // critical step only where a rule finds one (a context limit reached), none else.
            let agentless = !failed.steps.iter().any(|s| s.role == Role::Assistant);
            let Some(critical) = a.critical else {
                if !agentless {
                    problems.push(format!("{label} {}: no critical step", t.id));
                }
                continue;
            };
            assert!((critical.step as usize) < failed.steps.len());
            // The other trajectories keep their own outcome: only this one gets a case.
            let built = cases::from_trace_with(&said, &content_hash(&bytes), |x| {
                (x.id == t.id).then(|| analyze_trajectory(x, &opts).record)
            });
            match built.as_slice() {
                [tc] if tc.valid => {}
                [tc] => problems.push(format!("{label} {}: invalid case: {:?}", t.id, tc.errors)),
                other => problems.push(format!("{label} {}: {} cases", t.id, other.len())),
            }
            // And "this run passed" names no critical step.
            let passed = trajscope_core::outcome::with_outcome(t, Passed);
            assert_eq!(analyze_trajectory(&passed, &opts).critical, None, "{label} {}", t.id);
            checked += 1;
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
    assert!(checked >= 15, "only {checked} unknown-outcome trajectories found");
}

#[test]
fn a_session_takes_the_reviewers_outcome_and_gives_it_back() {
    let bytes = read("mini_swe_agent/django__django-10914.trimmed.traj.json");
    let mut loader = trajscope_core::Loader::new(IngestOptions::default(), true);
    loader.feed(&bytes);
    let mut s = loader.finish();
    s.analyse_all();
    assert!(s.analysis(0).unwrap().critical.is_none());
    let failed = ReviewerOutcome::new(Failed, Some("django__django-10914".into()));
    assert_eq!(s.set_outcome(&failed), Ok(vec![0]));
    assert!(!s.is_analysed(0), "analysed again with the new outcome");
    assert_eq!(s.overview(0).unwrap().outcome, Failed);
    s.analyse_all();
    assert!(s.analysis(0).unwrap().critical.is_some());
    assert_eq!(s.cases().unwrap().built.len(), 1);
    assert_eq!(s.set_outcome(&failed), Ok(vec![]), "the same word changes nothing");
    // `Unknown` takes the word back: the outcome the file gave.
    assert_eq!(s.set_outcome(&ReviewerOutcome::new(Unknown, None)), Ok(vec![0]));
    assert_eq!(s.trajectory(0).unwrap().outcome, Unknown);
    let wrong = ReviewerOutcome::new(Passed, Some("nope".into()));
    assert!(s.set_outcome(&wrong).unwrap_err().contains("django__django-10914"));
}
