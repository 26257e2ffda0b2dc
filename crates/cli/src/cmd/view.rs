//! `trajscope view FILE --step N --grain high|medium|low [--trajectory ID] [--history]`.

use std::io::Write as _;
use std::path::PathBuf;

use anyhow::{bail, Context as _};
use trajscope_core::attribution::{analyze_trajectory, quotes_by_step, quotes_on, AnalysisOptions};
use trajscope_core::model::Format;
use trajscope_core::views::{self, Grain};

use crate::io::{load, parse_format};

#[derive(clap::Args)]
pub struct Args {
    /// The trace (`-`: standard input).
    file: PathBuf,
    /// 0-based step index.
    #[arg(long)]
    step: usize,
    /// high, medium or low.
    #[arg(long, default_value = "high", value_parser = parse_grain)]
    grain: Grain,
    /// The trajectory id (required when the file holds several).
    #[arg(long)]
    trajectory: Option<String>,
    /// Print the history around the step (near steps high, far ones low) instead.
    #[arg(long)]
    history: bool,
    /// Use this format instead of detecting it from the content (`docs/formats.md`).
    #[arg(long, value_parser = parse_format)]
    format: Option<Format>,
}

fn parse_grain(s: &str) -> Result<Grain, String> {
    Grain::from_name(s).ok_or_else(|| format!("unknown grain `{s}`; known: high, medium, low"))
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let trace = load(&args.file, args.format)?;
    let traj = match &args.trajectory {
        Some(id) => trace.trajectories.iter().find(|t| &t.id == id).with_context(|| {
            format!("no trajectory `{id}` in {}", crate::term::shown(&args.file))
        })?,
        None => match trace.trajectories.as_slice() {
            [t] => t,
            [] => bail!("{} holds no trajectory", crate::term::shown(&args.file)),
            many => bail!(
                "{} holds {} trajectories; pick one with --trajectory ({})",
                crate::term::shown(&args.file),
                many.len(),
                trace.ids_named()
            ),
        },
    };
    let Some(step) = traj.steps.get(args.step) else {
        let (n, s) = (traj.steps.len(), if traj.steps.len() == 1 { "" } else { "s" });
        bail!("step {} is out of range (the trajectory has {n} step{s})", args.step);
    };
    let opts = AnalysisOptions::default();
    let analysis = analyze_trajectory(traj, &opts);
    let text = if args.history {
        let by_step = quotes_by_step(&analysis.triggers);
        views::history_with_quotes(traj, args.step, &opts.views, |s| {
            by_step.get(&s).cloned().unwrap_or_default()
        })
    } else {
        let quotes = quotes_on(&analysis.triggers, step.index);
        views::step_view_with_quotes(step, args.grain, &opts.views, &quotes)
    };
    let mut out = crate::term::stdout();
    writeln!(out, "{text}")?;
    Ok(())
}
