//! What the CLI tests that read human output share: run the binary as a user runs it (from the
//! repository root, NO_COLOR, not a terminal), paths from the repository root, and stdout of a
//! run that must succeed (as text, or as JSON for the tests that read `--json`).

use std::path::PathBuf;
use std::process::{Command, Output};

pub fn trajscope(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_trajscope"))
        .current_dir(repo(""))
        .env("NO_COLOR", "1")
        .args(args)
        .output()
        .unwrap()
}

pub fn repo(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..").join(path)
}

#[allow(dead_code)] // not every test binary reads text
pub fn stdout(out: &Output) -> String {
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout.clone()).unwrap()
}

/// Stdout of a run that must succeed, read as JSON.
#[allow(dead_code)] // not every test binary reads JSON
pub fn json(out: &Output) -> serde_json::Value {
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}
