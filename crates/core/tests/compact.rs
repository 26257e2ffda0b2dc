//! Long texts are kept compact: a head and a tail of the full text around a visible marker,
//! with the record's byte range so the full text can be read again. The stored text stays a
//! real excerpt (quotes from it are exact substrings of the trace).
#![cfg(not(target_arch = "wasm32"))]

use trajscope_core::ingest::{TEXT_COMPACT_ABOVE, TEXT_KEEP_HEAD, TEXT_KEEP_TAIL};
use trajscope_core::{ingest, IngestOptions};

fn long_log(lines: usize) -> String {
    (0..lines).map(|i| format!("line {i}: test case_{i} ... ok, größe ✓\n")).collect()
}

#[test]
fn a_long_output_keeps_its_head_and_tail_and_says_where_the_rest_is() {
    let log = format!("{}error: contract mismatch at the very end", long_log(5000));
    let first = r#"{"type":"action","command":"npm test"}"#;
    let second = serde_json::json!({"type": "observation", "exit_code": 1, "output": log});
    let input = format!("{first}\n{second}\n");
    let trace = ingest(input.as_bytes(), IngestOptions::default());
    let step = &trace.trajectories[0].steps[1];
    let e = step.text_elided.as_ref().expect("compacted");
    assert_eq!(e.full_len as usize, log.len());
    assert_eq!(
        (e.source_offset as usize, e.source_len as usize),
        (first.len() + 1, second.to_string().len())
    );
    let (head, tail) = (e.head_len as usize, e.tail_len as usize);
    assert!(head <= TEXT_KEEP_HEAD && head > TEXT_KEEP_HEAD / 2, "{head}");
    assert!(tail <= TEXT_KEEP_TAIL + 64 && tail > TEXT_KEEP_TAIL / 2, "{tail}");
    assert!(step.text.starts_with(&log[..head]));
    assert!(step.text.ends_with(&log[log.len() - tail..]));
    assert!(step.text.ends_with("error: contract mismatch at the very end"));
    let marker = format!("[… {} bytes elided …]", log.len() - head - tail);
    assert!(step.text.contains(&marker), "{}", &step.text[head - 20..head + 60]);
    assert!(step.text.len() < TEXT_KEEP_HEAD + TEXT_KEEP_TAIL + 100);
    // The recorded range is the record that holds the full text.
    let record = &input.as_bytes()[e.source_offset as usize..][..e.source_len as usize];
    let v: serde_json::Value = serde_json::from_slice(record).expect("the record");
    assert_eq!(v["output"].as_str(), Some(log.as_str()));
    // Every line of the stored text other than the marker is text of the trace.
    for l in step.text.lines().filter(|l| !l.starts_with("[… ")) {
        assert!(log.contains(l), "{l}");
    }
}

#[test]
fn texts_up_to_the_limit_stay_whole() {
    let text = "x".repeat(TEXT_COMPACT_ABOVE);
    let line = serde_json::json!({"type": "message", "text": text}).to_string();
    let trace = ingest(line.as_bytes(), IngestOptions::default());
    let step = &trace.trajectories[0].steps[0];
    assert_eq!(step.text, text);
    assert!(step.text_elided.is_none());
}

#[test]
fn long_tool_arguments_are_compacted_too() {
    let content = "é".repeat(TEXT_COMPACT_ABOVE); // two bytes a char: cuts land on char boundaries
    let line =
        serde_json::json!({"type": "action", "tool": "edit_file", "args": content}).to_string();
    let trace = ingest(line.as_bytes(), IngestOptions::default());
    let step = &trace.trajectories[0].steps[0];
    let args = step.args.as_deref().expect("args");
    assert!(step.args_elided.is_some() && step.text_elided.is_some());
    assert!(args.len() < content.len() / 2);
    assert!(args.starts_with("éé") && args.ends_with("éé"));
}
