//! Regression tests for the adversarial inputs of the reliability review (see
//! `docs/limits.md`): each test is built from the reproduction of one defect. Big inputs are
//! generated here, in memory or streamed in chunks, so the tests stay fast.
#![cfg(not(target_arch = "wasm32"))]

use std::time::{Duration, Instant};

use trajscope_core::{ingest, IngestOptions};

/// Generous: a linear pass takes well under a second in release and a few in debug; the
/// quadratic lookup took minutes on the same input.
const BUDGET: Duration = Duration::from_secs(60);

fn timed(input: &[u8]) -> (trajscope_core::Trace, Duration) {
    let start = Instant::now();
    let trace = ingest(input, IngestOptions::default());
    (trace, start.elapsed())
}

#[test]
fn a_hundred_thousand_awtl_runs_are_read_in_linear_time() {
    let input: String = (0..100_000)
        .map(|i| format!("{{\"type\":\"action\",\"run_id\":\"r{i}\",\"command\":\"ls\"}}\n"))
        .collect();
    let (trace, took) = timed(input.as_bytes());
    assert_eq!(trace.format.name(), "awtl");
    assert_eq!(trace.trajectories.len(), 100_000);
    assert_eq!(trace.trajectories[99_999].id, "r99999");
    assert!(took < BUDGET, "{took:?}");
}

#[test]
fn a_hundred_thousand_claude_code_sessions_are_read_in_linear_time() {
    let input: String = (0..100_000)
        .map(|i| {
            format!(
                "{{\"type\":\"user\",\"sessionId\":\"s{i}\",\"uuid\":\"u{i}\",\
                 \"message\":{{\"role\":\"user\",\"content\":\"hi\"}}}}\n"
            )
        })
        .collect();
    let (trace, took) = timed(input.as_bytes());
    assert_eq!(trace.format.name(), "claude-code");
    assert_eq!(trace.trajectories.len(), 100_000);
    assert!(took < BUDGET, "{took:?}");
}

#[test]
fn fifty_thousand_otel_traces_are_read_in_linear_time() {
    let input: String = (0..50_000)
        .map(|i| {
            format!(
                "{{\"resourceSpans\":[{{\"scopeSpans\":[{{\"spans\":[{{\"traceId\":\"t{i}\",\
                 \"spanId\":\"s{i}\",\"name\":\"chat\",\"startTimeUnixNano\":\"{i}\"}}]}}]}}]}}\n"
            )
        })
        .collect();
    let (trace, took) = timed(input.as_bytes());
    assert_eq!(trace.format.name(), "otel");
    assert_eq!(trace.trajectories.len(), 50_000);
    assert!(took < BUDGET, "{took:?}");
}

#[test]
fn fifty_thousand_langsmith_patches_find_their_runs_in_linear_time() {
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
    let (trace, took) = timed(input.as_bytes());
    assert_eq!(trace.format.name(), "langsmith");
    assert_eq!(trace.trajectories.len(), n);
    assert!(trace.trajectories.iter().all(|t| t.steps.iter().any(|s| s.text.contains('y'))));
    assert!(took < BUDGET, "{took:?}");
}
