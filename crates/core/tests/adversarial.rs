//! Regression tests for the adversarial inputs of the reliability review (see
//! `docs/limits.md`): each test is built from the reproduction of one defect. Big inputs are
//! generated here, in memory or streamed in chunks, so the tests stay fast.
#![cfg(not(target_arch = "wasm32"))]

use trajscope_core::{ingest, IngestOptions};

// The core has no clock and speed is a benchmark's job (`bench/`), so these tests check what
// the index must get right at this scale (every run kept, each line in its own run); the
// quadratic lookup they replace took minutes on the same inputs.
fn read(input: &[u8]) -> trajscope_core::Trace {
    ingest(input, IngestOptions::default())
}

#[test]
fn a_hundred_thousand_awtl_runs_are_each_kept_apart() {
    let input: String = (0..100_000)
        .map(|i| format!("{{\"type\":\"action\",\"run_id\":\"r{i}\",\"command\":\"ls\"}}\n"))
        .collect();
    let trace = read(input.as_bytes());
    assert_eq!(trace.format.name(), "awtl");
    assert_eq!(trace.trajectories.len(), 100_000);
    assert_eq!(trace.trajectories[99_999].id, "r99999");
}

#[test]
fn a_hundred_thousand_claude_code_sessions_are_each_kept_apart() {
    let input: String = (0..100_000)
        .map(|i| {
            format!(
                "{{\"type\":\"user\",\"sessionId\":\"s{i}\",\"uuid\":\"u{i}\",\
                 \"message\":{{\"role\":\"user\",\"content\":\"hi\"}}}}\n"
            )
        })
        .collect();
    let trace = read(input.as_bytes());
    assert_eq!(trace.format.name(), "claude-code");
    assert_eq!(trace.trajectories.len(), 100_000);
}

#[test]
fn fifty_thousand_otel_traces_are_each_kept_apart() {
    let input: String = (0..50_000)
        .map(|i| {
            format!(
                "{{\"resourceSpans\":[{{\"scopeSpans\":[{{\"spans\":[{{\"traceId\":\"t{i}\",\
                 \"spanId\":\"s{i}\",\"name\":\"chat\",\"startTimeUnixNano\":\"{i}\"}}]}}]}}]}}\n"
            )
        })
        .collect();
    let trace = read(input.as_bytes());
    assert_eq!(trace.format.name(), "otel");
    assert_eq!(trace.trajectories.len(), 50_000);
}

#[test]
fn fifty_thousand_langsmith_patches_find_their_runs() {
    let n = 50_000;
    let post: Vec<String> = (0..n)
        .map(|i| {
            format!(
                "{{\"id\":\"r{i}\",\"trace_id\":\"t{i}\",\"run_type\":\"llm\",\
                 \"dotted_order\":\"{i:08}\",\"inputs\":{{\"q\":\"x\"}}}}"
            )
        })
        .collect();
    let patch: Vec<String> =
        (0..n).map(|i| format!("{{\"id\":\"r{i}\",\"outputs\":{{\"a\":\"y{i}\"}}}}")).collect();
    let input = format!("{{\"post\":[{}],\"patch\":[{}]}}", post.join(","), patch.join(","));
    let trace = read(input.as_bytes());
    assert_eq!(trace.format.name(), "langsmith");
    assert_eq!(trace.trajectories.len(), n);
    assert!(trace.trajectories.iter().all(|t| t.steps.iter().any(|s| s.text.contains('y'))));
}
