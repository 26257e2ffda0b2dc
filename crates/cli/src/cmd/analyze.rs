//! `trajscope analyze FILE [--format NAME] [--json]`.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use trajscope_core::model::Format;
use trajscope_core::model::Trajectory;
use trajscope_core::report::{Report, TrajectorySummary};

use crate::io::{load, parse_format};

#[derive(clap::Args)]
pub struct Args {
    file: PathBuf,
    /// Use this format instead of detecting it from the content.
    #[arg(long, value_parser = parse_format)]
    format: Option<Format>,
    /// Print the JSON report instead of a summary.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let trace = load(&args.file, args.format)?;
    let report = Report::with_summaries(&trace, summarize(&trace.trajectories));
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

/// Analyses the trajectories, which are independent, on the available cores (the core itself
/// is single-threaded and pure; threads live here at the edge). Order is kept.
fn summarize(trajectories: &[Trajectory]) -> Vec<TrajectorySummary> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    if threads < 2 || trajectories.len() < 2 {
        return trajectories.iter().map(TrajectorySummary::new).collect();
    }
    // Interleaved assignment balances long and short runs without measuring them.
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|w| {
                scope.spawn(move || {
                    trajectories
                        .iter()
                        .enumerate()
                        .skip(w)
                        .step_by(threads)
                        .map(|(i, t)| (i, TrajectorySummary::new(t)))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        let mut out: Vec<Option<TrajectorySummary>> = vec![None; trajectories.len()];
        for w in workers {
            for (i, s) in w.join().expect("analysis never panics (property-tested)") {
                out[i] = Some(s);
            }
        }
        out.into_iter().map(|s| s.expect("every trajectory analysed")).collect()
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
