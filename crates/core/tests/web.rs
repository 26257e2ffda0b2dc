//! The core running in a real browser (headless Chromium, via wasm-bindgen-test).
#![cfg(target_arch = "wasm32")]

use trajscope_core::{ingest, Format, IngestOptions, Ingestor};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const SAMPLE: &[u8] = include_bytes!("../../../web/samples/sample.awtl.jsonl");

#[wasm_bindgen_test]
fn ingests_the_bundled_sample_in_the_browser() {
    let trace = ingest(SAMPLE, IngestOptions::default());
    assert_eq!(trace.format, Format::Awtl);
    assert_eq!(trace.stats.lines_quarantined, 1);
    assert_eq!(trace.quarantine[0].line, 10);
    assert_eq!(trace.trajectories.len(), 1);
    assert_eq!(trace.trajectories[0].steps.len(), 12);
}

#[wasm_bindgen_test]
fn chunked_feeding_gives_the_same_trace_in_the_browser() {
    let whole = ingest(SAMPLE, IngestOptions::default());
    let mut ingestor = Ingestor::new(IngestOptions::default());
    for chunk in SAMPLE.chunks(7) {
        ingestor.feed(chunk);
    }
    assert_eq!(ingestor.finish(), whole);
}
