//! `trajscope analyze FILE [--format NAME] [--json]`.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use trajscope_core::model::Format;
use trajscope_core::report::Report;

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
    let report = Report::new(&trace);
    let mut out = std::io::stdout().lock();
    if args.json {
        serde_json::to_writer(&mut out, &report)?;
        writeln!(out)?;
    } else {
        write_summary(&mut out, &args.file, &report)?;
    }
    Ok(())
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
