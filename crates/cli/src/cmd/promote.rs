//! `trajscope promote CASES.jsonl [--scorecard SCORECARD.jsonl] [--approve CASE_ID]...
//! [--write OUT] [--json]`: verified-only promotion decisions; writes the promotable memory
//! candidates to OUT only with `--write`.

use std::io::Write as _;
use std::path::PathBuf;

use anyhow::Context as _;
use trajscope_core::cases;
use trajscope_core::promote::{self, Decision, PromotionDecision, PromotionOptions};

use crate::cmd::cases::{clock, read_cases, read_scorecard, Clock};

#[derive(clap::Args)]
pub struct Args {
    /// Failed turn cases (JSONL), from `trajscope cases` or earlier runs.
    cases: PathBuf,
    /// Replay scorecard records (JSONL).
    #[arg(long, value_name = "SCORECARD.jsonl")]
    scorecard: Option<PathBuf>,
    /// A case a human approved (repeatable).
    #[arg(long = "approve", value_name = "CASE_ID")]
    approvals: Vec<String>,
    /// Write the promotable memory candidates (JSONL) to OUT. Without it nothing is written.
    #[arg(long, value_name = "OUT")]
    write: Option<PathBuf>,
    #[command(flatten)]
    clock: Clock,
    /// Print the decisions as JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let loaded = read_cases(&args.cases)?;
    let (merged, _) = cases::merge(loaded.valid());
    let scorecard = match &args.scorecard {
        Some(p) => read_scorecard(p)?,
        None => Default::default(),
    };
    let (now, max_age_secs) = clock(&args.clock)?;
    let options = PromotionOptions {
        approvals: args.approvals,
        write: args.write.is_some(),
        now,
        max_age_secs,
    };
    let mut promotion = promote::decide(&merged, &scorecard.records, &options);
    // Lines that are not valid cases are decided too: blocked, with their errors.
    for c in loaded.checks.iter().filter(|c| !c.valid) {
        promotion.decisions.push(PromotionDecision {
            case_id: c.case_id.clone().unwrap_or_else(|| format!("line:{}", c.line)),
            candidate_id: String::new(),
            decision: Decision::Blocked,
            verified_by: None,
            reasons: vec![format!("invalid case: {}", c.errors.join("; "))],
        });
    }
    if let Some(out) = &args.write {
        let mut buf = Vec::new();
        for c in &promotion.to_write {
            serde_json::to_writer(&mut buf, c)?;
            buf.push(b'\n');
        }
        std::fs::write(out, buf)
            .with_context(|| format!("cannot write {}", crate::term::shown(out)))?;
    }

    let mut stdout = crate::term::human_or_json(args.json);
    if args.json {
        let value = serde_json::json!({
            "decisions": promotion.decisions,
            "write": promotion.write,
            "written": promotion.to_write.len(),
            "written_to": args.write.as_ref().map(|p| p.display().to_string()),
            "candidates": promotion.to_write,
            "scorecard_bad_lines": scorecard.bad_lines,
        });
        serde_json::to_writer(&mut stdout, &value)?;
        writeln!(stdout)?;
    } else {
        for d in &promotion.decisions {
            let word = match d.decision {
                Decision::Promote => "promote",
                Decision::Blocked => "blocked",
            };
            writeln!(stdout, "{}: {word}", d.case_id)?;
            for r in &d.reasons {
                writeln!(stdout, "  - {r}")?;
            }
        }
        for b in &scorecard.bad_lines {
            writeln!(stdout, "scorecard line {}: {}", b.line, b.reason)?;
        }
    }
    match &args.write {
        Some(out) => eprintln!(
            "{} memory candidate(s) written to {}",
            promotion.to_write.len(),
            crate::term::shown(out)
        ),
        None => eprintln!("dry run: nothing written (pass --write OUT to write the candidates)"),
    }
    Ok(())
}
