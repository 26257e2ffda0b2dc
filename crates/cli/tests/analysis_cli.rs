//! The analysis CLI contract, run as a user runs it: `analyze --json` (critical, candidates,
//! classification, failure_mode, signals), `view` and `eval`.

use serde_json::Value;

mod common;
use common::{json, trajscope};

#[test]
fn analyze_json_names_the_critical_step_with_ranked_evidence() {
    let v = json(&trajscope(&["analyze", "--json", "web/samples/sample.awtl.jsonl"]));
    let t = &v["trajectories"][0];
    let c = &t["critical"];
    assert_eq!(c["step"], 5);
    assert_eq!(c["line"], 6);
    assert_eq!(c["agent"], "coder");
    assert_eq!(c["action_id"], "act-3");
    assert_eq!(t["classification"], "agent_failure");
    assert_eq!(t["failure_mode"], "reasoning");
    assert_eq!(t["signals"]["escalate"], false);
    let cands = t["candidates"].as_array().unwrap();
    assert_eq!(cands[0]["step"], 5);
    for c in cands {
        for key in ["step", "line", "agent", "score", "category", "phase", "state", "evidence"] {
            assert!(!c[key].is_null(), "candidate without {key}: {c}");
        }
    }
    let scores: Vec<f64> = cands.iter().map(|c| c["score"].as_f64().unwrap()).collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "ranked best first: {scores:?}");
    assert_eq!(cands[0]["state"], "manifest_active");
    assert!(cands[0]["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e["quote"].as_str().unwrap().contains("deprecated alias")));
    assert_eq!(t["record"]["failure_event"], "judge-17");
}

#[test]
fn analyze_json_gives_a_null_critical_step_for_a_run_that_passed() {
    let v = json(&trajscope(&["analyze", "--json", "tests/fixtures/awtl/passed_run.awtl.jsonl"]));
    let t = &v["trajectories"][0];
    assert!(t["critical"].is_null());
    assert!(t["classification"].is_null());
    assert_eq!(t["candidates"].as_array().unwrap().len(), 0);
}

#[test]
fn analyze_json_never_blames_the_agent_for_a_missing_browser() {
    let v = json(&trajscope(&[
        "analyze",
        "--json",
        "tests/fixtures/awtl/env_blocker_browser.awtl.jsonl",
    ]));
    let t = &v["trajectories"][0];
    assert_eq!(t["classification"], "environment_blocker");
    assert_eq!(t["critical"]["agent"], "environment");
}

#[test]
fn view_prints_a_bounded_step_view_at_each_grain() {
    let mut lens = Vec::new();
    for (grain, bound) in [("high", 3000), ("medium", 1200), ("low", 600)] {
        let out = trajscope(&[
            "view",
            "tests/fixtures/awtl/env_blocker_browser.awtl.jsonl",
            "--step",
            "6",
            "--grain",
            grain,
        ]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let text = String::from_utf8(out.stdout).unwrap();
        let text = text.trim_end_matches('\n');
        assert!(text.chars().count() <= bound, "{grain}: {}", text.chars().count());
        assert!(text.starts_with("#6 [tool/observation] exit=1 ERROR"), "{text}");
        assert!(text.contains("Executable doesn't exist at /ms-playwright"), "{grain}");
        assert!(text.contains("chars elided] …"), "{grain}");
        lens.push(text.chars().count());
    }
    assert!(lens[0] > lens[1] && lens[1] > lens[2], "{lens:?}");
}

#[test]
fn view_needs_a_trajectory_id_when_the_file_holds_several() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("view");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("two-runs.jsonl");
    std::fs::write(
        &file,
        concat!(
            r#"{"type":"action","run_id":"a","tool":"shell","command":"ls"}"#,
            "\n",
            r#"{"type":"action","run_id":"b","tool":"shell","command":"pwd"}"#,
            "\n"
        ),
    )
    .unwrap();
    let f = file.to_str().unwrap();
    let out = trajscope(&["view", f, "--step", "0"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--trajectory"));
    let out = trajscope(&["view", f, "--step", "0", "--trajectory", "b"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("pwd"));
    let out = trajscope(&["view", f, "--step", "9", "--trajectory", "b"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("out of range"));
}

#[test]
fn eval_scores_labelled_folders_per_subset_with_integer_steps() {
    let v = json(&trajscope(&[
        "eval",
        "--json",
        "tests/fixtures/who_and_when",
        "tests/fixtures/trajerrbench/airline_failed_qwen3-max.json",
    ]));
    let ww = &v["subsets"]["who_and_when"];
    assert_eq!(ww["n"], 4);
    let items = v["items"].as_array().unwrap();
    assert_eq!(items.len(), 5);
    let ww_items: Vec<&Value> = items.iter().filter(|i| i["subset"] == "who_and_when").collect();
    // The subset's step accuracy is exactly the share of items whose prediction equals gold.
    let exact = ww_items.iter().filter(|i| i["gold_step"] == i["predicted_step"]).count();
    assert_eq!(ww["step_acc"].as_f64().unwrap(), exact as f64 / 4.0);
    for key in [
        "step_acc",
        "step_acc_within_1",
        "step_acc_within_2",
        "agent_acc",
        "recall_at_3",
        "recall_at_5",
    ] {
        let x = ww[key].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&x), "{key} = {x}");
    }
    let ag1 = ww_items.iter().find(|i| i["file"].as_str().unwrap().ends_with("ag_1.json")).unwrap();
    assert_eq!(ag1["gold_step"], 0);
    assert_eq!(ag1["gold_agent"], "Excel_Expert");
    assert!(ag1["candidate_steps"].is_array());
    assert_eq!(v["subsets"]["trajerrbench"]["n"], 1);
}
