//! Quarantine accounting on broken input: every line is exactly one of parsed / blank /
//! quarantined, quarantined bytes round-trip exactly, and nothing panics.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use proptest::prelude::*;
use trajscope_core::{ingest, IngestOptions, Ingestor, Trace};

fn run(bytes: &[u8]) -> Trace {
    ingest(bytes, IngestOptions::default())
}

fn assert_accounting(trace: &Trace) {
    let s = &trace.stats;
    assert_eq!(s.lines_total, s.lines_parsed + s.lines_blank + s.lines_quarantined, "{s:?}");
    assert_eq!(s.lines_quarantined as usize, trace.quarantine.len());
}

const GOOD: &str = r#"{"type":"action","span_id":"s-1","tool":"shell","command":"npm test"}"#;

#[test]
fn truncated_tail_is_told_apart_from_damage_in_the_middle() {
    let input = format!("{GOOD}\n{{\"type\":\"obs\n{GOOD}\n{{\"type\":\"observation\",\"exit");
    let trace = run(input.as_bytes());
    assert_accounting(&trace);
    assert_eq!(trace.stats.lines_parsed, 2);
    let q: Vec<(u64, bool)> = trace.quarantine.iter().map(|q| (q.line, q.truncated_tail)).collect();
    assert_eq!(q, vec![(2, false), (4, true)]);
}

#[test]
fn a_plain_text_file_is_said_to_be_one_not_a_json_document_that_failed() {
    // Fewer and more lines than are held to tell a document: the same message.
    for n in [3, 65, 500] {
        let input = "2026-12-05 INFO server started on port 8080\n".repeat(n);
        let trace = run(input.as_bytes());
        assert_accounting(&trace);
        assert_eq!(trace.stats.lines_quarantined, n as u64);
        assert_eq!(
            trace.error.as_deref(),
            Some("no line of the file is JSON: it looks like a text file, not a trace"),
            "{n} lines"
        );
    }
    // Text before the records: the records are read, and nothing is said of the file.
    let input = format!("{}{GOOD}\n{GOOD}\n", "a banner line\n".repeat(70));
    let trace = run(input.as_bytes());
    assert_accounting(&trace);
    assert_eq!((trace.stats.lines_parsed, trace.stats.lines_quarantined), (2, 70));
    assert_eq!(trace.error, None);
    // A document that fails is still told of as one.
    let trace = run(b"{\n  \"type\": \"action\",\n  oops\n}\n");
    assert!(trace.error.as_deref().is_some_and(|e| e.contains("not valid JSON")), "{trace:?}");
}

#[test]
fn crlf_bom_blank_lines_and_empty_input() {
    let input = format!("\u{feff}{GOOD}\r\n\r\n   \n{GOOD}\r\n");
    let trace = run(input.as_bytes());
    assert_accounting(&trace);
    assert_eq!((trace.stats.lines_parsed, trace.stats.lines_blank), (2, 2));
    assert_eq!(trace.format.name(), "awtl");

    let empty = run(b"");
    assert_accounting(&empty);
    assert_eq!(empty.stats.lines_total, 0);
    assert!(empty.trajectories.is_empty());
}

#[test]
fn invalid_utf8_nul_bytes_deep_nesting_and_arrays_are_quarantined_with_reasons() {
    let deep = format!("{}{}", "[".repeat(5000), "]".repeat(5000));
    let mut input = Vec::new();
    input.extend_from_slice(GOOD.as_bytes());
    input.extend_from_slice(b"\n{\"type\":\"action\",\"command\":\"\xc3\x28\"}\n");
    input.extend_from_slice(b"\x00\x00\x00\n");
    input.extend_from_slice(deep.as_bytes());
    input.extend_from_slice(b"\n[1,2,3]\n");
    input.extend_from_slice(GOOD.as_bytes());
    let trace = run(&input);
    assert_accounting(&trace);
    let reasons: Vec<&str> = trace.quarantine.iter().map(|q| q.reason.as_str()).collect();
    assert_eq!(reasons.len(), 4, "{reasons:?}");
    assert!(reasons[0].contains("UTF-8"), "{reasons:?}");
    assert!(reasons[1].starts_with("invalid JSON"), "{reasons:?}");
    assert!(reasons[2].contains("nested deeper"), "{reasons:?}");
    assert!(reasons[3].contains("an array"), "{reasons:?}");
    assert_eq!(trace.quarantine[0].raw, b"{\"type\":\"action\",\"command\":\"\xc3\x28\"}");
}

#[test]
fn a_valid_json_document_of_no_known_shape_is_quarantined_with_one_reason() {
    // Valid JSON, so not a JSONL file: its lines are not read one by one (where the nested
    // object on a line of its own at column 0 would pass for a record).
    let input =
        "{\n  \"settings\": {\"theme\": \"dark\"},\n\n  \"items\": [\n{\"type\":\"x\"}\n  ]\n}\n";
    let trace = run(input.as_bytes());
    assert_accounting(&trace);
    assert!(trace.trajectories.is_empty());
    assert_eq!((trace.stats.lines_blank, trace.stats.lines_quarantined), (1, 6));
    for q in &trace.quarantine {
        assert!(
            q.reason.starts_with("part of a JSON document that is not a trace: "),
            "{}",
            q.reason
        );
        assert!(q.reason.contains("no supported format"), "{}", q.reason);
    }
    let raw: Vec<&[u8]> = trace.quarantine.iter().map(|q| q.raw.as_slice()).collect();
    let lines: Vec<&[u8]> = input.lines().filter(|l| !l.is_empty()).map(str::as_bytes).collect();
    assert_eq!(raw, lines);
    assert!(trace.error.as_deref().is_some_and(|e| e.contains("no supported format")));
    // The reason says what the document is, so the user can tell which tool wrote it.
    assert!(
        trace
            .error
            .as_deref()
            .is_some_and(|e| e.contains("(an object with the keys items, settings;")),
        "{:?}",
        trace.error
    );
}

#[test]
fn blank_lines_among_undecided_lines_keep_every_later_line_at_its_offset() {
    // Found by the fuzzer: lines that decide nothing are held (more than 64 of them make a
    // would-be document, read again line by line at the end); blank lines among them were
    // counted and left out, so every later line was quarantined at another line's number and
    // offset.
    let mut input = String::from("1,2,3]\nnot json\n\n   \r\n");
    for i in 0..70 {
        input.push_str(&format!("garbage {i}\n"));
        if i % 9 == 0 {
            input.push('\n');
        }
    }
    let trace = run(input.as_bytes());
    assert_accounting(&trace);
    assert_eq!(trace.stats.lines_quarantined, 72);
    for q in &trace.quarantine {
        let at = q.offset as usize;
        assert_eq!(&input.as_bytes()[at..at + q.raw.len()], &q.raw[..], "line {}", q.line);
        let line = input.split('\n').nth(q.line as usize - 1).unwrap();
        assert_eq!(line.trim_end_matches('\r').as_bytes(), &q.raw[..], "line {}", q.line);
    }
}

#[test]
fn a_damaged_first_line_does_not_hide_the_format() {
    let input = format!("{{\"type\":\"act\n{GOOD}\n{GOOD}\n");
    let trace = run(input.as_bytes());
    assert_accounting(&trace);
    assert_eq!(trace.format.name(), "awtl");
    assert_eq!(trace.stats.lines_quarantined, 1);
    assert_eq!(trace.trajectories[0].steps.len(), 2);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn random_bytes_never_panic_and_always_add_up(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        let trace = run(&bytes);
        assert_accounting(&trace);
    }

    /// With the app's copy of a document's first steps on (`copy_document_steps`), random
    /// bytes, and random bytes after the opening of each document whose steps are copied, in
    /// any chunking: no panic, the copy never over its size, and the same trace as without it.
    #[test]
    fn random_bytes_with_the_document_copy_on_give_the_same_trace(
        head in prop_oneof![
            Just(&b""[..]),
            Just(&b"{\"trajectory\": [{"[..]),
            Just(&b"{\"info\": {}, \"messages\": [{"[..]),
            Just(&b"[{\"source\": \"agent\", \"action\": \"run\"}, {"[..]),
            Just(&b"{\"history\": [{\"source\": \"user\", \"action\": \"message\"}, "[..]),
            Just(&b"{\"eval\": {}, \"samples\": [{\"id\": 1, \"messages\": ["[..]),
            Just(&b"{\"simulations\": [{\"id\": \"s\", \"messages\": [{"[..]),
        ],
        bytes in proptest::collection::vec(any::<u8>(), 0..400),
        cuts in proptest::collection::vec(any::<usize>(), 0..8),
        copy in 1usize..6,
    ) {
        let mut input = head.to_vec();
        input.extend_from_slice(&bytes);
        let whole = run(&input);
        let opts = IngestOptions { copy_document_steps: copy, ..IngestOptions::default() };
        let mut ingestor = Ingestor::new(opts);
        let mut copies = Vec::new();
        common::feed_in_pieces(&mut ingestor, &input, &cuts, |i| {
            // A document's copy (a line format's copy takes its size from the call).
            if i.jsonl_format().is_none() {
                copies.extend(i.snapshot_first(100));
            }
        });
        prop_assert!(copies.iter().all(|t| t.steps.len() <= copy));
        prop_assert_eq!(ingestor.finish(), whole);
    }

    #[test]
    fn any_chunking_gives_the_same_trace(
        lines in proptest::collection::vec(
            prop_oneof![
                Just(GOOD.to_string()),
                Just(String::new()),
                Just("{\"type\":\"observation\",\"exit_code\":1}".to_string()),
                "[ -~]{0,40}",
            ],
            0..20,
        ),
        cuts in proptest::collection::vec(any::<usize>(), 0..8),
    ) {
        let input = lines.join("\n");
        let whole = run(input.as_bytes());
        assert_accounting(&whole);
        let mut ingestor = Ingestor::new(IngestOptions::default());
        common::feed_in_pieces(&mut ingestor, input.as_bytes(), &cuts, |_| {});
        prop_assert_eq!(ingestor.finish(), whole);
    }

    #[test]
    fn quarantined_raw_bytes_are_exactly_the_line(
        bom in any::<bool>(),
        lines in proptest::collection::vec(
            prop_oneof![
                "[ -~\r]{0,30}".prop_map(String::into_bytes),
                Just(GOOD.as_bytes().to_vec()),
                proptest::collection::vec(any::<u8>(), 0..30),
            ],
            1..10,
        ),
    ) {
        let mut input = if bom { b"\xEF\xBB\xBF".to_vec() } else { Vec::new() };
        input.extend(lines.join(&b'\n'));
        let trace = run(&input);
        assert_accounting(&trace);
        for q in &trace.quarantine {
            let start = q.offset as usize;
            let end = start + q.raw.len();
            prop_assert_eq!(&input[start..end], &q.raw[..]);
            let rest = &input[end..];
            prop_assert!(rest.is_empty() || rest.starts_with(b"\n") || rest.starts_with(b"\r\n"));
            prop_assert!(!q.truncated_tail || rest.is_empty());
        }
    }

    #[test]
    fn gzip_in_any_chunking_gives_the_trace_of_the_plain_text(
        lines in proptest::collection::vec(
            prop_oneof![Just(GOOD.to_string()), Just(String::new()), "[ -~]{0,40}"],
            0..30,
        ),
        cuts in proptest::collection::vec(any::<usize>(), 0..8),
    ) {
        use std::io::Write as _;
        let plain = lines.join("\n");
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        enc.write_all(plain.as_bytes()).expect("in-memory write");
        let gz = enc.finish().expect("in-memory write");
        let expected = run(plain.as_bytes());
        let mut ingestor = Ingestor::new(IngestOptions::default());
        common::feed_in_pieces(&mut ingestor, &gz, &cuts, |_| {});
        prop_assert_eq!(ingestor.finish(), expected);
    }

    #[test]
    fn container_magic_then_random_bytes_add_up_in_any_chunking(
        magic in prop_oneof![
            Just(&b"\x1f\x8b\x08\x00"[..]),
            Just(&b"\x1f\x8b"[..]),
            Just(&b"PK\x03\x04"[..]),
            Just(&b"PK\x03\x04\x14\x00\x00\x00\x08\x00"[..]),
        ],
        rest in proptest::collection::vec(any::<u8>(), 0..300),
        size in 1usize..17,
    ) {
        let mut input = magic.to_vec();
        input.extend_from_slice(&rest);
        let whole = run(&input);
        assert_accounting(&whole);
        let mut ingestor = Ingestor::new(IngestOptions::default());
        input.chunks(size).for_each(|c| ingestor.feed(c));
        prop_assert_eq!(ingestor.finish(), whole);
    }

    #[test]
    fn under_small_caps_accounting_and_chunking_still_hold(
        lines in proptest::collection::vec(
            prop_oneof![
                Just(GOOD.to_string()),
                Just(String::new()),
                "[ -~]{0,40}",
                "\\{\"a\":\"[a-z]{0,60}\"\\}",
            ],
            0..30,
        ),
        max_line in 4usize..64,
        max_quarantine in 0u64..2000,
        size in 1usize..23,
    ) {
        let limits = trajscope_core::ingest::Limits {
            max_line,
            max_quarantine_bytes: max_quarantine,
            ..trajscope_core::ingest::Limits::default()
        };
        let opts = || IngestOptions { limits, ..IngestOptions::default() };
        let input = lines.join("\n");
        let whole = ingest(input.as_bytes(), opts());
        assert_accounting(&whole);
        for q in &whole.quarantine {
            let start = q.offset as usize;
            prop_assert_eq!(&input.as_bytes()[start..start + q.raw.len()], &q.raw[..]);
        }
        let mut ingestor = Ingestor::new(opts());
        input.as_bytes().chunks(size).for_each(|c| ingestor.feed(c));
        prop_assert_eq!(ingestor.finish(), whole);
    }
}

#[test]
fn a_byte_order_mark_opening_a_line_mid_file_is_skipped_where_it_is() {
    // Found by QA (37_concat_mid_bom.jsonl): files with a UTF-8 BOM joined with `cat` keep the
    // second one's mark at the start of its first line, which was quarantined as invalid JSON.
    let run_a = "\u{feff}{\"type\":\"run_start\",\"run_id\":\"a\"}\n{\"type\":\"run_end\",\"run_id\":\"a\",\"status\":\"failed\"}\n";
    let run_b = "\u{feff}{\"type\":\"run_start\",\"run_id\":\"b\"}\n{\"type\":\"action\",\"run_id\":\"b\",\"span_id\":\"s\",\"tool\":\"shell\",\"command\":\"ls\"}\n";
    let input = format!("{run_a}{run_b}\u{feff}{{\"type\":\"obs\n");
    let trace = run(input.as_bytes());
    assert_accounting(&trace);
    assert_eq!((trace.stats.lines_parsed, trace.stats.lines_quarantined), (4, 1));
    let b = trace.trajectories.iter().find(|t| t.id == "b").expect("run b");
    // The line keeps its number and the offset of its first byte, the mark's.
    assert_eq!((b.steps[0].loc.line, b.steps[0].loc.offset), (3, run_a.len() as u64));
    // A damaged line after a mark: quarantined with its bytes as they were, mark included.
    let q = &trace.quarantine[0];
    assert_eq!(q.raw, "\u{feff}{\"type\":\"obs".as_bytes());
    assert!(q.reason.starts_with("invalid JSON"), "{}", q.reason);
}

#[test]
fn a_line_that_is_a_json_string_holding_json_says_so() {
    // Found by QA (30_double_encoded.jsonl): records written as JSON text, then encoded again.
    let input = concat!(
        r#"{"role":"user","content":"hi"}"#,
        "\n",
        r#""{\"role\": \"assistant\", \"content\": \"hello\"}""#,
        "\n",
        r#""just text""#,
        "\n"
    );
    let trace = run(input.as_bytes());
    assert_accounting(&trace);
    let reasons: Vec<&str> = trace.quarantine.iter().map(|q| q.reason.as_str()).collect();
    assert_eq!(
        reasons,
        [
            "valid JSON but a string holding JSON (encoded twice?), not an event object",
            "valid JSON but a string, not an event object"
        ]
    );
}

#[test]
fn a_plain_text_line_says_it_is_not_json_rather_than_what_the_parser_expected() {
    // Found by QA: a log line printed into a JSONL got "invalid JSON at column 5: trailing
    // characters". Each such line is still quarantined, bytes intact; damaged JSON keeps the
    // parser's reason (with its column).
    const PLAIN: &str = "not JSON: a plain-text line (a log line?)";
    let lines = [
        "2026-12-01 10:00:00 INFO starting agent",
        r#"{"role":"user","content":"hi"}"#,
        "[INFO] tool registry loaded",
        "Traceback (most recent call last):",
        r#"  File "agent.py", line 3, in <module>"#,
        r#"{"role":"assistant","content":"ok","#,
        "[1, 2",
        "true story",
        "null",
        r#"{"role":"assistant","content":"done"}"#,
        "WARNING: run ended without a verdict",
    ];
    let input = lines.join("\n");
    for (name, trace) in [
        ("whole", run(input.as_bytes())),
        ("in 7-byte chunks", {
            let mut ing = Ingestor::new(IngestOptions::default());
            input.as_bytes().chunks(7).for_each(|c| ing.feed(c));
            ing.finish()
        }),
    ] {
        assert_accounting(&trace);
        assert_eq!(trace.stats.lines_total, lines.len() as u64, "{name}");
        assert_eq!(trace.stats.lines_parsed, 2, "{name}");
        let got: Vec<(u64, &str)> =
            trace.quarantine.iter().map(|q| (q.line, q.reason.as_str())).collect();
        assert_eq!(got.len(), 9, "{name}: {got:?}");
        for (line, reason) in &got {
            let text = lines[*line as usize - 1];
            let expect_plain = !matches!(*line, 6 | 7 | 9);
            assert_eq!(reason == &PLAIN, expect_plain, "{name}: line {line} {text:?}: {reason}");
        }
        assert!(got[4].1.starts_with("invalid JSON"), "{name}: {:?}", got[4]);
        assert!(got[5].1.starts_with("invalid JSON"), "{name}: {:?}", got[5]);
        assert_eq!(got[7].1, "valid JSON but null, not an event object", "{name}");
        for q in &trace.quarantine {
            assert_eq!(q.raw, lines[q.line as usize - 1].as_bytes(), "{name}");
        }
        // The last line, without its newline, is text, not a write cut short.
        assert!(!trace.quarantine.last().unwrap().truncated_tail, "{name}");
    }
}

#[test]
fn a_plain_text_line_in_a_line_format_and_binary_damage_are_told_apart() {
    // Inside an AWTL run (the adapter's own parse path) the same words; a zip header glued to
    // a record is binary damage, not a log line: the parser's reason stays.
    let input = format!("{GOOD}\n2026-12-01 10:00:01 DEBUG retrying\nPK\u{3}\u{4}{GOOD}\n{GOOD}\n");
    let trace = run(input.as_bytes());
    assert_accounting(&trace);
    assert_eq!(trace.format, trajscope_core::Format::Awtl);
    let reasons: Vec<&str> = trace.quarantine.iter().map(|q| q.reason.as_str()).collect();
    assert_eq!(reasons.len(), 2, "{reasons:?}");
    assert_eq!(reasons[0], "not JSON: a plain-text line (a log line?)");
    assert!(reasons[1].starts_with("invalid JSON at column 1"), "{reasons:?}");
}
