//! The per-step facts of a long run worked out ahead of the analysis's pass (on another thread,
//! in the CLI: `analyze_trajectory_with`) give the analysis the pass gives alone: on every
//! fixture, on a long run whose chunks come from ahead or not in any pattern, and on arbitrary
//! event sequences.
#![cfg(not(target_arch = "wasm32"))]

mod common;
#[path = "common/events.rs"]
mod events;

use proptest::prelude::*;
use trajscope_core::attribution::triggers::{detect, detect_with, FactsChunk, FACTS_CHUNK};
use trajscope_core::attribution::{
    analyze_trajectory, analyze_trajectory_with, AnalysisOptions, TrajectoryAnalysis,
};
use trajscope_core::model::Trajectory;
use trajscope_core::{ingest, IngestOptions};

/// `t` analysed with the facts of the chunks `from_ahead` picks worked out ahead (and, for the
/// others, a chunk of another index offered, which the pass must not use).
fn with_ahead(
    t: &Trajectory,
    opts: &AnalysisOptions,
    from_ahead: impl Fn(usize) -> bool,
) -> TrajectoryAnalysis {
    let chunks = t.steps.len().div_ceil(FACTS_CHUNK);
    let mut asked = Vec::new();
    let a = analyze_trajectory_with(t, opts, &mut |c| {
        asked.push(c);
        match from_ahead(c) {
            true => Some(FactsChunk::of(&t.steps, c)),
            false => Some(FactsChunk::of(&t.steps, c + 1)),
        }
    });
    assert_eq!(asked, (0..chunks).collect::<Vec<_>>(), "each chunk asked for once, in order");
    a
}

/// The same found facts (compared through their debug form: `Found` has hash maps filled in the
/// same order) and the same analysis, whatever comes from ahead.
fn assert_same(t: &Trajectory, opts: &AnalysisOptions, name: &str) {
    let alone = analyze_trajectory(t, opts);
    let found = format!("{:?}", detect(t));
    let patterns: [&dyn Fn(usize) -> bool; 4] =
        [&|_| true, &|c| c % 2 == 1, &|c| c % 3 == 0, &|c| c > 0];
    for (p, from_ahead) in patterns.iter().enumerate() {
        let a = with_ahead(t, opts, from_ahead);
        assert!(a == alone, "{name}, trajectory {}: pattern {p} analyses differently", t.id);
        let chunks = |c| from_ahead(c).then(|| FactsChunk::of(&t.steps, c));
        let f = format!("{:?}", detect_with(t, &mut |c| chunks(c)));
        assert!(f == found, "{name}, trajectory {}: pattern {p} finds differently", t.id);
    }
}

#[test]
fn facts_from_ahead_change_no_fixture_s_analysis() {
    let opts = AnalysisOptions { assume_failed: true, ..AnalysisOptions::default() };
    let mut n = 0;
    for rel in common::source_fixtures() {
        let trace = ingest(&common::read(&rel), IngestOptions::default());
        for t in &trace.trajectories {
            assert_same(t, &opts, &rel);
            n += 1;
        }
    }
    assert!(n > 50, "only {n} trajectories in the fixtures");
}

/// Every AWTL fixture's lines again and again as one run of several chunks: failures, verdicts,
/// blockers and claims on both sides of every chunk's edge.
#[test]
fn a_long_run_analyses_the_same_whichever_chunks_come_from_ahead() {
    let mut lines = Vec::new();
    for rel in common::fixtures_in("awtl", &[]) {
        let text = String::from_utf8_lossy(&common::read(&rel)).into_owned();
        for line in text.lines() {
            if let Ok(serde_json::Value::Object(mut o)) = serde_json::from_str(line) {
                if o.get("type").and_then(|t| t.as_str()) == Some("run_end") {
                    continue;
                }
                o.insert("run_id".into(), "long".into());
                lines.push(serde_json::Value::Object(o).to_string());
            }
        }
    }
    assert!(lines.len() > 50, "only {} AWTL lines", lines.len());
    let mut input = String::new();
    let mut steps = 0;
    while steps < FACTS_CHUNK * 3 + 100 {
        for l in &lines {
            input.push_str(l);
            input.push('\n');
            steps += 1;
        }
    }
    input.push_str("{\"type\":\"run_end\",\"run_id\":\"long\",\"status\":\"failed\"}\n");
    let trace = ingest(input.as_bytes(), IngestOptions::default());
    let t = trace.trajectories.iter().max_by_key(|t| t.steps.len()).unwrap();
    assert!(t.steps.len() > FACTS_CHUNK * 3, "{} steps", t.steps.len());
    let a = analyze_trajectory(t, &AnalysisOptions::default());
    assert!(!a.triggers.is_empty() && a.critical.is_some(), "a run with failures in it");
    assert_same(t, &AnalysisOptions::default(), "the long run");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Short runs are one chunk: worked out ahead or in the pass, the same analysis.
    #[test]
    fn facts_from_ahead_change_no_analysis(
        events in prop::collection::vec(events::event(), 0..40),
        assume in any::<bool>(),
    ) {
        let input = events.join("\n");
        let trace = ingest(input.as_bytes(), IngestOptions::default());
        let opts = AnalysisOptions { assume_failed: assume, ..AnalysisOptions::default() };
        for t in &trace.trajectories {
            let alone = analyze_trajectory(t, &opts);
            let ahead = analyze_trajectory_with(t, &opts, &mut |c| Some(FactsChunk::of(&t.steps, c)));
            prop_assert!(ahead == alone);
            let found = format!("{:?}", detect(t));
            let ahead = format!("{:?}", detect_with(t, &mut |c| Some(FactsChunk::of(&t.steps, c))));
            prop_assert_eq!(ahead, found);
        }
    }
}
