//! `--outcome failed|passed [--trajectory ID]`, run as a user runs it: the reviewer's word on
//! how a run ended turns the critical step, the cases and the brief on (or off) for the whole
//! file or for one trajectory (docs/formats.md, "Outcome").

use serde_json::Value;

mod common;
use common::{json, trajscope};

/// A real mini-swe-agent run that submitted a patch: the file cannot say whether it passed.
const MINI: &str = "tests/fixtures/mini_swe_agent/django__django-10914.trimmed.traj.json";

#[test]
fn outcome_failed_gives_an_unknown_run_its_critical_step_and_passed_takes_it_away() {
    let v = json(&trajscope(&["analyze", "--json", MINI]));
    assert_eq!(v["trajectories"][0]["outcome"], "unknown");
    assert!(v["trajectories"][0]["critical"].is_null());

    let v = json(&trajscope(&["analyze", "--json", "--outcome", "failed", MINI]));
    let t = &v["trajectories"][0];
    assert_eq!(t["outcome"], "failed");
    let step = t["critical"]["step"].as_u64().expect("a critical step");
    assert!(step < t["steps"].as_u64().unwrap());
    assert!(!t["classification"].is_null());

    // A failed run the reviewer says passed (AWTL: analysed as it settles, while the file is read).
    let sample = "web/samples/sample.awtl.jsonl";
    assert!(
        !json(&trajscope(&["analyze", "--json", sample]))["trajectories"][0]["critical"].is_null()
    );
    let v = json(&trajscope(&["analyze", "--json", "--outcome", "passed", sample]));
    assert_eq!(v["trajectories"][0]["outcome"], "passed");
    assert!(v["trajectories"][0]["critical"].is_null());
}

#[test]
fn outcome_for_one_trajectory_leaves_the_others_as_the_file_says() {
    let file = "tests/fixtures/otel/genai_handoff.jsonl";
    let before = json(&trajscope(&["analyze", "--json", file]));
    let ids: Vec<&str> = before["trajectories"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_str().unwrap())
        .collect();
    let outcomes = |v: &Value| -> Vec<String> {
        v["trajectories"].as_array().unwrap().iter().map(|t| t["outcome"].to_string()).collect()
    };
    assert_eq!(outcomes(&before), ["\"unknown\"", "\"failed\""]);
    let v = json(&trajscope(&[
        "analyze",
        "--json",
        "--outcome",
        "failed",
        "--trajectory",
        ids[0],
        file,
    ]));
    assert_eq!(outcomes(&v), ["\"failed\"", "\"failed\""]);
    assert!(!v["trajectories"][0]["critical"].is_null());
    let v = json(&trajscope(&[
        "analyze",
        "--json",
        "--outcome",
        "passed",
        "--trajectory",
        ids[1],
        file,
    ]));
    assert_eq!(outcomes(&v), ["\"unknown\"", "\"passed\""]);
    assert!(v["trajectories"][1]["critical"].is_null());
}

#[test]
fn a_wrong_trajectory_or_outcome_word_is_an_error_not_a_silent_no_op() {
    let out =
        trajscope(&["analyze", "--json", "--outcome", "failed", "--trajectory", "nope", MINI]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no trajectory `nope`") && err.contains("django__django-10914"), "{err}");
    let out = trajscope(&["analyze", "--outcome", "maybe", MINI]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("failed, passed"));
    // --trajectory only says which run the --outcome is about.
    assert!(!trajscope(&["analyze", "--trajectory", "x", MINI]).status.success());
}

#[test]
fn cases_and_brief_follow_the_reviewers_failed() {
    let v = json(&trajscope(&["cases", "--json", MINI]));
    assert_eq!(v["cases"].as_array().unwrap().len(), 0, "no failure, no case");
    let v = json(&trajscope(&["cases", "--json", "--outcome", "failed", MINI]));
    let cases = v["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 1);
    assert_eq!(cases[0]["valid"], true, "{}", cases[0]["errors"]);
    assert_eq!(cases[0]["trajectory_id"], "django__django-10914");

    let clock = ["--now", "2026-12-01T00:00:00Z"];
    let mut args = vec!["brief", "--json", MINI];
    args.extend(clock);
    let v = json(&trajscope(&args));
    assert_eq!(v["status"], "no-op", "{v}");
    args.extend(["--outcome", "failed"]);
    let v = json(&trajscope(&args));
    assert_ne!(v["status"], "no-op", "{v}");
    assert!(!v["lines"].as_array().unwrap().is_empty(), "{v}");
}
