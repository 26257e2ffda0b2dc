//! `trajscope diff A [B] [--left ID --right ID] [--json]`: two trajectories aligned step by step
//! (two files, or two trajectories of one file such as two tau2 trials), side by side, with the
//! first divergence; `--json` is the contract of `docs/diff.md`.

use std::io::Write as _;
use std::path::PathBuf;

use anyhow::{bail, Context as _};
use serde::Serialize;
use trajscope_core::diff::{compare, Comparison, PairKind};
use trajscope_core::model::{Format, Step, Trajectory};
use trajscope_core::Session;

use crate::io::{load_session, parse_format};
use crate::term::{colour_stdout, escape_line, Paint};

#[derive(clap::Args)]
pub struct Args {
    /// The left run's file (and the right's, without B; `-`: standard input).
    a: PathBuf,
    /// The right run's file; without it both runs come from A.
    b: Option<PathBuf>,
    /// The left trajectory's id (default: A's first).
    #[arg(long)]
    left: Option<String>,
    /// The right trajectory's id (default: B's first, or A's second without B).
    #[arg(long)]
    right: Option<String>,
    /// Print the comparison as JSON (docs/diff.md).
    #[arg(long)]
    json: bool,
    /// Use this format instead of detecting it from the content (`docs/formats.md`).
    #[arg(long, value_parser = parse_format)]
    format: Option<Format>,
}

/// The `--json` output: the files, then the core's comparison.
#[derive(Serialize)]
struct DiffReport<'a> {
    left_file: String,
    right_file: String,
    #[serde(flatten)]
    comparison: &'a Comparison,
}

/// Rows of equal steps kept around a change; longer equal stretches are folded.
const CONTEXT: usize = 3;
/// Characters of each side's column.
const COLUMN: usize = 56;

pub fn run(args: Args) -> anyhow::Result<()> {
    let mut left_s = load_session(&args.a, args.format, false)?;
    let mut right_s = match &args.b {
        Some(b) => Some(load_session(b, args.format, false)?),
        None => None,
    };
    let li = pick(&left_s, args.left.as_deref(), 0, &args.a)?;
    let (rfile, ri) = match &right_s {
        Some(s) => {
            (args.b.clone().unwrap_or_default(), pick(s, args.right.as_deref(), 0, &args.a)?)
        }
        None => {
            let ri = match &args.right {
                Some(_) => pick(&left_s, args.right.as_deref(), 0, &args.a)?,
                None => (0..left_s.len()).find(|&i| i != li).with_context(|| {
                    format!(
                        "{} holds one trajectory; give a second file, or --left and --right",
                        crate::term::shown(&args.a)
                    )
                })?,
            };
            (args.a.clone(), ri)
        }
    };
    left_s.analyse(li);
    let right: &mut Session = right_s.as_mut().unwrap_or(&mut left_s);
    right.analyse(ri);
    let right: &Session = right_s.as_ref().unwrap_or(&left_s);
    let (lt, rt) = (&left_s.trace().trajectories[li], &right.trace().trajectories[ri]);
    let c = compare(lt, left_s.analysis(li), rt, right.analysis(ri));
    let (lfile, rfile) = (args.a.display().to_string(), rfile.display().to_string());
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    if args.json {
        let report = DiffReport { left_file: lfile, right_file: rfile, comparison: &c };
        serde_json::to_writer(&mut out, &report)?;
        writeln!(out)?;
    } else {
        let paint = Paint { on: colour_stdout() };
        write_human(&mut out, (&lfile, lt), (&rfile, rt), &c, paint)?;
    }
    out.flush()?;
    Ok(())
}

/// The trajectory `id` names, or the `default`-th one.
fn pick(
    s: &Session,
    id: Option<&str>,
    default: usize,
    file: &std::path::Path,
) -> anyhow::Result<usize> {
    let trajs = &s.trace().trajectories;
    match id {
        Some(id) => trajs.iter().position(|t| t.id == id).with_context(|| {
            let ids = s.trace().ids_named();
            format!("no trajectory `{id}` in {} (it holds: {ids})", crate::term::shown(file))
        }),
        None if trajs.len() > default => Ok(default),
        None => bail!("{} holds no trajectory", crate::term::shown(file)),
    }
}

/// One line for a step: `role/kind tool: command or first line of text`, escaped, clipped.
fn summary(s: &Step) -> String {
    let body = match &s.args {
        Some(a) if !a.trim().is_empty() => a.as_str(),
        _ => s.text.as_str(),
    };
    let first = body.split_whitespace().collect::<Vec<_>>().join(" ");
    let tool = s.tool.as_deref().map(|t| format!(" {t}:")).unwrap_or_default();
    let line = format!("{}/{}{tool} {first}", s.role.name(), s.kind.name());
    clip(&escape_line(&line), COLUMN)
}

fn clip(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        return format!("{s:<n$}");
    }
    let mut out: String = s.chars().take(n - 1).collect();
    out.push('…');
    out
}

fn side_line(t: &Trajectory, c: &trajscope_core::diff::Side) -> String {
    let critical =
        c.critical_step.map_or("no critical step".into(), |s| format!("critical step {s}"));
    let s = if c.steps == 1 { "" } else { "s" };
    let id = crate::term::name(&t.id);
    format!("{id} ({} step{s}, outcome {}, {critical})", c.steps, outcome(c))
}

fn outcome(c: &trajscope_core::diff::Side) -> &'static str {
    match c.outcome {
        trajscope_core::model::Outcome::Failed => "failed",
        trajscope_core::model::Outcome::Passed => "passed",
        trajscope_core::model::Outcome::Unknown => "unknown",
    }
}

fn write_human(
    out: &mut impl std::io::Write,
    (lfile, lt): (&str, &Trajectory),
    (rfile, rt): (&str, &Trajectory),
    c: &Comparison,
    p: Paint,
) -> std::io::Result<()> {
    writeln!(out, "{} {}: {}", p.bold("left: "), escape_line(lfile), side_line(lt, &c.left))?;
    writeln!(out, "{} {}: {}", p.bold("right:"), escape_line(rfile), side_line(rt, &c.right))?;
    let step = |s: Option<u32>| s.map_or("(ended)".into(), |s| format!("step {s}"));
    match &c.first_divergence {
        None => writeln!(out, "first_divergence: none (the runs agree on every step)")?,
        Some(d) => writeln!(
            out,
            "first_divergence: left {}, right {} (row {})",
            step(d.left_step),
            step(d.right_step),
            d.pair
        )?,
    }
    let n = &c.counts;
    writeln!(
        out,
        "rows: {} equal, {} changed, {} left only, {} right only",
        n.equal, n.changed, n.left_only, n.right_only
    )?;
    writeln!(out)?;
    // Rows kept: every non-equal row and CONTEXT equal rows around each.
    let len = c.pairs.len();
    let mut keep = vec![false; len];
    for (i, pair) in c.pairs.iter().enumerate() {
        if pair.kind != PairKind::Equal {
            for k in
                keep.iter_mut().take((i + CONTEXT + 1).min(len)).skip(i.saturating_sub(CONTEXT))
            {
                *k = true;
            }
        }
    }
    let critical = |side: Option<u32>, crit: Option<u32>| match (side, crit) {
        (Some(a), Some(b)) if a == b => '!',
        _ => ' ',
    };
    let blank = " ".repeat(COLUMN);
    let mut i = 0;
    while i < len {
        if !keep[i] {
            let run = keep[i..].iter().take_while(|k| !**k).count();
            if run > 1 {
                writeln!(out, "      ┆ … {run} equal steps …")?;
                i += run;
                continue;
            }
        }
        let pair = &c.pairs[i];
        let (mark, paint): (char, fn(Paint, &str) -> String) = match pair.kind {
            PairKind::Equal => ('=', |_, s| s.to_string()),
            PairKind::Changed => ('~', Paint::note),
            PairKind::LeftOnly => ('<', Paint::error),
            PairKind::RightOnly => ('>', Paint::note),
        };
        let num = |s: Option<u32>| s.map_or("     ".into(), |s| format!("{s:>5}"));
        let left = pair.left.and_then(|s| lt.steps.get(s as usize)).map_or(blank.clone(), summary);
        let right =
            pair.right.and_then(|s| rt.steps.get(s as usize)).map_or(blank.clone(), summary);
        let row = format!(
            "{}{} {left} {mark} {}{} {right}",
            num(pair.left),
            critical(pair.left, c.left.critical_step),
            num(pair.right),
            critical(pair.right, c.right.critical_step),
        );
        let row = paint(p, row.trim_end());
        let here = c.first_divergence.is_some_and(|d| d.pair == i);
        writeln!(out, "{row}{}", if here { "   <- first divergence" } else { "" })?;
        i += 1;
    }
    Ok(())
}
