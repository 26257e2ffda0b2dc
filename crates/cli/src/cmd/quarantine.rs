//! `trajscope quarantine FILE -o OUT.jsonl [--redact]`: the quarantine records, one JSON object
//! per line (`-o -`: to standard output). By default the exact bytes (`raw_base64` is the line byte for byte, secrets
//! included); `--redact` writes the lines with their secrets masked, each marked
//! `"redacted": true`.

use std::path::PathBuf;

use anyhow::Context as _;
use trajscope_core::model::Format;
use trajscope_core::report::QuarantineRecord;

use crate::io::{load, parse_format};

#[derive(clap::Args)]
pub struct Args {
    /// The trace (`-`: standard input).
    file: PathBuf,
    /// Where to write the records (`-`: standard output).
    #[arg(short = 'o', long = "output")]
    output: PathBuf,
    /// Use this format instead of detecting it from the content (`docs/formats.md`).
    #[arg(long, value_parser = parse_format)]
    format: Option<Format>,
    /// Mask secrets in the quarantined lines (the records then no longer hold the exact bytes).
    #[arg(long)]
    redact: bool,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let trace = load(&args.file, args.format)?;
    let mut buf = Vec::new();
    for q in &trace.quarantine {
        let record = match args.redact {
            true => trajscope_core::redact::quarantine_record(q),
            false => QuarantineRecord::from_entry(q),
        };
        serde_json::to_writer(&mut buf, &record)?;
        buf.push(b'\n');
    }
    let to = match crate::io::is_stdin(&args.output) {
        true => {
            use std::io::Write as _;
            let mut out = std::io::stdout().lock();
            out.write_all(&buf)
                .and_then(|()| out.flush())
                .context("cannot write standard output")?;
            "standard output".to_string()
        }
        false => {
            std::fs::write(&args.output, buf)
                .with_context(|| format!("cannot write {}", args.output.display()))?;
            args.output.display().to_string()
        }
    };
    eprintln!(
        "{} quarantined line(s) written to {to} ({})",
        trace.quarantine.len(),
        if args.redact { "redacted: secrets masked" } else { "exact bytes, not redacted" }
    );
    Ok(())
}
