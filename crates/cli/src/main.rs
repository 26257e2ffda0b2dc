//! The `trajscope` command: the core, natively, for CI pipelines. All I/O lives in this crate;
//! each subcommand is one file under `cmd/`.

mod cmd;
mod io;
mod reviewer;
mod term;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// mimalloc instead of the system allocator (see `Cargo.toml`): the per-trajectory strings and
/// lists of `analyze` cost a fraction of what glibc's malloc and free cost.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

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
    Analyze(cmd::analyze::Args),
    /// Write the quarantined lines of a trace as JSONL records.
    Quarantine(cmd::quarantine::Args),
    /// Print the high, medium or low view of one step (or the history around it).
    View(cmd::view::Args),
    /// Score the detector on labelled files or folders (Who&When, TRAJERRBENCH, a dataset export).
    Eval(cmd::eval::Args),
    /// Labelled trajectories as complete benchmark items (TRAJERRBENCH or Who&When), JSONL.
    Dataset(cmd::dataset::Args),
    /// Failed turn cases built from a trace, or a cases JSONL validated (every error).
    Cases(cmd::cases::Args),
    /// The Failure Prevention Brief for the next attempt (Markdown, or JSON with --json).
    Brief(cmd::brief::Args),
    /// Verified-only memory promotion: a decision per case; writes only with --write.
    Promote(cmd::promote::Args),
    /// A redacted copy of a trace: secrets replaced, every line kept, and where they were.
    Redact(cmd::redact::Args),
    /// Two trajectories aligned step by step, side by side, with the first divergence.
    Diff(cmd::diff::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Analyze(args) => cmd::analyze::run(args),
        Command::Quarantine(args) => cmd::quarantine::run(args),
        Command::View(args) => cmd::view::run(args),
        Command::Eval(args) => cmd::eval::run(args),
        Command::Dataset(args) => cmd::dataset::run(args),
        Command::Cases(args) => cmd::cases::run(args),
        Command::Brief(args) => cmd::brief::run(args),
        Command::Promote(args) => cmd::promote::run(args),
        Command::Redact(args) => cmd::redact::run(args),
        Command::Diff(args) => cmd::diff::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // The reader of the output stopped reading (`trajscope analyze ... | head`): what it
        // wanted was written, so no error, as `grep` or `rg` do.
        Err(e) if stdout_closed(&e) => ExitCode::SUCCESS,
        Err(e) => {
            // Error messages can quote trace content (a zip entry name): escaped.
            eprintln!("trajscope: {}", term::escape(&format!("{e:#}")));
            ExitCode::FAILURE
        }
    }
}

/// Whether `e` is a write to a pipe whose reading end was closed (Rust ignores SIGPIPE, so the
/// write fails with `EPIPE` instead of ending the process). serde_json's error names the kind of
/// the I/O error it wraps without giving the error itself as its source.
fn stdout_closed(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        let kind = match c.downcast_ref::<std::io::Error>() {
            Some(io) => Some(io.kind()),
            None => c.downcast_ref::<serde_json::Error>().and_then(|j| j.io_error_kind()),
        };
        kind == Some(std::io::ErrorKind::BrokenPipe)
    })
}
