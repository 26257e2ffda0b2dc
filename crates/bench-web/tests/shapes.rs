//! The benchmark shapes of `gen-awtl` have the run and step counts bench/README.md gives.

use std::collections::BTreeSet;

use trajscope_bench_web::awtl_gen::{generate_shape, Shape};

/// Run ids and line count of a generated shape.
fn runs_and_lines(shape: Shape) -> (BTreeSet<String>, usize) {
    let mut out = Vec::new();
    generate_shape(7, shape, &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    let mut runs = BTreeSet::new();
    let mut lines = 0;
    for l in text.lines() {
        let v: serde_json::Value = serde_json::from_str(l).unwrap();
        let id = v.get("run_id").or_else(|| v.get("runId")).and_then(|x| x.as_str());
        runs.insert(id.unwrap().to_string());
        lines += 1;
    }
    (runs, lines)
}

#[test]
fn the_named_shapes_have_their_run_and_step_counts() {
    let (runs, lines) = runs_and_lines(Shape::named("short", 0, 100).unwrap());
    assert_eq!(runs.len(), 100);
    assert!((100 * 32..=100 * 42).contains(&lines), "{lines}");
    let (runs, lines) = runs_and_lines(Shape::named("one-step", 0, 1000).unwrap());
    assert_eq!((runs.len(), lines), (100, 100));
    let (runs, lines) = runs_and_lines(Shape::named("huge-run", 0, 1000).unwrap());
    assert_eq!((runs.len(), lines), (1, 1002));
    let (_, lines) = runs_and_lines(Shape::named("long", 1, 1).unwrap());
    assert!(lines > 10);
    assert!(Shape::named("nope", 1, 1).is_none());
}
