//! Regression tests for the adversarial inputs of the reliability review (see
//! `docs/limits.md`): each test is built from the reproduction of one defect. Big inputs are
//! generated here, in memory or streamed in chunks, so the tests stay fast.
#![cfg(not(target_arch = "wasm32"))]

use trajscope_core::{ingest, IngestOptions};

// The core has no clock and speed is a benchmark's job (`bench/`), so these tests check what
// the index must get right at this scale (every run kept, each line in its own run); the
// quadratic lookup they replace took minutes on the same inputs.
fn read(input: &[u8]) -> trajscope_core::Trace {
    ingest(input, IngestOptions::default())
}

#[test]
fn a_hundred_thousand_awtl_runs_are_each_kept_apart() {
    let input: String = (0..100_000)
        .map(|i| format!("{{\"type\":\"action\",\"run_id\":\"r{i}\",\"command\":\"ls\"}}\n"))
        .collect();
    let trace = read(input.as_bytes());
    assert_eq!(trace.format.name(), "awtl");
    assert_eq!(trace.trajectories.len(), 100_000);
    assert_eq!(trace.trajectories[99_999].id, "r99999");
}

#[test]
fn a_hundred_thousand_claude_code_sessions_are_each_kept_apart() {
    let input: String = (0..100_000)
        .map(|i| {
            format!(
                "{{\"type\":\"user\",\"sessionId\":\"s{i}\",\"uuid\":\"u{i}\",\
                 \"message\":{{\"role\":\"user\",\"content\":\"hi\"}}}}\n"
            )
        })
        .collect();
    let trace = read(input.as_bytes());
    assert_eq!(trace.format.name(), "claude-code");
    assert_eq!(trace.trajectories.len(), 100_000);
}

#[test]
fn fifty_thousand_otel_traces_are_each_kept_apart() {
    let input: String = (0..50_000)
        .map(|i| {
            format!(
                "{{\"resourceSpans\":[{{\"scopeSpans\":[{{\"spans\":[{{\"traceId\":\"t{i}\",\
                 \"spanId\":\"s{i}\",\"name\":\"chat\",\"startTimeUnixNano\":\"{i}\"}}]}}]}}]}}\n"
            )
        })
        .collect();
    let trace = read(input.as_bytes());
    assert_eq!(trace.format.name(), "otel");
    assert_eq!(trace.trajectories.len(), 50_000);
}

#[test]
fn fifty_thousand_langsmith_patches_find_their_runs() {
    let n = 50_000;
    let post: Vec<String> = (0..n)
        .map(|i| {
            format!(
                "{{\"id\":\"r{i}\",\"trace_id\":\"t{i}\",\"run_type\":\"llm\",\
                 \"dotted_order\":\"{i:08}\",\"inputs\":{{\"q\":\"x\"}}}}"
            )
        })
        .collect();
    let patch: Vec<String> =
        (0..n).map(|i| format!("{{\"id\":\"r{i}\",\"outputs\":{{\"a\":\"y{i}\"}}}}")).collect();
    let input = format!("{{\"post\":[{}],\"patch\":[{}]}}", post.join(","), patch.join(","));
    let trace = read(input.as_bytes());
    assert_eq!(trace.format.name(), "langsmith");
    assert_eq!(trace.trajectories.len(), n);
    assert!(trace.trajectories.iter().all(|t| t.steps.iter().any(|s| s.text.contains('y'))));
}

// ---- 1. Memory is bounded ----------------------------------------------------------------

use std::io::Write as _;

use trajscope_core::ingest::{Limits, LineSplitter};
use trajscope_core::model::{Format, Outcome};
use trajscope_core::Ingestor;

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    enc.write_all(bytes).expect("in-memory write");
    enc.finish().expect("in-memory write")
}

/// Streams `member` (one gzip member) `times` times into an ingestor: a multi-member gzip of
/// `times` × the member's inflated size, never held whole.
fn stream_members(member: &[u8], times: usize, opts: IngestOptions) -> trajscope_core::Trace {
    let mut ingestor = Ingestor::new(opts);
    for _ in 0..times {
        ingestor.feed(member);
    }
    ingestor.finish()
}

#[test]
fn ten_gib_of_gzipped_zeros_stop_at_the_inflate_limit() {
    // The issue's bomb: 10 GiB of zeros (640 members of 16 MiB), one endless line.
    let member = gzip(&vec![0u8; 16 << 20]);
    let t = stream_members(&member, 640, IngestOptions::default());
    let limit = Limits::default().max_inflated;
    assert_eq!(t.stats.bytes, limit, "inflated exactly up to the cap");
    assert_eq!(t.stats.lines_total, 0, "the cut line is not counted");
    let error = t.error.expect("a message");
    assert!(
        error.contains("the gzip stream inflates to more than the limit of 512 MiB"),
        "{error}"
    );
    assert!(error.contains("line 1 (byte 0"), "{error}");
    assert!(!error.contains('\n'), "one line: {error}");
}

#[test]
fn a_gzip_of_valid_jsonl_stops_at_the_record_limit_with_exact_accounting() {
    let line = "{\"type\":\"action\",\"run_id\":\"r1\",\"command\":\"ls -la /tmp\"}\n";
    let member = gzip(line.repeat(1000).as_bytes());
    let limits = Limits { max_compressed_records: 2500, ..Limits::default() };
    let t = stream_members(&member, 10, IngestOptions { limits, ..IngestOptions::default() });
    assert_eq!(t.format, Format::Awtl);
    let s = &t.stats;
    assert_eq!((s.lines_total, s.lines_parsed, s.lines_quarantined), (2500, 2500, 0));
    assert_eq!(t.trajectories[0].steps.len(), 2500);
    let error = t.error.expect("a message");
    assert!(error.contains("more than the limit of 2500 records"), "{error}");
    assert!(error.contains(&format!("line 2501 (byte {}", 2500 * (line.len()))), "{error}");
    // The same file read plainly (not compressed) has no such limit.
    let plain =
        ingest(line.repeat(3000).as_bytes(), IngestOptions { limits, ..Default::default() });
    assert_eq!(plain.stats.lines_parsed, 3000);
    assert!(plain.error.is_none());
}

#[test]
fn a_line_longer_than_the_limit_is_quarantined_with_its_head_and_the_rest_is_read() {
    // 100 MiB without a newline, fed in 1 MiB chunks: never held whole.
    let mut ingestor = Ingestor::new(IngestOptions::default());
    let chunk = vec![b'a'; 1 << 20];
    for _ in 0..100 {
        ingestor.feed(&chunk);
    }
    ingestor.feed(b"\n{\"type\":\"action\",\"run_id\":\"r\",\"command\":\"ls\"}\n");
    let t = ingestor.finish();
    let s = &t.stats;
    assert_eq!((s.lines_total, s.lines_parsed, s.lines_quarantined), (2, 1, 1));
    let q = &t.quarantine[0];
    assert_eq!((q.line, q.offset, q.raw.len()), (1, 0, 4096));
    assert!(q.raw.iter().all(|&b| b == b'a'), "the kept bytes are the line's first bytes");
    assert!(q.reason.contains("104857600 bytes long, over the limit of 64 MiB"), "{}", q.reason);
    assert_eq!(t.trajectories[0].steps[0].loc.line, 2);
}

#[test]
fn a_file_of_garbage_lines_stops_at_the_quarantine_limit() {
    let limits = Limits { max_quarantine_bytes: 10_000, ..Limits::default() };
    let input = "not json\n".repeat(1000);
    let t = ingest(input.as_bytes(), IngestOptions { limits, ..IngestOptions::default() });
    let s = &t.stats;
    assert!(s.lines_quarantined > 0 && s.lines_quarantined < 1000, "{s:?}");
    assert_eq!(s.lines_total, s.lines_quarantined);
    let error = t.error.expect("a message");
    let next = s.lines_total + 1;
    assert!(error.contains(&format!("reading stopped at line {next} ")), "{error}");
    assert!(error.contains("the quarantine holds more than the limit"), "{error}");
}

/// A file of more runs than one input may open (each costs the app ~2 KB beside its steps:
/// 4,000,000 one-line runs ended the page) stops after the line that opens one too many, with
/// the lines before it accounted and the limit named.
#[test]
fn a_file_of_more_runs_than_the_limit_stops_after_the_one_too_many() {
    let limits = Limits { max_trajectories: 100, ..Limits::default() };
    let opts = IngestOptions { limits, ..IngestOptions::default() };
    // Runs of two lines, the second line of each run after the next run's first.
    let mut input = String::new();
    for r in 0..150 {
        input
            .push_str(&format!("{{\"type\":\"action\",\"run_id\":\"r{r}\",\"command\":\"ls\"}}\n"));
        input.push_str(&format!(
            "{{\"type\":\"observation\",\"run_id\":\"r{r}\",\"output\":\"ok\"}}\n"
        ));
    }
    let t = ingest(input.as_bytes(), opts.clone());
    assert_eq!(t.trajectories.len(), 101, "the run that made one too many is kept");
    let s = &t.stats;
    assert_eq!((s.lines_total, s.lines_parsed, s.lines_quarantined), (201, 201, 0));
    let error = t.error.clone().expect("a message");
    assert!(error.contains("more than the limit of 100 trajectories"), "{error}");
    let offset: usize = input.lines().take(201).map(|l| l.len() + 1).sum();
    assert!(error.contains(&format!("reading stopped at line 202 (byte {offset} ")), "{error}");
    // In any chunking, and parsed ahead.
    let mut chunked = Ingestor::new(opts.clone());
    input.as_bytes().chunks(333).for_each(|c| chunked.feed(c));
    assert_eq!(chunked.finish(), t);
    // At the limit, nothing stops.
    let at = ingest(
        input.as_bytes(),
        IngestOptions { limits: Limits { max_trajectories: 150, ..limits }, ..opts },
    );
    assert!(at.error.is_none(), "{:?}", at.error);
    assert_eq!(at.trajectories.len(), 150);
    // Records one per line count as well (Who&When items, one a line).
    let item = r#"{"history":[{"role":"user","content":"q"},{"role":"assistant","content":"a"}],"mistake_agent":"x","mistake_step":"1","question":"q"}"#;
    let records = format!("{item}\n").repeat(5);
    let limits = Limits { max_trajectories: 2, ..Limits::default() };
    let t = ingest(records.as_bytes(), IngestOptions { limits, ..IngestOptions::default() });
    assert_eq!(t.trajectories.len(), 3, "{:?}", t.error);
    assert!(t.error.expect("a message").contains("more than the limit of 2 trajectories"));
}

// ---- 5. An overlapping-entry zip is inflated against one budget ----------------------------

/// A zip whose `entries` directory entries all point at one deflated stream of `inflated`
/// bytes (declared as `declared` bytes each).
fn overlapping_zip(entries: usize, inflated: &[u8], declared: u32) -> Vec<u8> {
    let mut enc = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::best());
    enc.write_all(inflated).expect("in-memory write");
    let data = enc.finish().expect("in-memory write");
    let le16 = |v: u16| v.to_le_bytes();
    let le32 = |v: u32| v.to_le_bytes();
    let name = b"samples/0.json";
    let mut zip = Vec::new();
    zip.extend_from_slice(b"PK\x03\x04");
    for v in [20u16, 0, 8, 0, 0] {
        zip.extend_from_slice(&le16(v));
    }
    zip.extend_from_slice(&le32(0));
    zip.extend_from_slice(&le32(data.len() as u32));
    zip.extend_from_slice(&le32(declared));
    zip.extend_from_slice(&le16(name.len() as u16));
    zip.extend_from_slice(&le16(0));
    zip.extend_from_slice(name);
    zip.extend_from_slice(&data);
    let cd_start = zip.len();
    for i in 0..entries {
        let name = format!("samples/{i}.json");
        zip.extend_from_slice(b"PK\x01\x02");
        for v in [20u16, 20, 0, 8, 0, 0] {
            zip.extend_from_slice(&le16(v));
        }
        zip.extend_from_slice(&le32(0));
        zip.extend_from_slice(&le32(data.len() as u32));
        zip.extend_from_slice(&le32(declared));
        zip.extend_from_slice(&le16(name.len() as u16));
        for v in [0u16, 0, 0, 0] {
            zip.extend_from_slice(&le16(v));
        }
        zip.extend_from_slice(&le32(0));
        zip.extend_from_slice(&le32(0)); // every entry's data is the one stream at offset 0
        zip.extend_from_slice(name.as_bytes());
    }
    let cd_len = zip.len() - cd_start;
    zip.extend_from_slice(b"PK\x05\x06");
    for v in [0u16, 0, entries as u16, entries as u16] {
        zip.extend_from_slice(&le16(v));
    }
    zip.extend_from_slice(&le32(cd_len as u32));
    zip.extend_from_slice(&le32(cd_start as u32));
    zip.extend_from_slice(&le16(0));
    zip
}

#[test]
fn three_thousand_entries_over_one_gib_stream_are_refused_before_inflating() {
    // The issue's shape: 3,001 entries declaring 1 GiB each, all at one stream.
    let zip = overlapping_zip(3001, &[b' '; 1024], 1 << 30);
    let t = read(&zip);
    assert_eq!(t.format, Format::Inspect);
    let error = t.error.expect("a message");
    assert!(error.contains("inflates to more than the limit of 512 MiB"), "{error}");
    assert!(error.contains("samples/0.json"), "{error}");
}

#[test]
fn overlapping_entries_share_one_inflate_budget_per_archive() {
    let mut sample = br#"{"id":"s","messages":[{"role":"user","content":"hi"}]}"#.to_vec();
    sample.resize(64 * 1024, b' ');
    let zip = overlapping_zip(3001, &sample, sample.len() as u32);
    let limits = Limits { max_inflated: 1 << 20, ..Limits::default() };
    let t = ingest(&zip, IngestOptions { limits, ..IngestOptions::default() });
    assert_eq!(t.trajectories.len(), 16, "16 entries of 64 KiB fit in 1 MiB");
    let error = t.error.expect("a message");
    assert!(error.contains("limit of 1 MiB") && error.contains("samples/16.json"), "{error}");
    let limits = Limits { max_archive_entries: 3000, ..Limits::default() };
    let t = ingest(&zip, IngestOptions { limits, ..IngestOptions::default() });
    assert!(t.error.is_some_and(|e| e.contains("3001 entries, more than the limit of 3000")));
}

// ---- 6, 7. AWTL is recognised whatever its first event carries, in either key case ---------

#[test]
fn an_awtl_run_start_carrying_a_history_list_is_still_awtl() {
    let input = concat!(
        "{\"type\":\"run_start\",\"run_id\":\"r\",\"history\":[],\"task\":\"t\"}\n",
        "{\"type\":\"action\",\"run_id\":\"r\",\"command\":\"make\"}\n",
        "{\"type\":\"judge_result\",\"run_id\":\"r\",\"passed\":false,\"status\":\"failed\"}\n",
    );
    for key in ["history", "trajectory", "patch", "post", "simulations"] {
        let input = input.replace("history", key);
        let t = ingest(input.as_bytes(), IngestOptions::default());
        assert_eq!(t.format, Format::Awtl, "{key}");
        assert_eq!((t.stats.lines_parsed, t.stats.lines_quarantined), (3, 0), "{key}");
        assert_eq!(t.trajectories.len(), 1, "{key}");
        assert_eq!(t.trajectories[0].steps.len(), 3, "{key}");
    }
}

#[test]
fn camel_case_awtl_is_detected() {
    let input = concat!(
        "{\"type\":\"runStart\",\"runId\":\"r\",\"task\":\"t\"}\n",
        "{\"type\":\"action\",\"runId\":\"r\",\"command\":\"make\"}\n",
        "{\"type\":\"judgeResult\",\"runId\":\"r\",\"passed\":false}\n",
        "{\"type\":\"runEnd\",\"runId\":\"r\",\"status\":\"failed\"}\n",
    );
    let t = ingest(input.as_bytes(), IngestOptions::default());
    assert_eq!(t.format, Format::Awtl);
    assert_eq!(t.trajectories[0].outcome, Outcome::Failed);
}

// ---- 8. Container magic at the start of a text file loses no line --------------------------

#[test]
fn a_text_file_starting_with_zip_or_gzip_magic_keeps_every_line() {
    let rest = "{\"type\":\"action\",\"run_id\":\"r\",\"command\":\"ls\"}\n".repeat(3);
    for magic in [&b"PK\x03\x04"[..], b"\x1f\x8b", b"\x1f\x8b\x08\x00"] {
        let mut input = magic.to_vec();
        input.extend_from_slice(b"{\"type\":\"action\",\"run_id\":\"r\"}\n");
        input.extend_from_slice(rest.as_bytes());
        let t = ingest(&input, IngestOptions::default());
        let s = &t.stats;
        assert_eq!(s.lines_total, 4, "{magic:?}: {t:?}");
        assert_eq!((s.lines_parsed, s.lines_quarantined), (3, 1), "{magic:?}");
        assert_eq!(t.quarantine[0].raw, &input[..input.iter().position(|&b| b == b'\n').unwrap()]);
        assert!(t.error.is_none(), "{magic:?}: {:?}", t.error);
        for size in [1, 3, 5] {
            let mut ingestor = Ingestor::new(IngestOptions::default());
            input.chunks(size).for_each(|c| ingestor.feed(c));
            assert_eq!(ingestor.finish(), t, "{magic:?} in chunks of {size}");
        }
    }
}

// ---- 9. Line numbers do not saturate ---------------------------------------------------------

#[test]
fn line_numbers_past_four_billion_stay_distinct() {
    // A splitter resumed just before line 2^32 (reaching it by feeding 4 GiB of newlines would
    // take minutes); the ingest's quarantine carries the same 64-bit number.
    let mut s = LineSplitter::resume(u64::from(u32::MAX) - 1, 100, usize::MAX);
    let mut got = Vec::new();
    s.push(b"x\n\ny\nz", |l| got.push((l.no, l.offset, l.bytes.to_vec())));
    s.finish(|l| got.push((l.no, l.offset, l.bytes.to_vec())));
    let numbers: Vec<u64> = got.iter().map(|g| g.0).collect();
    assert_eq!(numbers, [4_294_967_294, 4_294_967_295, 4_294_967_296, 4_294_967_297]);
    let t = ingest(b"garbage\n", IngestOptions::default());
    let line: u64 = t.quarantine[0].line; // 64-bit in the model and the report
    assert_eq!(line, 1);
}

// ---- 10. A broken document reports its true position ----------------------------------------

#[test]
fn a_cut_document_reports_the_position_in_the_file() {
    let doc = "{\n  \"history\": [\n    {\"role\": \"user\",\n     \"content\": \"hello\"},\n    \
               {\"role\": \"assistant\",\n     \"content\": \"hi\"}\n  ],\n  \"question\": \"q\",\n  \
               \"ground_truth\": \"a\",\n  \"mistake_step\": \"1\",\n  \"mistake_agent\": \"x\",\n  \
               \"mistake_reason\": \"cut her";
    assert_eq!(doc.lines().count(), 12);
    let t = ingest(doc.as_bytes(), IngestOptions::default());
    let error = t.error.expect("an error");
    assert!(error.contains("(line 12, column "), "{error}");
    assert!(!error.contains("column 0"), "{error}");
    assert_eq!(t.stats.lines_total, 12);

    let t = ingest(br#"{"a":"b"#, IngestOptions::default());
    let q = &t.quarantine[0];
    assert!(q.truncated_tail);
    assert!(!q.reason.contains("control character"), "{}", q.reason);
    assert!(!q.reason.contains("line 2"), "{}", q.reason);
}

// ---- 11. Huge numbers are valid JSON ----------------------------------------------------------

#[test]
fn numbers_beyond_a_float_are_kept_as_their_text() {
    let big = "9".repeat(5000);
    for format in ["awtl", "generic"] {
        let lines: Vec<String> = ["1e400", "-1e400", big.as_str()]
            .iter()
            .map(|n| match format {
                "awtl" => {
                    format!("{{\"type\":\"action\",\"run_id\":\"r\",\"command\":\"ls\",\"n\":{n}}}")
                }
                _ => format!("{{\"role\":\"user\",\"content\":\"c\",\"n\":{n}}}"),
            })
            .collect();
        let t = ingest(lines.join("\n").as_bytes(), IngestOptions::default());
        assert_eq!(t.format.name(), format);
        assert_eq!((t.stats.lines_parsed, t.stats.lines_quarantined), (3, 0), "{format}");
    }
    let v = trajscope_core::ingest::formats::parse_value(&format!("[1e400, -1e400, {big}, 2]"))
        .expect("valid JSON");
    assert_eq!(v, serde_json::json!(["1e400", "-1e400", big, 2]));
}

// ---- 11b. Python's NaN and Infinity ------------------------------------------------------------

/// `json.dumps` writes a float that is not finite as `NaN`, `Infinity` or `-Infinity`, which JSON
/// does not allow; an agent's scores, losses and rewards are such floats. A line holding one is
/// read, the token kept as its text (as a huge number is), not quarantined with its run's end.
#[test]
fn python_s_nan_and_infinity_are_read_as_their_text() {
    let trace = "{\"type\":\"action\",\"run_id\":\"r1\",\"command\":\"python train.py\"}\n\
                 {\"type\":\"observation\",\"run_id\":\"r1\",\"output\":\"loss: nan\",\"loss\": NaN}\n\
                 {\"type\":\"run_end\",\"run_id\":\"r1\",\"status\":\"failed\",\"reward\":-Infinity}\n";
    let t = ingest(trace.as_bytes(), IngestOptions::default());
    assert_eq!(t.format.name(), "awtl");
    assert_eq!((t.stats.lines_parsed, t.stats.lines_quarantined), (3, 0), "{:?}", t.quarantine);
    assert_eq!(t.trajectories[0].outcome, trajscope_core::model::Outcome::Failed);
    // The first line decides the format; a document and a list element are read alike.
    let first = "{\"role\":\"user\",\"content\":\"hi\",\"score\":Infinity}\n";
    let t = ingest(first.as_bytes(), IngestOptions::default());
    assert_eq!((t.format.name(), t.stats.lines_parsed), ("generic", 1));
    let parse = trajscope_core::ingest::formats::parse_value;
    let v = parse("{\"a\": [NaN, Infinity, -Infinity, \"NaN\", 1]}").expect("read");
    assert_eq!(v, serde_json::json!({"a": ["NaN", "Infinity", "-Infinity", "NaN", 1]}));
    let doc = trajscope_core::ingest::formats::parse_document(b"{\"a\": [NaN,\n -Infinity]}");
    assert_eq!(doc.expect("read"), serde_json::json!({"a": ["NaN", "-Infinity"]}));
    // Not a token of its own: still refused, with the parser's reason.
    for bad in ["{\"a\": NaNa}", "{\"a\": Infinite}", "{\"a\": nan}", "{\"a\": NaN"] {
        assert!(parse(bad).is_err(), "{bad}");
    }
}

// ---- Also: one nesting verdict, encoding hints, duplicate ids ---------------------------------

#[test]
fn every_adapter_gives_nesting_one_verdict() {
    let nested = |depth: usize| format!("{}{}", "[".repeat(depth), "]".repeat(depth));
    for (depth, ok) in [(126, true), (5000, false)] {
        let inner = nested(depth);
        let awtl = format!("{{\"type\":\"action\",\"run_id\":\"r\",\"x\":{inner}}}");
        let generic = format!("{{\"role\":\"user\",\"content\":\"c\",\"x\":{inner}}}");
        for line in [awtl, generic] {
            let good = "{\"type\":\"action\",\"run_id\":\"r\",\"command\":\"ls\"}";
            let first =
                if line.contains("role") { "{\"role\":\"user\",\"content\":\"c\"}" } else { good };
            let t = ingest(format!("{first}\n{line}\n").as_bytes(), IngestOptions::default());
            assert_eq!(t.stats.lines_quarantined == 0, ok, "depth {depth}: {:?}", t.quarantine);
            if !ok {
                assert!(
                    t.quarantine[0].reason.contains("nested deeper"),
                    "{}",
                    t.quarantine[0].reason
                );
            }
        }
    }
}

#[test]
fn utf16_and_lone_cr_files_get_a_hint() {
    let line = "{\"type\":\"action\",\"run_id\":\"r\",\"command\":\"ls\"}\n";
    let utf16: Vec<u8> = line.encode_utf16().flat_map(u16::to_le_bytes).collect();
    let t = ingest(&utf16, IngestOptions::default());
    assert!(t.error.as_deref().is_some_and(|e| e.contains("UTF-16LE")), "{:?}", t.error);
    let lone_cr = line.replace('\n', "\r").repeat(3);
    let t = ingest(lone_cr.as_bytes(), IngestOptions::default());
    assert!(t.error.as_deref().is_some_and(|e| e.contains("carriage return")), "{:?}", t.error);
    let t = ingest(line.repeat(2).as_bytes(), IngestOptions::default());
    assert!(t.error.is_none());
}

/// AWTL action lines `echo WORD`, a run each, the words' bytes as they are.
fn echo_lines(words: &[&[u8]]) -> Vec<u8> {
    let mut bytes = Vec::new();
    for (i, word) in words.iter().enumerate() {
        let head = format!("{{\"type\":\"action\",\"run_id\":\"r{i}\",\"command\":\"echo ");
        bytes.extend_from_slice(head.as_bytes());
        bytes.extend_from_slice(word);
        bytes.extend_from_slice(b"\"}\n");
    }
    bytes
}

/// A JSONL file written in Windows-1252 (a Windows program's default encoding), every line of
/// which holds an accented letter, is named as 8-bit text with the command that converts it;
/// random bytes are still a binary file. No line is lost to either hint.
#[test]
fn eight_bit_text_is_told_apart_from_a_binary_file() {
    // "café" and "naïve" in Windows-1252: 0xE9 and 0xEF, single bytes UTF-8 does not allow.
    let latin = echo_lines(&[b"caf\xe9", b"na\xefve", b"r\xe9sum\xe9"]);
    let t = ingest(&latin, IngestOptions::default());
    assert_eq!((t.stats.lines_parsed, t.stats.lines_quarantined), (0, 3));
    let e = t.error.unwrap_or_default();
    assert!(e.contains("look like JSON in an 8-bit encoding such as Windows-1252"), "{e}");
    assert!(e.contains("iconv -f WINDOWS-1252 -t UTF-8"), "{e}");
    assert!(!e.contains("binary file"), "{e}");
    // Bytes that do not open as JSON: a binary file, as before.
    let binary: Vec<u8> =
        (0..600u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8 | 0x80).collect();
    let binary = [&binary[..200], b"\n", &binary[200..400], b"\n", &binary[400..]].concat();
    let t = ingest(&binary, IngestOptions::default());
    assert_eq!(t.stats.lines_total, t.stats.lines_quarantined + t.stats.lines_blank);
    let e = t.error.unwrap_or_default();
    assert!(e.contains("it looks like a binary file"), "{e}");
    assert!(!e.contains("8-bit"), "{e}");
}

/// A file of plain-ASCII lines and a few in Windows-1252: the ASCII lines are read, the others
/// quarantined, and a note counts those whose bytes above ASCII are letters of words and that
/// read as JSON byte for byte (not damaged bytes, nor a character cut short) and says how to
/// convert the file.
#[test]
fn eight_bit_lines_among_read_ones_are_counted_in_a_note() {
    let bytes = echo_lines(&[b"cafe", b"caf\xe9", b"na\xefve", b"plain"]);
    let t = ingest(&bytes, IngestOptions::default());
    assert_eq!((t.stats.lines_parsed, t.stats.lines_quarantined), (2, 2));
    assert!(t.quarantine.iter().all(|q| q.reason.starts_with("invalid UTF-8 at byte")));
    let e = t.error.unwrap_or_default();
    assert!(e.contains("quarantined lines that read as JSON in an 8-bit encoding such as Windows-1252, not UTF-8: 2;"), "{e}");
    assert!(e.contains("iconv -f WINDOWS-1252 -t UTF-8"), "{e}");
    // Lines that are not JSON read so, damaged bytes, a character cut short (mid-line and at the
    // end): no note.
    let damaged = [
        &b"{\"type\":\"action\",\"run_id\":\"r\",\"command\":\"ls\"}\n"[..],
        b"{\"type\":\"caf\xe9\n",
        b"{\"type\":\"bad \xff\xfe bytes\"}\n",
        b"{\"cut\":\"a\xe2\x82\"}\n",
        b"{\"type\":\"action\",\"run_id\":\"r\",\"command\":\"\xc3",
    ]
    .concat();
    let t = ingest(&damaged, IngestOptions::default());
    assert_eq!((t.stats.lines_parsed, t.stats.lines_quarantined), (1, 4));
    assert!(t.error.is_none(), "{:?}", t.error);
}

/// UTF-16 is named with its byte order, with or without a byte-order mark, and the command
/// given converts from it; no line is lost to the hint.
#[test]
fn utf16_files_are_named_with_their_byte_order() {
    let line = "{\"type\":\"action\",\"run_id\":\"r\",\"command\":\"ls\"}\n";
    let units: Vec<u16> = line.encode_utf16().collect();
    let le: Vec<u8> = units.iter().flat_map(|u| u.to_le_bytes()).collect();
    let be: Vec<u8> = units.iter().flat_map(|u| u.to_be_bytes()).collect();
    let cases: [(&[u8], &[u8], &str); 2] =
        [(&[0xFF, 0xFE], &le, "UTF-16LE"), (&[0xFE, 0xFF], &be, "UTF-16BE")];
    for (bom, body, enc) in cases {
        for bytes in [[bom, body].concat(), body.to_vec()] {
            let t = ingest(&bytes, IngestOptions::default());
            let e = t.error.unwrap_or_default();
            assert!(e.contains(&format!("looks like {enc} text")), "{enc}: {e}");
            assert!(e.contains(&format!("iconv -f {enc} -t UTF-8")), "{enc}: {e}");
            assert_eq!(t.stats.lines_parsed, 0);
            assert_eq!(t.stats.lines_total, t.stats.lines_quarantined + t.stats.lines_blank);
        }
    }
}

/// Python's `json` writes a lone surrogate as a `\u` escape (text it decoded with
/// `surrogateescape`: a command's output that was not UTF-8) and reads it back: such a line is
/// kept, the surrogate read as U+FFFD, in a JSONL trace and in a document alike.
#[test]
fn lines_with_escaped_lone_surrogates_are_read_not_quarantined() {
    let awtl = concat!(
        r#"{"type":"action","run_id":"r1","command":"echo \ud800 x"}"#,
        "\n",
        r#"{"type":"observation","run_id":"r1","output":"bad \udc80 y","exit_code":1}"#,
        "\n",
        r#"{"type":"action","run_id":"r1","command":"ok \ud83d\ude00"}"#,
        "\n",
    );
    let t = ingest(awtl.as_bytes(), IngestOptions::default());
    assert_eq!((t.stats.lines_parsed, t.stats.lines_quarantined), (3, 0), "{:?}", t.quarantine);
    let steps = &t.trajectories[0].steps;
    assert_eq!(steps[0].args.as_deref(), Some("echo \u{FFFD} x"));
    assert_eq!(steps[1].text, "bad \u{FFFD} y");
    assert_eq!(steps[2].args.as_deref(), Some("ok \u{1F600}"));
    // A pretty-printed document (its lines are no records): the same reading.
    let doc =
        "{\n  \"history\": [\n    {\"role\": \"user\", \"content\": \"fix \\udc80 it\"}\n  ],\n  \
               \"question_ID\": \"q1\"\n}\n";
    let t = ingest(doc.as_bytes(), IngestOptions::default());
    assert!(t.quarantine.is_empty(), "{:?}", t.quarantine);
    assert_eq!(t.trajectories.len(), 1, "{:?}", t.error);
    assert_eq!(t.trajectories[0].steps[0].text, "fix \u{FFFD} it");
}

/// A text file (a log, notes) with a line that looks like damaged JSON among its prose is
/// still told of as a text file; a file of damaged JSON lines is not.
#[test]
fn a_mostly_prose_file_is_told_of_as_text() {
    let log = "2026-12-01 10:00:00 INFO starting agent\n[1, 2\nTraceback (most recent call \
               last):\n  File \"agent.py\", line 3, in main\nValueError: bad plan\n";
    let t = ingest(log.as_bytes(), IngestOptions::default());
    assert_eq!(t.stats.lines_quarantined, 5);
    assert!(t.quarantine.iter().any(|q| q.reason != "not JSON: a plain-text line (a log line?)"));
    let e = t.error.unwrap_or_default();
    assert!(e.contains("it looks like a text file, not a trace"), "{e}");
    let damaged = "{\"type\":\"action\",\n[1, 2\nnot a record here\n{\"run_id\":\n";
    let t = ingest(damaged.as_bytes(), IngestOptions::default());
    assert_eq!(t.stats.lines_quarantined, 4);
    let e = t.error.unwrap_or_default();
    assert!(!e.contains("text file"), "{e}");
}

#[test]
fn two_trajectories_sharing_an_id_stay_addressable() {
    let record = r#"{"history":[{"role":"user","content":"a"}],"question_ID":"q1"}"#;
    let t = ingest(format!("{record}\n{record}\n{record}\n").as_bytes(), IngestOptions::default());
    let ids: Vec<&str> = t.trajectories.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(ids, ["q1", "q1#2", "q1#3"]);
}

/// AWTL keeps one run per id, so its ids are not checked again at the end; a run without an
/// id is named `run-N` after its place, which another run may already be called: still told
/// apart.
#[test]
fn an_awtl_run_without_an_id_named_like_another_run_is_told_apart() {
    let input = b"{\"type\":\"action\",\"command\":\"a\"}\n{\"type\":\"action\",\"run_id\":\"run-1\",\"command\":\"b\"}\n";
    let t = ingest(input, IngestOptions::default());
    let ids: Vec<&str> = t.trajectories.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(ids, ["run-1", "run-1#2"]);
    let input = b"{\"type\":\"action\",\"run_id\":\"a\"}\n{\"type\":\"action\",\"run_id\":\"b\"}\n";
    let t = ingest(input, IngestOptions::default());
    let ids: Vec<&str> = t.trajectories.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(ids, ["a", "b"]);
}

/// Found by the `session` fuzz target: two replies whose token counts sum past `u64::MAX`
/// panicked in the usage summary and in the step list's token column (debug builds; release
/// builds wrapped to a small number). The sums now stop at `u64::MAX`.
#[test]
fn token_counts_that_sum_past_u64_max_stay_at_the_maximum() {
    let max = u64::MAX;
    let reply = |i: u32| {
        format!(
            "{{\"type\":\"assistant\",\"sessionId\":\"s\",\"uuid\":\"a{i}\",\"message\":{{\
             \"id\":\"m{i}\",\"role\":\"assistant\",\"content\":[{{\"type\":\"text\",\
             \"text\":\"ok\"}}],\"usage\":{{\"input_tokens\":{max},\"output_tokens\":1,\
             \"cache_read_input_tokens\":{max}}}}}}}\n"
        )
    };
    let input = format!("{}{}", reply(1), reply(2));
    let mut session = trajscope_core::Session::new(read(input.as_bytes()), None);
    let report = session.report();
    let usage = &report.trajectories[0].usage;
    assert_eq!(usage.input_tokens, Some(max));
    assert_eq!(usage.cache_read_tokens, Some(max));
    assert_eq!(usage.output_tokens, Some(2));
    assert_eq!(usage.steps_with_usage, 2);
    // The step list's token column sums a step's fields the same way.
    let columns = session.columns(0).expect("the session's trajectory");
    assert_eq!(columns.tokens, [max, max]);
}

fn records_with_ids(ids: &[&str]) -> Vec<String> {
    let text: String = ids
        .iter()
        .map(|id| format!("{{\"history\":[{{\"role\":\"user\",\"content\":\"a\"}}],\"question_ID\":\"{id}\"}}\n"))
        .collect();
    let t = ingest(text.as_bytes(), IngestOptions::default());
    assert_eq!(t.trajectories.len(), ids.len());
    t.trajectories.into_iter().map(|t| t.id).collect()
}

/// The renaming tried every suffix from `#2` again for each copy of an id: quadratic in the
/// copies (a file of 3,000 records of one id spent a sixth of its time there). 20,000 copies,
/// an original `q#3` among them, each still its own id, numbered in order.
#[test]
fn twenty_thousand_records_of_one_id_are_renamed_in_one_pass() {
    let mut ids = vec!["q"; 20_000];
    ids[10] = "q#3";
    let got = records_with_ids(&ids);
    assert_eq!(&got[..4], ["q", "q#2", "q#4", "q#5"]);
    assert_eq!(got[10], "q#3");
    // 19,998 copies renamed: suffixes 2 and 4 to 20,000 (3 is an original).
    assert_eq!(got[19_999], "q#20000");
    let distinct: std::collections::HashSet<&String> = got.iter().collect();
    assert_eq!(distinct.len(), got.len());
}

proptest::proptest! {
    /// The renaming gives what trying every suffix from `#2` gave: the smallest suffix that is
    /// neither an original id nor one given before.
    #[test]
    fn duplicate_ids_get_the_smallest_free_suffix(
        picks in proptest::collection::vec(0usize..6, 1..30),
    ) {
        let pool = ["a", "b", "a#2", "a#3", "b#2", "a#2#2"];
        let ids: Vec<&str> = picks.iter().map(|&i| pool[i]).collect();
        let originals: std::collections::HashSet<&str> = ids.iter().copied().collect();
        let mut taken = std::collections::HashSet::new();
        let mut want = Vec::new();
        for id in &ids {
            let mut got = id.to_string();
            if !taken.insert(got.clone()) {
                let mut n = 2;
                got = loop {
                    let c = format!("{id}#{n}");
                    if !originals.contains(c.as_str()) && !taken.contains(&c) {
                        break c;
                    }
                    n += 1;
                };
                taken.insert(got.clone());
            }
            want.push(got);
        }
        proptest::prop_assert_eq!(records_with_ids(&ids), want);
    }
}
