//! The learning-loop CLI contract (`trajscope cases`, `brief`, `promote`), run as a user runs it
//! on the fixtures under tests/fixtures/loop/.

use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::Value;

fn trajscope() -> Command {
    Command::new(env!("CARGO_BIN_EXE_trajscope"))
}

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/loop").join(name)
}

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("trajscope-loop-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

const NOW: &str = "2026-05-25T00:00:00Z";

#[test]
fn cases_validate_reports_every_case_with_valid_and_errors_and_fails_on_invalid() {
    let out = trajscope()
        .args(["cases", "--json", "--validate"])
        .arg(fixture("cases-invalid.jsonl"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        err.trim(),
        format!("trajscope: 10 invalid case(s) in {}", fixture("cases-invalid.jsonl").display())
    );
    let v = json(&out);
    assert_eq!(v["valid"], 0);
    assert_eq!(v["invalid"], 10);
    let cases = v["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 10);
    assert_eq!(cases[0]["case_id"], "case-turn-mismatch");
    assert_eq!(cases[0]["valid"], false);
    assert_eq!(cases[0]["errors"][0], "turn_id and failure_turn_id must match");
    assert_eq!(cases[7]["errors"].as_array().unwrap().len(), 9);
    assert_eq!(cases[9]["line"], 10);
    assert_eq!(cases[9]["case_id"], Value::Null);

    let ok = trajscope()
        .args(["cases", "--validate"])
        .arg(fixture("cases.jsonl"))
        .arg("--json")
        .output()
        .unwrap();
    assert!(ok.status.success(), "{}", String::from_utf8_lossy(&ok.stderr));
    let v = json(&ok);
    assert_eq!(
        (v["valid"].as_u64(), v["invalid"].as_u64(), v["duplicates"].as_u64()),
        (Some(7), Some(0), Some(1))
    );
    assert!(v["cases"]
        .as_array()
        .unwrap()
        .iter()
        .all(|c| c["valid"] == true && c["errors"] == serde_json::json!([])));
}

#[test]
fn promote_decides_every_case_and_writes_only_with_the_write_flag() {
    let out_path = tmp("memory.jsonl");
    let _ = std::fs::remove_file(&out_path);
    let dry = trajscope()
        .arg("promote")
        .arg(fixture("cases.jsonl"))
        .arg("--scorecard")
        .arg(fixture("scorecard.jsonl"))
        .args(["--now", NOW, "--json"])
        .output()
        .unwrap();
    assert!(dry.status.success(), "{}", String::from_utf8_lossy(&dry.stderr));
    let v = json(&dry);
    assert_eq!(v["write"], false);
    assert_eq!(v["written"], 0);
    assert_eq!(v["candidates"], serde_json::json!([]));
    let decisions = v["decisions"].as_array().unwrap();
    let by_id = |id: &str| decisions.iter().find(|d| d["case_id"] == id).unwrap().clone();
    assert_eq!(by_id("case-demo-a")["decision"], "promote");
    assert_eq!(by_id("case-demo-a")["verified_by"], "replay");
    assert_eq!(by_id("case-e2e-browser")["decision"], "blocked");
    assert_eq!(
        by_id("case-e2e-browser")["reasons"][0],
        "environment_blocker failures never become memory"
    );
    assert_eq!(
        by_id("case-harness-sandbox")["reasons"][2],
        "imported-only or trace-only candidate is blocked"
    );
    assert_eq!(v["scorecard_bad_lines"].as_array().unwrap().len(), 2);
    assert!(String::from_utf8_lossy(&dry.stderr).contains("dry run: nothing written"));
    assert!(!out_path.exists());

    // Approving the stale staging case is not enough (its scorecard excludes it); writing is
    // explicit and holds only the promotable candidate.
    let wet = trajscope()
        .arg("promote")
        .arg(fixture("cases.jsonl"))
        .arg("--scorecard")
        .arg(fixture("scorecard.jsonl"))
        .args(["--now", NOW, "--approve", "case-staging-timeout", "--write"])
        .arg(&out_path)
        .output()
        .unwrap();
    assert!(wet.status.success(), "{}", String::from_utf8_lossy(&wet.stderr));
    let text = String::from_utf8(wet.stdout).unwrap();
    assert!(text.contains("case-demo-a: promote"), "{text}");
    assert!(text.contains("case-staging-timeout: blocked"), "{text}");
    let written = std::fs::read_to_string(&out_path).unwrap();
    let lines: Vec<Value> = written.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0]["case_id"], "case-demo-a");
    assert_eq!(lines[0]["candidate_id"], "memcand-demo-a");
    assert_eq!(lines[0]["verified_by"], "replay");
}

#[test]
fn promote_without_a_scorecard_blocks_trace_only_cases_unless_approved() {
    let out = trajscope()
        .arg("promote")
        .arg(fixture("cases.jsonl"))
        .args(["--approve", "case-demo-a", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v = json(&out);
    let decisions = v["decisions"].as_array().unwrap();
    let demo = decisions.iter().find(|d| d["case_id"] == "case-demo-a").unwrap();
    assert_eq!(demo["decision"], "promote");
    assert_eq!(demo["verified_by"], "human");
    let migration = decisions.iter().find(|d| d["case_id"] == "case-migration-order").unwrap();
    assert_eq!(
        migration["reasons"],
        serde_json::json!([
            "replay or human approval is required before promotion",
            "trace-only candidate (no replay scorecard record) is blocked"
        ])
    );
}

#[test]
fn promote_reports_invalid_lines_as_blocked_decisions() {
    let out = trajscope()
        .arg("promote")
        .arg(fixture("cases-invalid.jsonl"))
        .arg("--json")
        .output()
        .unwrap();
    assert!(out.status.success());
    let v = json(&out);
    let decisions = v["decisions"].as_array().unwrap();
    assert_eq!(decisions.len(), 10);
    assert!(decisions.iter().all(|d| d["decision"] == "blocked"));
    assert_eq!(decisions[9]["case_id"], "line:10");
    assert_eq!(decisions[9]["reasons"][0], "invalid case: case must be a JSON object");
}

#[test]
fn a_bad_now_or_a_missing_file_fails_with_one_line() {
    let out = trajscope()
        .arg("promote")
        .arg(fixture("cases.jsonl"))
        .args(["--now", "yesterday"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("--now `yesterday`"), "{err}");
    let out =
        trajscope().args(["cases", "--validate", "/nonexistent/cases.jsonl"]).output().unwrap();
    assert!(!out.status.success());
    assert_eq!(String::from_utf8(out.stderr).unwrap().trim().lines().count(), 1);
}
