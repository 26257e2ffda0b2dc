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
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("loop-test");
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

fn sample() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../web/samples/sample.awtl.jsonl")
}

fn cases_of(trace: &PathBuf) -> Vec<Value> {
    let out = trajscope().arg("cases").arg(trace).arg("--json").output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    json(&out)["cases"].as_array().unwrap().clone()
}

#[test]
fn cases_from_a_failed_trace_carry_valid_errors_and_a_stable_id() {
    let first = cases_of(&sample());
    assert_eq!(first.len(), 1);
    let c = &first[0];
    assert_eq!(c["trajectory_id"], "run-demo-7");
    assert_eq!(c["valid"], true, "{c}");
    assert_eq!(c["errors"], serde_json::json!([]));
    assert_eq!(c["case"]["schema_version"], 1);
    assert_eq!(c["case"]["turn_id"], c["case"]["failure_turn_id"]);
    assert_eq!(c["case"]["failure_event_id"], "judge-17");
    assert!(c["case"]["artifact_refs"]
        .as_array()
        .unwrap()
        .iter()
        .any(|a| a == "src/api/orders.ts"));
    // Same trace, same step: same case id.
    assert_eq!(cases_of(&sample())[0]["case_id"], c["case_id"]);
    // A passed run has no case.
    assert!(cases_of(&fixture("passed.awtl.jsonl")).is_empty());

    // -o writes only valid cases, and they validate.
    let out_path = tmp("from-trace.jsonl");
    let out = trajscope().arg("cases").arg(sample()).arg("-o").arg(&out_path).output().unwrap();
    assert!(out.status.success());
    let check =
        trajscope().args(["cases", "--json", "--validate"]).arg(&out_path).output().unwrap();
    assert!(check.status.success(), "{}", String::from_utf8_lossy(&check.stderr));
    assert_eq!(json(&check)["valid"], 1);
}

#[test]
fn an_environment_blocker_trace_gives_a_blocked_promotion_and_a_brief_that_leaves_the_code_alone() {
    let trace = fixture("env-blocker.awtl.jsonl");
    let built = cases_of(&trace);
    assert_eq!(built.len(), 1);
    assert_eq!(built[0]["valid"], true, "{}", built[0]);
    assert_eq!(built[0]["case"]["classification"], "environment_blocker", "{}", built[0]);

    let cases_path = tmp("env-cases.jsonl");
    let out = trajscope().arg("cases").arg(&trace).arg("-o").arg(&cases_path).output().unwrap();
    assert!(out.status.success());
    let id = built[0]["case_id"].as_str().unwrap();
    // Even approved by a human, an environment failure is not promoted.
    let p = trajscope()
        .arg("promote")
        .arg(&cases_path)
        .args(["--approve", id, "--json"])
        .output()
        .unwrap();
    assert!(p.status.success());
    let d = &json(&p)["decisions"][0];
    assert_eq!(d["decision"], "blocked");
    assert_eq!(d["reasons"][0], "environment_blocker failures never become memory");

    let b = trajscope().arg("brief").arg(&trace).args(["--json", "--now", NOW]).output().unwrap();
    assert!(b.status.success(), "{}", String::from_utf8_lossy(&b.stderr));
    let v = json(&b);
    assert_eq!(v["status"], "ok");
    let line = &v["lines"][0];
    assert_eq!(line["case_id"], id);
    assert!(line["tags"].as_array().unwrap().iter().any(|t| t == "environment-blocker"), "{line}");
    let text = line["text"].as_str().unwrap().to_lowercase();
    assert!(text.contains("not a code fault"), "{text}");
    for word in ["change", "rewrite", "edit", "refactor"] {
        assert!(!text.contains(word), "{word} in {text}");
    }
}

#[test]
fn brief_merges_the_trace_with_earlier_cases_and_the_scorecard() {
    let out = trajscope()
        .arg("brief")
        .arg(sample())
        .arg("--cases")
        .arg(fixture("cases.jsonl"))
        .arg("--scorecard")
        .arg(fixture("scorecard.jsonl"))
        .args(["--phase", "verification", "--scope", "public_api", "--now", NOW, "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v = json(&out);
    assert_eq!(v["status"], "ok");
    let lines = v["lines"].as_array().unwrap();
    assert!(!lines.is_empty() && lines.len() <= 5);
    for l in lines {
        assert!(l["text"].as_str().is_some_and(|t| !t.is_empty()));
        assert!(!l["tags"].as_array().unwrap().is_empty());
        assert!(l["case_id"].as_str().is_some());
    }
    // The verified earlier case leads.
    assert_eq!(lines[0]["case_id"], "case-demo-a");
    assert_eq!(lines[0]["tags"][0], "high-confidence");
    let excluded = v["excluded"].as_array().unwrap();
    let staging = excluded.iter().find(|e| e["case_id"] == "case-staging-timeout").unwrap();
    assert_eq!(staging["reasons"][0]["code"], "too_old");

    // Markdown by default, one tagged line at most with --max-lines 1.
    let md = trajscope()
        .arg("brief")
        .arg(sample())
        .arg("--cases")
        .arg(fixture("cases.jsonl"))
        .args(["--max-lines", "1", "--now", NOW])
        .output()
        .unwrap();
    assert!(md.status.success());
    let text = String::from_utf8(md.stdout).unwrap();
    assert!(text.starts_with("## Failure Prevention Brief\n"), "{text}");
    assert_eq!(text.lines().filter(|l| l.starts_with("- [")).count(), 1, "{text}");
}

#[test]
fn brief_with_no_matching_case_is_a_no_op_with_an_empty_section() {
    let out = trajscope()
        .arg("brief")
        .arg(fixture("passed.awtl.jsonl"))
        .arg("--cases")
        .arg(fixture("cases.jsonl"))
        .args(["--scope", "billing"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("no-op"));
    let out = trajscope()
        .arg("brief")
        .arg(fixture("passed.awtl.jsonl"))
        .args(["--json", "--phase", "planning"])
        .output()
        .unwrap();
    let v = json(&out);
    assert_eq!(v["status"], "no-op");
    assert_eq!(v["lines"], serde_json::json!([]));
    assert_eq!(v["section"], "");
    let bad = trajscope()
        .arg("brief")
        .arg(fixture("passed.awtl.jsonl"))
        .args(["--phase", "closeout"])
        .output()
        .unwrap();
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("unknown phase `closeout`"));
}
