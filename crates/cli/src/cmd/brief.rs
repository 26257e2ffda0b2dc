//! `trajscope brief FILE [--cases CASES.jsonl]... [--scorecard SCORECARD.jsonl] [--phase P]
//! [--scope TAG]... [--max-lines N] [--json]`: the Failure Prevention Brief for the next attempt,
//! from the failed run FILE and the cases of earlier runs. Markdown by default; a `no-op` brief
//! prints an empty section.

use std::io::Write as _;
use std::path::PathBuf;

use trajscope_core::brief::{self, BriefContext, BriefStatus, ExcludedCase, Reason};
use trajscope_core::cases;
use trajscope_core::model::Format;
use trajscope_core::record::Phase;

use crate::cmd::cases::{clock, read_cases, read_scorecard, trace_cases, Clock};
use crate::io::parse_format;
use crate::reviewer::OutcomeArgs;

#[derive(clap::Args)]
pub struct Args {
    /// The failed run's trace: its cases come first (`-`: standard input).
    file: PathBuf,
    /// Use this format instead of detecting it from the content (`docs/formats.md`).
    #[arg(long, value_parser = parse_format)]
    format: Option<Format>,
    /// Failed turn cases of earlier runs (JSONL, repeatable); merged by `case_id`.
    #[arg(long = "cases", value_name = "CASES.jsonl")]
    cases: Vec<PathBuf>,
    /// Replay scorecard records (JSONL).
    #[arg(long, value_name = "SCORECARD.jsonl")]
    scorecard: Option<PathBuf>,
    /// Phase of the next attempt (planning, reasoning, action, observation, verification).
    #[arg(long, value_parser = parse_phase)]
    phase: Option<Phase>,
    /// Scope tag of the next attempt (repeatable), e.g. `public_api`.
    #[arg(long = "scope", value_name = "TAG")]
    scope: Vec<String>,
    /// At most this many lines.
    #[arg(long, default_value_t = brief::DEFAULT_MAX_LINES)]
    max_lines: usize,
    #[command(flatten)]
    clock: Clock,
    #[command(flatten)]
    outcome: OutcomeArgs,
    /// Print `status`, `lines` and `excluded` as JSON instead of Markdown.
    #[arg(long)]
    json: bool,
}

fn parse_phase(name: &str) -> Result<Phase, String> {
    Phase::ALL.into_iter().find(|p| p.name().eq_ignore_ascii_case(name)).ok_or_else(|| {
        let names: Vec<&str> = Phase::ALL.iter().map(|p| p.name()).collect();
        format!("unknown phase `{name}`; known: {}", names.join(", "))
    })
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let from_trace = trace_cases(&args.file, args.format, args.outcome.reviewer().as_ref())?;
    let mut invalid: Vec<ExcludedCase> = Vec::new();
    let mut all = Vec::new();
    for tc in &from_trace {
        if tc.valid {
            all.push(tc.case.clone());
        } else {
            invalid.push(invalid_entry(tc.case.case_id.clone(), &tc.errors));
        }
    }
    for path in &args.cases {
        let loaded = read_cases(path)?;
        for c in &loaded.checks {
            match &c.case {
                Some(case) => all.push(case.clone()),
                None => invalid.push(invalid_entry(
                    c.case_id.clone().unwrap_or_else(|| format!("{}:{}", path.display(), c.line)),
                    &c.errors,
                )),
            }
        }
    }
    let (merged, _) = cases::merge(all.iter());
    let scorecard = match &args.scorecard {
        Some(p) => read_scorecard(p)?,
        None => Default::default(),
    };
    let (now, max_age_secs) = clock(&args.clock)?;
    let ctx = BriefContext {
        phase: args.phase,
        scope: args.scope,
        max_lines: args.max_lines,
        now,
        max_age_secs,
    };
    let mut b = brief::build(&merged, &scorecard.records, &ctx);
    b.excluded.extend(invalid);

    let mut out = crate::term::human_or_json(args.json);
    if args.json {
        let mut value = serde_json::to_value(&b)?;
        if let Some(obj) = value.as_object_mut() {
            obj.insert("section".into(), brief::to_markdown(&b).into());
            obj.insert("scorecard_bad_lines".into(), serde_json::to_value(&scorecard.bad_lines)?);
        }
        let text = trajscope_core::redact::redact_json_text(&serde_json::to_string(&value)?);
        writeln!(out, "{text}")?;
    } else {
        out.write_all(brief::to_markdown(&b).as_bytes())?;
        if b.status == BriefStatus::NoOp {
            eprintln!("no-op: no case matches the next attempt ({} left out)", b.excluded.len());
        }
    }
    Ok(())
}

fn invalid_entry(case_id: String, errors: &[String]) -> ExcludedCase {
    ExcludedCase {
        case_id,
        reasons: vec![Reason {
            code: "invalid".into(),
            detail: format!("invalid case: {}", errors.join("; ")),
        }],
    }
}
