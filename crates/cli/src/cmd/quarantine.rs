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
    use std::io::Write as _;
    crate::io::refuse_overwrite(&args.file, &args.output)?;
    let trace = load(&args.file, args.format)?;
    // Written as they are made: a file of damaged lines gives records several times its size
    // (each line's bytes in base64 and as text), never held whole.
    let stdout = crate::io::is_stdin(&args.output);
    let (sink, to): (Box<dyn std::io::Write>, String) =
        match stdout {
            true => (Box::new(std::io::stdout().lock()), "standard output".to_string()),
            false => (
                Box::new(std::fs::File::create(&args.output).with_context(|| {
                    format!("cannot write {}", crate::term::shown(&args.output))
                })?),
                crate::term::shown(&args.output),
            ),
        };
    let mut out = std::io::BufWriter::with_capacity(1 << 20, sink);
    let written = (|| -> std::io::Result<()> {
        for q in &trace.quarantine {
            let record = match args.redact {
                true => trajscope_core::redact::quarantine_record(q),
                false => QuarantineRecord::from_entry(q),
            };
            serde_json::to_writer(&mut out, &record)?;
            out.write_all(b"\n")?;
        }
        out.flush()
    })();
    written.with_context(|| format!("cannot write {to}"))?;
    eprintln!(
        "{} quarantined line(s) written to {to} ({})",
        trace.quarantine.len(),
        if args.redact { "redacted: secrets masked" } else { "exact bytes, not redacted" }
    );
    Ok(())
}
