//! `trajscope redact`, `quarantine --redact` and `analyze --json`'s usage, run as a user runs
//! them, on the planted-secrets fixtures and real traces.

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

mod common;
use common::stored_zip;

fn trajscope() -> Command {
    Command::new(env!("CARGO_BIN_EXE_trajscope"))
}

fn repo(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..").join(path)
}

fn tmp(name: &str) -> PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("redact-test");
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

/// `-o -` writes the copy (or the quarantine records) to standard output, byte for byte what
/// a file would get, with the report on standard error.
#[test]
fn output_dash_writes_the_copy_and_the_records_to_standard_output() {
    let file = tmp("planted.to-file.jsonl");
    let to_file =
        trajscope().arg("redact").arg(repo(PLANTED)).arg("-o").arg(&file).output().unwrap();
    assert!(to_file.status.success());
    let out = trajscope()
        .args(["redact", "--json"])
        .arg(repo(PLANTED))
        .args(["-o", "-"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.stdout, std::fs::read(&file).unwrap(), "the copy, on standard output");
    let report: Value = serde_json::from_slice(&out.stderr).unwrap();
    assert_eq!(
        (report["secrets"].as_u64(), report["output"].as_str()),
        (Some(13), Some("standard output"))
    );
    assert!(!std::path::Path::new("-").exists(), "no file named -");

    let broken = tmp("broken.jsonl");
    std::fs::write(&broken, "{\"type\":\"action\",\"command\":\"ls\"}\nnot json\n{\"type\":\"obs")
        .unwrap();
    let records = tmp("q.jsonl");
    let q = trajscope().arg("quarantine").arg(&broken).arg("-o").arg(&records).output().unwrap();
    assert!(q.status.success());
    let out = trajscope().arg("quarantine").arg(&broken).args(["-o", "-"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.stdout, std::fs::read(&records).unwrap());
    assert_eq!(String::from_utf8(out.stdout).unwrap().lines().count(), 2);
    assert!(String::from_utf8(out.stderr).unwrap().contains("written to standard output"));
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

/// `run/secrets.jsonl` (an AWTL run with an OpenAI key, an AWS key id and a GitHub token),
/// deflated in a zip: the QA pass's `34d_secrets_deflated.zip` (2026-12-03), made with Python's
/// `zipfile`.
const DEFLATED_ZIP: &str = "\
UEsDBBQAAAAIAApsg13i8zP+GAEAAM0BAAARAAAAcnVuL3NlY3JldHMuanNvbmyNkEFPwjAUx+9+imYHTpIwUBGNh0\
UHLgjDEKOclrI+tkHX1vZtbBC/u3QmS0g4ePz/0v97v9ejg7UC54E4uhCRQarRuf4LGbPYQGwBUrOzkYHisnZ+ro5t\
kcaYSXGxZRRtiduMkZI3KQXOLYhlnlPRvIBKSY0kXPhzL4i8RRBN/dWT2XWVltuut35m/maSBtspn4lQveslfpSf1e\
rQc/uDm9u74f2IrmPmjyevpNMhdG+IGRBu7BaagEC7Qypz5i7XBnRJ/38AVBlGsWS27Z6yLFAVzWhvGnhBuByHL/P5\
0P/yZos3nzAQGbBHkqQqajV71hM2SZptdzwXUn1rg0W5r+qD2z/Tsz5w+p2LakixMBZsaMaBnYq/UEsBAhQDFAAAAA\
gACmyDXeLzM/4YAQAAzQEAABEAAAAAAAAAAAAAAIABAAAAAHJ1bi9zZWNyZXRzLmpzb25sUEsFBgAAAAABAAEAPwAA\
AEcBAAAAAA==";

#[test]
fn redact_refuses_an_archive_and_writes_nothing_but_masks_a_gzip_of_one_trace() {
    use base64::Engine as _;
    let planted = std::fs::read(repo(PLANTED)).unwrap();
    let deflated = base64::engine::general_purpose::STANDARD.decode(DEFLATED_ZIP).unwrap();
    let stored = stored_zip(&[("run/planted.jsonl", &planted)]);
    let dir = tmp("archive-src");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("planted.jsonl"), &planted).unwrap();
    let tar_gz = tmp("planted.tar.gz");
    let status = Command::new("tar")
        .arg("czf")
        .arg(&tar_gz)
        .arg("-C")
        .arg(&dir)
        .arg("planted.jsonl")
        .status()
        .unwrap();
    assert!(status.success());
    let cases = [
        ("deflated.zip", deflated, "a zip archive"),
        ("stored.zip", stored, "a zip archive"),
        ("planted.tar.gz", std::fs::read(&tar_gz).unwrap(), "a .tar.gz archive"),
    ];
    for (name, bytes, kind) in cases {
        let input = tmp(name);
        std::fs::write(&input, bytes).unwrap();
        let output = tmp(&format!("{name}.redacted"));
        let _ = std::fs::remove_file(&output);
        let out = trajscope().arg("redact").arg(&input).arg("-o").arg(&output).output().unwrap();
        assert!(!out.status.success(), "{name}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(&format!("is {kind}")) && err.contains("nothing written"), "{err}");
        assert!(out.stdout.is_empty(), "{name}");
        assert!(!output.exists(), "{name}: nothing is written");
    }
    // A gzip of one trace is still read: the copy is the text, masked.
    let gz = tmp("planted.jsonl.gz");
    let zipped = Command::new("gzip").arg("-c").arg(repo(PLANTED)).output().unwrap();
    assert!(zipped.status.success());
    std::fs::write(&gz, zipped.stdout).unwrap();
    let output = tmp("planted.gz.redacted.jsonl");
    let out = trajscope().arg("redact").arg(&gz).arg("-o").arg(&output).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("13 secret(s) found"));
    let copy = std::fs::read_to_string(&output).unwrap();
    assert_eq!(copy.lines().count(), String::from_utf8_lossy(&planted).lines().count());
    assert!(!copy.contains("ghp_R4nd0mT0k3nV4lu3F0rT3st1ngXyZ12345678"));
}
