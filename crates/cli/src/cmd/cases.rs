//! `trajscope cases FILE [--json] [-o CASES.jsonl]`: the failed turn cases built from a trace,
//! each with `valid` and `errors`. `trajscope cases --validate CASES.jsonl [--json]`: every case
//! of a cases file checked. Also the file helpers the learning-loop commands share (cases,
//! scorecards, the clock the core does not have).

use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use trajscope_core::cases::{self, LoadedCases, TraceCase};
use trajscope_core::model::Format;
use trajscope_core::scorecard::{self, LoadedScorecard, DEFAULT_MAX_AGE_SECS};

use crate::io::{load_session, parse_format};
use crate::reviewer::{self, OutcomeArgs};
use trajscope_core::outcome::ReviewerOutcome;

#[derive(clap::Args)]
#[command(group(clap::ArgGroup::new("input").required(true).args(["file", "validate"])))]
pub struct Args {
    /// The trace to build cases from (one per failed trajectory; `-`: standard input).
    file: Option<PathBuf>,
    /// Validate a failed turn cases JSONL instead: every line, every error.
    #[arg(long, value_name = "CASES.jsonl")]
    validate: Option<PathBuf>,
    /// Use this format instead of detecting it from the content (`docs/formats.md`).
    #[arg(long, value_parser = parse_format)]
    format: Option<Format>,
    /// Also write the valid cases built from FILE as JSONL (invalid ones are never written).
    #[arg(short = 'o', long = "output", value_name = "CASES.jsonl", conflicts_with = "validate")]
    output: Option<PathBuf>,
    /// Print JSON instead of a summary.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    outcome: OutcomeArgs,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    match (&args.file, &args.validate) {
        (_, Some(path)) => validate(path, args.json),
        (Some(file), None) => build(file, &args),
        (None, None) => anyhow::bail!("give a trace FILE or --validate CASES.jsonl"),
    }
}

fn build(file: &Path, args: &Args) -> anyhow::Result<()> {
    if let Some(out) = &args.output {
        crate::io::refuse_overwrite(file, out)?;
    }
    let built = trace_cases(file, args.format, args.outcome.reviewer().as_ref())?;
    if let Some(out) = &args.output {
        let valid: Vec<cases::FailedTurnCase> =
            built.iter().filter(|c| c.valid).map(|c| c.case.clone()).collect();
        let (jsonl, _) = cases::export_jsonl(&valid);
        std::fs::write(out, jsonl)
            .with_context(|| format!("cannot write {}", crate::term::shown(out)))?;
        eprintln!("{} valid case(s) written to {}", valid.len(), crate::term::shown(out));
    }
    let mut out = crate::term::human_or_json(args.json);
    if args.json {
        let text = serde_json::to_string(&serde_json::json!({ "cases": built }))?;
        writeln!(out, "{}", trajscope_core::redact::redact_json_text(&text))?;
    } else {
        if built.is_empty() {
            writeln!(out, "{}: no failed trajectory, no case", crate::term::shown(file))?;
        }
        for c in &built {
            let word = if c.valid { "valid" } else { "INVALID" };
            writeln!(
                out,
                "{} (trajectory {}, turn {}, event {}): {word}",
                c.case_id, c.trajectory_id, c.case.failure_turn_id, c.case.failure_event_id
            )?;
            let hint = trajscope_core::redact::redact_text(&c.case.prevention_hint);
            writeln!(out, "  hint: {hint}")?;
            for e in &c.errors {
                writeln!(out, "  - {e}")?;
            }
        }
    }
    Ok(())
}

/// Ingests a trace (streamed in 1 MiB chunks) and builds its cases (the session's rule, the
/// same as the app's) after the reviewer's outcome, if any, is set; the content hash of the
/// bytes fixes the case ids.
pub fn trace_cases(
    path: &Path,
    format: Option<Format>,
    reviewer: Option<&ReviewerOutcome>,
) -> anyhow::Result<Vec<TraceCase>> {
    let mut session = load_session(path, format, true)?;
    reviewer::apply(reviewer, &mut session)?;
    Ok(session.cases().map(|c| c.built).unwrap_or_default())
}

fn validate(path: &Path, json: bool) -> anyhow::Result<()> {
    let loaded = read_cases(path)?;
    let (_, duplicates) = cases::merge(loaded.valid());
    let invalid = loaded.checks.iter().filter(|c| !c.valid).count();
    let mut out = crate::term::human_or_json(json);
    if json {
        let entries: Vec<serde_json::Value> = loaded
            .checks
            .iter()
            .map(|c| {
                serde_json::json!({
                    "line": c.line, "case_id": c.case_id, "valid": c.valid, "errors": c.errors,
                })
            })
            .collect();
        let value = serde_json::json!({
            "cases": entries,
            "valid": loaded.checks.len() - invalid,
            "invalid": invalid,
            "duplicates": duplicates,
        });
        serde_json::to_writer(&mut out, &value)?;
        writeln!(out)?;
    } else {
        for c in &loaded.checks {
            let id = c.case_id.as_deref().unwrap_or("(no case_id)");
            let word = if c.valid { "valid" } else { "INVALID" };
            writeln!(out, "line {}: {id}: {word}", c.line)?;
            for e in &c.errors {
                writeln!(out, "  - {e}")?;
            }
        }
        writeln!(
            out,
            "{} valid, {invalid} invalid, {duplicates} duplicate case id(s)",
            loaded.checks.len() - invalid
        )?;
    }
    out.flush()?;
    if invalid > 0 {
        anyhow::bail!("{invalid} invalid case(s) in {}", crate::term::shown(path));
    }
    Ok(())
}

/// Reads a cases JSONL; unreadable lines become invalid entries, never a failure.
pub fn read_cases(path: &Path) -> anyhow::Result<LoadedCases> {
    let bytes =
        std::fs::read(path).with_context(|| format!("cannot read {}", crate::term::shown(path)))?;
    Ok(cases::load_jsonl(&bytes))
}

/// Reads a scorecard JSONL; bad lines are reported in the result.
pub fn read_scorecard(path: &Path) -> anyhow::Result<LoadedScorecard> {
    let bytes =
        std::fs::read(path).with_context(|| format!("cannot read {}", crate::term::shown(path)))?;
    Ok(scorecard::load_jsonl(&bytes))
}

/// The clock for the scorecard age rules: the core takes it as input.
#[derive(clap::Args)]
pub struct Clock {
    /// Judge scorecard freshness at this time (RFC 3339) instead of the system clock.
    #[arg(long, value_name = "TIME")]
    now: Option<String>,
    /// Maximum age in days of a scorecard record's `last_validated_at`.
    #[arg(long, value_name = "DAYS", default_value_t = DEFAULT_MAX_AGE_SECS / 86_400)]
    max_age_days: i64,
}

/// `(now, max_age_secs)` for the core.
pub fn clock(c: &Clock) -> anyhow::Result<(Option<i64>, i64)> {
    let now = match &c.now {
        Some(t) => scorecard::parse_timestamp(t)
            .with_context(|| format!("--now `{t}` is not an RFC 3339 time"))?,
        None => std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
            .unwrap_or(0),
    };
    Ok((Some(now), c.max_age_days.saturating_mul(86_400)))
}
