//! The CLI contract (`trajscope analyze --json`, `trajscope quarantine`), run as a user runs it.

use std::path::PathBuf;
use std::process::Command;

use serde_json::{json, Value};

mod common;
use common::{stored_zip, tar};

fn trajscope() -> Command {
    Command::new(env!("CARGO_BIN_EXE_trajscope"))
}

fn repo(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..").join(path)
}

fn tmp(name: &str) -> PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli-test");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// `analyze --json` of `text` (written to a file `name`) is byte for byte the whole report of
/// its trace serialised at once; gives the report's bytes and the trace.
fn json_report_is_whole(name: &str, text: &str) -> (Vec<u8>, trajscope_core::model::Trace) {
    let input = tmp(name);
    std::fs::write(&input, text).unwrap();
    let out = trajscope().args(["analyze", "--json"]).arg(&input).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let trace = trajscope_core::ingest(text.as_bytes(), trajscope_core::IngestOptions::default());
    let mut expected = serde_json::to_vec(&trajscope_core::report::Report::new(&trace)).unwrap();
    expected.push(b'\n');
    assert!(out.stdout == expected, "{name}: the report differs from the whole report serialised");
    (out.stdout, trace)
}

/// An AWTL action line of run `r{run}`; `command` is put in as JSON string content (escapes kept).
fn action_line(run: usize, command: &str) -> String {
    format!("{{\"type\":\"action\",\"run_id\":\"r{run}\",\"command\":\"{command}\"}}\n")
}

/// The `run_end` line of run `r{run}`, failed.
fn failed_end_line(run: usize) -> String {
    format!("{{\"type\":\"run_end\",\"run_id\":\"r{run}\",\"status\":\"failed\"}}\n")
}

#[test]
fn analyze_json_reports_format_stats_quarantine_and_trajectories() {
    let out = trajscope()
        .args(["analyze", "--json"])
        .arg(repo("web/samples/sample.awtl.jsonl"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["format"], "awtl");
    let stats = &v["stats"];
    assert_eq!(stats["lines_total"], 13);
    assert_eq!(stats["lines_parsed"], 12);
    assert_eq!(stats["lines_blank"], 0);
    assert_eq!(stats["lines_quarantined"], 1);
    assert_eq!(
        stats["bytes"],
        std::fs::metadata(repo("web/samples/sample.awtl.jsonl")).unwrap().len()
    );
    let q = &v["quarantine"][0];
    assert_eq!(q["line"], 10);
    assert_eq!(q["truncated_tail"], false);
    assert!(q["raw"].as_str().unwrap().ends_with("contract test fai"));
    assert_eq!(v["trajectories"][0]["id"], "run-demo-7");
    assert_eq!(v["trajectories"][0]["steps"], 12);
    assert_eq!(v["trajectories"][0]["outcome"], "failed");
}

#[test]
fn quarantine_command_writes_records_whose_raw_bytes_round_trip() {
    use base64::Engine as _;
    let input = tmp("broken.jsonl");
    let bad: &[u8] = b"{\"type\":\"action\",\"command\":\"ls\xff\"}";
    let mut bytes = b"{\"type\":\"action\",\"command\":\"ls\"}\n".to_vec();
    bytes.extend_from_slice(bad);
    bytes.extend_from_slice(b"\n{\"type\":\"observation\",\"exit_code\":0}\n{\"type\":\"obs");
    std::fs::write(&input, &bytes).unwrap();
    let output = tmp("quarantine.jsonl");
    let status = trajscope().arg("quarantine").arg(&input).arg("-o").arg(&output).status().unwrap();
    assert!(status.success());
    let text = std::fs::read_to_string(&output).unwrap();
    let records: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(records.len(), 2);
    let raw0 = base64::engine::general_purpose::STANDARD
        .decode(records[0]["raw_base64"].as_str().unwrap())
        .unwrap();
    assert_eq!(raw0, bad);
    assert_eq!(records[0]["line"], 2);
    assert_eq!(records[0]["truncated_tail"], false);
    assert_eq!(records[1]["line"], 4);
    assert_eq!(records[1]["truncated_tail"], true);
}

#[test]
fn quarantine_command_says_where_it_cannot_write() {
    let input = tmp("broken-for-nowhere.jsonl");
    std::fs::write(&input, b"{\"type\":\"action\",\"command\":\"ls\"}\nnot json\n").unwrap();
    let out = trajscope()
        .args(["quarantine", "-o", "/nonexistent/q.jsonl"])
        .arg(&input)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("cannot write /nonexistent/q.jsonl"), "{err}");
    // Written to a full device: the write's failure is reported, not a count of lines written.
    let out = trajscope().args(["quarantine", "-o", "/dev/full"]).arg(&input).output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("cannot write /dev/full"), "{err}");
    assert!(!err.contains("written to"), "{err}");
}

#[test]
fn a_file_name_with_a_line_feed_cannot_start_a_line_of_its_own() {
    let forged = "/nonexistent/a\ntrajscope: all fine.jsonl";
    for args in [&["analyze"][..], &["analyze", "--json"], &["cases"], &["view", "--step", "0"]] {
        let out = trajscope().args(args).arg(forged).output().unwrap();
        assert!(!out.status.success());
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.contains("a\\ntrajscope: all fine.jsonl"), "{args:?}: {err}");
        assert!(!err.lines().any(|l| l.starts_with("trajscope: all fine")), "{args:?}: {err}");
    }
}

#[test]
fn an_output_that_is_the_trace_read_is_refused_and_the_trace_kept() {
    let input = tmp("kept-as-it-was.jsonl");
    let bytes = b"{\"type\":\"action\",\"run_id\":\"r\",\"command\":\"ls\"}\nnot json\n";
    std::fs::write(&input, bytes).unwrap();
    // The same file by another name, too (`dir/./name`).
    let other = input.parent().unwrap().join(".").join(input.file_name().unwrap());
    for (cmd, out) in [("quarantine", &input), ("cases", &other), ("redact", &input)] {
        let o = trajscope().args([cmd, "-o"]).arg(out).arg(&input).output().unwrap();
        assert!(!o.status.success(), "{cmd}");
        let err = String::from_utf8(o.stderr).unwrap();
        assert!(err.contains("is the trace read as well as the output"), "{cmd}: {err}");
        assert_eq!(std::fs::read(&input).unwrap(), bytes, "{cmd} left the trace as it was");
    }
}

#[test]
fn an_unreadable_file_fails_with_one_line() {
    let out = trajscope().args(["analyze", "/nonexistent/trace.jsonl", "--json"]).output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("cannot read /nonexistent/trace.jsonl"), "{err}");
}

#[test]
fn human_summary_names_the_quarantined_line() {
    let out =
        trajscope().arg("analyze").arg(repo("web/samples/sample.awtl.jsonl")).output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("format awtl"), "{text}");
    assert!(text.contains("quarantined line 10"), "{text}");
}

/// A failed run in which no step looks like a critical error (a headless Claude Code run that
/// stopped at its turn limit before doing anything) says so: the summary is not left blank.
#[test]
fn human_summary_says_a_failed_run_has_no_critical_step() {
    let path = tmp("max-turns.jsonl");
    let end = r#"{"type":"result","subtype":"error_max_turns","is_error":true,"session_id":"s1"}"#;
    std::fs::write(&path, format!("{end}\n")).unwrap();
    let out = trajscope().arg("analyze").arg(&path).output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("trajectory s1: 1 step, outcome Failed"), "{text}");
    assert!(text.contains("= failed, but no step looks like a critical error"), "{text}");
}

/// A file of many read chunks (the CLI reads 1 MiB at a time on a reader thread and reuses its
/// buffers) gives the same trace as the core reading the bytes in one piece, including a
/// damaged line that straddles a chunk boundary and a truncated last line.
#[test]
fn a_multi_chunk_file_reads_exactly_as_one_piece() {
    const MIB: usize = 1 << 20;
    let mut bytes = Vec::new();
    let mut n = 0;
    while bytes.len() < 5 * MIB {
        if (MIB - 2000..MIB).contains(&bytes.len()) {
            // Pad up to 4 bytes before the first chunk boundary, then a line across it.
            let pad = MIB - 4 - bytes.len() - r#"{"type":"message","text":""}"#.len() - 1;
            bytes.extend_from_slice(
                format!(r#"{{"type":"message","text":"{}"}}"#, "p".repeat(pad)).as_bytes(),
            );
            bytes.extend_from_slice(b"\n{garbage\n");
            assert_eq!(bytes.len(), MIB + 5);
        }
        let line = format!(
            "{{\"type\":\"observation\",\"runId\":\"r{}\",\"exitCode\":{},\"output\":\"line {n} \\u00e9 {}\"}}\n",
            n % 3,
            n % 5,
            "x".repeat(n % 700)
        );
        bytes.extend_from_slice(line.as_bytes());
        n += 1;
    }
    bytes.extend_from_slice(b"{\"type\":\"obs");
    let input = tmp("multi-chunk.jsonl");
    std::fs::write(&input, &bytes).unwrap();

    let out = trajscope().args(["analyze", "--json"]).arg(&input).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let whole = trajscope_core::ingest(&bytes, trajscope_core::IngestOptions::default());
    assert_eq!(v["stats"]["bytes"], bytes.len() as u64);
    assert_eq!(v["stats"]["lines_total"], whole.stats.lines_total);
    assert_eq!(v["stats"]["lines_parsed"], whole.stats.lines_parsed);
    assert_eq!(v["stats"]["lines_quarantined"], whole.stats.lines_quarantined);
    assert_eq!(whole.stats.lines_quarantined, 2, "{:?}", whole.stats);
    assert_eq!(whole.quarantine[0].offset, (MIB - 4) as u64);
    let offsets: Vec<u64> =
        v["quarantine"].as_array().unwrap().iter().map(|q| q["offset"].as_u64().unwrap()).collect();
    let expected: Vec<u64> = whole.quarantine.iter().map(|q| q.offset).collect();
    assert_eq!(offsets, expected);
    let steps: Vec<u64> = v["trajectories"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["steps"].as_u64().unwrap())
        .collect();
    let expected: Vec<u64> = whole.trajectories.iter().map(|t| t.steps.len() as u64).collect();
    assert_eq!(steps, expected);
}

#[test]
fn a_read_error_after_opening_fails_with_one_line() {
    // A directory opens but cannot be read: the error comes from the reader thread. (`analyze`
    // walks a folder instead; `quarantine` reads its one input as a file.)
    let dir = tmp("a-directory");
    std::fs::create_dir_all(&dir).unwrap();
    let out = trajscope().args(["quarantine", "-o", "/dev/null"]).arg(&dir).output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains(&format!("cannot read {}", dir.display())), "{err}");
}

/// `analyze` analyses AWTL runs as their `run_end` is read, beside the parse. A run that a
/// later line reopens (here a failed verdict logged after the end, a chunk later) must be
/// analysed again: the report equals the one made from the whole trace at once.
#[test]
fn a_run_reopened_after_its_end_is_analysed_in_its_final_form() {
    let mut text = String::new();
    text.push_str("{\"type\":\"run_start\",\"run_id\":\"r1\",\"task\":\"make the tests pass\"}\n");
    text.push_str(
        "{\"type\":\"action\",\"run_id\":\"r1\",\"action_id\":\"a1\",\"command\":\"pytest\"}\n",
    );
    text.push_str(
        "{\"type\":\"observation\",\"run_id\":\"r1\",\"exit_code\":0,\"output\":\"3 passed\"}\n",
    );
    text.push_str("{\"type\":\"run_end\",\"run_id\":\"r1\",\"status\":\"passed\"}\n");
    let mut n = 0;
    while text.len() < 3 << 20 {
        text.push_str(&format!(
            "{{\"type\":\"observation\",\"run_id\":\"r{}\",\"exit_code\":{},\"output\":\"{}\"}}\n",
            2 + n % 4,
            n % 2,
            "out ".repeat(n % 300)
        ));
        if n % 50 == 49 {
            text.push_str(&format!("{{\"type\":\"run_end\",\"run_id\":\"r{}\"}}\n", 2 + n % 4));
        }
        n += 1;
    }
    text.push_str("{\"type\":\"judge_result\",\"run_id\":\"r1\",\"status\":\"failed\",\"source_action_id\":\"a1\",\"reason\":\"AssertionError: hidden test failed\"}\n");
    text.push_str("{\"type\":\"run_end\",\"run_id\":\"r1\",\"status\":\"failed\"}\n");
    let input = tmp("reopened.jsonl");
    std::fs::write(&input, &text).unwrap();

    let out = trajscope().args(["analyze", "--json"]).arg(&input).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let got: Value = serde_json::from_slice(&out.stdout).unwrap();
    let trace = trajscope_core::ingest(text.as_bytes(), trajscope_core::IngestOptions::default());
    let expected = serde_json::to_value(trajscope_core::report::Report::new(&trace)).unwrap();
    assert_eq!(got["trajectories"][0]["outcome"], "failed");
    assert_eq!(got["trajectories"][0]["steps"], 6);
    assert_eq!(got, expected);
}

/// `analyze --json` analyses runs beside the parse and the rest at the end on several threads:
/// the bytes still equal serialising the whole report at once, for runs that settle early, runs
/// that never end, quarantined lines and text that needs escapes.
#[test]
fn the_json_report_is_byte_for_byte_the_whole_report_serialised() {
    let mut text = String::new();
    for r in 0..3000 {
        text.push_str(&action_line(r, r#"pytest \"trajectories\":[] \u00e9"#));
        if r % 3 == 0 {
            text.push_str(&format!(
                "{{\"type\":\"observation\",\"run_id\":\"r{r}\",\"exit_code\":1,\"output\":\"AssertionError: {r}\"}}\n"
            ));
            text.push_str(&failed_end_line(r));
        }
        if r % 1000 == 7 {
            text.push_str("{\"trajectories\":[] broken\n");
        }
    }
    let (_, trace) = json_report_is_whole("many-runs.jsonl", &text);
    assert_eq!(trace.trajectories.len(), 3000);
    assert_eq!(trace.stats.lines_quarantined, 3);
}

/// Blocks of runs that all settled during the read are written from where their overviews are
/// held (vectored writes into a pipe, which takes a part of them at a time); the last block,
/// with a run that never ends, is rendered at the end. The bytes are the whole report
/// serialised either way.
#[test]
fn a_report_of_runs_settled_during_the_read_is_the_whole_report_serialised() {
    let mut text = String::new();
    for r in 0..5000 {
        text.push_str(&action_line(r, &format!("cargo test -p crate{r}")));
        if r < 4999 {
            text.push_str(&failed_end_line(r));
        }
        if r == 2500 {
            text.push_str("not json\n");
        }
    }
    let (out, trace) = json_report_is_whole("settled.jsonl", &text);
    assert_eq!(trace.trajectories.len(), 5000);
    assert_eq!(trace.stats.lines_quarantined, 1);
    assert!(out.len() > 1 << 20, "more than a pipe holds at once: {} bytes", out.len());
}

/// The report is written in blocks of 2,048 trajectories: a block whose runs all settled during
/// the read is written as rendered then, the others are rendered at the end, shared between
/// this thread and helpers that work ahead on the next block's parts. Blocks of both kinds in
/// turn, and a last block of one trajectory (a part for this thread only), give the whole
/// report serialised.
#[test]
fn blocks_rendered_during_the_read_and_at_the_end_alternate_in_the_report() {
    let mut text = String::new();
    for r in 0..6145 {
        text.push_str(&action_line(r, &format!("make t{r}")));
        // The second block's runs end; the others never do.
        if (2048..4096).contains(&r) {
            text.push_str(&failed_end_line(r));
        }
    }
    let (_, trace) = json_report_is_whole("alternating-blocks.jsonl", &text);
    assert_eq!(trace.trajectories.len(), 6145);
}

/// `analyze --json` renders the overviews of runs that settle during the read as they settle
/// and drops their steps; when that cannot stand (a line after a run's end read much later, a
/// settled run renamed for a duplicate id), the report is still the whole report serialised.
#[test]
fn the_json_report_stays_whole_when_a_settled_run_is_reopened_or_renamed() {
    let end =
        |r: &str| format!("{{\"type\":\"run_end\",\"run_id\":\"{r}\",\"status\":\"failed\"}}\n");
    let act = |r: &str, c: &str| {
        format!("{{\"type\":\"action\",\"run_id\":\"{r}\",\"command\":\"{c}\"}}\n")
    };
    // More than the reader's 1 MiB chunk between a run's end and its next line, so the run has
    // been handed over (and rendered) before that line is read.
    let filler: String = (0..20_000).map(|i| act(&format!("f{i}"), "make build")).collect();
    let reopened = [act("a", "ls"), end("a"), filler.clone(), act("a", "rm -rf build")].concat();
    // A run with no id is named `run-2` by its position: the same id as the first run's.
    let renamed = [
        act("run-2", "ls"),
        "{\"type\":\"action\",\"command\":\"pytest\"}\n".to_string(),
        "{\"type\":\"run_end\",\"status\":\"failed\"}\n".to_string(),
        filler,
        end("run-2"),
    ]
    .concat();
    // TRAJERRBENCH records, one a line, settle as read: the same two records again and again
    // are renamed (`…#2`, …) at the end, after they were rendered.
    let records = std::fs::read_to_string(repo("tests/fixtures/trajerrbench/records.jsonl"))
        .unwrap()
        .repeat(100);
    let cases =
        [("reopened.jsonl", reopened), ("renamed.jsonl", renamed), ("records.jsonl", records)];
    for (name, text) in cases {
        let (out, _) = json_report_is_whole(name, &text);
        let report: serde_json::Value = serde_json::from_slice(&out).unwrap();
        // Not the early overview: the reopened run with its three steps, the renamed one with its
        // new id.
        let (at, steps, id) = match name {
            "reopened.jsonl" => (0, 3, "a"),
            "renamed.jsonl" => (1, 2, "run-2#2"),
            _ => (2, 13, "airline_failed_qwen3-max::303997d3-6427-41a9-8ef8-33b0093e6628#2"),
        };
        let t = &report["trajectories"][at];
        assert_eq!((t["steps"].as_u64(), t["id"].as_str()), (Some(steps), Some(id)), "{name}");
    }
}

/// Runs of 4,096 steps or more are analysed while their overview's head is worked out on a
/// second thread; one of more than 65,536 steps keeps its steps when its overview is written as
/// it settles. The report is still the whole report serialised: for such runs settled mid-file,
/// left open to the end (analysed at the end), and reopened by a later line.
#[test]
fn the_json_report_of_runs_of_5000_and_70000_steps_is_the_whole_report_serialised() {
    let act = |r: &str, i: usize| {
        let agent = format!("a{}", i % 3);
        let (id, command) = (format!("x{i}"), format!("make t{}", i % 50));
        let line = json!({"type": "action", "run_id": r, "agent": agent, "action_id": id,
            "command": command});
        format!("{line}\n")
    };
    let obs = |r: &str, i: usize| {
        let line = json!({"type": "observation", "run_id": r, "parent_id": format!("x{i}"),
            "exit_code": u8::from(i % 997 == 0), "output": format!("error: t{i} failed")});
        format!("{line}\n")
    };
    let run =
        |r: &str, pairs: usize| -> String { (0..pairs).map(|i| act(r, i) + &obs(r, i)).collect() };
    let end =
        |r: &str| format!("{{\"type\":\"run_end\",\"run_id\":\"{r}\",\"status\":\"failed\"}}\n");
    let after: String = (0..20_000).map(|i| act(&format!("f{i}"), i)).collect();
    let settled = [run("long", 35_000), end("long"), after.clone()].concat();
    let reopened = [settled.as_str(), &act("long", 1)].concat();
    let mid = [run("mid", 2_500), end("mid"), after.clone(), run("open", 2_500)].concat();
    // Each case: its text and the fewest steps of its first and last trajectory.
    let cases = [
        ("long-run.jsonl", settled, 70_000, 1),
        ("long-run-reopened.jsonl", reopened, 70_000, 1),
        ("mid-runs.jsonl", mid, 5_000, 5_000),
    ];
    for (name, text, first, last) in cases {
        let (_, trace) = json_report_is_whole(name, &text);
        assert!(trace.trajectories[0].steps.len() >= first, "{name}");
        assert!(trace.trajectories.last().unwrap().steps.len() >= last, "{name}");
    }
}

#[test]
fn analyze_jsonl_of_a_tar_gz_of_three_formats_gives_every_trajectory_with_its_member_and_format() {
    // Built here from the fixtures with the system's tar and gzip, as a user makes one.
    let dir = tmp("three-formats");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("tau2")).unwrap();
    let src = [
        ("tests/fixtures/claude_code/hello-world-script.jsonl", "hello.jsonl"),
        ("tests/fixtures/awtl/passed_run.awtl.jsonl", "passed_run.awtl.jsonl"),
        ("tests/fixtures/tau2/airline_3_simulations.json", "tau2/airline.json"),
    ];
    for (from, to) in src {
        std::fs::copy(repo(from), dir.join(to)).unwrap();
    }
    let archive = tmp("three-formats.tar.gz");
    let status = std::process::Command::new("tar")
        .arg("czf")
        .arg(&archive)
        .arg("-C")
        .arg(&dir)
        .arg(".")
        .status()
        .unwrap();
    assert!(status.success());
    let out = trajscope().args(["analyze", "--jsonl"]).arg(&archive).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let records: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // One record per trajectory: each member, read on its own, says how many it has.
    let mut want = Vec::new();
    for (from, to) in src {
        let one = trajscope().args(["analyze", "--jsonl"]).arg(repo(from)).output().unwrap();
        for l in String::from_utf8_lossy(&one.stdout).lines() {
            let r: Value = serde_json::from_str(l).unwrap();
            want.push((
                format!("{}!{to}", archive.display()),
                r["format"].as_str().unwrap().to_string(),
                r["id"].as_str().unwrap().to_string(),
            ));
        }
    }
    let mut got: Vec<(String, String, String)> = records
        .iter()
        .map(|r| {
            let s = |k: &str| r[k].as_str().unwrap_or_default().to_string();
            (s("file"), s("format"), s("id"))
        })
        .collect();
    got.sort();
    want.sort();
    assert_eq!(got, want);
    let formats: std::collections::BTreeSet<&str> = want.iter().map(|w| w.1.as_str()).collect();
    assert_eq!(formats.into_iter().collect::<Vec<_>>(), ["awtl", "claude-code", "tau2"]);
    assert_eq!(records.len(), 5, "tau2's file holds three simulations");
    // --json reports one file, and says so of an archive instead of reading its bytes.
    let json = trajscope().args(["analyze", "--json"]).arg(&archive).output().unwrap();
    assert!(!json.status.success());
    let err = String::from_utf8_lossy(&json.stderr);
    assert!(err.contains("archive of 3 trace file(s)") && err.contains("--jsonl"), "{err}");
}

#[test]
fn analyze_reads_every_member_of_an_archive_as_its_own_trace() {
    let files = [
        ("runs/sample.awtl.jsonl", std::fs::read(repo("web/samples/sample.awtl.jsonl")).unwrap()),
        ("who/ag_1.json", std::fs::read(repo("tests/fixtures/who_and_when/ag_1.json")).unwrap()),
    ];
    let archive = tmp("traces.tar");
    std::fs::write(&archive, tar(&files)).unwrap();
    let out = trajscope().args(["analyze", "--jsonl"]).arg(&archive).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let records: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let name = |m: &str| format!("{}!{m}", archive.display());
    let formats: Vec<(String, String)> = records
        .iter()
        .map(|r| {
            (r["file"].as_str().unwrap().to_string(), r["format"].as_str().unwrap().to_string())
        })
        .collect();
    assert!(formats.contains(&(name("runs/sample.awtl.jsonl"), "awtl".to_string())), "{formats:?}");
    assert!(formats.contains(&(name("who/ag_1.json"), "who-and-when".to_string())), "{formats:?}");
    let human = trajscope().arg("analyze").arg(&archive).output().unwrap();
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(text.contains(&format!("{}: format awtl", name("runs/sample.awtl.jsonl"))), "{text}");
}

#[cfg(unix)]
#[test]
fn a_folder_walk_does_not_follow_links_to_folders_so_a_link_cycle_ends() {
    // run/ holds a trace, a link back to its parent and a link to itself: followed, the walk
    // would never end (or end on ELOOP after reading the trace dozens of times).
    let dir = tmp("link-cycle");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("run")).unwrap();
    std::fs::copy(repo("tests/fixtures/awtl/passed_run.awtl.jsonl"), dir.join("run/t.jsonl"))
        .unwrap();
    std::os::unix::fs::symlink("..", dir.join("run/up")).unwrap();
    std::os::unix::fs::symlink(".", dir.join("run/self")).unwrap();
    // A link to a file is read like the file.
    std::os::unix::fs::symlink("t.jsonl", dir.join("run/u.jsonl")).unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let d = dir.clone();
    std::thread::spawn(move || {
        let _ = tx.send(trajscope().args(["analyze", "--jsonl"]).arg(&d).output().unwrap());
    });
    let out = rx.recv_timeout(std::time::Duration::from_secs(60)).expect("the walk ends");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let files: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["file"].as_str().unwrap().to_string())
        .collect();
    let name = |n: &str| dir.join(n).display().to_string();
    assert_eq!(files, [name("run/t.jsonl"), name("run/u.jsonl")]);
    let err = String::from_utf8_lossy(&out.stderr);
    for link in ["run/self", "run/up"] {
        assert!(
            err.contains(&format!("{}: a link to a folder, not followed", name(link))),
            "{err}"
        );
    }
}

const SAMPLE: &str = "web/samples/sample.awtl.jsonl";

/// Runs the binary from the repository root; (success, stdout, stderr).
fn run(args: &[&str]) -> (bool, String, String) {
    let out = trajscope().current_dir(repo("")).args(args).output().unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.success(), text(&out.stdout), text(&out.stderr))
}

/// A tar and a stored zip of `files`, written under `name`.
fn archives(name: &str, files: &[(&str, Vec<u8>)]) -> [String; 2] {
    let tar_path = tmp(&format!("{name}.tar"));
    std::fs::write(&tar_path, tar(files)).unwrap();
    let zip_path = tmp(&format!("{name}.zip"));
    let borrowed: Vec<(&str, &[u8])> = files.iter().map(|(n, b)| (*n, b.as_slice())).collect();
    std::fs::write(&zip_path, stored_zip(&borrowed)).unwrap();
    [tar_path.display().to_string(), zip_path.display().to_string()]
}

#[test]
fn the_read_commands_read_an_archive_member_named_archive_bang_member_as_the_file_itself() {
    // Found by QA: cases, brief, quarantine, view, diff refused any archive and named analyze,
    // though analyze and the app name each member `ARCHIVE!MEMBER`.
    let sample = std::fs::read(repo(SAMPLE)).unwrap();
    let files = [("runs/sample.awtl.jsonl", sample), ("runs/readme.md", b"# notes\n".to_vec())];
    for archive in archives("members", &files) {
        let member = format!("{archive}!runs/sample.awtl.jsonl");
        let m = member.as_str();
        // Each command's output is what it gives for the file itself (the identity, which case
        // ids hold, is the member's bytes').
        for (of_member, of_file) in [
            (vec!["view", m, "--step", "5"], vec!["view", SAMPLE, "--step", "5"]),
            (
                vec!["view", m, "--step", "5", "--history"],
                vec!["view", SAMPLE, "--step", "5", "--history"],
            ),
            (vec!["cases", m, "--json"], vec!["cases", SAMPLE, "--json"]),
            (vec!["brief", m], vec!["brief", SAMPLE]),
            (vec!["analyze", "--json", m], vec!["analyze", "--json", SAMPLE]),
        ] {
            let (ok, got, err) = run(&of_member);
            assert!(ok, "{of_member:?}: {err}");
            assert!(err.is_empty(), "{of_member:?}: {err}");
            let (_, want, _) = run(&of_file);
            assert!(!want.is_empty(), "{of_file:?}");
            assert_eq!(got, want, "{of_member:?}");
        }
        let (q_member, q_file) = (tmp("member-q.jsonl"), tmp("file-q.jsonl"));
        let (ok, _, err) = run(&["quarantine", m, "-o", q_member.to_str().unwrap()]);
        assert!(ok, "{err}");
        assert!(err.contains("1 quarantined line(s)"), "{err}");
        run(&["quarantine", SAMPLE, "-o", q_file.to_str().unwrap()]);
        assert_eq!(std::fs::read(&q_member).unwrap(), std::fs::read(&q_file).unwrap());
        // diff: a member against the file, and two members.
        let (ok, out, err) = run(&["diff", m, SAMPLE]);
        assert!(ok, "{err}");
        assert!(out.contains(&format!("left:  {m}: run-demo-7")), "{out}");
        assert!(out.contains("first_divergence: none"), "{out}");
        // analyze names it as it names the member of the whole archive.
        let (ok, out, _) = run(&["analyze", "--jsonl", m]);
        assert!(ok);
        let (_, whole, _) = run(&["analyze", "--jsonl", &archive]);
        let file_of = |l: &str| serde_json::from_str::<Value>(l).unwrap()["file"].clone();
        assert_eq!(file_of(out.lines().next().unwrap()), Value::from(m));
        assert!(whole.lines().any(|l| file_of(l) == m), "{whole}");
        // `./member` is the same member.
        let (ok, _, err) =
            run(&["view", &format!("{archive}!./runs/sample.awtl.jsonl"), "--step", "0"]);
        assert!(ok, "{err}");
    }
}

#[test]
fn an_archive_of_one_file_is_read_as_that_file_and_one_of_several_lists_its_members() {
    let sample = std::fs::read(repo(SAMPLE)).unwrap();
    let one = [("runs/sample.awtl.jsonl", sample.clone())];
    let mut paths = archives("one", &one).to_vec();
    let tar_gz = tmp("one.tar.gz");
    let gz = Command::new("gzip").arg("-c").arg(tmp("one.tar")).output().unwrap();
    assert!(gz.status.success());
    std::fs::write(&tar_gz, gz.stdout).unwrap();
    paths.push(tar_gz.display().to_string());
    let (_, want, _) = run(&["view", SAMPLE, "--step", "5"]);
    for archive in &paths {
        let (ok, got, err) = run(&["view", archive, "--step", "5"]);
        assert!(ok, "{archive}: {err}");
        assert_eq!(got, want, "{archive}");
        assert!(
            err.contains(&format!(
                "reading {archive}!runs/sample.awtl.jsonl, the archive's one file"
            )),
            "{err}"
        );
    }
    // Several files, none named: an error that lists them (at most 20) and the syntax; nothing
    // is written.
    let mut many: Vec<(String, Vec<u8>)> =
        (0..25).map(|i| (format!("runs/run-{i:02}.jsonl"), sample.clone())).collect();
    many.push(("notes.md".to_string(), b"# notes\n".to_vec()));
    let many: Vec<(&str, Vec<u8>)> = many.iter().map(|(n, b)| (n.as_str(), b.clone())).collect();
    let [tar_path, zip_path] = archives("several", &many);
    let q = tmp("several-q.jsonl");
    let _ = std::fs::remove_file(&q);
    for (archive, kind) in [(&tar_path, "a tar archive"), (&zip_path, "a zip archive")] {
        let a = archive.as_str();
        let runs: [&[&str]; 6] = [
            &["cases", a],
            &["brief", a],
            &["quarantine", a, "-o", q.to_str().unwrap()],
            &["view", a, "--step", "0"],
            &["diff", a],
            &["diff", SAMPLE, a],
        ];
        for args in runs {
            let (ok, out, err) = run(args);
            assert!(!ok && out.is_empty(), "{args:?}");
            assert!(
                err.contains(&format!(
                    "{a} is {kind} of traces holding 26 files: name the one to read as ARCHIVE!MEMBER"
                )),
                "{args:?}: {err}"
            );
            assert!(err.contains(&format!("\n  {a}!runs/run-00.jsonl\n")), "{err}");
            assert!(err.contains(&format!("\n  {a}!runs/run-19.jsonl\n")), "{err}");
            assert!(!err.contains("run-20.jsonl"), "20 listed: {err}");
            assert!(err.contains("… and 6 more"), "{err}");
        }
        // A member that is not there: the same list.
        let (ok, _, err) = run(&["view", &format!("{a}!runs/nope.jsonl"), "--step", "0"]);
        assert!(!ok);
        assert!(
            err.contains(&format!("{a} has no member `runs/nope.jsonl`. Its members:")),
            "{err}"
        );
        // And a named one is read.
        let (ok, got, err) = run(&["view", &format!("{a}!runs/run-07.jsonl"), "--step", "5"]);
        assert!(ok, "{err}");
        assert_eq!(got, want);
    }
    assert!(!q.exists(), "nothing written");
    // A file that is no archive, with a `!` after it.
    let (ok, _, err) = run(&["view", &format!("{SAMPLE}!x.jsonl"), "--step", "0"]);
    assert!(!ok);
    assert!(err.contains(&format!("{SAMPLE} is not an archive of traces")), "{err}");
    // A zip that is one trace (an Inspect .eval) is still read as it is.
    let out = trajscope()
        .args(["view", "--step", "0"])
        .arg(repo("tests/fixtures/inspect/browser.eval"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stderr.is_empty());
}

#[test]
fn a_member_is_read_under_the_archive_caps() {
    // A zip whose second entry declares 4 GiB (a zip bomb's directory): the reader stops there,
    // before inflating; the member before it is read, the one past the cap is not, and the
    // archive named whole is not taken for an archive of one file.
    let sample = std::fs::read(repo(SAMPLE)).unwrap();
    let mut zip = stored_zip(&[("a.jsonl", &sample), ("bomb.jsonl", b"{}\n")]);
    let cd = zip.len() - 22 - (46 + "a.jsonl".len()) - (46 + "bomb.jsonl".len());
    let second = cd + 46 + "a.jsonl".len();
    assert_eq!(&zip[second..second + 4], b"PK\x01\x02");
    zip[second + 24..second + 28].copy_from_slice(&0xFFFF_FF00u32.to_le_bytes());
    let path = tmp("bomb.zip");
    std::fs::write(&path, zip).unwrap();
    let p = path.display().to_string();
    let (ok, _, err) = run(&["view", &format!("{p}!a.jsonl"), "--step", "0"]);
    assert!(ok, "{err}");
    for args in [vec!["view", &*format!("{p}!bomb.jsonl"), "--step", "0"], vec!["cases", &p]] {
        let (ok, _, err) = run(&args);
        assert!(!ok, "{args:?}");
        assert!(
            err.contains(
                "(reading stopped: the archive inflates to more than the limit of 512 MiB"
            ),
            "{args:?}: {err}"
        );
    }
    // The entries cap of a tar: 10,001 members, the last one past it.
    let files: Vec<(String, Vec<u8>)> =
        (0..10_001).map(|i| (format!("m{i}.jsonl"), b"{}\n".to_vec())).collect();
    let files: Vec<(&str, Vec<u8>)> = files.iter().map(|(n, b)| (n.as_str(), b.clone())).collect();
    let path = tmp("many-entries.tar");
    std::fs::write(&path, tar(&files)).unwrap();
    let (ok, _, err) = run(&["view", &format!("{}!m10000.jsonl", path.display()), "--step", "0"]);
    assert!(!ok);
    assert!(
        err.contains("has no member `m10000.jsonl`") && err.contains("(reading stopped:"),
        "{err}"
    );
}

#[test]
fn redact_refuses_an_archive_member_and_writes_nothing() {
    // The read commands take `ARCHIVE!MEMBER`; redact writes a copy of what it reads and stays
    // with files of their own.
    let sample = std::fs::read(repo(SAMPLE)).unwrap();
    for archive in archives("redact-member", &[("run.jsonl", sample)]) {
        let out = tmp("redact-member.out");
        let _ = std::fs::remove_file(&out);
        for input in [format!("{archive}!run.jsonl"), archive.clone()] {
            let (ok, stdout, err) = run(&["redact", &input, "-o", out.to_str().unwrap()]);
            assert!(!ok && stdout.is_empty(), "{input}");
            assert!(err.contains("nothing written"), "{input}: {err}");
            assert!(!out.exists(), "{input}");
        }
    }
}

#[test]
fn analyze_jsonl_gives_a_file_without_trajectory_a_record_of_its_lines() {
    // Every line a JSON string (double-encoded): all quarantined, no trajectory. The file used
    // to leave no record at all, with exit 0.
    let dir = tmp("no-trajectory");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let double = dir.join("double.jsonl");
    std::fs::write(&double, "\"{\\\"role\\\": \\\"user\\\"}\"\n\"{\\\"a\\\": 1}\"\n\"x\"\n")
        .unwrap();
    let trace = dir.join("trace.jsonl");
    std::fs::copy(repo("tests/fixtures/awtl/passed_run.awtl.jsonl"), &trace).unwrap();
    let archive = dir.join("mixed.tar");
    let files = [("notes.md", b"# notes\nnot json\n".to_vec())];
    std::fs::write(&archive, tar(&files)).unwrap();
    let out = trajscope()
        .args(["analyze", "--jsonl"])
        .arg(&double)
        .arg(&trace)
        .arg(&archive)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let records: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let of = |f: String| records.iter().filter(|r| r["file"] == f.as_str()).collect::<Vec<_>>();
    let d = of(double.display().to_string());
    assert_eq!(d.len(), 1, "{records:?}");
    assert_eq!(d[0]["stats"]["lines_total"], 3);
    assert_eq!(d[0]["stats"]["lines_quarantined"], 3);
    assert!(d[0].get("id").is_none() && d[0].get("error").is_none(), "{:?}", d[0]);
    let m = of(format!("{}!notes.md", archive.display()));
    assert_eq!(m.len(), 1, "{records:?}");
    assert_eq!(m[0]["stats"]["lines_quarantined"], 2);
    // A file with trajectories has only its trajectories' records, as before.
    let t = of(trace.display().to_string());
    assert!(!t.is_empty() && t.iter().all(|r| r.get("id").is_some() && r.get("stats").is_none()));
}

/// Runs the binary with `input` on standard input.
fn with_stdin(args: &[&str], input: &[u8]) -> std::process::Output {
    use std::io::Write as _;
    let mut child = trajscope()
        .args(args)
        .current_dir(repo(""))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    // Written beside the read, so a large input cannot block on a full pipe.
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

#[test]
fn a_dash_reads_standard_input_as_the_file_is_read() {
    let sample = "web/samples/sample.awtl.jsonl";
    let bytes = std::fs::read(repo(sample)).unwrap();
    for args in [
        &["analyze", "--json"][..],
        &["analyze"][..],
        &["view", "--step", "5"][..],
        &["cases", "--json"][..],
        &["brief"][..],
    ] {
        let from_file = trajscope().args(args).arg(sample).current_dir(repo("")).output().unwrap();
        let from_stdin = with_stdin(&[args, &["-"]].concat(), &bytes);
        assert!(
            from_stdin.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&from_stdin.stderr)
        );
        let (f, s) = (
            String::from_utf8_lossy(&from_file.stdout),
            String::from_utf8_lossy(&from_stdin.stdout),
        );
        assert!(!f.is_empty(), "{args:?}");
        // The human output names the input: the file's path, or `-`.
        assert_eq!(f.replace(sample, "-"), s, "{args:?}");
    }
    let jsonl = with_stdin(&["analyze", "--jsonl", "-"], &bytes);
    let rec: Value = serde_json::from_slice(&jsonl.stdout).unwrap();
    assert_eq!((rec["file"].as_str(), rec["format"].as_str()), (Some("-"), Some("awtl")));
    // quarantine and redact from standard input.
    let q = tmp("stdin-quarantine.jsonl");
    let out = with_stdin(&["quarantine", "-", "-o", q.to_str().unwrap()], &bytes);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(std::fs::read_to_string(&q).unwrap().lines().count(), 1);
    let planted = std::fs::read(repo("tests/fixtures/redact/planted-secrets.awtl.jsonl")).unwrap();
    let (a, b) = (tmp("stdin-redact-a.jsonl"), tmp("stdin-redact-b.jsonl"));
    let out = with_stdin(&["redact", "-", "-o", a.to_str().unwrap()], &planted);
    assert!(String::from_utf8_lossy(&out.stdout).contains("13 secret(s) found"));
    let file = trajscope()
        .args(["redact", "tests/fixtures/redact/planted-secrets.awtl.jsonl", "-o"])
        .arg(&b)
        .current_dir(repo(""))
        .output()
        .unwrap();
    assert!(file.status.success());
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    // A gzip on standard input is read as the file is; an Inspect .eval zip is one trace.
    let gz = std::fs::read(repo("tests/fixtures/codex/rollout-full.jsonl.gz")).unwrap();
    let out = with_stdin(&["analyze", "--jsonl", "-"], &gz);
    assert!(String::from_utf8_lossy(&out.stdout).contains("\"format\":\"codex\""));
    let eval = std::fs::read(repo("tests/fixtures/inspect/browser.eval")).unwrap();
    let out = with_stdin(&["view", "-", "--step", "0"], &eval);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // An archive of traces is not read from standard input: said, non-zero.
    let archive = tar(&[("a.jsonl", bytes.clone())]);
    for args in [&["analyze", "-"][..], &["cases", "-"][..]] {
        let out = with_stdin(args, &archive);
        assert!(!out.status.success(), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("standard input holds a tar archive of traces"), "{err}");
    }
}

#[test]
fn format_names_are_taken_with_underscores_too() {
    let file = repo("tests/fixtures/claude_code/hello-world-script.jsonl");
    let run = |name: &str| {
        let out =
            trajscope().args(["analyze", "--json", "--format", name]).arg(&file).output().unwrap();
        assert!(out.status.success(), "{name}: {}", String::from_utf8_lossy(&out.stderr));
        out.stdout
    };
    let hyphen = run("claude-code");
    assert_eq!(run("claude_code"), hyphen);
    assert_eq!(run("Claude_Code"), hyphen);
    // Every name the docs' table lists is accepted (an unknown one is not).
    let doc = std::fs::read_to_string(repo("docs/formats.md")).unwrap();
    let table = doc.split("| format (`--format`) |").nth(1).unwrap();
    let names: Vec<&str> = table
        .lines()
        .skip(2)
        .take_while(|l| l.starts_with("| `"))
        .map(|l| l[3..].split('`').next().unwrap())
        .collect();
    assert!(names.len() > 10, "{names:?}");
    for name in names.iter().copied().chain(["mini_swe_agent", "who_and_when", "swe_agent"]) {
        let out =
            trajscope().args(["analyze", "--json", "--format", name]).arg(&file).output().unwrap();
        assert!(out.status.success(), "{name}: {}", String::from_utf8_lossy(&out.stderr));
    }
    let out =
        trajscope().args(["analyze", "--format", "claude__code"]).arg(&file).output().unwrap();
    assert!(!out.status.success());
}

/// A file of many chunks goes through the reader's parser threads (its AWTL lines parsed ahead,
/// `PreparedChunk`); an archive's member is fed whole, in one piece, parsed in turn. Both must
/// give the same report, byte for byte, however the lines fall across the chunks: runs that
/// settle and runs that do not, CRLF ends, blank, broken and non-UTF-8 lines, texts long enough
/// to be cut, a line far longer than a chunk.
#[test]
fn a_file_of_many_chunks_reads_as_the_same_bytes_fed_whole() {
    let mut bytes = Vec::new();
    let long = "y".repeat(20_000);
    for i in 0..30_000u32 {
        let run = i % 97;
        let line = match i % 13 {
            0 => format!(r#"{{"type":"run_start","run_id":"r{run}","task":"task {run}"}}"#),
            1 => format!(
                r#"{{"type":"observation","run_id":"r{run}","exit_code":1,"output":"Error: {i}"}}"#
            ),
            2 if i % 5 == 0 => format!(
                r#"{{"type":"run_end","run_id":"r{run}","status":"failed","final_answer":"{i}"}}"#
            ),
            3 if i % 7 == 0 => {
                format!(r#"{{"type":"observation","run_id":"r{run}","output":"{long}"}}"#)
            }
            4 => String::new(),
            5 if i % 11 == 0 => r#"{"type":"action","run_id":"#.to_string(),
            _ => format!(
                r#"{{"type":"action","runId":"r{run}","command":"step {i} \u00e9","agent":"a"}}"#
            ),
        };
        bytes.extend_from_slice(line.as_bytes());
        if i % 1000 == 6 {
            bytes.extend_from_slice(b"\xff\xfe not UTF-8");
        }
        if i == 12_345 {
            bytes.extend_from_slice("z".repeat(3 << 20).as_bytes());
        }
        bytes.extend_from_slice(if i % 3 == 0 { b"\r\n" } else { b"\n" });
    }
    assert!(bytes.len() > 6 << 20, "several chunks: {}", bytes.len());
    let file = tmp("many-chunks.jsonl");
    std::fs::write(&file, &bytes).unwrap();
    let archive = tmp("many-chunks.tar");
    std::fs::write(&archive, common::tar(&[("a.jsonl", bytes)])).unwrap();
    let member = format!("{}!a.jsonl", archive.display());
    for args in [&["analyze", "--json"][..], &["quarantine", "-o"][..]] {
        let run = |input: &str, n: u32| {
            let mut cmd = trajscope();
            cmd.args(args);
            let out_file = tmp(&format!("many-chunks-q{n}.jsonl"));
            if args[0] == "quarantine" {
                cmd.arg(&out_file);
            }
            let out = cmd.arg(input).output().unwrap();
            assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
            let written = std::fs::read(&out_file).unwrap_or_default();
            (out.stdout, written)
        };
        let (threaded, whole) = (run(file.to_str().unwrap(), 1), run(&member, 2));
        assert!(threaded.0.len() + threaded.1.len() > 1000, "{args:?}: a report");
        assert!(
            threaded == whole,
            "{args:?}: the same report from the file and from its bytes whole"
        );
    }
}

/// AWTL lines of `runs` one-step runs (`r0`, `r1`, ...).
fn one_step_runs(runs: usize) -> String {
    (0..runs)
        .map(|i| format!("{{\"type\":\"action\",\"run_id\":\"r{i}\",\"command\":\"ls\"}}\n"))
        .collect()
}

/// A reader that stops reading (`trajscope analyze ... | head -c 1`) ends the run quietly and
/// successfully, whatever the output: as `grep` does, not "Broken pipe (os error 32)".
#[test]
fn output_cut_short_by_its_reader_is_no_error() {
    use std::io::Read as _;
    use std::process::Stdio;
    let input = tmp("cut-short.jsonl");
    // Several megabytes of output, far more than a pipe holds: the writes after the reader
    // stopped fail.
    std::fs::write(&input, one_step_runs(5_000)).unwrap();
    for args in [&["analyze", "--json"][..], &["analyze", "--jsonl"], &["analyze"], &["cases"]] {
        let mut child = trajscope()
            .args(args)
            .arg(&input)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = [0u8; 1];
        child.stdout.take().unwrap().read_exact(&mut first).unwrap();
        // The reading end is closed here (the handle dropped).
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{args:?}: {out:?}");
        assert!(out.stderr.is_empty(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    }
}

/// A message that asks for one trajectory of many names a few and counts the rest.
#[test]
fn a_file_of_many_runs_gets_a_short_message_naming_a_few() {
    let input = tmp("many-runs.jsonl");
    std::fs::write(&input, one_step_runs(20_000)).unwrap();
    let out = trajscope().args(["view", "--step", "0"]).arg(&input).output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("holds 20000 trajectories; pick one with --trajectory (r0, r1,"), "{err}");
    assert!(err.contains("r9, and 19990 more)"), "{err}");
    assert!(err.len() < 300, "{} bytes: {err}", err.len());
    let out = trajscope()
        .args(["analyze", "--json", "--outcome", "failed", "--trajectory", "nope"])
        .arg(&input)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("no trajectory `nope`") && err.contains("and 19990 more"), "{err}");
    assert!(err.len() < 300, "{} bytes: {err}", err.len());
}

/// A count of one is singular in the human output: "1 step", not "1 steps".
#[test]
fn one_step_is_one_step() {
    let input = tmp("one-step.jsonl");
    std::fs::write(&input, one_step_runs(1)).unwrap();
    let out = trajscope().arg("analyze").arg(&input).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("trajectory r0: 1 step, outcome Unknown"), "{text}");
    let out = trajscope().args(["view", "--step", "3"]).arg(&input).output().unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("(the trajectory has 1 step)"), "{err}");
}

/// A run id of a megabyte: the diagnosis's heading and `diff`'s sides show its first 120
/// characters and `…`, not a megabyte of terminal; `--json` keeps it whole.
#[test]
fn a_huge_run_id_is_clipped_in_the_diagnosis_and_whole_in_the_report() {
    let id = "r".repeat(1_000_000);
    let input = tmp("huge-id.awtl.jsonl");
    let line = json!({"type": "action", "run_id": id, "command": "ls"});
    std::fs::write(&input, format!("{line}\n")).unwrap();
    let out = trajscope().arg("analyze").arg(&input).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let heading = text.lines().find(|l| l.starts_with("trajectory ")).expect("a heading");
    assert_eq!(heading, format!("trajectory {}…: 1 step, outcome Unknown", "r".repeat(120)));
    assert!(text.len() < 10_000, "the diagnosis is {} bytes", text.len());
    let out = trajscope().arg("diff").arg(&input).arg(&input).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let left = text.lines().find(|l| l.starts_with("left:")).expect("the left side");
    assert!(left.contains(&format!(": {}… (1 step", "r".repeat(120))), "{left}");
    assert!(text.len() < 10_000, "the diff is {} bytes", text.len());
    let out = trajscope().args(["analyze", "--json"]).arg(&input).output().unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["trajectories"][0]["id"], Value::String(id));
}

/// An agent and a tool named in 100 KB each: every line of the diagnosis (the critical step's
/// agent, the candidates, the brief) stays short; `--json` keeps the names whole.
#[test]
fn huge_agent_and_tool_names_are_clipped_in_the_diagnosis() {
    let (agent, tool) =
        (format!("agent-{}", "a".repeat(100_000)), format!("tool-{}", "t".repeat(100_000)));
    let call = json!({"type": "action", "run_id": "r1", "agent": agent, "tool": tool, "command": "rm -rf build"});
    let fail =
        json!({"type": "observation", "run_id": "r1", "exit_code": 1, "output": "error: failed"});
    let lines = [
        json!({"type": "run_start", "run_id": "r1", "task": "do it"}),
        call.clone(),
        fail.clone(),
        call,
        fail,
        json!({"type": "run_end", "run_id": "r1", "status": "failed"}),
    ];
    let input = tmp("huge-names.awtl.jsonl");
    std::fs::write(&input, lines.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    let out = trajscope().arg("analyze").arg(&input).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains(&format!("critical step 1 by {}…", &agent[..120])), "{text:.2000}");
    assert!(text.contains("brief: "), "{text:.2000}");
    let longest = text.lines().map(|l| l.chars().count()).max().unwrap();
    assert!(longest <= 1_100, "a line of {longest} characters");
    let out = trajscope().args(["analyze", "--json"]).arg(&input).output().unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["trajectories"][0]["critical"]["agent"], Value::String(agent));
}
