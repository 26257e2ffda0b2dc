//! `trajscope redact FILE -o OUT [--json]`: a redacted copy of a trace (same lines, every JSON
//! line still JSON, secrets replaced by `[REDACTED:<kind>]`) and where the secrets were, by
//! line and kind (`docs/redaction.md`). An archive (zip, tar, .tar.gz) is refused: nothing is
//! written.

use std::io::{Read as _, Write};
use std::path::PathBuf;

use anyhow::Context as _;
use trajscope_core::redact;

#[derive(clap::Args)]
pub struct Args {
    /// The trace (`-`: standard input).
    file: PathBuf,
    /// Where to write the redacted copy (`-`: standard output; the report then goes to
    /// standard error). Gzip input is written decompressed.
    #[arg(short = 'o', long = "output")]
    output: PathBuf,
    /// Print the findings as one JSON object (`secrets`, `findings: [{line, column, kind}]`).
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    // Nor a member of one (`ARCHIVE!MEMBER`, which the read commands take): redact writes files
    // it read whole, from a path of its own.
    if let Some((archive, member)) = crate::io::split_member(&args.file) {
        anyhow::bail!(
            "{} names the member `{member}` of {}: redact does not read inside archives; \
             extract the member and redact it (nothing written)",
            crate::term::shown(&args.file),
            crate::term::shown(&archive)
        );
    }
    crate::io::refuse_overwrite(&args.file, &args.output)?;
    let bytes = if crate::io::is_stdin(&args.file) {
        let mut b = Vec::new();
        std::io::stdin().read_to_end(&mut b).context("cannot read standard input")?;
        b
    } else {
        std::fs::read(&args.file)
            .with_context(|| format!("cannot read {}", crate::term::shown(&args.file)))?
    };
    // The copy is made line by line: the members of an archive would be read as its raw
    // (often deflated) bytes, their secrets missed, and a rewritten archive left damaged.
    if let Some(kind) = redact::archive_refused(&bytes) {
        anyhow::bail!(
            "{} is {kind}: redact masks one text trace (JSON or JSONL, plain or gzip) and does \
             not rewrite archives; extract the members and redact each one (nothing written)",
            crate::term::shown(&args.file)
        );
    }
    let r = redact::redact_file(&bytes);
    let to_stdout = crate::io::is_stdin(&args.output);
    let output = match to_stdout {
        true => {
            let mut out = std::io::stdout().lock();
            out.write_all(&r.bytes)
                .and_then(|()| out.flush())
                .context("cannot write standard output")?;
            "standard output".to_string()
        }
        false => {
            std::fs::write(&args.output, &r.bytes)
                .with_context(|| format!("cannot write {}", crate::term::shown(&args.output)))?;
            crate::term::shown(&args.output)
        }
    };
    // The report: on standard output, unless the copy went there.
    let mut out: Box<dyn Write> = match to_stdout {
        true => Box::new(std::io::stderr().lock()),
        false => Box::new(std::io::stdout().lock()),
    };
    if args.json {
        let v = serde_json::json!({
            "file": args.file.display().to_string(),
            "output": output,
            "secrets": r.findings.len(),
            "findings": r.findings,
        });
        serde_json::to_writer(&mut out, &v)?;
        writeln!(out)?;
    } else {
        writeln!(
            out,
            "{}: {} secret(s) found, redacted copy written to {output}",
            crate::term::shown(&args.file),
            r.findings.len(),
        )?;
        for f in &r.findings {
            writeln!(out, "  line {} col {}: {}", f.line, f.column, f.kind)?;
        }
    }
    Ok(())
}
