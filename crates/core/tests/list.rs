//! A file that is one JSON list of chat records is read element by element: each record is a
//! trajectory as soon as its element ends (handed over early, as a JSONL record is), a damaged
//! element costs only itself, and every line stays accounted.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use proptest::prelude::*;
use trajscope_core::ingest::formats::chat;
use trajscope_core::ingest::limits::Limits;
use trajscope_core::{ingest, IngestOptions, Ingestor, Trace};

fn record(id: usize, words: &str) -> serde_json::Value {
    serde_json::json!({
        "id": format!("conv-{id}"),
        "messages": [
            {"role": "user", "content": format!("task {id}: {words} \"quoted\" [brackets] {{braces}} \\ end")},
            {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function",
                "function": {"name": "shell", "arguments": "{\"cmd\": \"ls ]\"}"}}]},
            {"role": "tool", "tool_call_id": "c1", "content": "a.txt\nb.txt"},
            {"role": "assistant", "content": format!("done with {id}")}
        ],
        "resolved": id % 2 == 0
    })
}

fn assert_accounting(input: &[u8], trace: &Trace) {
    let s = &trace.stats;
    assert_eq!(s.lines_total, s.lines_parsed + s.lines_blank + s.lines_quarantined, "{s:?}");
    assert_eq!(s.lines_quarantined as usize, trace.quarantine.len());
    let lines: Vec<&[u8]> = input.split(|b| *b == b'\n').collect();
    for q in &trace.quarantine {
        let i = (q.line - 1) as usize;
        // A `\r` before a `\n` ends the line; a last line keeps its final `\r`.
        let line = match i + 1 < lines.len() {
            true => lines[i].strip_suffix(b"\r").unwrap_or(lines[i]),
            false => lines[i],
        };
        assert_eq!(q.raw, line, "line {}: {}", q.line, q.reason);
    }
}

/// The trajectories the whole document gives when parsed at once, without the position of
/// their element (which only the element-by-element reading knows).
fn whole_document(input: &str) -> Vec<trajscope_core::model::Trajectory> {
    chat::from_document(serde_json::from_str(input).unwrap()).unwrap()
}

fn without_lines(
    mut ts: Vec<trajscope_core::model::Trajectory>,
) -> Vec<trajscope_core::model::Trajectory> {
    for t in &mut ts {
        for s in &mut t.steps {
            s.loc.line = 0;
            s.loc.offset = 0;
        }
    }
    ts
}

#[test]
fn each_record_of_a_list_settles_as_its_element_ends() {
    let records: Vec<_> = (0..4).map(|i| record(i, "find the file")).collect();
    for (layout, input) in [
        ("one line", serde_json::to_string(&records).unwrap()),
        ("pretty", serde_json::to_string_pretty(&records).unwrap()),
    ] {
        let second_end = {
            // The byte after the second record's closing brace.
            let mut ingestor = Ingestor::new(IngestOptions::default());
            let bytes = input.as_bytes();
            let (mut at, mut out) = (0, 0);
            while out < 2 && at < bytes.len() {
                // Fed a byte at a time until two records are out: none may come out sooner.
                ingestor.feed(&bytes[at..at + 1]);
                at += 1;
                out += ingestor.take_settled().len();
            }
            assert_eq!(out, 2);
            at
        };
        let mut ingestor = Ingestor::new(IngestOptions::default());
        ingestor.feed(&input.as_bytes()[..second_end]);
        let settled = ingestor.take_settled();
        let ids: Vec<&str> = settled.iter().map(|s| s.trajectory.id.as_str()).collect();
        assert_eq!(ids, ["conv-0", "conv-1"], "{layout}");
        assert_eq!(ingestor.jsonl_format(), Some(trajscope_core::Format::Chat));
        // The second record's element ends at the byte just fed: a `}`.
        assert_eq!(input.as_bytes()[second_end - 1], b'}', "{layout}");

        ingestor.feed(&input.as_bytes()[second_end..]);
        let finished = ingestor.finish_with(settled);
        let trace = &finished.trace;
        assert!(finished.changed.is_empty());
        assert_eq!(trace.error, None, "{layout}");
        assert_eq!(trace.format, trajscope_core::Format::Chat);
        assert_accounting(input.as_bytes(), trace);
        assert_eq!(trace.stats.lines_quarantined, 0);
        assert_eq!(
            without_lines(trace.trajectories.clone()),
            without_lines(whole_document(&input)),
            "{layout}"
        );
        assert_eq!(*trace, ingest(input.as_bytes(), IngestOptions::default()), "{layout}");
        // Each step points at its record's element.
        for t in &trace.trajectories {
            let at = t.steps[0].loc.offset as usize;
            assert!(input[at..].starts_with("{"), "{layout}: {}", &input[at..at + 20]);
            let line = input[..at].matches('\n').count() + 1;
            assert_eq!(t.steps[0].loc.line as usize, line, "{layout}");
        }
    }
}

#[test]
fn a_damaged_element_costs_only_itself() {
    let good = |i| serde_json::to_string_pretty(&record(i, "x")).unwrap();
    let input = format!(
        "[\n{},\n{{\n  \"id\": \"broken\",\n  \"messages\": [{{\"role\": tru}}]\n}},\n  42,\n{}\n]\n",
        good(0),
        good(2)
    );
    let trace = ingest(input.as_bytes(), IngestOptions::default());
    assert_accounting(input.as_bytes(), &trace);
    let ids: Vec<&str> = trace.trajectories.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(ids, ["conv-0", "conv-2"]);
    let lines: Vec<&str> = input.lines().collect();
    let quarantined: Vec<u64> = trace.quarantine.iter().map(|q| q.line).collect();
    let broken = lines.iter().position(|l| l.contains("\"broken\"")).unwrap() as u64;
    // The broken element's four lines (`{` to `},`), then the `42` line.
    assert_eq!(quarantined, [broken, broken + 1, broken + 2, broken + 3, broken + 4]);
    assert!(
        trace.quarantine[0].reason.starts_with("list element [1] (line"),
        "{}",
        trace.quarantine[0].reason
    );
    assert!(
        trace.quarantine[0].reason.contains("is not valid JSON"),
        "{}",
        trace.quarantine[0].reason
    );
    assert!(trace.quarantine[4].reason.starts_with("list element [2]"));
    assert!(
        trace.quarantine[4].reason.contains("is not a chat record"),
        "{}",
        trace.quarantine[4].reason
    );
    assert_eq!(trace.error, None);

    // On one line, the line holds the good records too: it is quarantined (with the damaged
    // element's reason), and the good records are read all the same.
    let one_line = format!(
        "[{}, {{\"messages\": [{{\"role\": tru}}]}}, {}]",
        serde_json::to_string(&record(0, "x")).unwrap(),
        serde_json::to_string(&record(2, "x")).unwrap()
    );
    let trace = ingest(one_line.as_bytes(), IngestOptions::default());
    assert_accounting(one_line.as_bytes(), &trace);
    assert_eq!(trace.trajectories.len(), 2);
    assert_eq!(trace.quarantine.len(), 1);
    let reason = &trace.quarantine[0].reason;
    assert!(reason.starts_with("list element [1] (line 1, byte "), "{reason}");
    // The error's place is the file's byte, inside the broken element.
    let at: usize = reason.rsplit("(byte ").next().unwrap().trim_end_matches(')').parse().unwrap();
    let start = one_line.find("{\"messages\": [{\"role\": tru").unwrap();
    assert!((start..start + 40).contains(&at), "{reason}");
}

#[test]
fn a_list_cut_short_keeps_every_record_before_the_cut() {
    let full = serde_json::to_string_pretty(&vec![record(0, "a"), record(1, "b")]).unwrap();
    let cut = &full[..full.len() - 40];
    let trace = ingest(cut.as_bytes(), IngestOptions::default());
    assert_accounting(cut.as_bytes(), &trace);
    assert_eq!(trace.trajectories.len(), 1);
    let last = trace.quarantine.last().expect("the cut element is quarantined");
    assert!(last.reason.contains("is cut short"), "{}", last.reason);
    assert!(last.truncated_tail);
    let error = trace.error.as_deref().unwrap_or("");
    assert!(error.contains("no closing `]`"), "{error}");

    // Complete elements, only the bracket missing: nothing quarantined, the note says so.
    let no_bracket = full.trim_end().strip_suffix(']').unwrap();
    let trace = ingest(no_bracket.as_bytes(), IngestOptions::default());
    assert_eq!((trace.trajectories.len(), trace.quarantine.len()), (2, 0));
    assert!(trace.error.as_deref().is_some_and(|e| e.contains("no closing `]`")));
}

#[test]
fn a_one_line_list_longer_than_a_line_may_be_is_read_record_by_record() {
    let records: Vec<_> = (0..20).map(|i| record(i, "y")).collect();
    let input = serde_json::to_string(&records).unwrap();
    let limits = Limits { max_line: 1_000, max_document: 1_000, ..Limits::default() };
    assert!(input.len() > 5 * limits.max_line);
    let trace = ingest(input.as_bytes(), IngestOptions { limits, ..IngestOptions::default() });
    assert_eq!(trace.trajectories.len(), 20);
    assert_eq!((trace.stats.lines_total, trace.stats.lines_parsed), (1, 1));
    assert_eq!(trace.error, None);
}

#[test]
fn other_lists_and_record_lines_are_read_as_before() {
    // A JSONL whose lines are lists of records: each line's list is read in turn.
    let a = serde_json::to_string(&vec![record(0, "a")]).unwrap();
    let b = serde_json::to_string(&vec![record(1, "b"), record(2, "c")]).unwrap();
    let input = format!("{a}\n{b}\n");
    let trace = ingest(input.as_bytes(), IngestOptions::default());
    assert_accounting(input.as_bytes(), &trace);
    let ids: Vec<&str> = trace.trajectories.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(ids, ["conv-0", "conv-1", "conv-2"]);
    assert_eq!(trace.stats.lines_parsed, 2);

    // A list of plain messages is one trajectory (not records): the document reading.
    let messages = r#"[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}]"#;
    let trace = ingest(messages.as_bytes(), IngestOptions::default());
    assert_eq!(trace.trajectories.len(), 1);
    assert_eq!(trace.trajectories[0].steps.len(), 2);
}

/// An element of a generated list: a good record, or one of the ways an element breaks.
fn element(i: usize, kind: u8) -> String {
    match kind % 6 {
        0 => "{\"messages\": [{\"role\": \"user\", \"content\": \"x\"}], \"bad\": tru}".to_string(),
        1 => "\"a string, not a record\"".to_string(),
        2 => "{\"messages\": \"not a list\"}".to_string(),
        _ => serde_json::to_string(&record(i, "p")).unwrap(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn any_list_in_any_layout_and_chunking_is_read_the_same_and_adds_up(
        kinds in proptest::collection::vec(any::<u8>(), 1..8),
        layout in 0u8..3,
        cut_tail in 0usize..40,
        cuts in proptest::collection::vec(any::<usize>(), 0..8),
    ) {
        // The first element is a good record (what makes the file a list of records).
        let elements: Vec<String> = kinds
            .iter()
            .enumerate()
            .map(|(i, k)| element(i, if i == 0 { 3 } else { *k }))
            .collect();
        let input = match layout {
            0 => format!("[{}]", elements.join(",")),
            1 => format!("[\n{}\n]\n", elements.join(",\n")),
            _ => format!("[\n  {}\n  ]", elements.join(" ,\n\n  ")),
        };
        let input = &input.as_bytes()[..input.len() - cut_tail.min(input.len() - 1)];
        let whole = ingest(input, IngestOptions::default());
        assert_accounting(input, &whole);
        prop_assert!(!whole.trajectories.is_empty() || cut_tail > 0);
        // Whatever the chunking, and whenever records are handed over, the same trace.
        let mut ingestor = Ingestor::new(IngestOptions::default());
        let mut settled = Vec::new();
        common::feed_in_pieces(&mut ingestor, input, &cuts, |i| settled.extend(i.take_settled()));
        settled.extend(ingestor.take_settled());
        let finished = ingestor.finish_with(settled);
        prop_assert_eq!(&finished.trace, &whole);
        // Every good record that ended before the cut is a trajectory, in order.
        let complete = kinds.iter().enumerate().filter(|(i, k)| *i == 0 || **k % 6 >= 3).count();
        if cut_tail == 0 {
            prop_assert_eq!(whole.trajectories.len(), complete);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn random_bytes_after_a_first_record_never_panic_and_add_up_in_any_chunking(
        tail in proptest::collection::vec(
            prop_oneof![
                Just(b'{'), Just(b'}'), Just(b'['), Just(b']'), Just(b'"'), Just(b'\\'),
                Just(b','), Just(b'\n'), Just(b' '), any::<u8>()
            ],
            0..200,
        ),
        cuts in proptest::collection::vec(any::<usize>(), 0..6),
    ) {
        let mut input = br#"[{"messages":[{"role":"user","content":"x"}]},"#.to_vec();
        input.extend_from_slice(&tail);
        let whole = ingest(&input, IngestOptions::default());
        assert_accounting(&input, &whole);
        prop_assert!(!whole.trajectories.is_empty());
        let mut ingestor = Ingestor::new(IngestOptions::default());
        let mut settled = Vec::new();
        common::feed_in_pieces(&mut ingestor, &input, &cuts, |i| settled.extend(i.take_settled()));
        settled.extend(ingestor.take_settled());
        prop_assert_eq!(ingestor.finish_with(settled).trace, whole);
    }
}

/// The trace of each repo fixture alone, and of all of them as one JSON list (pretty or on
/// one line): the list gives each document's trajectories in order, labels and all.
fn list_of(fixtures: &[&str]) -> (Vec<trajscope_core::model::Trajectory>, Vec<String>) {
    let mut values: Vec<serde_json::Value> = Vec::new();
    for f in fixtures {
        let text = String::from_utf8(common::read(f)).unwrap();
        match f.ends_with(".jsonl") {
            true => values.extend(
                text.lines()
                    .filter(|l| !l.trim().is_empty())
                    .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()),
            ),
            false => values.push(serde_json::from_str(&text).unwrap()),
        }
    }
    let mut alone = Vec::new();
    for v in &values {
        let t = ingest(v.to_string().as_bytes(), IngestOptions::default());
        assert_eq!(t.error, None);
        alone.extend(t.trajectories);
    }
    let lists = vec![
        serde_json::to_string_pretty(&values).unwrap(),
        serde_json::to_string(&values).unwrap(),
    ];
    (alone, lists)
}

#[test]
fn a_list_of_benchmark_items_keeps_each_items_format_and_label() {
    for (fixtures, format) in [
        (
            &["trajerrbench/records.jsonl", "trajerrbench/airline_failed_qwen3-max.json"][..],
            "trajerrbench",
        ),
        (
            &["who_and_when/ag_1.json", "who_and_when/hc_6.json", "who_and_when/ag_10.json"][..],
            "who-and-when",
        ),
    ] {
        let (alone, lists) = list_of(fixtures);
        assert!(alone.len() >= 3, "{format}: {}", alone.len());
        assert!(alone.iter().filter(|t| t.gold.is_some()).count() >= 2, "{format}: labelled items");
        for list in lists {
            let trace = ingest(list.as_bytes(), IngestOptions::default());
            assert_eq!(trace.format.name(), format);
            assert_eq!(trace.error, None);
            assert_accounting(list.as_bytes(), &trace);
            assert_eq!(trace.trajectories.len(), alone.len(), "{format}");
            for (i, (t, a)) in trace.trajectories.iter().zip(&alone).enumerate() {
                assert_eq!(t.gold, a.gold, "{format} item {i}");
                assert_eq!(t.steps.len(), a.steps.len(), "{format} item {i}");
                assert_eq!(t.outcome, a.outcome, "{format} item {i}");
                let texts = |t: &trajscope_core::model::Trajectory| {
                    t.steps.iter().map(|s| s.text.clone()).collect::<Vec<_>>()
                };
                assert_eq!(texts(t), texts(a), "{format} item {i}");
            }
        }
    }
}

#[test]
fn a_list_of_a_line_formats_events_is_read_as_its_jsonl_would_be() {
    for (fixture, format) in
        [("awtl/env_blocker_browser.awtl.jsonl", "awtl"), ("otel/genai_handoff.jsonl", "otel")]
    {
        let jsonl = common::read(fixture);
        let events: Vec<serde_json::Value> = String::from_utf8(jsonl.clone())
            .unwrap()
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let from_lines = ingest(&jsonl, IngestOptions::default());
        for list in [
            serde_json::to_string(&events).unwrap(),
            serde_json::to_string_pretty(&events).unwrap(),
        ] {
            let trace = ingest(list.as_bytes(), IngestOptions::default());
            assert_eq!(trace.format.name(), format, "{fixture}");
            assert_eq!(trace.error, None, "{fixture}");
            assert_accounting(list.as_bytes(), &trace);
            let steps = |t: &Trace| -> Vec<Vec<String>> {
                t.trajectories
                    .iter()
                    .map(|t| t.steps.iter().map(|s| s.text.clone()).collect())
                    .collect()
            };
            assert_eq!(steps(&trace), steps(&from_lines), "{fixture}");
            let ids = |t: &Trace| t.trajectories.iter().map(|t| t.id.clone()).collect::<Vec<_>>();
            assert_eq!(ids(&trace), ids(&from_lines), "{fixture}");
        }
    }
}

#[test]
fn a_list_of_objects_no_format_knows_is_read_by_the_generic_fallback() {
    let list = r#"[{"source":"agent","message":"opening the page"},
{"source":"tool","output":"Error: 404 not found","tool":"browser"},
{"source":"agent","message":"giving up"}]"#;
    let trace = ingest(list.as_bytes(), IngestOptions::default());
    assert_eq!(trace.format.name(), "generic");
    assert_accounting(list.as_bytes(), &trace);
    assert_eq!(trace.trajectories.len(), 1);
    let t = &trace.trajectories[0];
    let texts: Vec<&str> = t.steps.iter().map(|s| s.text.as_str()).collect();
    assert_eq!(texts, ["opening the page", "Error: 404 not found", "giving up"]);
    assert!(t.steps[1].is_error);
    assert_eq!(t.steps.iter().map(|s| s.loc.line).collect::<Vec<_>>(), [1, 2, 3]);
}

#[test]
fn one_pretty_printed_record_of_a_line_format_is_read_as_its_line() {
    // An OTLP file export (`{"resourceSpans": …}`) written with indentation, and one AWTL event.
    for (fixture, format) in
        [("otel/genai_handoff.jsonl", "otel"), ("awtl/env_blocker_browser.awtl.jsonl", "awtl")]
    {
        let text = String::from_utf8(common::read(fixture)).unwrap();
        let first = text.lines().next().unwrap();
        let pretty = serde_json::to_string_pretty(
            &serde_json::from_str::<serde_json::Value>(first).unwrap(),
        )
        .unwrap();
        assert!(pretty.lines().count() > 3);
        let trace = ingest(pretty.as_bytes(), IngestOptions::default());
        let line = ingest(first.as_bytes(), IngestOptions::default());
        assert_eq!(trace.format.name(), format);
        assert_eq!(trace.error, None, "{fixture}");
        assert_eq!(trace.stats.lines_quarantined, 0);
        let texts = |t: &Trace| {
            t.trajectories
                .iter()
                .flat_map(|t| t.steps.iter().map(|s| s.text.clone()))
                .collect::<Vec<_>>()
        };
        assert!(!texts(&line).is_empty());
        assert_eq!(texts(&trace), texts(&line), "{fixture}");
    }
}

#[test]
fn a_line_too_long_to_keep_keeps_its_damaged_elements_bytes() {
    // One line of 40 records over the longest line kept whole, element [25] broken: its
    // quarantine entry keeps the broken element's bytes at its own offset, not the line's start.
    let mut parts: Vec<String> =
        (0..40).map(|i| serde_json::to_string(&record(i, "z")).unwrap()).collect();
    parts[25] = r#"{"id":"broken","messages":[{"role":"user","content":tru}]}"#.to_string();
    let input = format!("[{}]", parts.join(","));
    let limits = Limits { max_line: 2_000, max_document: 2_000, ..Limits::default() };
    let trace = ingest(input.as_bytes(), IngestOptions { limits, ..IngestOptions::default() });
    assert_eq!(trace.trajectories.len(), 39);
    assert_eq!(trace.quarantine.len(), 1);
    let q = &trace.quarantine[0];
    assert_eq!(q.raw, parts[25].as_bytes());
    assert_eq!(&input.as_bytes()[q.offset as usize..q.offset as usize + q.raw.len()], &q.raw[..]);
    assert!(q.reason.starts_with("list element [25] (line 1, byte "), "{}", q.reason);
    assert!(q.reason.contains("the element's first"), "{}", q.reason);
    assert_eq!((trace.stats.lines_total, trace.stats.lines_quarantined), (1, 1));
}
