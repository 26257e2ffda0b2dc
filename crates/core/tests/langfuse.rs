//! Langfuse traces of any shape (docs/formats.md, "Langfuse traces"): observations of every type,
//! under random parents (some missing, some cycles), at random levels and times, with outputs
//! that are messages, calls, text or nothing. The reader never panics, keeps every observation
//! that is a step, marks each failed one, and reads a trace, its observations as a list and its
//! observations one a line alike.
#![cfg(not(target_arch = "wasm32"))]

use proptest::prelude::*;
use serde_json::{json, Value};
use trajscope_core::model::{Format, Outcome, StepKind, Trace};
use trajscope_core::{ingest, IngestOptions};

const TYPES: [&str; 6] = ["GENERATION", "SPAN", "EVENT", "TOOL", "AGENT", "CHAIN"];

/// One observation: its type, parent (an index, maybe itself or none), level, start second and
/// output's shape.
fn observation() -> impl Strategy<Value = (usize, Option<usize>, bool, u8, u8)> {
    (0..TYPES.len(), proptest::option::of(0usize..8), any::<bool>(), 0u8..60, 0u8..4)
}

fn trace(obs: &[(usize, Option<usize>, bool, u8, u8)]) -> Value {
    let observations: Vec<Value> = obs
        .iter()
        .enumerate()
        .map(|(i, &(ty, parent, failed, start, out))| {
            let output = match out {
                0 => Value::Null,
                1 => json!("plain text"),
                2 => json!({"role": "assistant", "content": "an answer"}),
                _ => json!({"role": "assistant", "tool_calls": [{"id": format!("call_{i}"),
                    "type": "function", "function": {"name": "search", "arguments": "{}"}}]}),
            };
            json!({
                "id": format!("o{i}"),
                "traceId": "t1",
                "type": TYPES[ty],
                "name": if ty == 1 || ty == 3 { "search" } else { "agent" },
                "startTime": format!("2025-01-01T00:00:{start:02}.000Z"),
                "endTime": format!("2025-01-01T00:01:{start:02}.000Z"),
                "parentObservationId": parent.map(|p| format!("o{p}")),
                "input": {"q": i},
                "output": output,
                "level": if failed { "ERROR" } else { "DEFAULT" },
                "statusMessage": if failed { Value::from(format!("failure {i}")) } else { Value::Null },
            })
        })
        .collect();
    json!({"id": "t1", "timestamp": "2025-01-01T00:00:00.000Z", "input": "task",
        "output": null, "observations": observations})
}

fn steps(t: &Trace) -> Vec<(StepKind, bool, String)> {
    t.trajectories
        .iter()
        .flat_map(|tr| &tr.steps)
        .map(|s| (s.kind, s.is_error, s.text.clone()))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]
    #[test]
    fn any_trace_reads_whole_and_alike_in_every_layout(
        obs in proptest::collection::vec(observation(), 1..8)
    ) {
        let doc = trace(&obs);
        let t = ingest(serde_json::to_string_pretty(&doc).unwrap().as_bytes(), IngestOptions::default());
        prop_assert_eq!(t.format, Format::Langfuse);
        prop_assert!(t.quarantine.is_empty(), "{:?}", t.quarantine);
        prop_assert_eq!(t.trajectories.len(), 1);
        let run = &t.trajectories[0];
        for (i, s) in run.steps.iter().enumerate() {
            prop_assert_eq!(s.index as usize, i);
        }
        // Every generation and event is a step; every failed observation's status is told.
        let told = |needle: &str| run.steps.iter().any(|s| s.is_error && s.text.contains(needle));
        for (i, &(_, _, failed, _, _)) in obs.iter().enumerate() {
            if failed {
                prop_assert!(told(&format!("failure {i}")), "observation {} failed, unsaid", i);
            }
        }
        let shown = obs.iter().filter(|o| matches!(TYPES[o.0], "GENERATION" | "EVENT" | "TOOL")).count();
        prop_assert!(run.steps.len() >= shown, "{} steps for {} observations", run.steps.len(), shown);
        // A failed observation under none is the run's failure.
        let known = |p: Option<usize>| p.is_some_and(|p| p < obs.len());
        if obs.iter().any(|o| o.2 && !known(o.1)) {
            prop_assert_eq!(run.outcome, Outcome::Failed);
        }
        // The observations alone, as a list and one a line: the same steps.
        let list = ingest(doc["observations"].to_string().as_bytes(), IngestOptions::default());
        prop_assert_eq!(steps(&list), steps(&t));
        let lines: String = doc["observations"].as_array().unwrap().iter().map(|o| format!("{o}\n")).collect();
        let per_line = ingest(lines.as_bytes(), IngestOptions::default());
        prop_assert_eq!(per_line.format, Format::Langfuse);
        prop_assert_eq!(steps(&per_line), steps(&t));
    }
}

/// An observation as Langfuse writes one: `id`, `traceId`, `type`, `name`, `startTime`, parent.
fn obs(id: &str, ty: &str, name: &str, start: u8, parent: Option<&str>, output: Value) -> Value {
    json!({"id": id, "traceId": "t", "type": ty, "name": name, "parentObservationId": parent,
        "startTime": format!("2025-01-01T00:00:{start:02}.000Z"), "output": output})
}

/// A span with observations under it is a container, also under another span; a span with
/// nothing under it is a tool's only when it is under another (a lone top span holds the run).
#[test]
fn spans_are_tools_only_as_leaves_under_another() {
    let list = json!([
        obs("a", "SPAN", "agent", 0, None, Value::Null),
        obs("c", "SPAN", "planner-chain", 1, Some("a"), json!("a plan")),
        obs("g", "GENERATION", "llm", 2, Some("c"), json!("thinking")),
        obs("s", "SPAN", "search", 3, Some("c"), json!("3 results")),
        obs("lone", "SPAN", "other-run", 4, Some("missing-parent"), json!("done")),
    ]);
    let t = ingest(list.to_string().as_bytes(), IngestOptions::default());
    assert_eq!(t.format, Format::Langfuse);
    let steps: Vec<(StepKind, Option<&str>, &str)> = t.trajectories[0]
        .steps
        .iter()
        .map(|s| (s.kind, s.tool.as_deref(), s.text.as_str()))
        .collect();
    assert_eq!(
        steps,
        [
            (StepKind::Message, None, "thinking"),
            (StepKind::Action, Some("search"), "search()"),
            (StepKind::Observation, Some("search"), "3 results"),
        ]
    );
    // Each step at its element of the list.
    let paths: Vec<&str> = t.trajectories[0].steps.iter().map(|s| s.loc.path.as_ref()).collect();
    assert_eq!(paths, ["$[2]", "$[3]", "$[3]"]);
}

/// Only objects with a Langfuse `type`, a `startTime` and a `traceId` or a parent are
/// observations; a trace needs observations of that kind, or none beside an `id` and a
/// `timestamp`.
#[test]
fn langfuse_is_told_apart_from_look_alikes() {
    let format = |v: Value| ingest(format!("{v}\n").as_bytes(), IngestOptions::default()).format;
    let observation = json!({"type": "SPAN", "startTime": "x", "traceId": "t"});
    assert_eq!(format(observation.clone()), Format::Langfuse);
    assert_eq!(
        format(json!({"type": "SPAN", "startTime": "x", "parentObservationId": "p"})),
        Format::Langfuse
    );
    for not in [
        json!({"type": "SPAN", "traceId": "t"}),
        json!({"type": "SPAN", "startTime": "x"}),
        json!({"type": "span", "startTime": "x", "traceId": "t"}),
        json!({"startTime": "x", "traceId": "t"}),
    ] {
        assert_ne!(format(not.clone()), Format::Langfuse, "{not}");
    }
    let trace = |extra: Value| {
        let mut t = json!({"id": "t"});
        t.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        t
    };
    assert_eq!(format(trace(json!({"observations": [observation]}))), Format::Langfuse);
    assert_eq!(format(trace(json!({"observations": [], "timestamp": "x"}))), Format::Langfuse);
    assert_ne!(format(trace(json!({"observations": []}))), Format::Langfuse);
    assert_ne!(
        format(trace(json!({"observations": [{"id": "o"}], "timestamp": "x"}))),
        Format::Langfuse
    );
}

/// The run fails when its top observation did; an error under it (a tool's, handled) does not
/// decide the run.
#[test]
fn the_top_observations_error_is_the_runs() {
    let run = |top_level: &str, tool_level: &str| {
        let mut top = obs("a", "SPAN", "agent", 0, None, Value::Null);
        top["level"] = json!(top_level);
        let mut tool = obs("s", "TOOL", "search", 1, Some("a"), json!("timeout"));
        tool["level"] = json!(tool_level);
        let t = ingest(json!([top, tool]).to_string().as_bytes(), IngestOptions::default());
        let result = t.trajectories[0].steps.iter().find(|s| s.kind == StepKind::Observation);
        assert_eq!(result.map(|s| s.is_error), Some(tool_level == "ERROR"));
        t.trajectories[0].outcome
    };
    assert_eq!(run("DEFAULT", "ERROR"), Outcome::Unknown);
    assert_eq!(run("ERROR", "DEFAULT"), Outcome::Failed);
    assert_eq!(run("DEFAULT", "DEFAULT"), Outcome::Unknown);
}
