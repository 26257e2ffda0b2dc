//! `trajscope dataset` and `trajscope eval` on its output, run as a user runs them: labels on
//! real fixtures in four formats are exported in each style, and `eval OUT` gives exactly the
//! figures (and the items) that `eval TRACES --labels LABELS` gives; the Who&When items of the
//! fixtures exported back through `dataset` score as they do on their own.

mod common;

use std::path::{Path, PathBuf};

use common::trajscope;
use serde_json::Value;
use trajscope_core::labels::{content_hash, Label};
use trajscope_core::model::Role;
use trajscope_core::{ingest, IngestOptions};

fn tmp(name: &str) -> PathBuf {
    let dir =
        std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("dataset-test-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Copies fixtures into `dir/<subset>/` (the subset is the folder, as eval names it).
fn copy(dir: &Path, subset: &str, files: &[&str]) -> PathBuf {
    let to = dir.join(subset);
    std::fs::create_dir_all(&to).unwrap();
    for f in files {
        let name = Path::new(f).file_name().unwrap();
        std::fs::copy(common::repo(&format!("tests/fixtures/{f}")), to.join(name)).unwrap();
    }
    to
}

fn eval_json(args: &[&str]) -> Value {
    let mut all = vec!["eval"];
    all.extend_from_slice(args);
    all.push("--json");
    serde_json::from_str(&common::stdout(&trajscope(&all))).unwrap()
}

/// Labels for every trajectory of every file in `dir`: agent steps, several annotators (a
/// majority, a tie, a "no critical step").
fn write_labels(dir: &Path, out: &Path) {
    let mut lines = String::new();
    let mut files: Vec<PathBuf> = walk(dir);
    files.sort();
    for (k, f) in files.iter().enumerate() {
        let bytes = std::fs::read(f).unwrap();
        let hash = content_hash(&bytes);
        let trace = ingest(&bytes, IngestOptions::default());
        for (j, t) in trace.trajectories.iter().enumerate() {
            let agent: Vec<(u32, String)> = t
                .steps
                .iter()
                .filter(|s| matches!(s.role, Role::Assistant | Role::Tool))
                .map(|s| (s.index, s.actor.clone()))
                .collect();
            let (a, b) = (&agent[agent.len() / 3], &agent[agent.len() / 2]);
            let votes: Vec<(&str, Option<&(u32, String)>)> = match (k + j) % 3 {
                0 => vec![("ana", Some(a)), ("bo", Some(a)), ("cy", Some(b))],
                1 => vec![("ana", Some(b)), ("bo", Some(a))],
                _ => vec![("ana", Some(b)), ("bo", None)],
            };
            for (who, step) in votes {
                let mut l = Label::new(&hash, &t.id);
                l.annotator = who.into();
                l.critical_step = step.map(|s| s.0);
                l.responsible_agent = step.map(|s| s.1.clone()).filter(|a| !a.is_empty());
                l.rationale = format!("{who} picked it");
                lines.push_str(&serde_json::to_string(&l).unwrap());
                lines.push('\n');
            }
        }
    }
    std::fs::write(out, lines).unwrap();
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// The figures and every item's gold, prediction and candidates, by name.
fn assert_same_eval(direct: &Value, export: &Value, what: &str) {
    assert_eq!(direct["subsets"], export["subsets"], "{what}: subsets");
    assert_eq!(direct["items"], export["items"], "{what}: items");
    assert!(direct["items"].as_array().is_some_and(|i| !i.is_empty()), "{what}: items scored");
}

#[test]
fn eval_on_an_export_equals_eval_on_the_same_labels_given_directly_in_each_style() {
    let dir = tmp("formats");
    let traces = dir.join("traces");
    copy(&traces, "claude", &["claude_code/coverage-test-fix.jsonl"]);
    copy(&traces, "swe", &["swe_agent/pydicom__pydicom-1458.traj"]);
    copy(&traces, "tau2", &["tau2/airline_3_simulations.json"]);
    copy(&traces, "ww", &["who_and_when/hc_1.json", "who_and_when/ag_10.json"]);
    let labels = dir.join("labels.jsonl");
    write_labels(&traces, &labels);
    let direct = eval_json(&[path(&traces), "--labels", path(&labels)]);
    // Ties and "no critical step" are not scored: fewer items than trajectories.
    let scored = direct["items"].as_array().unwrap().len();
    assert!((3..7).contains(&scored), "{scored} items scored");
    for style in ["trajerrbench", "who-and-when"] {
        let out = dir.join(format!("{style}.jsonl"));
        let run = trajscope(&[
            "dataset",
            path(&traces),
            "--labels",
            path(&labels),
            "--style",
            style,
            "-o",
            path(&out),
        ]);
        let stderr = String::from_utf8_lossy(&run.stderr).into_owned();
        assert!(run.status.success(), "{stderr}");
        assert!(stderr.contains(&format!("7 {style} item(s) written")), "{stderr}");
        assert!(stderr.contains("tied") && stderr.contains("secrets masked"), "{stderr}");
        let text = std::fs::read_to_string(&out).unwrap();
        assert_eq!(text.lines().count(), 7);
        let export = eval_json(&[path(&out)]);
        assert_same_eval(&direct, &export, style);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn who_and_when_items_exported_back_through_dataset_score_as_they_do_on_their_own() {
    let dir = tmp("ww");
    let dev = dir.join("dev");
    copy(&dev, "Algorithm-Generated", &["who_and_when/ag_1.json", "who_and_when/ag_10.json"]);
    copy(&dev, "Hand-Crafted", &["who_and_when/hc_1.json", "who_and_when/hc_6.json"]);
    // One question in two subsets (as Who&When has): two items of the same id in one export.
    std::fs::copy(dev.join("Hand-Crafted/hc_1.json"), dev.join("Hand-Crafted/hc_1_again.json"))
        .unwrap();
    let own = eval_json(&[path(&dev)]);
    assert_eq!(own["items"].as_array().unwrap().len(), 5);
    // The items are their own labels (a benchmark item file imports as a label of itself).
    let given = eval_json(&[path(&dev), "--labels", path(&dev)]);
    assert_same_eval(&own, &given, "labels given directly");
    for style in ["who-and-when", "trajerrbench"] {
        let out = dir.join(format!("{style}.jsonl"));
        let run = trajscope(&[
            "dataset",
            path(&dev),
            "--labels",
            path(&dev),
            "--style",
            style,
            "-o",
            path(&out),
        ]);
        assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
        assert_same_eval(&own, &eval_json(&[path(&out)]), style);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn dataset_masks_a_planted_secret_unless_told_not_to_and_fails_when_nothing_matches() {
    let dir = tmp("secrets");
    let trace = common::repo("tests/fixtures/redact/planted-secrets.awtl.jsonl");
    let hash = content_hash(&std::fs::read(&trace).unwrap());
    let mut l = Label::new(&hash, "run-leak-1");
    l.critical_step = Some(2);
    l.annotator = "ana".into();
    let labels = dir.join("labels.jsonl");
    std::fs::write(&labels, serde_json::to_string(&l).unwrap()).unwrap();
    let out = dir.join("out.jsonl");
    let secret = "ghp_R4nd0mT0k3nV4lu3F0rT3st1ngXyZ12345678";
    let args = |extra: &[&str]| -> Vec<String> {
        let mut a: Vec<String> = ["dataset", path(&trace), "--labels", path(&labels)]
            .iter()
            .map(|s| s.to_string())
            .collect();
        a.extend(["--style", "trajerrbench", "-o", path(&out)].iter().map(|s| s.to_string()));
        a.extend(extra.iter().map(|s| s.to_string()));
        a
    };
    let run = |a: Vec<String>| trajscope(&a.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(run(args(&[])).status.success());
    let shared = std::fs::read_to_string(&out).unwrap();
    assert!(!shared.contains(secret) && shared.contains("[REDACTED:github-token]"));
    assert!(run(args(&["--no-redact"])).status.success());
    assert!(std::fs::read_to_string(&out).unwrap().contains(secret));

    // Labels of another file: nothing to export, said plainly, and a failure.
    let other = dir.join("other.jsonl");
    std::fs::write(&other, serde_json::to_string(&Label::new("sha256:00", "x")).unwrap()).unwrap();
    let none = trajscope(&[
        "dataset",
        path(&trace),
        "--labels",
        path(&other),
        "--style",
        "who-and-when",
        "-o",
        path(&out),
    ]);
    assert!(!none.status.success());
    let stderr = String::from_utf8_lossy(&none.stderr);
    assert!(stderr.contains("not found in the traces given"), "{stderr}");
    assert!(stderr.contains("nothing to export"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}
