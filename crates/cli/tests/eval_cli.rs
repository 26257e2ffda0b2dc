//! `eval --folds 2 --split random --seeds N` run as a user runs it: seeded, repeatable random
//! half-splits whose two folds partition each subset, each cross-validated exactly as
//! `--split alternate` cross-validates a folder holding the same halves.

use std::collections::BTreeSet;

use serde_json::Value;

mod common;
use common::{json, repo, trajscope};

const FIXTURES: &str = "tests/fixtures/who_and_when";

fn names(v: &Value) -> Vec<String> {
    v.as_array().unwrap().iter().map(|x| x.as_str().unwrap().to_string()).collect()
}

#[test]
fn random_splits_repeat_exactly_and_partition_each_subset() {
    let args = ["eval", "--folds", "2", "--split", "random", "--seeds", "6", "--json", FIXTURES];
    let first = trajscope(&args);
    let again = trajscope(&args);
    assert_eq!(first.stdout, again.stdout, "the same seeds must give the same output");
    let v = json(&first);
    assert_eq!(v["split"], "random");
    assert_eq!(v["seeds"], 6);
    // Every labelled item, as plain `eval` names them.
    let all: BTreeSet<String> = json(&trajscope(&["eval", "--json", FIXTURES]))["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["file"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(all.len(), 4);
    let repeats = v["repeats"].as_array().unwrap();
    assert_eq!(repeats.len(), 6);
    let mut halves = BTreeSet::new();
    for (k, r) in repeats.iter().enumerate() {
        assert_eq!(r["seed"], k + 1);
        let a: BTreeSet<String> = names(&r["fit_first"]).into_iter().collect();
        let b: BTreeSet<String> = names(&r["fit_second"]).into_iter().collect();
        assert!(a.is_disjoint(&b), "seed {}: {a:?} {b:?}", k + 1);
        assert_eq!(a.union(&b).cloned().collect::<BTreeSet<_>>(), all);
        assert_eq!((a.len(), b.len()), (2, 2), "one subset of 4 halves into 2 + 2");
        // Every item is scored once, by the fold that did not fit it.
        assert_eq!(r["pooled_test"]["who_and_when"]["n"], 4);
        // The partition, named by the half that holds the first item.
        halves.insert(if a.contains(all.first().unwrap()) { a } else { b });
    }
    assert!(halves.len() > 1, "six seeds cut the subset one way only: {halves:?}");
    // The summary is the mean and range of the repeats' figures.
    for key in ["step_acc", "step_acc_within_1", "agent_acc", "recall_at_3", "recall_at_5"] {
        let xs: Vec<f64> = repeats
            .iter()
            .map(|r| r["pooled_test"]["who_and_when"][key].as_f64().unwrap())
            .collect();
        let mean = xs.iter().sum::<f64>() / xs.len() as f64;
        let lo = xs.iter().cloned().fold(f64::INFINITY, f64::min);
        let hi = xs.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        assert!((v["mean"]["who_and_when"][key].as_f64().unwrap() - mean).abs() < 1e-12, "{key}");
        assert_eq!(v["min"]["who_and_when"][key].as_f64().unwrap(), lo, "{key}");
        assert_eq!(v["max"]["who_and_when"][key].as_f64().unwrap(), hi, "{key}");
    }
}

#[test]
fn one_seed_is_the_alternate_split_of_a_folder_holding_its_halves() {
    let v = json(&trajscope(&[
        "eval", "--folds", "2", "--split", "random", "--seeds", "1", "--json", FIXTURES,
    ]));
    let r = &v["repeats"][0];
    assert_eq!(v["mean"], r["pooled_test"]);
    assert_eq!(v["min"], r["pooled_test"]);
    assert_eq!(v["max"], r["pooled_test"]);
    // The by-hand check of docs/detector.md: the files of the first fit set under 1, 3, 5…,
    // the others under 2, 4, 6…, then `--split alternate`.
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("random");
    let sub = dir.join("who_and_when");
    std::fs::create_dir_all(&sub).unwrap();
    for (odd, list) in [(true, &r["fit_first"]), (false, &r["fit_second"])] {
        for (k, f) in names(list).iter().enumerate() {
            let number = 2 * k + if odd { 1 } else { 2 };
            std::fs::copy(repo(f), sub.join(format!("{number}.json"))).unwrap();
        }
    }
    let cv = json(&trajscope(&[
        "eval",
        "--folds",
        "2",
        "--split",
        "alternate",
        "--json",
        sub.to_str().unwrap(),
    ]));
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(cv["pooled_test"], r["pooled_test"]);
    assert_eq!(cv["pooled_items"].as_array().unwrap().len(), 4);
}

#[test]
fn the_human_summary_says_how_the_splits_were_made() {
    let out = trajscope(&["eval", "--folds", "2", "--split", "random", "--seeds", "3", FIXTURES]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("## random half-splits: 3 repeats, seeds 1 to 3\n"), "{text}");
    assert!(text.contains("SplitMix64(seed)"), "{text}");
    let row = text.lines().find(|l| l.starts_with("who_and_when\t4\t")).unwrap();
    // Six figures, each a mean with its range.
    assert_eq!(row.split('\t').filter(|c| c.contains(" (") && c.contains('–')).count(), 6);
    for seed in 1..=3 {
        assert!(text.contains(&format!("\n{seed}\twho_and_when\t4\t")), "{text}");
    }
}

#[test]
fn bad_seed_values_are_refused_with_a_clear_error() {
    let err = |args: &[&str]| {
        let out = trajscope(args);
        assert!(!out.status.success(), "{args:?} succeeded");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let e = err(&["eval", "--folds", "2", "--split", "random", "--seeds", "0", FIXTURES]);
    assert!(e.contains("--seeds") && e.contains("1..=1000"), "{e}");
    let e = err(&["eval", "--folds", "2", "--split", "random", "--seeds", "many", FIXTURES]);
    assert!(e.contains("--seeds") && e.contains("many"), "{e}");
    let e = err(&["eval", "--folds", "2", "--split", "alternate", "--seeds", "5", FIXTURES]);
    assert!(e.contains("--seeds: only with --split random"), "{e}");
    let e = err(&["eval", "--split", "random", FIXTURES]);
    assert!(e.contains("--folds"), "{e}");
}
