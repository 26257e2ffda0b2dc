//! Labels (docs/learning-loop.md): content hash, the three exports (golden files), import of our exports and
//! of real benchmark item files, bad lines reported, and agreement figures checked against
//! textbook and hand-computed examples.
#![cfg(not(target_arch = "wasm32"))]

use expect_test::expect_file;
use proptest::prelude::*;
use trajscope_core::labels::{
    self, agreement, content_hash, import, to_jsonl, to_trajerrbench_jsonl, to_who_and_when_jsonl,
    ContentHasher, ImportOptions, Label, LabelStyle,
};
use trajscope_core::model::Outcome;
use trajscope_core::record::{Category, Phase};

const WHO_AND_WHEN_ITEM: &[u8] =
    include_bytes!("../../../tests/fixtures/labels/who_and_when_ag_1.json");
const TRAJERRBENCH_RECORD: &[u8] =
    include_bytes!("../../../tests/fixtures/labels/trajerrbench_airline_303997d3.json");

fn step_label(item: &str, annotator: &str, step: Option<u32>) -> Label {
    let mut l = Label::new("sha256:feed", item);
    l.critical_step = step;
    l.annotator = annotator.to_string();
    l
}

const EMPTY_SHA256: &str =
    "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

#[test]
fn content_hash_is_sha256_and_independent_of_chunking() {
    assert_eq!(content_hash(b""), EMPTY_SHA256);
    assert_eq!(
        content_hash(b"abc"),
        "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
    let data: Vec<u8> = (0..10_000u32).map(|i| (i * 7 % 251) as u8).collect();
    let whole = content_hash(&data);
    for size in [1, 63, 64, 65, 4096] {
        let mut h = ContentHasher::new();
        for chunk in data.chunks(size) {
            h.update(chunk);
        }
        assert_eq!(h.finish(), whole, "chunk size {size}");
    }
}

fn two_labels() -> Vec<Label> {
    let mut a = Label::new("sha256:0123", "run-1");
    a.critical_step = Some(12);
    a.responsible_agent = Some("WebSurfer".into());
    a.category = Some(Category::HistoryConflict);
    a.phase = Some(Phase::Action);
    a.rationale = "Clicked an irrelevant \"result\"; the task said\nNYSE.".into();
    a.annotator = "ana".into();
    a.time = "2026-11-29T23:50:00Z".into();
    a.outcome = Outcome::Failed;
    let mut b = Label::new("sha256:0123", "run-2");
    b.phase = Some(Phase::Verification);
    b.annotator = "ana".into();
    b.time = "2026-11-29T23:51:00Z".into();
    vec![a, b]
}

#[test]
fn exports_match_their_golden_files() {
    let labels = two_labels();
    expect_file!["../../../tests/fixtures/labels/labels.expected.jsonl"]
        .assert_eq(&to_jsonl(&labels));
    expect_file!["../../../tests/fixtures/labels/who_and_when.expected.jsonl"]
        .assert_eq(&to_who_and_when_jsonl(&labels));
    expect_file!["../../../tests/fixtures/labels/trajerrbench.expected.jsonl"]
        .assert_eq(&to_trajerrbench_jsonl(&labels));
}

#[test]
fn the_benchmark_fields_have_the_benchmark_names_and_types() {
    let labels = two_labels();
    let ww: serde_json::Value =
        serde_json::from_str(to_who_and_when_jsonl(&labels).lines().next().unwrap()).unwrap();
    assert_eq!(ww["mistake_step"], "12", "Who&When writes the step as a string");
    assert_eq!(ww["mistake_agent"], "WebSurfer");
    assert_eq!(ww["mistake_reason"], labels[0].rationale.as_str());
    let tb: Vec<serde_json::Value> =
        to_trajerrbench_jsonl(&labels).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(tb[0]["metadata"]["annotation"]["critical_error_step"], 12);
    assert_eq!(tb[0]["metadata"]["annotation"]["critical_error_type"], "act.HistoryConflict");
    assert!(tb[1]["metadata"]["annotation"]["critical_error_step"].is_null());
    assert_eq!(tb[1]["metadata"]["annotation"]["critical_error_type"], "verify");
}

#[test]
fn every_export_imports_back_to_the_same_labels() {
    let labels = two_labels();
    let opts = ImportOptions { default_annotator: "file".into(), file_hash: String::new() };
    for (text, style) in [
        (to_jsonl(&labels), LabelStyle::Labels),
        (to_who_and_when_jsonl(&labels), LabelStyle::WhoAndWhen),
        (to_trajerrbench_jsonl(&labels), LabelStyle::Trajerrbench),
    ] {
        let got = import(text.as_bytes(), &opts);
        assert_eq!(got.problems, vec![], "{style:?}");
        assert_eq!(got.styles, vec![style]);
        assert_eq!(got.labels, labels, "{style:?}");
    }
    // A JSON array of records reads the same as JSONL.
    let array = format!("[{}]", to_jsonl(&labels).trim_end().replace('\n', ","));
    assert_eq!(import(array.as_bytes(), &opts).labels, labels);
}

#[test]
fn a_who_and_when_item_file_imports_as_one_label_identified_by_the_file() {
    let bytes = WHO_AND_WHEN_ITEM;
    let opts =
        ImportOptions { default_annotator: "who&when".into(), file_hash: content_hash(bytes) };
    let got = import(bytes, &opts);
    assert_eq!(got.problems, vec![]);
    assert_eq!(got.styles, vec![LabelStyle::WhoAndWhen]);
    let [l] = got.labels.as_slice() else { panic!("one label: {:?}", got.labels) };
    assert_eq!(l.critical_step, Some(0));
    assert_eq!(l.responsible_agent.as_deref(), Some("Excel_Expert"));
    assert!(l.rationale.starts_with("The code failed to handle edge cases"));
    assert_eq!(l.trajectory_id, "4d51c4bf-4b0e-4f3d-897b-3f6687a7d9f2", "question_ID");
    assert_eq!(l.content_hash, content_hash(bytes));
    assert_eq!(l.annotator, "who&when");
    assert_eq!(l.outcome, Outcome::Failed, "the item's `is_correct: false`");
    // Written as text (`str(False)`), `is_correct` reads the same, in any case.
    for (text, outcome) in [("\"False\"", Outcome::Failed), ("\"TRUE\"", Outcome::Passed)] {
        let item = std::str::from_utf8(bytes).unwrap().replacen(
            "\"is_correct\": false",
            &format!("\"is_correct\": {text}"),
            1,
        );
        assert_ne!(item.as_bytes(), bytes, "the item holds `\"is_correct\": false`");
        let got = import(item.as_bytes(), &opts);
        assert_eq!(got.labels[0].outcome, outcome, "{text}");
    }
}

#[test]
fn every_export_carries_the_outcome_and_old_label_files_read_as_unknown() {
    let labels = two_labels();
    let first = |text: String| -> serde_json::Value {
        serde_json::from_str(text.lines().next().unwrap()).unwrap()
    };
    assert_eq!(first(to_jsonl(&labels))["outcome"], "failed");
    assert_eq!(first(to_who_and_when_jsonl(&labels))["outcome"], "failed");
    assert_eq!(first(to_trajerrbench_jsonl(&labels))["metadata"]["extra"]["outcome"], "failed");
    let second: serde_json::Value =
        serde_json::from_str(to_jsonl(&labels).lines().nth(1).unwrap()).unwrap();
    assert_eq!(second["outcome"], "unknown");
    // A line written before labels had an outcome (each style): read, outcome unknown.
    let old = concat!(
        r#"{"schema_version":1,"content_hash":"sha256:0123","trajectory_id":"run-1","#,
        r#""critical_step":3,"rationale":"","annotator":"ana","time":""}"#,
        "\n",
        r#"{"content_hash":"sha256:0123","trajectory_id":"run-2","mistake_step":"4","#,
        r#""mistake_agent":"A","mistake_reason":"","annotator":"bo","time":""}"#,
        "\n",
        r#"{"content_hash":"sha256:0123","trajectory_id":"run-3","metadata":{"task_id":"run-3","#,
        r#""annotation":{"critical_error_step":5,"critical_error_type":null,"human_rationale":""},"#,
        r#""extra":{"annotator":"cy","time":""}}}"#,
        "\n",
    );
    let got = import(old.as_bytes(), &ImportOptions::default());
    assert_eq!(got.problems, vec![]);
    let steps: Vec<(Option<u32>, Outcome)> =
        got.labels.iter().map(|l| (l.critical_step, l.outcome)).collect();
    assert_eq!(
        steps,
        vec![(Some(3), Outcome::Unknown), (Some(4), Outcome::Unknown), (Some(5), Outcome::Unknown)]
    );
    // A stated outcome that is not one of the three words is not guessed at.
    let odd = r#"{"mistake_step":"1","outcome":"meh"}"#;
    assert_eq!(
        import(odd.as_bytes(), &ImportOptions::default()).labels[0].outcome,
        Outcome::Unknown
    );
}

#[test]
fn a_trajerrbench_record_imports_its_annotation_and_each_human_labeler() {
    let bytes = TRAJERRBENCH_RECORD;
    let opts = ImportOptions { default_annotator: "final".into(), file_hash: content_hash(bytes) };
    let got = import(bytes, &opts);
    assert_eq!(got.problems, vec![]);
    type Row<'a> = (&'a str, Option<u32>, Option<Phase>, Option<Category>);
    let summary: Vec<Row> = got
        .labels
        .iter()
        .map(|l| (l.annotator.as_str(), l.critical_step, l.phase, l.category))
        .collect();
    // `reason.MissingAssumptionCheck`: the module is our reasoning phase; the subtype is not one
    // of our four categories and is not guessed at.
    let r = Some(Phase::Reasoning);
    assert_eq!(
        summary,
        vec![
            ("final", Some(7), r, None),
            ("KC-周云星", Some(7), r, None),
            ("KC-姚讯怡", Some(7), r, None),
            ("KC-杨船", Some(7), r, None),
        ]
    );
    assert!(got.labels.iter().all(
        |l| l.trajectory_id == "airline_failed_qwen3-max::303997d3-6427-41a9-8ef8-33b0093e6628"
    ));
    // `metadata.reward` "0": the run failed, for the record's label and each labeler's.
    assert!(got.labels.iter().all(|l| l.outcome == Outcome::Failed));
    // Four raters, all on step 7: full agreement, and kappa is undefined (chance agreement is 1).
    let a = agreement(&got.labels);
    assert_eq!((a.items_compared, a.exact, a.within_one), (1, Some(1.0), Some(1.0)));
    assert_eq!(a.fleiss_kappa, None);
    assert!(a.disagreements.is_empty());
}

#[test]
fn a_blank_step_is_no_step_a_numeric_id_is_its_digits_and_an_arrays_records_count_from_one() {
    let lines = b"{\"mistake_step\":\"  \",\"mistake_agent\":\"A\",\"question_ID\":7}\n";
    let got = import(lines, &ImportOptions::default());
    assert_eq!(got.problems, vec![]);
    let [l] = got.labels.as_slice() else { panic!("one label: {:?}", got.labels) };
    assert_eq!(l.critical_step, None, "a blank step is no critical step, not an error");
    assert_eq!(l.trajectory_id, "7", "a numeric id reads as its digits");
    // A whole-file array: its elements are records 1, 2, ... in the problems.
    let array = b"[{\"mistake_step\":\"1\"},{\"mistake_step\":\"x\"},{\"hello\":1}]";
    let got = import(array, &ImportOptions::default());
    assert_eq!(got.labels.len(), 1);
    assert_eq!(got.problems.iter().map(|p| p.line).collect::<Vec<_>>(), vec![2, 3]);
}

#[test]
fn bad_lines_are_reported_with_their_line_numbers_and_the_rest_is_read() {
    let good = to_jsonl(&two_labels()[..1]);
    let input = format!(
        "{good}{{\"critical_step\": \n\n[1,2]\n{{\"mistake_step\":\"twelve\"}}\n{{\"mistake_step\":-3}}\n\
         {{\"hello\":1}}\n{{\"metadata\":{{}}}}\n{{\"mistake_step\":\"4\",\"mistake_agent\":\"Orchestrator\"}}\r\n"
    );
    let mut input = input.into_bytes();
    input.extend_from_slice(b"\xff\n");
    let got = import(&input, &ImportOptions::default());
    assert_eq!(got.labels.len(), 2);
    assert_eq!(got.labels[1].critical_step, Some(4));
    assert_eq!(got.labels[1].responsible_agent.as_deref(), Some("Orchestrator"));
    let lines: Vec<u32> = got.problems.iter().map(|p| p.line).collect();
    assert_eq!(lines, vec![2, 4, 5, 6, 7, 8, 10]);
    assert!(
        got.problems[2].reason.contains("mistake_step is not a step index"),
        "{:?}",
        got.problems
    );
    assert!(got.problems[4].reason.starts_with("not a label"), "{:?}", got.problems);
}

#[test]
fn fleiss_kappa_matches_the_textbook_example() {
    // Fleiss (1971) as tabulated on Wikipedia's "Fleiss' kappa" page: 10 subjects, 14 raters,
    // 5 categories; P̄ = 0.378, P̄e = 0.213, κ = 0.210. Categories become steps 1..=5.
    let table = [
        [0, 0, 0, 0, 14],
        [0, 2, 6, 4, 2],
        [0, 0, 3, 5, 6],
        [0, 3, 9, 2, 0],
        [2, 2, 8, 1, 1],
        [7, 7, 0, 0, 0],
        [3, 2, 6, 3, 0],
        [2, 5, 3, 2, 2],
        [6, 5, 2, 1, 0],
        [0, 2, 2, 3, 7],
    ];
    let mut labels = Vec::new();
    for (i, row) in table.iter().enumerate() {
        let mut rater = 0;
        for (cat, &count) in row.iter().enumerate() {
            for _ in 0..count {
                labels.push(step_label(
                    &format!("t{i}"),
                    &format!("r{rater:02}"),
                    Some(cat as u32 + 1),
                ));
                rater += 1;
            }
        }
    }
    let a = agreement(&labels);
    assert_eq!(a.annotators.len(), 14);
    assert_eq!(a.items_compared, 10);
    let k = a.fleiss_kappa.expect("defined");
    assert!((k - 0.209_930_704_421_955_2).abs() < 1e-12, "{k}");
    assert_eq!(a.cohen_kappa, None, "Cohen's kappa is for two annotators");
    assert_eq!(a.pairs.len(), 14 * 13 / 2);
    // Only subject 1 (all fourteen on category 5) is an exact agreement.
    assert_eq!(a.exact, Some(0.1));
    assert_eq!(a.disagreements.len(), 9);

    // Undefined, not a number, for fewer than two raters or rows of unequal length.
    use trajscope_core::labels::agreement::fleiss_kappa;
    assert_eq!(fleiss_kappa(&[]), None);
    assert_eq!(fleiss_kappa(&[vec![Some(1)], vec![Some(2)]]), None, "one rater");
    assert_eq!(fleiss_kappa(&[vec![Some(1), Some(1)], vec![Some(2)]]), None, "unequal rows");
    assert!(fleiss_kappa(&[vec![Some(1), Some(1)], vec![Some(2), Some(3)]]).is_some());
}

#[test]
fn cohen_kappa_matches_the_textbook_example() {
    // Wikipedia's "Cohen's kappa" example: 50 proposals, yes/yes 20, yes/no 5, no/yes 10,
    // no/no 15: p_o = 0.7, p_e = 0.5, κ = 0.4. "yes" is step 1 and "no" step 2.
    let mut labels = Vec::new();
    let cells = [(1, 1, 20), (1, 2, 5), (2, 1, 10), (2, 2, 15)];
    let mut i = 0;
    for (a, b, n) in cells {
        for _ in 0..n {
            labels.push(step_label(&format!("p{i}"), "A", Some(a)));
            labels.push(step_label(&format!("p{i}"), "B", Some(b)));
            i += 1;
        }
    }
    let a = agreement(&labels);
    let k = a.cohen_kappa.expect("defined");
    assert!((k - 0.4).abs() < 1e-12, "{k}");
    assert_eq!(a.exact, Some(0.7));
    // Steps 1 and 2 are neighbours: every pair is within one step.
    assert_eq!(a.within_one, Some(1.0));
    assert_eq!(a.disagreements.len(), 15);
    assert!(a.disagreements.iter().all(|d| d.spread == Some(1)));
    // With two raters Fleiss' kappa differs from Cohen's only in chance agreement, from pooled
    // marginals: "yes" 55 of 100 answers, p_e = 0.55² + 0.45² = 0.505, κ = 0.195/0.495 = 13/33.
    assert!((a.fleiss_kappa.unwrap() - 13.0 / 33.0).abs() < 1e-12);
}

#[test]
fn three_annotators_partial_coverage_and_relabelling() {
    // Hand-computed: A, B, C on items t1..t4; C skipped t4; A relabelled t2 (7 → 5).
    let mut labels = vec![
        step_label("t1", "A", Some(3)),
        step_label("t1", "B", Some(3)),
        step_label("t1", "C", Some(3)),
        step_label("t2", "A", Some(7)),
        step_label("t2", "B", Some(6)),
        step_label("t2", "C", Some(5)),
        step_label("t3", "A", Some(2)),
        step_label("t3", "B", Some(9)),
        step_label("t3", "C", None),
        step_label("t4", "A", Some(1)),
        step_label("t4", "B", Some(1)),
    ];
    labels[3].time = "2026-11-29T10:00:00Z".into();
    let mut relabel = step_label("t2", "A", Some(5));
    relabel.time = "2026-11-29T11:00:00Z".into();
    labels.push(relabel);

    let a = agreement(&labels);
    assert_eq!(a.annotators, vec!["A", "B", "C"]);
    assert_eq!((a.items_labelled, a.items_compared), (4, 3));
    assert_eq!(a.exact, Some(1.0 / 3.0));
    assert_eq!(a.within_one, Some(2.0 / 3.0));
    // Rows [3,3,3], [5,6,5], [2,9,none]: P̄ = (1 + 1/3 + 0)/3 = 4/9; pooled shares 3/9, 2/9 and
    // four of 1/9 give P̄e = 17/81; κ = (4/9 − 17/81)/(1 − 17/81) = 19/64.
    assert!((a.fleiss_kappa.unwrap() - 19.0 / 64.0).abs() < 1e-12);
    assert_eq!(a.cohen_kappa, None);
    // A–B over t1..t4: (3,3) (5,6) (2,9) (1,1): p_o = 1/2, p_e = 2 × 1/16, κ = 3/7.
    let ab = &a.pairs[0];
    assert_eq!((ab.a.as_str(), ab.b.as_str(), ab.items), ("A", "B", 4));
    assert_eq!((ab.exact, ab.within_one), (Some(0.5), Some(0.75)));
    assert!((ab.cohen_kappa.unwrap() - 3.0 / 7.0).abs() < 1e-12);
    // A–C over t1..t3 (C skipped t4): (3,3) (5,5) (2,none).
    let ac = &a.pairs[1];
    assert_eq!((ac.a.as_str(), ac.b.as_str(), ac.items), ("A", "C", 3));
    assert_eq!((ac.exact, ac.within_one), (Some(2.0 / 3.0), Some(2.0 / 3.0)));
    assert_eq!((a.agent_items, a.agent_exact), (0, None), "no agents named");
    let items: Vec<(&str, Option<u32>)> =
        a.disagreements.iter().map(|d| (d.item.trajectory_id.as_str(), d.spread)).collect();
    assert_eq!(items, vec![("t2", Some(1)), ("t3", None)]);
    let t3: Vec<Option<u32>> = a.disagreements[1].answers.iter().map(|x| x.critical_step).collect();
    assert_eq!(t3, vec![Some(2), Some(9), None]);
}

#[test]
fn an_annotators_latest_label_counts_in_whatever_order_the_labels_come() {
    let at = |step: u32, time: &str| {
        let mut l = step_label("t1", "A", Some(step));
        l.time = time.into();
        l
    };
    let answer_of_a = |labels: &[Label]| {
        let mut with_b = labels.to_vec();
        with_b.push(step_label("t1", "B", Some(9)));
        let a = agreement(&with_b);
        a.disagreements[0].answers[0].critical_step
    };
    // The newer label first, the older after it: the newer still counts.
    let newer_first = [at(5, "2026-11-29T11:00:00Z"), at(7, "2026-11-29T10:00:00Z")];
    assert_eq!(answer_of_a(&newer_first), Some(5));
    let older_first = [at(7, "2026-11-29T10:00:00Z"), at(5, "2026-11-29T11:00:00Z")];
    assert_eq!(answer_of_a(&older_first), Some(5));
    // At the same time, the one read last.
    let same = [at(7, "2026-11-29T10:00:00Z"), at(5, "2026-11-29T10:00:00Z")];
    assert_eq!(answer_of_a(&same), Some(5));
}

#[test]
fn one_annotator_gives_no_agreement_figures() {
    let a = agreement(&[step_label("t1", "solo", Some(1))]);
    assert_eq!((a.items_compared, a.exact, a.fleiss_kappa, a.cohen_kappa), (0, None, None, None));
    assert!(a.pairs.is_empty());
}

#[test]
fn category_and_phase_names_parse_in_every_spelling_used() {
    assert_eq!(labels::parse_category("Intra-Step Conflict"), Some(Category::IntraStepConflict));
    assert_eq!(labels::parse_category("environment_anomaly"), Some(Category::EnvironmentAnomaly));
    assert_eq!(labels::parse_category("TaskConflict"), Some(Category::TaskConflict));
    assert_eq!(labels::parse_category("MissingAssumptionCheck"), None);
    assert_eq!(labels::parse_phase("obs"), Some(Phase::Observation));
    assert_eq!(labels::parse_phase("Verification"), Some(Phase::Verification));
    assert_eq!(labels::parse_phase("thinking"), None);
}

fn arb_label() -> impl Strategy<Value = Label> {
    (
        "[a-z0-9:]{0,12}",
        "\\PC{0,12}",
        proptest::option::of(0u32..100_000),
        proptest::option::of("\\PC{1,10}"),
        proptest::option::of(proptest::sample::select(Category::ALL.to_vec())),
        proptest::option::of(proptest::sample::select(Phase::ALL.to_vec())),
        "(\\PC|\n|\r|\t){0,40}",
        "\\PC{1,10}",
        "[0-9TZ:-]{0,20}",
    )
        .prop_map(|(h, t, s, agent, c, p, r, ann, time)| {
            let mut l = Label::new(&h, &t);
            l.critical_step = s;
            l.responsible_agent = agent.filter(|a| !a.trim().is_empty());
            l.category = c;
            l.phase = p;
            l.rationale = r;
            l.annotator = ann;
            l.time = time;
            l
        })
        // An empty hash is filled from the imported file, and an all-blank annotator from the
        // default: leave those cases to the tests above.
        .prop_filter("identity given", |l| !l.content_hash.is_empty() && !l.annotator.is_empty())
}

proptest! {
    #[test]
    fn exports_round_trip_arbitrary_labels(labels in proptest::collection::vec(arb_label(), 0..6)) {
        let opts = ImportOptions::default();
        for text in [to_jsonl(&labels), to_who_and_when_jsonl(&labels), to_trajerrbench_jsonl(&labels)] {
            let got = import(text.as_bytes(), &opts);
            prop_assert!(got.problems.is_empty(), "{:?}", got.problems);
            prop_assert_eq!(&got.labels, &labels);
        }
    }

    #[test]
    fn import_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        let got = import(&bytes, &ImportOptions::default());
        let _ = agreement(&got.labels);
    }

    #[test]
    fn kappas_stay_in_range(rows in proptest::collection::vec(proptest::collection::vec(proptest::option::of(0u32..4), 3), 1..12)) {
        let mut labels = Vec::new();
        for (i, row) in rows.iter().enumerate() {
            for (r, s) in row.iter().enumerate() {
                labels.push(step_label(&format!("t{i}"), &format!("r{r}"), *s));
            }
        }
        let a = agreement(&labels);
        if let Some(k) = a.fleiss_kappa { prop_assert!((-1.0..=1.0 + 1e-12).contains(&k), "{}", k); }
        for p in &a.pairs {
            if let Some(k) = p.cohen_kappa { prop_assert!((-1.0..=1.0 + 1e-12).contains(&k), "{}", k); }
        }
    }
}

#[test]
fn two_annotator_fixture_files_agree_as_computed() {
    // The files the end-to-end test imports: ana (labels JSONL) and ben (Who&When-style, one
    // truncated line). Items: run-demo-7 5/6, run-x 3/3, run-y 10/2, run-z none/none.
    let a = include_bytes!("../../../tests/fixtures/labels/annotator_a.jsonl");
    let b = include_bytes!("../../../tests/fixtures/labels/annotator_b.jsonl");
    let ia = import(a, &ImportOptions::default());
    let ib = import(b, &ImportOptions::default());
    assert_eq!((ia.labels.len(), ia.problems.len()), (4, 0));
    assert_eq!(ib.labels.len(), 4);
    assert_eq!(ib.problems.len(), 1);
    assert_eq!(ib.problems[0].line, 3);
    assert!(
        ib.problems[0].reason.starts_with("not valid JSON (EOF while parsing"),
        "{:?}",
        ib.problems
    );
    let all: Vec<Label> = ia.labels.into_iter().chain(ib.labels).collect();
    let g = agreement(&all);
    assert_eq!(g.annotators, vec!["ana", "ben"]);
    assert_eq!((g.items_compared, g.exact, g.within_one), (4, Some(0.5), Some(0.75)));
    // Cohen: p_o = 1/2; each rater spreads 1/4 over four answers, shared answers 3 and none:
    // p_e = 2/16, κ = (1/2 − 1/8)/(7/8) = 3/7.
    assert!((g.cohen_kappa.unwrap() - 3.0 / 7.0).abs() < 1e-12);
    // Fleiss: P̄ = 1/2; pooled shares 1,1,2,1,1,2 of 8: P̄e = 12/64; κ = (1/2 − 3/16)/(13/16) = 5/13.
    assert!((g.fleiss_kappa.unwrap() - 5.0 / 13.0).abs() < 1e-12);
    let ids: Vec<&str> = g.disagreements.iter().map(|d| d.item.trajectory_id.as_str()).collect();
    assert_eq!(ids, vec!["run-demo-7", "run-y"]);
    // Only run-demo-7 has an agent from both ("coder" and "coder").
    assert_eq!((g.agent_items, g.agent_exact), (1, Some(1.0)));
}

#[test]
fn agent_agreement_ignores_case_and_needs_every_annotator_to_name_one() {
    let mut labels = Vec::new();
    for (item, a, b) in [
        ("t1", Some("WebSurfer"), Some("websurfer ")),
        ("t2", Some("Orchestrator"), Some("WebSurfer")),
        ("t3", Some("Orchestrator"), None),
    ] {
        let mut x = step_label(item, "A", Some(1));
        x.responsible_agent = a.map(str::to_string);
        let mut y = step_label(item, "B", Some(1));
        y.responsible_agent = b.map(str::to_string);
        labels.extend([x, y]);
    }
    let g = agreement(&labels);
    assert_eq!((g.agent_items, g.agent_exact), (2, Some(0.5)));
}
