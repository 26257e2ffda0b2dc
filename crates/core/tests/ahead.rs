//! Lines parsed ahead (`PreparedChunk`, what the CLI's parser threads make) give the same trace
//! as the lines parsed in turn: for every file of the AWTL, corrupt, Claude Code and Agents SDK
//! fixture folders, smolagents lines and for generated inputs (CRLF, blank and invalid lines, a byte-order mark,
//! long texts cut at their source offset, escapes, lines cut by the chunking), in any chunking.
#![cfg(not(target_arch = "wasm32"))]

use std::path::{Path, PathBuf};

use proptest::prelude::*;
use trajscope_core::ingest::PreparedChunk;
use trajscope_core::model::{Format, Outcome};
use trajscope_core::{IngestOptions, Ingestor, Loader, Trace};

fn plain(bytes: &[u8], size: usize) -> Trace {
    let mut ingestor = Ingestor::new(IngestOptions::default());
    bytes.chunks(size).for_each(|c| ingestor.feed(c));
    ingestor.finish()
}

/// Fed as the CLI feeds it: every chunk parsed ahead as lines of the format `ahead` names for
/// it (if any).
fn prepared(bytes: &[u8], size: usize, ahead: impl Fn(usize) -> Option<Format>) -> Trace {
    let mut ingestor = Ingestor::new(IngestOptions::default());
    for (i, c) in bytes.chunks(size).enumerate() {
        let mut chunk = PreparedChunk::new(c.to_vec(), c.len(), ahead(i));
        ingestor.feed_prepared(&mut chunk);
        assert_eq!(chunk.into_buffer(), c, "the chunk's buffer comes back as it was");
    }
    ingestor.finish()
}

/// The same trace parsed ahead as `format`'s lines, every chunk or every other one, and
/// (the format a file is not) as the other format's lines.
fn check(name: &str, bytes: &[u8], format: Format) {
    let whole = plain(bytes, bytes.len().max(1));
    let other = if format == Format::Awtl { Format::ClaudeCode } else { Format::Awtl };
    for size in [1, 7, 64, 4096, 1 << 20] {
        let all = prepared(bytes, size, |_| Some(format));
        assert_eq!(all, whole, "{name}: chunks of {size}, all ahead");
        let half = prepared(bytes, size, |i| (i % 2 == 1).then_some(format));
        assert_eq!(half, whole, "{name}: chunks of {size}");
        let wrong = prepared(bytes, size, |i| Some(if i % 3 == 0 { other } else { format }));
        assert_eq!(wrong, whole, "{name}: chunks of {size}, some parsed as {other:?}");
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
        check(&path.display().to_string(), &bytes, Format::Awtl);
    }
}

/// Every file of a fixture folder of `format`'s: read as that format, with steps, and the same
/// parsed ahead ([`check`]).
fn check_folder(folder: &str, format: Format) {
    for path in files(folder) {
        #[allow(clippy::disallowed_methods)] // reading the fixture, as above
        let bytes = std::fs::read(&path).expect("a readable fixture");
        let trace = plain(&bytes, bytes.len());
        assert_eq!(trace.format, format, "{}", path.display());
        assert!(trace.trajectories.iter().map(|t| t.steps.len()).sum::<usize>() > 0);
        check(&path.display().to_string(), &bytes, format);
    }
}

#[test]
fn every_claude_code_fixture_reads_the_same_parsed_ahead() {
    check_folder("claude_code", Format::ClaudeCode);
}

/// smolagents lines: a run's steps, a run started again by its step number, a step limit.
#[test]
fn every_smolagents_line_fixture_reads_the_same_parsed_ahead() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/smolagents/callback_runs.jsonl");
    #[allow(clippy::disallowed_methods)] // reading the fixture, as above
    let bytes = std::fs::read(&path).expect("a readable fixture");
    let trace = plain(&bytes, bytes.len());
    assert_eq!(trace.format, Format::Smolagents);
    assert_eq!(trace.trajectories.len(), 2);
    check("smolagents/callback_runs.jsonl", &bytes, Format::Smolagents);
    // Ten times over, with a RunResult line among the steps and a damaged line.
    let run_result =
        r#"{"output":"x","state":"max_steps_error","steps":[{"task":"t","task_images":null}]}"#;
    let mut text = String::new();
    for i in 0..10 {
        text.push_str(std::str::from_utf8(&bytes).unwrap());
        text.push_str(if i % 3 == 0 { run_result } else { "{\"step_number\": [" });
        text.push('\n');
    }
    check("smolagents, repeated", text.as_bytes(), Format::Smolagents);
}

/// Claude Code lines whose reading depends on the lines before (a session named by an earlier
/// line, blocks written again under the same reply, a tool result named by a call some chunks
/// back, the working directory the refs resolve against, sidechain agents, bookkeeping), read
/// the same parsed ahead in any chunking.
#[test]
fn claude_code_lines_parsed_ahead_keep_what_the_lines_before_said() {
    let mut text = String::new();
    for c in 0..60 {
        let (s, m, cwd) = (format!("s{}", c % 3), format!("m{c}"), format!("/repo{}", c % 2));
        let g = c % 4;
        let earlier = if c >= 4 { c - 4 } else { c };
        let tool_use = format!(
            r#"{{"type":"tool_use","id":"t{c}","name":"Edit","input":{{"file_path":"src/a{c}.py"}}}}"#
        );
        for line in [
            format!(
                r#"{{"type":"user","sessionId":"{s}","uuid":"u{c}","cwd":"{cwd}","message":{{"role":"user","content":"task {c}"}}}}"#
            ),
            format!(
                r#"{{"type":"assistant","sessionId":"{s}","uuid":"a{c}","message":{{"id":"{m}","role":"assistant","content":[{{"type":"text","text":"Look."}}],"usage":{{"output_tokens":1}}}}}}"#
            ),
            format!(
                r#"{{"type":"assistant","sessionId":"{s}","uuid":"b{c}","message":{{"id":"{m}","role":"assistant","content":[{{"type":"text","text":"Look."}},{tool_use}],"usage":{{"output_tokens":9}}}}}}"#
            ),
            format!(
                r#"{{"type":"assistant","sessionId":"{s}","uuid":"r{c}","message":{{"id":"{m}","role":"assistant","content":[{{"type":"text","text":"Look."}},{tool_use}]}}}}"#
            ),
            format!(
                r#"{{"type":"user","sessionId":"{s}","uuid":"v{c}","message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"t{earlier}","content":"Exit code 1\nboom"}}]}}}}"#
            ),
            format!(
                r#"{{"type":"assistant","isSidechain":true,"agentId":"g{g}","sessionId":"{s}","message":{{"id":"n{c}","role":"assistant","content":[{{"type":"text","text":"dup"}},{{"type":"text","text":"dup"}},{{"type":"tool_use","id":"x{c}","name":"Bash","input":{{"command":"echo > o{c}.txt"}}}}]}}}}"#
            ),
            r#"{"type":"summary","summary":"sum"}"#.to_string(),
            r#"{"type":"queue-operation"}"#.to_string(),
            r#"{"type":"user","message":{"role":"user","content":"no session"},"isMeta":true}"#
                .to_string(),
            format!(r#"{{"type":"mystery","sessionId":"{s}","x":[1,{{"y":null}}]}}"#),
            r#"{"type":"assistant","sessionId":"#.to_string(),
        ] {
            text.push_str(&line);
            text.push('\n');
        }
    }
    let whole = plain(text.as_bytes(), text.len());
    assert_eq!(whole.format, Format::ClaudeCode);
    let steps: Vec<_> = whole.trajectories.iter().flat_map(|t| &t.steps).collect();
    assert!(steps.iter().any(|s| s.status.as_deref() == Some("repeated")), "a repeated reply");
    assert!(steps
        .iter()
        .any(|s| s.tool.as_deref() == Some("Edit") && s.ids.source_action_id.is_some()));
    assert!(steps.iter().any(|s| !s.artifact_refs.is_empty()), "refs from the calls' inputs");
    assert_eq!(whole.stats.lines_quarantined, 60, "the cut line of each round");
    check("generated Claude Code lines", text.as_bytes(), Format::ClaudeCode);
}

#[test]
fn every_openai_agents_fixture_reads_the_same_parsed_ahead() {
    check_folder("openai_agents", Format::OpenaiAgents);
}

/// Agents SDK lines whose reading depends on the lines before (a span started on one line and
/// ended some chunks later, an ended span exported again, a batch holding one span twice or a
/// span seen before, a workflow named twice, an event wrapping an export), read the same
/// parsed ahead in any chunking.
#[test]
fn openai_agents_lines_parsed_ahead_keep_what_the_lines_before_said() {
    let span = |id: &str, trace: usize, parent: Option<&str>, end: Option<u32>, data: &str| {
        let parent = parent.map_or("null".to_string(), |p| format!("\"{p}\""));
        let end = end.map_or("null".to_string(), |e| format!("\"2025-06-02T10:{e:02}:00Z\""));
        format!(
            r#"{{"object":"trace.span","id":"{id}","trace_id":"T{trace}","parent_id":{parent},"started_at":"2025-06-02T10:00:00Z","ended_at":{end},"span_data":{data},"error":null}}"#
        )
    };
    let mut text = String::new();
    for c in 0..40usize {
        let t = c % 5;
        let (a, g, f, d) = (format!("a{c}"), format!("g{c}"), format!("f{c}"), format!("d{c}"));
        let generation = |reply: &str| {
            format!(
                r#"{{"type":"generation","input":[{{"role":"system","content":"sys"}},{{"role":"user","content":"task {c}"}}],"output":[{{"role":"assistant","content":"{reply}","tool_calls":[{{"id":"call{c}","function":{{"name":"lookup","arguments":"{{}}"}}}}]}}],"usage":{{"input_tokens":5,"output_tokens":2}}}}"#
            )
        };
        let function = r#"{"type":"function","name":"lookup","input":"{}","output":null}"#;
        let ended_function =
            format!(r#"{{"type":"function","name":"lookup","input":"{{}}","output":"found {c}"}}"#);
        let mut lines = vec![
            format!(r#"{{"object":"trace","id":"T{t}","workflow_name":"W{c}"}}"#),
            span(&a, t, None, None, r#"{"type":"agent","name":"Agent"}"#),
            span(&g, t, Some(&a), Some(1), &generation("first")),
            span(&f, t, Some(&a), None, function),
            format!(
                r#"{{"data":[{},{{"object":"trace","id":"T{t}","workflow_name":"X"}},5,{{"nope":1}}]}}"#,
                span(&format!("h{c}"), t, Some(&a), Some(2), r#"{"type":"custom","name":"c"}"#)
            ),
            format!(
                r#"{{"type":"span_end","span":{}}}"#,
                span(&f, t, Some(&a), Some(3), &ended_function)
            ),
            span(&g, t, Some(&a), Some(4), &generation("again")),
            format!(
                r#"{{"data":[{},{}]}}"#,
                span(&d, t, Some(&a), None, r#"{"type":"handoff","from_agent":"A"}"#),
                span(&d, t, Some(&a), Some(5), r#"{"type":"handoff","to_agent":"B"}"#)
            ),
            format!(
                r#"{{"data":[{},{}]}}"#,
                span(&format!("n{c}"), t, Some(&a), Some(6), r#"{"type":"custom","name":"new"}"#),
                span(&f, t, Some(&a), Some(7), &ended_function)
            ),
            r#"{"data":[1,2]}"#.to_string(),
            r#"{"object":"trace.span","id":"cut""#.to_string(),
            r#"{"hello":1}"#.to_string(),
        ];
        if c >= 3 {
            let earlier = format!("a{}", c - 3);
            let ended = span(&earlier, (c - 3) % 5, None, Some(8), r#"{"type":"agent"}"#);
            lines.push(ended.replace(
                r#""error":null"#,
                r#""error":{"message":"Max turns exceeded","data":null}"#,
            ));
        }
        for line in lines {
            text.push_str(&line);
            text.push('\n');
        }
    }
    let whole = plain(text.as_bytes(), text.len());
    assert_eq!(whole.format, Format::OpenaiAgents);
    assert_eq!(whole.stats.lines_quarantined, 120, "three bad lines a round");
    let steps: Vec<_> = whole.trajectories.iter().flat_map(|t| &t.steps).collect();
    assert!(steps.iter().any(|s| s.text.contains("found 7")), "a started tool's ending merged");
    assert!(steps.iter().any(|s| s.text.contains("again")), "a re-exported generation");
    assert!(!steps.iter().any(|s| s.text.contains("first")), "the first export replaced");
    let handoffs = steps.iter().filter(|s| s.text.starts_with("handoff")).collect::<Vec<_>>();
    assert_eq!(handoffs.len(), 40, "a span twice in a batch is one span");
    assert_eq!(handoffs[0].text, "handoff from  to B", "its later export's data");
    assert!(whole.trajectories.iter().any(|t| t.outcome == Outcome::Failed));
    assert_eq!(whole.trajectories[0].task.as_deref(), Some("task 0"));
    check("generated Agents SDK lines", text.as_bytes(), Format::OpenaiAgents);
}

/// Agents SDK spans exported when they start and again when they end have every other line
/// parsed twice: parsing ahead stops; spans exported once keep it. The trace is the same.
#[test]
fn parsing_ahead_stops_where_most_spans_are_exported_twice() {
    let span = |id: usize, end: &str, output: &str| {
        format!(
            r#"{{"object":"trace.span","id":"s{id}","trace_id":"T{}","parent_id":null,"started_at":"2025-06-02T10:00:00Z","ended_at":{end},"span_data":{{"type":"function","name":"f","input":"{{}}","output":{output}}},"error":null}}"#,
            id % 7
        ) + "\n"
    };
    let once: String = (0..400).map(|i| span(i, r#""2025-06-02T10:00:01Z""#, r#""ok""#)).collect();
    let twice: String = (0..400)
        .map(|i| span(i, "null", "null") + &span(i, r#""2025-06-02T10:00:01Z""#, r#""ok""#))
        .collect();
    for (text, kept) in [(once, true), (twice, false)] {
        let mut loader = Loader::new(IngestOptions::default(), false);
        let mut ahead = Vec::new();
        for c in text.as_bytes().chunks(4096) {
            let mut chunk = PreparedChunk::new(c.to_vec(), c.len(), loader.parses_ahead());
            loader.feed_prepared(&mut chunk);
            ahead.push(loader.parses_ahead());
        }
        let last = ahead.last().copied().flatten();
        assert_eq!(last, kept.then_some(Format::OpenaiAgents), "{ahead:?}");
        assert_eq!(ahead[0], Some(Format::OpenaiAgents), "parsed ahead from the start");
        assert_eq!(loader.finish().trace(), &plain(text.as_bytes(), text.len()));
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
        let mut chunk = PreparedChunk::new(c.to_vec(), c.len(), b.parses_ahead());
        b.feed_prepared(&mut chunk);
    }
    assert_eq!(b.parses_ahead(), Some(Format::Awtl), "plain AWTL lines, from the first line on");
    assert_eq!(a.progress(), b.progress());
    let (a, b) = (a.finish(), b.finish());
    assert_eq!(a.identity(), b.identity());
    assert_eq!(a.trace(), b.trace());
}

#[test]
fn only_plain_awtl_claude_code_and_agents_sdk_lines_are_worth_parsing_ahead() {
    let mut oa = Loader::new(IngestOptions::default(), false);
    oa.feed(b"{\"object\":\"trace\",\"id\":\"t\",\"workflow_name\":\"w\"}\n");
    assert_eq!(oa.parses_ahead(), Some(Format::OpenaiAgents), "an Agents SDK export");
    let mut cc = Loader::new(IngestOptions::default(), false);
    cc.feed(b"{\"type\":\"user\",\"sessionId\":\"s\",\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\n");
    assert_eq!(cc.parses_ahead(), Some(Format::ClaudeCode), "a Claude Code transcript");
    let mut chat = Loader::new(IngestOptions::default(), false);
    chat.feed(b"{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}\n");
    assert_eq!(chat.parses_ahead(), None, "a chat record: {:?}", chat.progress());
    let mut gz = Loader::new(IngestOptions::default(), false);
    gz.feed(&[0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 3]);
    assert_eq!(gz.parses_ahead(), None, "a gzip stream: its lines are not the chunk's bytes");
    let chunk = PreparedChunk::new(b"a\n{\"type\":\"action\"}\nb".to_vec(), 22, Some(Format::Awtl));
    assert_eq!(chunk.parsed_lines(), 1, "only the line between two line feeds");
    let chunk = PreparedChunk::new(b"a\n{}\nb".to_vec(), 6, Some(Format::Chat));
    assert_eq!(chunk.parsed_lines(), 0, "a chat record is read in its turn");
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
        let got = prepared(&bytes, size, |i| ahead[i % ahead.len()].then_some(Format::Awtl));
        prop_assert_eq!(got, whole);
    }
}
