//! AWTL runs in canonical order, checked against a model written from `docs/formats.md`: a run
//! whose every step has a `writer_seq` is in `(writer_seq, arrival)` order, any other run in
//! arrival order; the steps are numbered from 0 in that order; a run without an outcome on its
//! `run_end` takes the one the last judge result (in that order) names. The lines come
//! interleaved across runs, out of `writer_seq` order, with ends and lines after an end.
#![cfg(not(target_arch = "wasm32"))]

use proptest::prelude::*;
use trajscope_core::model::Outcome;
use trajscope_core::{ingest, IngestOptions};

/// One line of the generated file: its run, type, `writer_seq` and `status`.
#[derive(Clone, Debug)]
struct Line {
    run: u8,
    kind: &'static str,
    seq: Option<u64>,
    status: Option<&'static str>,
}

impl Line {
    fn json(&self) -> String {
        let mut s = format!(r#"{{"type":"{}","run_id":"r{}","command":"ls""#, self.kind, self.run);
        if let Some(q) = self.seq {
            s += &format!(r#","writer_seq":{q}"#);
        }
        if let Some(st) = self.status {
            s += &format!(r#","status":"{st}""#);
        }
        s + "}"
    }
}

fn line() -> impl Strategy<Value = Line> {
    (
        0u8..3,
        prop_oneof![
            4 => Just("action"),
            2 => Just("observation"),
            3 => Just("judge_result"),
            1 => Just("run_end"),
        ],
        prop::option::weighted(0.85, 0u64..12),
        prop::option::of(prop_oneof![
            Just("failed"),
            Just("passed"),
            Just("OK"),
            Just("Timeout"),
            Just("pending"),
        ]),
    )
        .prop_map(|(run, kind, seq, status)| Line { run, kind, seq, status })
}

fn outcome_of(word: Option<&str>) -> Option<Outcome> {
    match word?.to_ascii_lowercase().as_str() {
        "failed" | "timeout" => Some(Outcome::Failed),
        "passed" | "ok" => Some(Outcome::Passed),
        _ => None,
    }
}

proptest! {
    #[test]
    fn each_run_comes_in_canonical_order_with_its_verdict(
        lines in prop::collection::vec(line(), 1..40)
    ) {
        let text: Vec<String> = lines.iter().map(Line::json).collect();
        let trace = ingest(text.join("\n").as_bytes(), IngestOptions::default());
        prop_assert!(trace.quarantine.is_empty(), "{:?}", trace.quarantine);
        // Runs in order of their first line.
        let mut runs: Vec<u8> = Vec::new();
        for l in &lines {
            if !runs.contains(&l.run) {
                runs.push(l.run);
            }
        }
        prop_assert_eq!(trace.trajectories.len(), runs.len());
        for (t, run) in trace.trajectories.iter().zip(&runs) {
            prop_assert_eq!(&t.id, &format!("r{run}"));
            // (arrival, line) of the run's lines, in canonical order.
            let mut mine: Vec<(usize, &Line)> =
                lines.iter().enumerate().filter(|(_, l)| l.run == *run).collect();
            if mine.iter().all(|(_, l)| l.seq.is_some()) {
                mine.sort_by_key(|(n, l)| (l.seq, *n));
            }
            let got: Vec<u32> = t.steps.iter().map(|s| s.loc.line).collect();
            let want: Vec<u32> = mine.iter().map(|(n, _)| *n as u32 + 1).collect();
            prop_assert_eq!(got, want);
            for (i, s) in t.steps.iter().enumerate() {
                prop_assert_eq!(s.index as usize, i);
            }
            // The last `run_end` read that names an outcome, else the last judge result.
            let last_end_read = lines
                .iter()
                .filter(|l| l.run == *run && l.kind == "run_end")
                .filter_map(|l| outcome_of(l.status))
                .next_back();
            let judged = mine
                .iter()
                .rev()
                .filter(|(_, l)| l.kind == "judge_result")
                .find_map(|(_, l)| outcome_of(l.status));
            let want = last_end_read.or(judged).unwrap_or(Outcome::Unknown);
            prop_assert_eq!(t.outcome, want);
        }
    }
}
