//! Bad input is expected input: the analysis never panics on arbitrary event sequences, its
//! quotes are always verbatim, and an error fixed at once is never the critical step.
#![cfg(not(target_arch = "wasm32"))]

#[path = "common/events.rs"]
mod events;

use proptest::prelude::*;
use trajscope_core::attribution::{analyze_trajectory, AnalysisOptions, InstanceState};
use trajscope_core::{ingest, IngestOptions};

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn analysis_never_panics_and_quotes_are_verbatim(events in prop::collection::vec(events::event(), 0..40), assume in any::<bool>()) {
        let input = events.join("\n");
        let trace = ingest(input.as_bytes(), IngestOptions::default());
        let opts = AnalysisOptions { assume_failed: assume, ..AnalysisOptions::default() };
        for t in &trace.trajectories {
            let a = analyze_trajectory(t, &opts);
            for tr in &a.triggers {
                let s = &t.steps[tr.step as usize];
                prop_assert!(s.text.contains(&tr.wrong_quote) || s.args.as_deref().is_some_and(|x| x.contains(&tr.wrong_quote)));
                if let Some(r) = tr.reference_step {
                    let s = &t.steps[r as usize];
                    prop_assert!(s.text.contains(&tr.reference_quote) || s.args.as_deref().is_some_and(|x| x.contains(&tr.reference_quote)));
                }
            }
            if let Some(c) = &a.critical {
                let cand = a.candidates.iter().find(|x| x.step == c.step).unwrap();
                prop_assert!(cand.state != InstanceState::CheapResolution);
            }
            prop_assert!(a.candidates.len() <= opts.max_candidates);
        }
    }
}
