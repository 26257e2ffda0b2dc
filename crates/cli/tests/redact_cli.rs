//! `trajscope redact`, `quarantine --redact` and `analyze --json`'s usage, run as a user runs
//! them, on the planted-secrets fixtures and real traces.

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

fn trajscope() -> Command {
    Command::new(env!("CARGO_BIN_EXE_trajscope"))
}

fn repo(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..").join(path)
}

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("trajscope-redact-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

const PLANTED: &str = "tests/fixtures/redact/planted-secrets.awtl.jsonl";

#[test]
fn redact_writes_a_copy_with_the_same_lines_and_says_where_the_secrets_were() {
    let out_path = tmp("planted.redacted.jsonl");
    let out =
        trajscope().arg("redact").arg(repo(PLANTED)).arg("-o").arg(&out_path).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report = String::from_utf8(out.stdout).unwrap();
    assert!(report.contains("13 secret(s) found"), "{report}");
    assert!(report.contains("line 3 col 171: github-token"), "{report}");
    let original = std::fs::read_to_string(repo(PLANTED)).unwrap();
    let copy = std::fs::read_to_string(&out_path).unwrap();
    assert_eq!(copy.lines().count(), original.lines().count());
    for line in copy.lines() {
        serde_json::from_str::<Value>(line).unwrap();
    }
    assert!(!copy.contains("ghp_R4nd0mT0k3nV4lu3F0rT3st1ngXyZ12345678"));
    assert!(!copy.contains("sk-ant-api03-Zk8Qw2Er4Ty6"));

    let out = trajscope()
        .args(["redact", "--json"])
        .arg(repo(PLANTED))
        .arg("-o")
        .arg(&out_path)
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["secrets"], 13);
    assert_eq!(
        v["findings"][0],
        serde_json::json!({"line": 1, "column": 198, "kind": "url-password"})
    );
}

#[test]
fn the_quarantine_export_is_exact_by_default_and_masked_with_redact() {
    let file = repo("tests/fixtures/redact/planted-corrupt.awtl.jsonl");
    let exact = tmp("q-exact.jsonl");
    let masked = tmp("q-masked.jsonl");
    let out = trajscope().arg("quarantine").arg(&file).arg("-o").arg(&exact).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("exact bytes, not redacted"));
    let out = trajscope()
        .arg("quarantine")
        .arg(&file)
        .args(["--redact", "-o"])
        .arg(&masked)
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("redacted: secrets masked"));
    let exact = std::fs::read_to_string(exact).unwrap();
    let masked = std::fs::read_to_string(masked).unwrap();
    assert!(exact.contains("sk_live_51Hq8ZxLm3Np7Rt2Vw9Yb4Kc"));
    assert!(!masked.contains("sk_live_51Hq8ZxLm3Np7Rt2Vw9Yb4Kc"));
    let v: Value = serde_json::from_str(masked.trim()).unwrap();
    assert_eq!(v["redacted"], true);
    assert!(v["raw"].as_str().unwrap().contains("[REDACTED:stripe-key]"));
}

#[test]
fn cases_and_brief_never_print_a_planted_secret() {
    for args in [vec!["cases", "--json"], vec!["cases"], vec!["brief"], vec!["brief", "--json"]] {
        let out = trajscope().args(&args).arg(repo(PLANTED)).output().unwrap();
        assert!(out.status.success(), "{args:?}");
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(!text.trim().is_empty(), "{args:?}");
        for s in ["sk-ant-api03-Zk8Qw2Er4Ty6", "ghp_R4nd0m", "sk_live_51Hq8", "AKIAQ3EXAMPLE"] {
            assert!(!text.contains(s), "{args:?} prints {s}: {text}");
        }
    }
}

#[test]
fn analyze_json_gives_each_trajectory_its_usage_or_nulls() {
    let out = trajscope()
        .args(["analyze", "--json"])
        .arg(repo("tests/fixtures/claude_code/hello-world-script.jsonl"))
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let u = &v["trajectories"][0]["usage"];
    for k in
        ["input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "duration_ms"]
    {
        assert!(u[k].is_u64(), "{k}: {u}");
    }
    let out = trajscope()
        .args(["analyze", "--json"])
        .arg(repo("tests/fixtures/awtl/passed_run.awtl.jsonl"))
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let u = &v["trajectories"][0]["usage"];
    for k in ["input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens"] {
        assert!(u[k].is_null(), "{k}: {u}");
    }
}
