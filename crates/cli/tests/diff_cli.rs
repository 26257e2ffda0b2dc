//! `trajscope diff`, run as a user runs it (NO_COLOR, not a terminal): the side-by-side output
//! compared with `tests/expect/diff/<name>.txt` (bless with UPDATE_EXPECT=1, then read the diff),
//! the `--json` contract of `docs/diff.md`, picking trajectories, and escaped control characters.

use std::path::PathBuf;

mod common;
use common::{stdout, trajscope};

fn expect(name: &str, got: &str) {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("tests/expect/diff/{name}.txt"));
    expect_test::expect_file![path].assert_eq(got);
}

const TAU2: &str = "tests/fixtures/tau2/airline_3_simulations.json";
const EDIT: &str = "tests/fixtures/awtl/wrong_edit_verifier.awtl.jsonl";
const FIX: &str = "tests/fixtures/awtl/fixed_at_once.awtl.jsonl";

#[test]
fn two_simulations_of_one_tau2_file_side_by_side() {
    let got = stdout(&trajscope(&["diff", TAU2]));
    expect("tau2_first_two", &got);
    assert!(got.contains("first_divergence: left step 2, right step 2 (row 2)"), "{got}");
    assert!(got.contains("outcome failed, critical step 5"), "{got}");
    assert!(got.contains("outcome passed, no critical step"), "{got}");
    // --left / --right pick by id; the same pair gives the same output.
    let ids = ["c4726c14-f132-4944-a51a-465518856f47", "be496f78-d061-431e-b870-0cd2281a404d"];
    let picked = stdout(&trajscope(&["diff", TAU2, "--left", ids[0], "--right", ids[1]]));
    assert_eq!(picked, got);
}

#[test]
fn two_files_side_by_side() {
    let got = stdout(&trajscope(&["diff", EDIT, FIX]));
    expect("awtl_two_files", &got);
    assert!(got.contains("<- first divergence"), "{got}");
    assert!(got.contains("    4! assistant/action edit"), "the critical step is marked: {got}");
}

#[test]
fn json_is_the_documented_contract() {
    let got = stdout(&trajscope(&["diff", "--json", EDIT, FIX]));
    let v: serde_json::Value = serde_json::from_str(&got).unwrap();
    assert_eq!(v["left_file"], EDIT);
    assert_eq!(v["right_file"], FIX);
    assert_eq!(v["left"]["id"], "run-edit-1");
    assert_eq!(v["left"]["outcome"], "failed");
    assert_eq!(v["left"]["critical_step"], 4);
    assert_eq!(v["right"]["critical_step"], 11);
    assert_eq!(v["first_divergence"]["left_step"], 1);
    assert_eq!(v["first_divergence"]["right_step"], 1);
    assert_eq!(v["first_divergence"]["pair"], 1);
    let pairs = v["pairs"].as_array().unwrap();
    assert_eq!(pairs[0], serde_json::json!({"kind": "equal", "left": 0, "right": 0}));
    let lefts = pairs.iter().filter(|p| !p["left"].is_null()).count();
    let rights = pairs.iter().filter(|p| !p["right"].is_null()).count();
    assert_eq!((lefts, rights), (11, 15), "every step of both runs is in a row");
    assert_eq!(v["counts"]["right_only"], 4);
    // The same trajectory against itself: no divergence.
    let same: serde_json::Value =
        serde_json::from_str(&stdout(&trajscope(&["diff", "--json", EDIT, EDIT]))).unwrap();
    assert!(same["first_divergence"].is_null());
    let human = stdout(&trajscope(&["diff", EDIT, EDIT]));
    assert!(human.contains("first_divergence: none"), "{human}");
    assert!(human.contains("… 11 equal steps …"), "equal stretches fold: {human}");
}

#[test]
fn a_missing_trajectory_or_a_lone_one_is_a_clear_error() {
    let out = trajscope(&["diff", TAU2, "--left", "nope"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no trajectory `nope`") && err.contains("c4726c14"), "{err}");
    let out = trajscope(&["diff", EDIT]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("holds one trajectory"));
}

#[test]
fn control_characters_in_either_run_are_shown_escaped() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("diff-esc");
    std::fs::create_dir_all(&dir).unwrap();
    let line = |run: &str, cmd: &str| {
        format!(
            "{{\"type\":\"action\",\"run_id\":\"{run}\",\"tool\":\"shell\",\"command\":\"{cmd}\"}}\n"
        )
    };
    let a = dir.join("a.jsonl");
    let b = dir.join("b.jsonl");
    std::fs::write(&a, line("r\\u001b[2J", "ls")).unwrap();
    std::fs::write(&b, line("s", "echo \\u001b]0;pwned\\u0007\\u009b")).unwrap();
    let got = stdout(&trajscope(&["diff", a.to_str().unwrap(), b.to_str().unwrap()]));
    assert!(!got.chars().any(|c| c.is_control() && c != '\n'), "{got:?}");
    assert!(got.contains("\\x1b"), "{got}");
    std::fs::remove_dir_all(&dir).ok();
}
