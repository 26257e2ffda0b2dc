//! Artifact refs at the CLI edge: `analyze --json` names every ref that escapes the trace root
//! with its reason (`flagged_artifact_refs`), `cases` never exports one, `brief` never names one;
//! and `cases` / `brief` on real samples of other formats give valid cases and an `ok` brief.

use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::Value;

fn trajscope() -> Command {
    Command::new(env!("CARGO_BIN_EXE_trajscope"))
}

fn repo(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..").join(path)
}

fn json(out: &Output) -> Value {
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("JSON output")
}

const ESCAPING: [&str; 10] = [
    "../../etc/passwd",
    "/abs/path",
    "file:///etc/shadow",
    "file:/etc/passwd",
    "file:../../secret",
    "file:C:/Windows",
    "~/.ssh/id_rsa",
    " /etc/passwd",
    "C:..\\..\\x",
    "%2e%2e/%2e%2e/etc/passwd",
];

fn hostile_trace() -> PathBuf {
    let refs = serde_json::to_string(&ESCAPING).unwrap();
    let text = format!(
        "{{\"type\":\"action\",\"run_id\":\"r\",\"action_id\":\"a1\",\"tool\":\"shell\",\"command\":\"make check\",\"artifact_refs\":{refs}}}\n\
         {{\"type\":\"observation\",\"run_id\":\"r\",\"action_id\":\"a1\",\"exit_code\":2,\"output\":\"check failed\"}}\n\
         {{\"type\":\"judge_result\",\"run_id\":\"r\",\"judge_name\":\"check-gate\",\"event_id\":\"j1\",\"status\":\"failed\",\"source_action_id\":\"a1\",\"artifact_refs\":{refs},\"reason\":\"check failed\"}}\n\
         {{\"type\":\"run_end\",\"run_id\":\"r\",\"status\":\"failed\"}}\n"
    );
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("refs-test");
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("hostile.awtl.jsonl");
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn escaping_refs_are_flagged_in_analyze_and_kept_out_of_cases_and_the_brief() {
    let trace = hostile_trace();
    let report = json(&trajscope().arg("analyze").arg(&trace).arg("--json").output().unwrap());
    let t = &report["trajectories"][0];
    let flagged = t["flagged_artifact_refs"].as_array().unwrap();
    for raw in ESCAPING {
        let f = flagged.iter().find(|f| f["ref"] == raw);
        assert!(f.is_some_and(|f| f["reason"].as_str().is_some()), "{raw:?} not flagged");
    }
    let failed = t["record"]["failed_artifact_refs"].as_array().unwrap();
    assert!(failed.iter().all(|r| !ESCAPING.contains(&r.as_str().unwrap())), "{failed:?}");

    let cases = json(&trajscope().arg("cases").arg(&trace).arg("--json").output().unwrap());
    for c in cases["cases"].as_array().unwrap() {
        if c["valid"] == true {
            for r in c["case"]["artifact_refs"].as_array().unwrap() {
                assert!(!ESCAPING.contains(&r.as_str().unwrap()), "{r} in a valid case");
            }
        }
    }
    let out = trajscope().arg("brief").arg(&trace).output().unwrap();
    let md = String::from_utf8_lossy(&out.stdout);
    for raw in ESCAPING {
        assert!(!md.contains(raw.trim()), "{raw:?} in the brief:\n{md}");
    }
    assert!(!md.contains("passwd") && !md.contains("shadow") && !md.contains("id_rsa"), "{md}");
}

#[test]
fn real_samples_of_other_formats_give_valid_cases_and_an_ok_brief() {
    for rel in [
        "tests/fixtures/tau2/airline_run1.no_raw_data.json.gz",
        "tests/fixtures/swe_agent/pydicom__pydicom-1458.traj",
        "tests/fixtures/trajerrbench/airline_failed_qwen3-max.json",
        "tests/fixtures/langsmith/nested_tool_error.json",
    ] {
        let cases = json(&trajscope().arg("cases").arg(repo(rel)).arg("--json").output().unwrap());
        let cases = cases["cases"].as_array().unwrap();
        assert!(!cases.is_empty(), "{rel}: no case");
        assert!(cases.iter().all(|c| c["valid"] == true), "{rel}: {cases:?}");
        let b = json(&trajscope().arg("brief").arg(repo(rel)).arg("--json").output().unwrap());
        assert_eq!(b["status"], "ok", "{rel}: {b}");
        let lines = b["lines"].as_array().unwrap();
        assert!((1..=5).contains(&lines.len()), "{rel}");
    }
    // A run that did not fail stays a no-op.
    let out = trajscope()
        .arg("brief")
        .arg(repo("tests/fixtures/claude_code/hello-world-script.jsonl"))
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout), "");
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("no-op"));
}
