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
