//! AWTL lines parsed ahead (`PreparedChunk`, what the CLI's parser threads make) give the same
//! trace as the lines parsed in turn: for every file of the AWTL and corrupt fixture folders
//! and for generated inputs (CRLF, blank and invalid lines, a byte-order mark, long texts cut
//! at their source offset, escapes, lines cut by the chunking), in any chunking.
#![cfg(not(target_arch = "wasm32"))]

use std::path::{Path, PathBuf};

use proptest::prelude::*;
use trajscope_core::ingest::PreparedChunk;
use trajscope_core::{IngestOptions, Ingestor, Loader, Trace};

fn plain(bytes: &[u8], size: usize) -> Trace {
    let mut ingestor = Ingestor::new(IngestOptions::default());
    bytes.chunks(size).for_each(|c| ingestor.feed(c));
    ingestor.finish()
}

/// Fed as the CLI feeds it: every chunk parsed ahead when `ahead` says so for it.
fn prepared(bytes: &[u8], size: usize, ahead: impl Fn(usize) -> bool) -> Trace {
    let mut ingestor = Ingestor::new(IngestOptions::default());
    for (i, c) in bytes.chunks(size).enumerate() {
        let mut chunk = PreparedChunk::new(c.to_vec(), c.len(), ahead(i));
        ingestor.feed_prepared(&mut chunk);
        assert_eq!(chunk.into_buffer(), c, "the chunk's buffer comes back as it was");
    }
    ingestor.finish()
}

fn check(name: &str, bytes: &[u8]) {
    let whole = plain(bytes, bytes.len().max(1));
    for size in [1, 7, 64, 4096, 1 << 20] {
        assert_eq!(prepared(bytes, size, |_| true), whole, "{name}: chunks of {size}, all ahead");
        assert_eq!(prepared(bytes, size, |i| i % 2 == 1), whole, "{name}: chunks of {size}");
    }
}

fn files(folder: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures").join(folder);
    #[allow(clippy::disallowed_methods)] // the test lists its fixture folder; the core does no I/O
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("the fixture folder")
        .map(|e| e.expect("a readable entry").path())
        .filter(|p| p.is_file() && p.extension().is_none_or(|e| e != "expected" && e != "md"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "{}", dir.display());
    files
}

#[test]
fn every_awtl_and_corrupt_fixture_reads_the_same_parsed_ahead() {
    for path in files("awtl").into_iter().chain(files("corrupt")) {
        #[allow(clippy::disallowed_methods)] // reading the fixture, as above
        let bytes = std::fs::read(&path).expect("a readable fixture");
        check(&path.display().to_string(), &bytes);
    }
}

#[test]
fn a_loader_fed_prepared_chunks_gives_the_same_session_and_identity() {
    let line = "{\"type\":\"action\",\"run_id\":\"r\",\"command\":\"ls\"}\n";
    let bytes = line.repeat(5000).into_bytes();
    let mut a = Loader::new(IngestOptions::default(), true);
    let mut b = Loader::new(IngestOptions::default(), true);
    for c in bytes.chunks(10_000) {
        a.feed(c);
        let mut chunk = PreparedChunk::new(c.to_vec(), c.len(), b.reads_awtl_lines());
        b.feed_prepared(&mut chunk);
    }
    assert!(b.reads_awtl_lines(), "plain AWTL lines are read from the first line on");
    assert_eq!(a.progress(), b.progress());
    let (a, b) = (a.finish(), b.finish());
    assert_eq!(a.identity(), b.identity());
    assert_eq!(a.trace(), b.trace());
}

#[test]
fn only_plain_awtl_lines_are_worth_parsing_ahead() {
    let mut other = Loader::new(IngestOptions::default(), false);
    other.feed(b"{\"type\":\"user\",\"sessionId\":\"s\",\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\n");
    assert!(!other.reads_awtl_lines(), "a Claude Code transcript");
    let mut gz = Loader::new(IngestOptions::default(), false);
    gz.feed(&[0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 3]);
    assert!(!gz.reads_awtl_lines(), "a gzip stream: its lines are not the chunk's bytes");
    let chunk = PreparedChunk::new(b"a\n{\"type\":\"action\"}\nb".to_vec(), 22, true);
    assert_eq!(chunk.parsed_lines(), 1, "only the line between two line feeds");
}

/// Pieces of AWTL files, good and bad.
fn line() -> impl Strategy<Value = Vec<u8>> {
    let long = "x".repeat(trajscope_core::ingest::TEXT_COMPACT_ABOVE + 100);
    prop_oneof![
        (0..4u8, "[a-c]{0,2}").prop_map(|(r, cmd)| {
            format!("{{\"type\":\"action\",\"run_id\":\"r{r}\",\"command\":\"{cmd}\"}}").into_bytes()
        }),
        (0..4u8, -1..2i32).prop_map(|(r, code)| {
            format!("{{\"type\":\"observation\",\"runId\":\"r{r}\",\"exit_code\":{code},\"output\":\"e\\u00e9\\n\"}}")
                .into_bytes()
        }),
        (0..4u8, prop::bool::ANY).prop_map(|(r, ok)| {
            let status = if ok { "passed" } else { "failed" };
            format!("{{\"type\":\"run_end\",\"run_id\":\"r{r}\",\"status\":\"{status}\",\"final_answer\":\"42\"}}")
                .into_bytes()
        }),
        (0..4u8).prop_map(|r| format!("{{\"type\":\"run_start\",\"run_id\":\"r{r}\",\"task\":\"t\"}}").into_bytes()),
        (0..4u8).prop_map(move |r| {
            format!("{{\"type\":\"observation\",\"run_id\":\"r{r}\",\"output\":\"{long}\",\"command\":\"{long}\"}}")
                .into_bytes()
        }),
        Just(b"{\"type\":\"message\",\"role\":\"user\",\"text\":\"no run\",\"writer_seq\":3}".to_vec()),
        Just(b"{\"type\":\"action\",\"run_id\":\"r1\"".to_vec()),
        Just(b"[1,2]".to_vec()),
        Just(b"   ".to_vec()),
        Just(Vec::new()),
        Just(b"{\"type\":\"action\",\"command\":\"\xff\xfe\"}".to_vec()),
        Just(format!("{}{}", "[".repeat(200), "]".repeat(200)).into_bytes()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn lines_parsed_ahead_give_the_trace_of_lines_parsed_in_turn(
        lines in prop::collection::vec((line(), prop::bool::ANY), 1..60),
        bom in prop::bool::ANY,
        last_newline in prop::bool::ANY,
        size in prop_oneof![1usize..400, 12_000usize..40_000],
        ahead in prop::collection::vec(prop::bool::ANY, 1..8),
    ) {
        let mut bytes = if bom { b"\xEF\xBB\xBF".to_vec() } else { Vec::new() };
        for (line, crlf) in &lines {
            bytes.extend_from_slice(line);
            bytes.extend_from_slice(if *crlf { b"\r\n" } else { b"\n" });
        }
        if !last_newline {
            bytes.pop();
        }
        let whole = plain(&bytes, bytes.len().max(1));
        let got = prepared(&bytes, size, |i| ahead[i % ahead.len()]);
        prop_assert_eq!(got, whole);
    }
}
