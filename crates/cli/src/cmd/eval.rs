//! `trajscope eval PATH... [--json]`: scores the detector on labelled files or folders
//! (Who&When items, TRAJERRBENCH records). Folders are walked recursively in name order; each
//! file's subset is the name of the folder holding it. Scoring itself is in the core.

use std::path::{Path, PathBuf};

use std::collections::BTreeMap;

use trajscope_core::attribution::{AnalysisOptions, Weights};
use trajscope_core::eval::{
    cross_validate_without, evaluate, CrossValidation, EvalInput, EvalReport, Split, SubsetScore,
};
use trajscope_core::model::{Format, Trace};

use crate::io::{load, parse_format};

mod random;
use random::{random_halves, write_random, RandomSplits, DEFAULT_SEEDS};

#[derive(clap::Args)]
pub struct Args {
    /// Labelled files or folders.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Use this format instead of detecting it from the content (`docs/formats.md`).
    #[arg(long, value_parser = parse_format)]
    format: Option<Format>,
    /// Score against these labels (labels JSONL, label exports, benchmark items): a trajectory
    /// they label is scored against their agreed label (majority, as a dataset export agrees
    /// them: docs/dataset.md) instead of any label its file carries.
    #[arg(long, num_args = 1..)]
    labels: Vec<PathBuf>,
    /// Print the JSON report instead of a table.
    #[arg(long)]
    json: bool,
    /// Cross-validate the scoring model's weights: `2` fits them on one half of the items and
    /// scores the other, and the reverse (the halves as `--split` says), and prints both folds.
    #[arg(long, value_parser = clap::value_parser!(u32).range(2..=2))]
    folds: Option<u32>,
    /// How `--folds 2` splits the items: `parity` (odd against even item numbers),
    /// `alternate` (within each subset, every other item in number order: equal halves) or
    /// `random` (`--seeds` seeded random halvings of each subset, each cross-validated as
    /// `alternate` is; prints the mean and range of the held-out figures).
    #[arg(long, value_enum, default_value = "parity", requires = "folds")]
    split: SplitArg,
    /// With `--split random`, how many random half-splits (seeds 1 to N; 20 when not given).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1000), requires = "folds")]
    seeds: Option<u32>,
    /// With `--folds 2`, also fit the agent stage (`agent_support`, `support_depth`) in every
    /// fit; it is off in the shipped weights (see docs/detector.md).
    #[arg(long, requires = "folds")]
    agent_stage: bool,
    /// With `--folds 2`, hold these features out of the model (their weights stay 0 in every
    /// fit), comma-separated weight names: an ablation.
    #[arg(long, value_delimiter = ',', requires = "folds")]
    drop: Vec<String>,
    /// With `--folds 2`, fit one weight set for group chats and orchestrated runs alike (the
    /// earlier procedure) instead of one per shape.
    #[arg(long, requires = "folds")]
    one_model: bool,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum SplitArg {
    Parity,
    Alternate,
    Random,
}

const TRACE_EXTENSIONS: &[&str] = &["json", "jsonl", "gz", "traj"];

pub(crate) fn collect(path: &Path, out: &mut Vec<PathBuf>) -> anyhow::Result<()> {
    if path.is_dir() {
        let mut entries: Vec<PathBuf> =
            std::fs::read_dir(path)?.filter_map(|e| e.ok().map(|e| e.path())).collect();
        entries.sort();
        for e in entries {
            if crate::io::is_link_to_folder(&e) {
                continue;
            }
            if e.is_dir() {
                collect(&e, out)?;
            } else if e
                .extension()
                .and_then(|x| x.to_str())
                .is_some_and(|x| TRACE_EXTENSIONS.contains(&x))
            {
                out.push(e);
            }
        }
    } else {
        out.push(path.to_path_buf());
    }
    Ok(())
}

pub(crate) fn subset_of(file: &Path) -> String {
    file.parent()
        .and_then(|p| p.file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| ".".to_string())
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let mut files = Vec::new();
    for p in &args.paths {
        collect(p, &mut files)?;
    }
    let index = match args.labels.is_empty() {
        true => None,
        false => Some(super::dataset::read_labels(&args.labels)?),
    };
    let mut loaded: Vec<(PathBuf, Trace)> = Vec::new();
    for f in files {
        let read = match &index {
            None => load(&f, args.format),
            Some(index) => super::dataset::load_with_hash(&f, args.format).map(|(mut t, hash)| {
                index.apply_gold(&mut t, &hash);
                t
            }),
        };
        match read {
            Ok(t) => loaded.push((f, t)),
            Err(e) => eprintln!(
                "trajscope: skipping {}",
                crate::term::escape(&format!("{}: {e:#}", f.display()))
            ),
        }
    }
    let mut inputs = Vec::new();
    for (f, trace) in &loaded {
        let labelled: Vec<_> = trace.trajectories.iter().filter(|t| t.gold.is_some()).collect();
        let names = super::dataset::eval_names(f, trace, &labelled);
        for (t, (file, subset)) in labelled.into_iter().zip(names) {
            inputs.push(EvalInput { file, subset, trajectory: t });
        }
    }
    let mut out = crate::term::human_or_json(args.json);
    if args.folds.is_some() {
        let split = match args.split {
            SplitArg::Parity => Split::Parity,
            SplitArg::Alternate => Split::Alternate,
            SplitArg::Random => Split::Alternate,
        };
        if args.seeds.is_some() && !matches!(args.split, SplitArg::Random) {
            anyhow::bail!("--seeds: only with --split random (it counts the random half-splits)");
        }
        let mut dropped = Vec::new();
        for name in &args.drop {
            match Weights::NAMES.iter().position(|n| n == name) {
                Some(k) => dropped.push(k),
                None => anyhow::bail!(
                    "--drop: no weight named {name:?} (the weights: {})",
                    Weights::NAMES.join(", ")
                ),
            }
        }
        if matches!(args.split, SplitArg::Random) {
            let seeds = args.seeds.unwrap_or(DEFAULT_SEEDS);
            let r = random_halves(&inputs, seeds, |renumbered| {
                cross_validate_without(
                    renumbered,
                    &AnalysisOptions::default(),
                    Split::Alternate,
                    args.agent_stage,
                    &dropped,
                    args.one_model,
                )
            });
            let r = RandomSplits {
                agent_stage: args.agent_stage,
                one_model: args.one_model,
                dropped: args.drop.clone(),
                ..r
            };
            return emit(&mut out, args.json, &r, write_random);
        }
        let cv = cross_validate_without(
            &inputs,
            &AnalysisOptions::default(),
            split,
            args.agent_stage,
            &dropped,
            args.one_model,
        );
        return emit(&mut out, args.json, &cv, write_folds);
    }
    let report = evaluate(&inputs, &AnalysisOptions::default());
    emit(&mut out, args.json, &report, write_table)
}

/// `value` as one line of JSON (`--json`), else as `human` writes it for a reader.
fn emit<W: std::io::Write, T: serde::Serialize>(
    out: &mut W,
    json: bool,
    value: &T,
    human: fn(&mut W, &T) -> std::io::Result<()>,
) -> anyhow::Result<()> {
    if json {
        serde_json::to_writer(&mut *out, value)?;
        writeln!(out)?;
    } else {
        human(out, value)?;
    }
    Ok(())
}

fn write_table(out: &mut impl std::io::Write, r: &EvalReport) -> std::io::Result<()> {
    write_scores(out, &r.subsets)
}

fn write_weights(
    out: &mut impl std::io::Write,
    chat: &Weights,
    orchestrated: &Weights,
) -> std::io::Result<()> {
    let line = |w: &Weights| -> String {
        let parts: Vec<String> =
            (0..Weights::LEN).map(|k| format!("{}={}", Weights::NAMES[k], w.get(k))).collect();
        parts.join(" ")
    };
    writeln!(out, "weights (group chats): {}", line(chat))?;
    writeln!(out, "weights (orchestrated runs): {}", line(orchestrated))
}

fn write_folds(out: &mut impl std::io::Write, cv: &CrossValidation) -> std::io::Result<()> {
    for (i, f) in cv.folds.iter().enumerate() {
        writeln!(out, "## fold {} ({})", i + 1, f.name)?;
        write_weights(out, &f.weights, &f.orchestrated_weights)?;
        writeln!(out, "test (held out from the fit):")?;
        write_scores(out, &f.test)?;
        writeln!(out, "train-fit (the items the weights were fitted on; optimistic):")?;
        write_scores(out, &f.train_fit)?;
        writeln!(out)?;
    }
    writeln!(out, "## cross-validated (every item scored by the fold that did not fit it)")?;
    write_scores(out, &cv.pooled_test)?;
    writeln!(out, "\n## fit on every item (train-fit; optimistic)")?;
    write_weights(out, &cv.all_weights, &cv.all_orchestrated_weights)?;
    write_scores(out, &cv.all_train_fit)?;
    writeln!(out, "\n## shipped default weights on every item")?;
    let d = AnalysisOptions::default();
    write_weights(out, &d.weights, &d.orchestrated_weights)?;
    write_scores(out, &cv.defaults)
}

fn write_scores(
    out: &mut impl std::io::Write,
    subsets: &BTreeMap<String, SubsetScore>,
) -> std::io::Result<()> {
    writeln!(out, "subset\tn\tstep\t±1\t±2\tagent\tR@3\tR@5")?;
    for (name, s) in subsets {
        writeln!(
            out,
            "{name}\t{}\t{:.1}\t{:.1}\t{:.1}\t{:.1}\t{:.1}\t{:.1}",
            s.n,
            100.0 * s.step_acc,
            100.0 * s.step_acc_within_1,
            100.0 * s.step_acc_within_2,
            100.0 * s.agent_acc,
            100.0 * s.recall_at_3,
            100.0 * s.recall_at_5
        )?;
    }
    Ok(())
}
