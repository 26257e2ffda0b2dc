//! The corrupt-input corpus (`tests/fixtures/corrupt/`): EVERY file in the folder (found by
//! listing it, so a new file cannot go unchecked) is rendered as every fixture is
//! (`common/mod.rs`) against `<file>.expected` beside it (bless with `UPDATE_EXPECT=1`), and its
//! quarantine is checked against the file's own bytes: counts add up, every quarantined line's
//! raw bytes are exactly the bytes at its recorded offset, `truncated_tail` only on a final
//! unterminated line, and feeding the file in any chunking gives the same trace. Inputs too big
//! to commit are generated here.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::io::Read as _;
use std::path::{Path, PathBuf};

use expect_test::expect;
use trajscope_core::{ingest, IngestOptions, Ingestor, Trace};

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/corrupt")
}

/// The bytes the ingest sees: a gzip file decompressed as far as it goes (a damaged stream
/// yields what came before the damage; one that fails before its first byte was no gzip and
/// is read as text), anything else as it is.
fn decompressed(bytes: &[u8]) -> Vec<u8> {
    // A gzip header as the ingest decides it: deflate, no reserved flags, a defined
    // extra-flags value and operating system.
    let gzip_header = bytes.len() >= 10
        && bytes.starts_with(&[0x1f, 0x8b, 0x08])
        && bytes[3] & 0xE0 == 0
        && matches!(bytes[8], 0 | 2 | 4)
        && matches!(bytes[9], 0..=13 | 255);
    if !gzip_header {
        return bytes.to_vec();
    }
    let mut out = Vec::new();
    let mut dec = flate2::read::MultiGzDecoder::new(bytes);
    let mut buf = [0u8; 1];
    // One byte at a time so a damaged stream still gives every byte before the damage.
    loop {
        match dec.read(&mut buf) {
            Ok(1) => out.push(buf[0]),
            Ok(_) => return out,
            Err(_) if out.is_empty() => return bytes.to_vec(),
            Err(_) => return out,
        }
    }
}

/// Every invariant of the quarantine, checked against the input's own bytes.
fn check_invariants(name: &str, input: &[u8], trace: &Trace) {
    let s = &trace.stats;
    assert_eq!(
        s.lines_total,
        s.lines_parsed + s.lines_blank + s.lines_quarantined,
        "{name}: counts add up"
    );
    assert_eq!(s.lines_quarantined as usize, trace.quarantine.len(), "{name}");
    let plain = decompressed(input);
    assert_eq!(s.bytes as usize, plain.len(), "{name}: bytes counts the decompressed input");
    let expected_lines = count_lines(&plain);
    assert_eq!(s.lines_total, expected_lines, "{name}: every line is counted once");
    for q in &trace.quarantine {
        let start = q.offset as usize;
        let end = start + q.raw.len();
        assert_eq!(plain.get(start..end), Some(&q.raw[..]), "{name}: raw bytes of line {}", q.line);
        let rest = &plain[end..];
        let terminated = rest.starts_with(b"\n") || rest.starts_with(b"\r\n");
        assert!(terminated || rest.is_empty(), "{name}: line {} is cut short", q.line);
        if q.truncated_tail {
            assert!(rest.is_empty(), "{name}: truncated_tail on line {} mid-file", q.line);
        }
        // The line number is the count of `\n` before the line, plus one.
        let newlines = plain[..start].iter().filter(|&&b| b == b'\n').count();
        assert_eq!(q.line as usize, newlines + 1, "{name}: line number of offset {start}");
    }
}

/// Lines as the issue defines them: the bytes between `\n`, a non-empty last segment counts;
/// a leading BOM is not a line of its own.
fn count_lines(bytes: &[u8]) -> u64 {
    let body = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let newlines = body.iter().filter(|&&b| b == b'\n').count() as u64;
    newlines + u64::from(!body.is_empty() && !body.ends_with(b"\n"))
}

/// The same input fed in chunks of `size` bytes.
fn ingest_chunked(bytes: &[u8], size: usize) -> Trace {
    let mut ingestor = Ingestor::new(IngestOptions::default());
    for chunk in bytes.chunks(size) {
        ingestor.feed(chunk);
    }
    ingestor.finish()
}

/// Checks one corpus file (embedded at compile time: the tests do no file reading of their own).
macro_rules! check_fixture {
    ($file:literal) => {
        check_fixture($file, include_bytes!(concat!("../../../tests/fixtures/corrupt/", $file)))
    };
}

fn check_fixture(file: &str, bytes: &[u8]) -> Trace {
    let trace = ingest(bytes, IngestOptions::default());
    check_invariants(file, bytes, &trace);
    for size in [1, 2, 3, 7, 64] {
        assert_eq!(ingest_chunked(bytes, size), trace, "{file}: chunks of {size} bytes");
    }
    common::check_golden(&format!("corrupt/{file}"), &trace);
    trace
}

/// Every file of the corpus, checked (the named tests below add assertions about some).
#[test]
#[allow(clippy::disallowed_methods)] // the test lists its fixture folder; the core does no I/O
fn every_file_of_the_corpus_is_checked() {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(corpus_dir())
        .expect("the corpus folder")
        .map(|e| e.expect("a readable entry").path())
        .filter(|p| p.is_file())
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), p))
        .filter(|(n, _)| !(n.ends_with(".md") || n.ends_with(".expected")))
        .map(|(n, p)| (n, std::fs::read(p).expect("a readable fixture")))
        .collect();
    files.sort();
    assert!(files.len() >= 17, "corpus files found: {}", files.len());
    for (name, bytes) in &files {
        check_fixture(name, bytes);
    }
}

#[test]
fn truncated_tail_is_flagged_only_on_the_last_line() {
    let t = check_fixture!("truncated-tail.jsonl");
    assert_eq!(t.quarantine.len(), 1);
    assert!(t.quarantine[0].truncated_tail);
}

#[test]
fn garbage_in_the_middle_is_damage_not_a_truncated_tail() {
    let t = check_fixture!("mid-file-garbage.jsonl");
    assert_eq!(t.stats.lines_parsed, 3);
    assert!(t.quarantine.iter().all(|q| !q.truncated_tail));
}

#[test]
fn invalid_utf8_lines_keep_their_exact_bytes() {
    let t = check_fixture!("invalid-utf8.jsonl");
    assert_eq!(t.quarantine.len(), 2);
    assert!(t.quarantine.iter().all(|q| q.reason.contains("UTF-8")));
}

#[test]
fn nul_bytes() {
    let t = check_fixture!("nul-bytes.jsonl");
    assert_eq!(t.quarantine.len(), 2);
}

#[test]
fn crlf_line_ends() {
    let t = check_fixture!("crlf.jsonl");
    assert_eq!((t.stats.lines_parsed, t.stats.lines_blank, t.stats.lines_quarantined), (3, 1, 1));
}

#[test]
fn a_bom_is_no_line_and_line_one_starts_after_it() {
    let t = check_fixture!("bom.jsonl");
    assert_eq!((t.quarantine[0].line, t.quarantine[0].offset), (1, 3));
    let empty = check_fixture!("bom-only.jsonl");
    assert_eq!(empty.stats.lines_total, 0);
}

#[test]
fn arrays_and_scalars_instead_of_objects() {
    let t = check_fixture!("arrays-not-objects.jsonl");
    assert_eq!(t.stats.lines_parsed, 2);
    assert_eq!(t.quarantine.len(), 5);
}

#[test]
fn empty_and_blank_only_files() {
    let t = check_fixture!("empty.jsonl");
    assert_eq!((t.stats.lines_total, t.trajectories.len()), (0, 0));
    let t = check_fixture!("blank-lines-only.jsonl");
    assert_eq!((t.stats.lines_total, t.stats.lines_blank), (4, 4));
}

#[test]
fn gzip_is_recognised_by_its_magic_bytes() {
    let t = check_fixture!("trace.jsonl.gz");
    assert_eq!(t.format.name(), "awtl");
    assert_eq!(t.stats.lines_parsed, 4);
    assert!(t.error.is_none());
}

#[test]
fn a_cut_or_damaged_gzip_keeps_what_came_before_and_says_so() {
    for (file, t) in [
        ("truncated.jsonl.gz", check_fixture!("truncated.jsonl.gz")),
        ("damaged.jsonl.gz", check_fixture!("damaged.jsonl.gz")),
    ] {
        assert!(t.error.as_deref().is_some_and(|e| e.contains("gzip")), "{file}: {:?}", t.error);
        assert!(t.stats.lines_parsed > 0, "{file}");
    }
}

#[test]
fn a_broken_pretty_printed_document_is_one_error_with_its_position() {
    let t = check_fixture!("broken-document.json");
    let error = t.error.expect("an error");
    assert!(error.contains("line 5, column 3"), "{error}");
    assert!(t.trajectories.is_empty());
}

#[test]
fn a_damaged_first_line_does_not_turn_jsonl_into_a_document() {
    let t = check_fixture!("damaged-first-line.jsonl");
    assert_eq!(t.format.name(), "awtl");
    assert_eq!((t.stats.lines_parsed, t.stats.lines_quarantined), (3, 1));
    assert!(t.error.is_none());
}

#[test]
fn deep_nesting_is_quarantined_not_a_stack_overflow() {
    const GOOD: &str = r#"{"type":"action","command":"ls"}"#;
    let deep = |open: &str, close: &str| format!("{}{}", open.repeat(5000), close.repeat(5000));
    let input = format!(
        "{GOOD}\n{}\n{}\n{{\"type\":\"action\",\"args\":{}}}\n{GOOD}\n",
        deep("[", "]"),
        deep("{\"a\":", "}"),
        deep("[", "]"),
    );
    let trace = ingest(input.as_bytes(), IngestOptions::default());
    check_invariants("deep", input.as_bytes(), &trace);
    let reasons: Vec<&str> = trace.quarantine.iter().map(|q| q.reason.as_str()).collect();
    expect![[r#"
        [
            "JSON nested deeper than the parser allows (128 levels)",
            "JSON nested deeper than the parser allows (128 levels)",
            "JSON nested deeper than the parser allows (128 levels)",
        ]
    "#]]
    .assert_debug_eq(&reasons);
    // Deep nesting as the first line must not hold the whole file as a would-be document.
    let first = format!("{}\n{GOOD}\n{GOOD}\n", deep("[", "]"));
    let trace = ingest(first.as_bytes(), IngestOptions::default());
    check_invariants("deep first", first.as_bytes(), &trace);
    assert_eq!((trace.stats.lines_parsed, trace.stats.lines_quarantined), (2, 1));
}

#[test]
fn a_two_megabyte_unterminated_line() {
    const GOOD: &str = r#"{"type":"action","command":"ls"}"#;
    let long = format!("{{\"type\":\"observation\",\"output\":\"{}", "x".repeat(2 << 20));
    let input = format!("{GOOD}\n{long}");
    for size in [usize::MAX, 4096, 1 << 20] {
        let trace = ingest_chunked(input.as_bytes(), size);
        check_invariants("2 MB tail", input.as_bytes(), &trace);
        assert_eq!(trace.quarantine.len(), 1);
        let q = &trace.quarantine[0];
        assert!(q.truncated_tail, "a JSON value cut short at the end of the file");
        assert_eq!(q.raw.len(), long.len());
        assert!(q.reason.contains("ends inside"), "{}", q.reason);
    }
    // The same line, terminated, in the middle of the file: damage, not a truncated tail.
    let input = format!("{long}\n{GOOD}\n");
    let trace = ingest_chunked(input.as_bytes(), 65536);
    check_invariants("2 MB mid", input.as_bytes(), &trace);
    assert_eq!(trace.quarantine.len(), 1);
    assert!(!trace.quarantine[0].truncated_tail);
}

#[test]
fn a_final_line_that_is_complete_but_wrong_is_not_a_truncated_tail() {
    let input = b"{\"type\":\"action\"}\n[1,2,3]";
    let trace = ingest(input, IngestOptions::default());
    check_invariants("complete tail", input, &trace);
    assert_eq!(trace.quarantine.len(), 1);
    assert!(!trace.quarantine[0].truncated_tail);
}

/// Found by `fuzz/` (crash-44ec0098): a final line ending in `\r` without `\n` lost its `\r`, so
/// its raw bytes did not reach the end of the file.
#[test]
fn fuzz_a_final_carriage_return_stays_in_the_raw_bytes() {
    let t = check_fixture!("fuzz-final-cr.jsonl");
    let last = t.quarantine.last().expect("the last line is quarantined");
    assert_eq!(last.raw, b"   [1\r");
    assert!(last.truncated_tail);
}

/// Found by `fuzz/` (crash-c663d497): a damaged gzip stream gave more or less text before its
/// damage depending on how the input was sliced (the decoder's buffered output was lost with
/// the error at different points). Now the decoder always sees the same pieces.
#[test]
fn fuzz_a_damaged_gzip_gives_the_same_text_however_it_is_sliced() {
    // It fails before its first decompressed byte: not gzip after all, so its bytes are lines.
    let t = check_fixture!("fuzz-damaged-gzip.jsonl.gz");
    assert_eq!(t.stats.bytes, 125);
    assert_eq!((t.stats.lines_total, t.stats.lines_quarantined), (7, 6), "no line is lost");
}

#[test]
fn a_large_damaged_gzip_gives_the_same_trace_in_any_slicing() {
    use std::io::Write as _;
    let line = r#"{"type":"observation","exit_code":0,"output":"ok"}"#;
    let plain: String = (0..20_000).map(|i| format!("{line} {i}\n")).collect();
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    enc.write_all(plain.as_bytes()).expect("in-memory write");
    let mut gz = enc.finish().expect("in-memory write");
    let mid = gz.len() * 2 / 3;
    gz[mid] ^= 0x5a;
    let whole = ingest(&gz, IngestOptions::default());
    assert!(whole.error.is_some());
    for size in [1000, 4096, 65536 + 17] {
        assert_eq!(ingest_chunked(&gz, size), whole, "chunks of {size}");
    }
}
