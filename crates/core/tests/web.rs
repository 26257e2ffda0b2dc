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

#[wasm_bindgen_test]
fn document_formats_and_an_eval_archive_ingest_in_the_browser() {
    let eval = include_bytes!("../../../tests/fixtures/inspect/browser.eval");
    let trace = ingest(eval, IngestOptions::default());
    assert_eq!((trace.format, trace.error.as_deref()), (Format::Inspect, None));
    assert_eq!(trace.trajectories[0].steps.len(), 11);
    let item = include_bytes!("../../../tests/fixtures/who_and_when/hc_6.json");
    let mut ingestor = Ingestor::new(IngestOptions::default());
    for chunk in item.chunks(1000) {
        ingestor.feed(chunk);
    }
    let trace = ingestor.finish();
    assert_eq!(trace.format, Format::WhoAndWhen);
    assert_eq!(trace.trajectories[0].gold.as_ref().and_then(|g| g.step), Some(5));
}
