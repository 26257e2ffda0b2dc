//! The `trajscope` command: the core, natively, for CI pipelines. All I/O lives here.

use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context as _;
use clap::{Parser, Subcommand};
use trajscope_core::model::Format;
use trajscope_core::report::{QuarantineRecord, Report};
use trajscope_core::{IngestOptions, Ingestor, Trace};

#[derive(Parser)]
#[command(
    name = "trajscope",
    version,
    about = "Read AI-agent traces: quarantine, views, critical steps."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Ingest and analyse a trace; prints a summary (or the JSON report with --json).
    Analyze {
        file: PathBuf,
        /// Use this format instead of detecting it from the content.
        #[arg(long, value_parser = parse_format)]
        format: Option<Format>,
        #[arg(long)]
        json: bool,
    },
    /// Write the quarantined lines of a trace as JSONL records.
    Quarantine {
        file: PathBuf,
        #[arg(short = 'o', long = "output")]
        output: PathBuf,
        #[arg(long, value_parser = parse_format)]
        format: Option<Format>,
    },
}

fn parse_format(name: &str) -> Result<Format, String> {
    Format::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = Format::ALL.iter().map(|f| f.name()).collect();
        format!("unknown format `{name}`; known: {}", names.join(", "))
    })
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("trajscope: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Analyze { file, format, json } => {
            let trace = load(&file, format)?;
            let report = Report::new(&trace);
            let mut out = std::io::stdout().lock();
            if json {
                serde_json::to_writer(&mut out, &report)?;
                writeln!(out)?;
            } else {
                write_summary(&mut out, &file, &report)?;
            }
        }
        Command::Quarantine { file, output, format } => {
            let trace = load(&file, format)?;
            let mut buf = Vec::new();
            for q in &trace.quarantine {
                serde_json::to_writer(&mut buf, &QuarantineRecord::from_entry(q))?;
                buf.push(b'\n');
            }
            std::fs::write(&output, buf)
                .with_context(|| format!("cannot write {}", output.display()))?;
            eprintln!(
                "{} quarantined line(s) written to {}",
                trace.quarantine.len(),
                output.display()
            );
        }
    }
    Ok(())
}

/// Streams a file into the core in 1 MiB chunks.
fn load(path: &Path, format: Option<Format>) -> anyhow::Result<Trace> {
    let mut file =
        std::fs::File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut ingestor = Ingestor::new(IngestOptions { format });
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = file.read(&mut buf).with_context(|| format!("cannot read {}", path.display()))?;
        if n == 0 {
            break;
        }
        ingestor.feed(&buf[..n]);
    }
    Ok(ingestor.finish())
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
