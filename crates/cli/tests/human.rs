//! The human output of `trajscope analyze`, run as a user runs it (NO_COLOR, not a terminal):
//! the diagnosis of every failed trajectory compared with `tests/expect/analyze/<file>.txt`
//! (bless with UPDATE_EXPECT=1, then read the diff), several files and folders, `--jsonl`, and
//! escaped control characters.

use std::path::PathBuf;

mod common;
use common::{repo, stdout, trajscope};

/// Every AWTL fixture, the bundled sample and two document formats: one expect file each.
#[test]
fn analyze_prints_the_diagnosis_of_every_failed_trajectory() {
    let mut files: Vec<String> = std::fs::read_dir(repo("tests/fixtures/awtl"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".awtl.jsonl"))
        .map(|n| format!("tests/fixtures/awtl/{n}"))
        .collect();
    files.sort();
    files.push("web/samples/sample.awtl.jsonl".into());
    // Document formats: steps have a JSON path instead of a line.
    files.push("tests/fixtures/who_and_when/ag_1.json".into());
    files.push("tests/fixtures/tau2/airline_3_simulations.json".into());
    // Runs whose file does not say how they ended, with and without a critical step.
    files.push("tests/fixtures/swe_agent/pydicom__pydicom-1458.traj".into());
    files.push("tests/fixtures/codex/rollout-trimmed.jsonl".into());
    assert!(files.len() > 3, "fixtures found: {files:?}");
    for f in &files {
        let got = stdout(&trajscope(&["analyze", f]));
        // Named after the whole input file name, as every expected file is.
        let name = PathBuf::from(f).file_name().unwrap().to_string_lossy().into_owned();
        let expected = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join(format!("tests/expect/analyze/{name}.txt"));
        expect_test::expect_file![expected].assert_eq(&got);
    }
}

#[test]
fn the_diagnosis_names_step_agent_class_evidence_candidates_and_brief() {
    let got = stdout(&trajscope(&["analyze", "web/samples/sample.awtl.jsonl"]));
    assert!(got.contains("critical step 5 by coder"), "{got}");
    assert!(got.contains("--> web/samples/sample.awtl.jsonl:6"), "{got}");
    assert!(got.contains("class: agent_failure, failure mode: reasoning"), "{got}");
    assert!(got.contains("deprecated alias"), "{got}");
    assert!(got.contains("^^^"), "the quote is marked: {got}");
    assert!(got.contains("candidates: step 5 (line 6)"), "{got}");
    assert!(got.contains("brief: "), "{got}");
    assert!(!got.contains('\u{1b}'), "no colour without a terminal");
}

/// A run whose file does not say how it ended is not called failed (the app's wording): the
/// critical step is where it failed if it did, until the reviewer says it failed.
#[test]
fn an_unknown_outcome_is_not_called_failed() {
    let f = "tests/fixtures/swe_agent/pydicom__pydicom-1458.traj";
    let got = stdout(&trajscope(&["analyze", f]));
    assert!(
        got.contains("outcome Unknown\nif this run failed, it failed at step 12 by assistant\n")
    );
    assert!(got.contains("= the file does not say how this run ended"), "{got}");
    assert!(!got.contains("failed["), "{got}");
    let reviewed = stdout(&trajscope(&["analyze", f, "--outcome", "failed"]));
    assert!(
        reviewed.contains("failed[agent_failure]: critical step 12 by assistant"),
        "{reviewed}"
    );
    assert!(!reviewed.contains("if this run failed"), "{reviewed}");
    // Without a critical step: no verdict, the likely steps if it failed.
    let f = "tests/fixtures/codex/rollout-trimmed.jsonl";
    let got = stdout(&trajscope(&["analyze", f]));
    assert!(got.contains("= the file does not say how this run ended"), "{got}");
    assert!(got.contains("= if this run failed, the likely critical steps: step 20 (line 21)"));
    // The likely steps are ranked as in a failed run: the first is the verdict's once the run
    // is said to have failed.
    let failed = stdout(&trajscope(&["analyze", f, "--outcome", "failed"]));
    assert!(failed.contains("critical step 20 by environment"), "{failed}");
    let passed = stdout(&trajscope(&["analyze", f, "--outcome", "passed"]));
    assert!(!passed.contains("does not say") && !passed.contains("likely"), "{passed}");
}

#[test]
fn analyze_takes_several_files_and_folders() {
    let folder = stdout(&trajscope(&["analyze", "tests/fixtures/awtl"]));
    let one = stdout(&trajscope(&["analyze", "tests/fixtures/awtl/passed_run.awtl.jsonl"]));
    assert!(folder.contains(one.trim_end()), "the folder's output holds each file's");
    // Subfolders are walked.
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("walk");
    std::fs::create_dir_all(dir.join("nested")).unwrap();
    std::fs::copy(repo("web/samples/sample.awtl.jsonl"), dir.join("nested/run.awtl.jsonl"))
        .unwrap();
    let walked = stdout(&trajscope(&["analyze", dir.to_str().unwrap()]));
    std::fs::remove_dir_all(&dir).ok();
    assert!(walked.contains("nested/run.awtl.jsonl: format awtl"), "{walked}");
    let two = stdout(&trajscope(&[
        "analyze",
        "tests/fixtures/awtl/passed_run.awtl.jsonl",
        "web/samples/sample.awtl.jsonl",
    ]));
    assert!(two.starts_with(one.trim_end()), "{two}");
    assert!(two.contains("web/samples/sample.awtl.jsonl: format awtl"), "{two}");
    // --json is the one-file contract.
    let out = trajscope(&["analyze", "--json", "tests/fixtures/awtl"]);
    assert!(!out.status.success());
}

#[test]
fn jsonl_writes_one_record_per_trajectory_with_its_file() {
    let got = stdout(&trajscope(&[
        "analyze",
        "--jsonl",
        "tests/fixtures/awtl/passed_run.awtl.jsonl",
        "web/samples/sample.awtl.jsonl",
    ]));
    let recs: Vec<serde_json::Value> =
        got.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(recs.len(), 2, "{got}");
    assert_eq!(recs[0]["file"], "tests/fixtures/awtl/passed_run.awtl.jsonl");
    assert!(recs[0]["critical"].is_null());
    assert_eq!(recs[1]["file"], "web/samples/sample.awtl.jsonl");
    assert_eq!(recs[1]["format"], "awtl");
    assert_eq!(recs[1]["critical"]["step"], 5);
    // The same overview as the JSON report's.
    let report: serde_json::Value = serde_json::from_str(&stdout(&trajscope(&[
        "analyze",
        "--json",
        "web/samples/sample.awtl.jsonl",
    ])))
    .unwrap();
    let mut rec = recs[1].clone();
    let obj = rec.as_object_mut().unwrap();
    obj.remove("file");
    obj.remove("format");
    assert_eq!(rec, report["trajectories"][0]);
}

/// A trace that tries to drive the terminal, or to show text reordered with bidirectional
/// overrides: every human output shows those characters escaped, the JSON keeps them exactly.
#[test]
fn control_characters_in_a_trace_are_shown_escaped() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("esc");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("evil.jsonl");
    let esc = "\\u001b]0;pwned\\u0007\\u001b[2J\\u009b\\u202eild\\u202d\\u2066\\u061c";
    let lines = [
        format!(r#"{{"type":"run_start","run_id":"run{esc}","task":"t{esc}"}}"#),
        format!(
            r#"{{"type":"action","run_id":"run{esc}","agent":"a{esc}","tool":"shell","command":"make{esc}"}}"#
        ),
        format!(
            r#"{{"type":"observation","run_id":"run{esc}","exit_code":1,"output":"Error: boom{esc}"}}"#
        ),
        format!(r#"{{"type":"run_end","run_id":"run{esc}","status":"failed"}}"#),
    ];
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let p = path.to_str().unwrap();
    for args in [
        vec!["analyze", p],
        vec!["view", p, "--step", "1"],
        vec!["view", p, "--step", "1", "--history"],
        vec!["cases", p],
        vec!["brief", p],
    ] {
        let out = trajscope(&args);
        let bidi = |c: char| matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{61c}');
        for stream in [&out.stdout, &out.stderr] {
            let text = String::from_utf8_lossy(stream);
            assert!(
                !text.chars().any(|c| (c.is_control() && c != '\n' && c != '\t') || bidi(c)),
                "{args:?}: {text:?}"
            );
        }
        if args[0] != "brief" {
            // The content is there, escaped (the brief may rightly have no line for it).
            let text = String::from_utf8_lossy(&out.stdout);
            assert!(text.contains("\\x1b") && text.contains("\\u{202e}ild\\u{202d}"), "{args:?}");
        }
    }
    // JSON keeps the exact text: the override is in the agent's name as the trace wrote it.
    let v: serde_json::Value = serde_json::from_slice(&trajscope(&["analyze", "--json", p]).stdout)
        .expect("the report is JSON");
    assert!(v["trajectories"][0]["agents"][0].as_str().unwrap().contains("\u{202e}ild\u{202d}"));
    std::fs::remove_dir_all(&dir).ok();
}
