//! `trajscope quarantine FILE -o OUT.jsonl`: the quarantine records, one JSON object per line.

use std::path::PathBuf;

use anyhow::Context as _;
use trajscope_core::model::Format;
use trajscope_core::report::QuarantineRecord;

use crate::io::{load, parse_format};

#[derive(clap::Args)]
pub struct Args {
    file: PathBuf,
    #[arg(short = 'o', long = "output")]
    output: PathBuf,
    #[arg(long, value_parser = parse_format)]
    format: Option<Format>,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let trace = load(&args.file, args.format)?;
    let mut buf = Vec::new();
    for q in &trace.quarantine {
        serde_json::to_writer(&mut buf, &QuarantineRecord::from_entry(q))?;
        buf.push(b'\n');
    }
    std::fs::write(&args.output, buf)
        .with_context(|| format!("cannot write {}", args.output.display()))?;
    eprintln!(
        "{} quarantined line(s) written to {}",
        trace.quarantine.len(),
        args.output.display()
    );
    Ok(())
}
