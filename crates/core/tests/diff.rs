//! Property tests of the step alignment (`trajscope_core::diff`): identical runs never diverge; a
//! shared prefix of k steps then different steps diverges at k on both sides; every step of both
//! runs is in exactly one row, in order, and equal rows join equal keys.

use proptest::prelude::*;
use trajscope_core::diff::{align_keys, compare, myers, rows_between_matches, step_key, PairKind};
use trajscope_core::model::{Role, Step, StepKind, Trajectory};

fn step(text: &str) -> Step {
    Step {
        role: Role::Assistant,
        kind: StepKind::Action,
        tool: Some("shell".into()),
        args: Some(text.to_string()),
        text: text.to_string(),
        ..Step::default()
    }
}

fn traj(id: &str, texts: &[String]) -> Trajectory {
    let steps =
        texts.iter().enumerate().map(|(i, t)| Step { index: i as u32, ..step(t) }).collect();
    Trajectory { id: id.into(), steps, ..Trajectory::default() }
}

/// Commands from a small vocabulary, so runs share many steps.
fn commands(max: usize) -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec(
        prop::sample::select(vec!["ls", "cargo test", "cat a.rs", "git diff", "vim b.rs"])
            .prop_map(String::from),
        0..max,
    )
}

/// Checks that `pairs` walks both key sequences exactly once, in order, and that the kinds
/// agree with the keys.
fn assert_covers(pairs: &[trajscope_core::diff::Pair], l: &[u32], r: &[u32]) {
    let (mut i, mut j) = (0u32, 0u32);
    for p in pairs {
        if let Some(a) = p.left {
            assert_eq!(a, i, "left steps in order, once each");
            i += 1;
        }
        if let Some(b) = p.right {
            assert_eq!(b, j, "right steps in order, once each");
            j += 1;
        }
        match (p.kind, p.left, p.right) {
            (PairKind::Equal, Some(a), Some(b)) => assert_eq!(l[a as usize], r[b as usize]),
            (PairKind::Changed, Some(a), Some(b)) => assert_ne!(l[a as usize], r[b as usize]),
            (PairKind::LeftOnly, Some(_), None) | (PairKind::RightOnly, None, Some(_)) => {}
            other => panic!("a row that does not match its kind: {other:?}"),
        }
    }
    assert_eq!((i as usize, j as usize), (l.len(), r.len()), "every step is in a row");
}

proptest! {
    #[test]
    fn identical_runs_have_no_divergence(texts in commands(200)) {
        let c = compare(&traj("a", &texts), None, &traj("b", &texts), None);
        prop_assert_eq!(c.first_divergence, None);
        prop_assert_eq!(c.counts.equal, texts.len());
        prop_assert_eq!(c.pairs.len(), texts.len());
    }

    #[test]
    fn a_shared_prefix_then_different_steps_diverges_at_its_length(
        prefix in commands(100),
        left_tail in commands(50),
        right_tail in commands(50),
        first in prop::sample::select(vec!["rm -rf build", "make"]),
    ) {
        // The tails start with different steps: one side `first`, the other a vocabulary step.
        let k = prefix.len();
        let mut left = prefix.clone();
        left.push(first.to_string());
        left.extend(left_tail);
        let mut right = prefix;
        right.push("pytest".to_string());
        right.extend(right_tail);
        let c = compare(&traj("a", &left), None, &traj("b", &right), None);
        let d = c.first_divergence.expect("the runs differ");
        prop_assert_eq!(d.left_step, Some(k as u32));
        prop_assert_eq!(d.right_step, Some(k as u32));
        prop_assert_eq!(d.pair, k);
        prop_assert!(c.pairs[..k].iter().all(|p| p.kind == PairKind::Equal));
    }

    #[test]
    fn the_alignment_covers_every_step_once_in_order(
        l in prop::collection::vec(0u32..6, 0..400),
        r in prop::collection::vec(0u32..6, 0..400),
    ) {
        assert_covers(&align_keys(&l, &r), &l, &r);
    }

}

proptest! {
    // Few cases: each is thousands of steps (more than one piece of the alignment).
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]
    #[test]
    fn long_runs_cut_into_pieces_are_still_covered(
        l in prop::collection::vec(0u32..40, 2100..4500),
        r in prop::collection::vec(0u32..40, 0..4500),
    ) {
        assert_covers(&align_keys(&l, &r), &l, &r);
    }
}

proptest! {

    #[test]
    fn the_alignment_agrees_with_the_step_keys(left in commands(60), right in commands(60)) {
        let (a, b) = (traj("a", &left), traj("b", &right));
        let c = compare(&a, None, &b, None);
        for p in &c.pairs {
            if let (Some(i), Some(j)) = (p.left, p.right) {
                let same = step_key(&a.steps[i as usize]) == step_key(&b.steps[j as usize]);
                prop_assert_eq!(same, p.kind == PairKind::Equal);
            }
        }
        prop_assert_eq!(c.counts.equal + c.counts.changed + c.counts.left_only, left.len());
        prop_assert_eq!(c.counts.equal + c.counts.changed + c.counts.right_only, right.len());
    }
}

#[test]
fn trials_that_differ_in_numbers_ids_and_sandbox_paths_align_as_equal() {
    let a = traj("a", &["cat /tmp/run-1a/src/app.py".into(), "sleep 3".into()]);
    let b = traj("b", &["cat /tmp/run-7f/src/app.py".into(), "sleep 10".into()]);
    let c = compare(&a, None, &b, None);
    assert_eq!(c.first_divergence, None);
    assert_eq!(c.counts.equal, 2);
}

#[test]
fn an_empty_run_against_another_is_one_sided() {
    let b = traj("b", &["ls".into()]);
    let c = compare(&traj("a", &[]), None, &b, None);
    let d = c.first_divergence.unwrap();
    assert_eq!((d.pair, d.left_step, d.right_step), (0, None, Some(0)));
    assert_eq!(c.counts.right_only, 1);
    let none = compare(&traj("a", &[]), None, &traj("b", &[]), None);
    assert!(none.pairs.is_empty() && none.first_divergence.is_none());
}

/// The length of a longest common subsequence, by the textbook table.
fn lcs_len(a: &[u32], b: &[u32]) -> usize {
    let mut row = vec![0usize; b.len() + 1];
    for x in a {
        let mut diag = 0;
        for (j, y) in b.iter().enumerate() {
            let up = row[j + 1];
            row[j + 1] = if x == y { diag + 1 } else { up.max(row[j]) };
            diag = up;
        }
    }
    row[b.len()]
}

proptest! {
    /// The web build's Myers (`diff::myers`) finds a longest common subsequence: its pairs are
    /// matches, in order, as many as the table's and as `similar`'s (the native alignment)
    /// equal steps; the rows built from them cover both runs.
    #[test]
    fn the_web_myers_is_exact_and_agrees_with_similar(
        l in prop::collection::vec(0u32..6, 0..120),
        r in prop::collection::vec(0u32..6, 0..120),
    ) {
        let m = myers::matches(&l, &r);
        for w in m.windows(2) {
            prop_assert!(w[0].0 < w[1].0 && w[0].1 < w[1].1, "{:?}", m);
        }
        for &(i, j) in &m {
            prop_assert_eq!(l[i], r[j]);
        }
        prop_assert_eq!(m.len(), lcs_len(&l, &r));
        let similar_equal: usize = similar::capture_diff_slices(similar::Algorithm::Myers, &l, &r)
            .iter()
            .map(|op| match *op {
                similar::DiffOp::Equal { len, .. } => len,
                _ => 0,
            })
            .sum();
        prop_assert_eq!(m.len(), similar_equal);
        let mut rows = Vec::new();
        rows_between_matches(&l, &r, 0, 0, &m, &mut rows);
        assert_covers(&rows, &l, &r);
        let equal = rows.iter().filter(|p| p.kind == PairKind::Equal).count();
        prop_assert!(equal >= m.len());
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]
    /// The same on middles as long as the alignment takes whole (`align_keys`).
    #[test]
    fn the_web_myers_is_exact_on_long_middles(
        l in prop::collection::vec(0u32..30, 0..2048),
        r in prop::collection::vec(0u32..30, 0..2048),
    ) {
        let m = myers::matches(&l, &r);
        prop_assert!(m.windows(2).all(|w| w[0].0 < w[1].0 && w[0].1 < w[1].1));
        prop_assert!(m.iter().all(|&(i, j)| l[i] == r[j]));
        prop_assert_eq!(m.len(), lcs_len(&l, &r));
    }
}
