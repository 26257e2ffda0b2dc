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

/// The wasm build's own decimal reader (`num::parse_f64`, without the standard parser's table)
/// reads every text as `str::parse::<f64>` does, in the browser too.
#[wasm_bindgen_test]
fn decimal_numbers_read_as_str_parse_does_in_the_browser() {
    let same = |s: &str| {
        let want = s.parse::<f64>().ok();
        let got = trajscope_core::num::parse_f64(s);
        assert_eq!(want.map(f64::to_bits), got.map(f64::to_bits), "{s}");
    };
    for s in [
        "",
        "-",
        ".",
        "1e",
        "inf",
        "-Infinity",
        "0",
        "-0",
        "1.",
        ".5",
        "0.1",
        "1767225600.123",
        "9007199254740993",
        "2.2250738585072011e-308",
        "2.4703282292062328e-324",
        "1.7976931348623158e308",
        "1.7976931348623159e308",
        "1e-400",
        "123456789012345678901e-5",
    ] {
        same(s);
    }
    // Doubles spread over the whole range (xorshift bits), shortest and at 40 digits, and
    // the 40 digits cut short: near halfway points.
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    for _ in 0..3000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let v = f64::from_bits(x);
        if !v.is_finite() {
            continue;
        }
        same(&format!("{v:e}"));
        let long = format!("{v:.40e}");
        same(&long);
        let (m, e) = long.split_once('e').unwrap();
        same(&format!("{}e{e}", &m[..(x % 20) as usize + 3]));
    }
}

#[wasm_bindgen_test]
fn the_web_build_aligns_runs_with_its_own_exact_myers() {
    use trajscope_core::diff::{align_keys, PairKind};
    // A shortest alignment: 3 of the 5 keys agree, in order.
    let pairs = align_keys(&[1, 2, 3, 4, 5], &[2, 9, 3, 5, 7]);
    let equal: Vec<(Option<u32>, Option<u32>)> =
        pairs.iter().filter(|p| p.kind == PairKind::Equal).map(|p| (p.left, p.right)).collect();
    assert_eq!(equal, [(Some(1), Some(0)), (Some(2), Some(2)), (Some(4), Some(3))]);
    let sides = pairs.iter().fold((0, 0), |(l, r), p| {
        (l + usize::from(p.left.is_some()), r + usize::from(p.right.is_some()))
    });
    assert_eq!(sides, (5, 5), "every step in one row");
}

#[wasm_bindgen_test]
fn the_web_build_reads_a_struct_from_a_json_object_only() {
    use trajscope_core::diff::Divergence;
    // The bundle's serde_json (vendor/serde_json/README.trajscope.md): no struct from an array.
    let d: Divergence =
        serde_json::from_str(r#"{"pair":2,"left_step":1,"right_step":null}"#).unwrap();
    assert_eq!((d.pair, d.left_step, d.right_step), (2, Some(1), None));
    assert!(serde_json::from_str::<Divergence>("[2,1,null]").is_err());
    let v = serde_json::json!([2, 1, null]);
    assert!(serde_json::from_value::<Divergence>(v).is_err());
}

/// The web build has no smolagents reader (docs/formats.md, "smolagents memory"): a memory's
/// steps are read by the generic fallback, one step each, nothing quarantined.
#[wasm_bindgen_test]
fn a_smolagents_memory_is_read_as_generic_json_in_the_browser() {
    let memory = include_bytes!("../../../tests/fixtures/smolagents/code_agent_memory.json");
    let trace = ingest(memory, IngestOptions::default());
    assert_eq!(trace.format, Format::Generic);
    assert_eq!(trace.stats.lines_quarantined, 0);
    assert_eq!(trace.trajectories.len(), 1);
    assert_eq!(trace.trajectories[0].steps.len(), 5);
}
