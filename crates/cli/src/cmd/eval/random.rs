//! `eval --folds 2 --split random --seeds N`: N random half-splits of each subset, each
//! cross-validated as `--split alternate` is, summarised by the mean and range of the pooled
//! held-out figures. One split is a weak predictor on a small set (the parity split of the
//! Who&When development half fits one fold on 5 + 3 items); the mean over many is a steadier one.
//!
//! A repeat with seed `s` takes each subset's items in item-number order (file name order for
//! items without a number), shuffles them with Fisher–Yates (from the last position down,
//! swapping position `i` with `j = below(i + 1)`) driven by SplitMix64 seeded with `s` (one
//! stream per repeat, the subsets in name order; `below(n)` is the high 64 bits of `next() × n`),
//! and renumbers them 1, 2, 3… in shuffled order. The core's alternate split then fits on the
//! odd numbers and scores the even ones, and the reverse: the fits are exactly those of
//! `--split alternate` on a folder holding the files under those numbers (docs/detector.md).

use std::collections::BTreeMap;

use serde::Serialize;
use trajscope_core::eval::{item_number, CrossValidation, EvalInput, SubsetScore};

/// The number of repeats when `--seeds` is not given.
pub const DEFAULT_SEEDS: u32 = 20;

/// SplitMix64 (Steele, Lea and Flood 2014): a fixed, documented generator, so a seed names the
/// same split on every machine and in every version.
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n` > 0): the high 64 bits of `next × n` (bias below n / 2^64).
    pub fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }
}

/// Fisher–Yates from the last position down.
pub fn shuffle<T>(items: &mut [T], rng: &mut SplitMix64) {
    for i in (1..items.len()).rev() {
        let j = rng.below(i + 1);
        items.swap(i, j);
    }
}

/// One repeat: its seed, the items each fold fitted on (fold 1 fits on `fit_first` and scores
/// `fit_second`, fold 2 the reverse), and the pooled held-out figures.
#[derive(Debug, Serialize)]
pub struct Repeat {
    pub seed: u32,
    pub fit_first: Vec<String>,
    pub fit_second: Vec<String>,
    pub pooled_test: BTreeMap<String, SubsetScore>,
}

/// The JSON of `eval --folds 2 --split random`.
#[derive(Debug, Default, Serialize)]
pub struct RandomSplits {
    pub split: &'static str,
    pub seeds: u32,
    pub agent_stage: bool,
    pub one_model: bool,
    pub dropped: Vec<String>,
    /// Per subset, the mean, least and greatest pooled held-out figure over the repeats.
    pub mean: BTreeMap<String, SubsetScore>,
    pub min: BTreeMap<String, SubsetScore>,
    pub max: BTreeMap<String, SubsetScore>,
    pub repeats: Vec<Repeat>,
}

/// The halves of seed `seed`: for each input, whether fold 1 fits on it, and the renumbered
/// inputs (each subset's items numbered 1… in shuffled order) that make the core's alternate
/// split cut exactly those halves.
fn renumber<'a>(inputs: &[EvalInput<'a>], seed: u32) -> (Vec<bool>, Vec<EvalInput<'a>>) {
    let mut by_subset: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, inp) in inputs.iter().enumerate() {
        by_subset.entry(inp.subset.as_str()).or_default().push(i);
    }
    let mut rng = SplitMix64::new(u64::from(seed));
    let mut first = vec![false; inputs.len()];
    let mut renumbered = Vec::with_capacity(inputs.len());
    for (subset, mut order) in by_subset {
        order.sort_by(|&a, &b| {
            let key =
                |i: usize| (item_number(&inputs[i].file).unwrap_or(u64::MAX), &inputs[i].file);
            key(a).cmp(&key(b))
        });
        shuffle(&mut order, &mut rng);
        for (pos, &i) in order.iter().enumerate() {
            first[i] = pos % 2 == 0;
            renumbered.push(EvalInput {
                file: format!("{}", pos + 1),
                subset: subset.to_string(),
                trajectory: inputs[i].trajectory,
            });
        }
    }
    (first, renumbered)
}

/// Runs `cross_validate` (the core's alternate split, fitted in-fold) on the renumbered items
/// of every seed 1..=`seeds` and summarises the pooled held-out figures.
pub fn random_halves(
    inputs: &[EvalInput<'_>],
    seeds: u32,
    cross_validate: impl Fn(&[EvalInput<'_>]) -> CrossValidation,
) -> RandomSplits {
    let mut repeats = Vec::new();
    for seed in 1..=seeds {
        let (first, renumbered) = renumber(inputs, seed);
        let cv = cross_validate(&renumbered);
        let names = |want: bool| -> Vec<String> {
            inputs
                .iter()
                .zip(&first)
                .filter(|(_, &f)| f == want)
                .map(|(i, _)| i.file.clone())
                .collect()
        };
        repeats.push(Repeat {
            seed,
            fit_first: names(true),
            fit_second: names(false),
            pooled_test: cv.pooled_test,
        });
    }
    /// One subset's running figures over the repeats.
    struct Acc {
        n: usize,
        count: usize,
        sum: [f64; 6],
        lo: [f64; 6],
        hi: [f64; 6],
    }
    let mut acc: BTreeMap<String, Acc> = BTreeMap::new();
    for r in &repeats {
        for (name, s) in &r.pooled_test {
            let e = acc.entry(name.clone()).or_insert(Acc {
                n: s.n,
                count: 0,
                sum: [0.0; 6],
                lo: [f64::INFINITY; 6],
                hi: [f64::NEG_INFINITY; 6],
            });
            for (k, x) in figures(s).into_iter().enumerate() {
                e.sum[k] += x;
                e.lo[k] = e.lo[k].min(x);
                e.hi[k] = e.hi[k].max(x);
            }
            e.count += 1;
        }
    }
    let mut out = RandomSplits { split: "random", seeds, repeats, ..Default::default() };
    for (name, a) in acc {
        out.mean.insert(name.clone(), subset_score(a.n, a.sum.map(|x| x / a.count as f64)));
        out.min.insert(name.clone(), subset_score(a.n, a.lo));
        out.max.insert(name, subset_score(a.n, a.hi));
    }
    out
}

fn figures(s: &SubsetScore) -> [f64; 6] {
    [
        s.step_acc,
        s.step_acc_within_1,
        s.step_acc_within_2,
        s.agent_acc,
        s.recall_at_3,
        s.recall_at_5,
    ]
}

fn subset_score(n: usize, x: [f64; 6]) -> SubsetScore {
    SubsetScore {
        n,
        step_acc: x[0],
        step_acc_within_1: x[1],
        step_acc_within_2: x[2],
        agent_acc: x[3],
        recall_at_3: x[4],
        recall_at_5: x[5],
    }
}

/// The human summary: how the splits were made, then per subset mean (min–max) of each pooled
/// held-out figure, then each repeat's figures.
pub fn write_random(out: &mut impl std::io::Write, r: &RandomSplits) -> std::io::Result<()> {
    writeln!(out, "## random half-splits: {} repeats, seeds 1 to {}", r.seeds, r.seeds)?;
    writeln!(
        out,
        "made by: per seed, each subset's items in item-number order shuffled by Fisher–Yates \
         on SplitMix64(seed) (subsets in name order, one stream), then fit on the 1st, 3rd, \
         5th… shuffled item of each subset and score the others, and the reverse (every fit \
         in-fold, as --split alternate)"
    )?;
    writeln!(out, "cross-validated (pooled held-out), mean (min–max) over the repeats:")?;
    writeln!(out, "subset\tn\tstep\t±1\t±2\tagent\tR@3\tR@5")?;
    for (name, mean) in &r.mean {
        let (lo, hi) = (figures(&r.min[name]), figures(&r.max[name]));
        let cells: Vec<String> = figures(mean)
            .iter()
            .enumerate()
            .map(|(k, m)| format!("{:.1} ({:.1}–{:.1})", 100.0 * m, 100.0 * lo[k], 100.0 * hi[k]))
            .collect();
        writeln!(out, "{name}\t{}\t{}", mean.n, cells.join("\t"))?;
    }
    writeln!(out, "\n## each repeat (pooled held-out)")?;
    writeln!(out, "seed\tsubset\tn\tstep\t±1\t±2\tagent\tR@3\tR@5")?;
    for rep in &r.repeats {
        for (name, s) in &rep.pooled_test {
            let cells: Vec<String> =
                figures(s).iter().map(|x| format!("{:.1}", 100.0 * x)).collect();
            writeln!(out, "{}\t{name}\t{}\t{}", rep.seed, s.n, cells.join("\t"))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix64_is_the_published_generator() {
        // The first outputs for seed 0 of the reference implementation (Vigna's splitmix64.c).
        let mut rng = SplitMix64::new(0);
        assert_eq!(rng.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(rng.next_u64(), 0x6E78_9E6A_A1B9_65F4);
    }

    #[test]
    fn the_shuffle_is_a_seeded_permutation() {
        let run = |seed: u64| {
            let mut v: Vec<u32> = (0..50).collect();
            shuffle(&mut v, &mut SplitMix64::new(seed));
            v
        };
        assert_eq!(run(7), run(7));
        assert_ne!(run(7), run(8));
        let mut sorted = run(7);
        sorted.sort();
        assert_eq!(sorted, (0..50).collect::<Vec<u32>>());
        let mut rng = SplitMix64::new(3);
        for n in 1..100 {
            assert!(rng.below(n) < n);
        }
    }
}
