//! `trajscope analyze FILE [--format NAME] [--json] [--outcome failed|passed [--trajectory ID]]`.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use std::sync::mpsc;

use trajscope_core::model::{Format, Trajectory};
use trajscope_core::report::{Report, TrajectorySummary};
use trajscope_core::{Finished, Settled, Trace};

use crate::io::{parse_format, read_into};
use crate::reviewer::{self, OutcomeArgs};
use trajscope_core::outcome::ReviewerOutcome;

#[derive(clap::Args)]
pub struct Args {
    file: PathBuf,
    /// Use this format instead of detecting it from the content.
    #[arg(long, value_parser = parse_format)]
    format: Option<Format>,
    /// Print the JSON report instead of a summary.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    outcome: OutcomeArgs,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let reviewer = args.outcome.reviewer();
    let (trace, summaries) = load_analysed(&args.file, args.format, reviewer.as_ref())?;
    let report = Report::with_summaries(&trace, summaries);
    // Stdout is line-buffered and the JSON report is one line: buffer it in large writes.
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    if args.json {
        serde_json::to_writer(&mut out, &report)?;
        writeln!(out)?;
    } else {
        write_summary(&mut out, &args.file, &report)?;
    }
    out.flush()?;
    // The process ends here: freeing a large trace step by step (a tenth of the run on a 200 MB
    // trace) would only give back memory the OS reclaims at exit anyway.
    std::mem::forget((trace, report));
    Ok(())
}

/// Reads and ingests the file while a worker thread analyses the trajectories that settle on
/// the way (an AWTL run whose end was read), so most of the analysis runs beside the parse
/// instead of after it. The others, and any that a later line changed, are analysed at the end
/// on all cores. The core stays single-threaded and pure; threads live here at the edge.
/// A reviewer's outcome is set on each trajectory before it is analysed.
fn load_analysed(
    path: &Path,
    format: Option<Format>,
    reviewer: Option<&ReviewerOutcome>,
) -> anyhow::Result<(Trace, Vec<TrajectorySummary>)> {
    let (ingestor, early) = std::thread::scope(|scope| {
        let (tx, rx) = mpsc::channel::<Vec<Settled>>();
        let worker = scope.spawn(move || {
            rx.into_iter()
                .flatten()
                .map(|mut s| {
                    if let Some(r) = reviewer {
                        r.apply(&mut s.trajectory);
                    }
                    let summary = TrajectorySummary::new(&s.trajectory);
                    (s, summary)
                })
                .collect::<Vec<_>>()
        });
        let ingestor = read_into(path, format, None, |ingestor| {
            let settled = ingestor.take_settled();
            if !settled.is_empty() {
                // The worker only stops when this sender is dropped.
                tx.send(settled).expect("the analysis worker is alive");
            }
        });
        drop(tx);
        let early = worker.join().expect("analysis never panics (property-tested)");
        (ingestor, early)
    });
    let mut summaries: Vec<(usize, TrajectorySummary)> = Vec::with_capacity(early.len());
    let returned: Vec<Settled> = early
        .into_iter()
        .map(|(settled, summary)| {
            summaries.push((settled.position, summary));
            settled
        })
        .collect();
    let Finished { mut trace, changed } = ingestor?.finish_with(returned);
    reviewer::apply(reviewer, &mut trace)?;

    let mut slots: Vec<Option<TrajectorySummary>> = vec![None; trace.trajectories.len()];
    for (position, summary) in summaries {
        if !changed.contains(&position) {
            slots[position] = Some(summary);
        }
    }
    let missing: Vec<usize> = (0..slots.len()).filter(|&i| slots[i].is_none()).collect();
    for (i, summary) in summarize(&trace.trajectories, &missing) {
        slots[i] = Some(summary);
    }
    let summaries = slots.into_iter().map(|s| s.expect("every trajectory analysed")).collect();
    Ok((trace, summaries))
}

/// Analyses the trajectories at `which`, which are independent, on the available cores.
fn summarize(trajectories: &[Trajectory], which: &[usize]) -> Vec<(usize, TrajectorySummary)> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let one = |&i: &usize| (i, TrajectorySummary::new(&trajectories[i]));
    if threads < 2 || which.len() < 2 {
        return which.iter().map(one).collect();
    }
    // Interleaved assignment balances long and short runs without measuring them.
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|w| scope.spawn(move || which.iter().skip(w).step_by(threads).map(one).collect()))
            .collect();
        workers
            .into_iter()
            .flat_map(|w| -> Vec<_> { w.join().expect("analysis never panics (property-tested)") })
            .collect()
    })
}

fn write_summary(out: &mut impl std::io::Write, file: &Path, r: &Report) -> std::io::Result<()> {
    let s = &r.stats;
    writeln!(out, "{}: format {}, {} bytes", file.display(), r.format, s.bytes)?;
    writeln!(
        out,
        "lines: {} total, {} parsed, {} blank, {} quarantined",
        s.lines_total, s.lines_parsed, s.lines_blank, s.lines_quarantined
    )?;
    if let Some(e) = &r.error {
        writeln!(out, "error: {e}")?;
    }
    for q in r.quarantine.iter().take(10) {
        let tail = if q.truncated_tail { " (truncated last line)" } else { "" };
        writeln!(out, "  quarantined line {} @ byte {}: {}{tail}", q.line, q.offset, q.reason)?;
    }
    if r.quarantine.len() > 10 {
        writeln!(
            out,
            "  ... and {} more (trajscope quarantine FILE -o OUT.jsonl)",
            r.quarantine.len() - 10
        )?;
    }
    for t in &r.trajectories {
        writeln!(out, "trajectory {}: {} steps, outcome {:?}", t.id, t.steps, t.outcome)?;
    }
    Ok(())
}
