//! `trajscope eval PATH... [--json]`: scores the detector on labelled files or folders
//! (Who&When items, TRAJERRBENCH records). Folders are walked recursively in name order; each
//! file's subset is the name of the folder holding it. Scoring itself is in the core.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use trajscope_core::attribution::AnalysisOptions;
use trajscope_core::eval::{evaluate, EvalInput, EvalReport};
use trajscope_core::model::{Format, Trace};

use crate::io::{load, parse_format};

#[derive(clap::Args)]
pub struct Args {
    /// Labelled files or folders.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    #[arg(long, value_parser = parse_format)]
    format: Option<Format>,
    /// Print the JSON report instead of a table.
    #[arg(long)]
    json: bool,
}

const TRACE_EXTENSIONS: &[&str] = &["json", "jsonl", "gz", "traj"];

fn collect(path: &Path, out: &mut Vec<PathBuf>) -> anyhow::Result<()> {
    if path.is_dir() {
        let mut entries: Vec<PathBuf> =
            std::fs::read_dir(path)?.filter_map(|e| e.ok().map(|e| e.path())).collect();
        entries.sort();
        for e in entries {
            if e.is_dir() {
                collect(&e, out)?;
            } else if e
                .extension()
                .and_then(|x| x.to_str())
                .is_some_and(|x| TRACE_EXTENSIONS.contains(&x))
            {
                out.push(e);
            }
        }
    } else {
        out.push(path.to_path_buf());
    }
    Ok(())
}

fn subset_of(file: &Path) -> String {
    file.parent()
        .and_then(|p| p.file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| ".".to_string())
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let mut files = Vec::new();
    for p in &args.paths {
        collect(p, &mut files)?;
    }
    let mut loaded: Vec<(PathBuf, Trace)> = Vec::new();
    for f in files {
        match load(&f, args.format) {
            Ok(t) => loaded.push((f, t)),
            Err(e) => eprintln!(
                "trajscope: skipping {}",
                crate::term::escape(&format!("{}: {e:#}", f.display()))
            ),
        }
    }
    let mut inputs = Vec::new();
    for (f, trace) in &loaded {
        let labelled: Vec<_> = trace.trajectories.iter().filter(|t| t.gold.is_some()).collect();
        for t in &labelled {
            let file = if labelled.len() > 1 {
                format!("{}#{}", f.display(), t.id)
            } else {
                f.display().to_string()
            };
            inputs.push(EvalInput { file, subset: subset_of(f), trajectory: t });
        }
    }
    let report = evaluate(&inputs, &AnalysisOptions::default());
    let mut out = crate::term::human_or_json(args.json);
    if args.json {
        serde_json::to_writer(&mut out, &report)?;
        writeln!(out)?;
    } else {
        write_table(&mut out, &report)?;
    }
    Ok(())
}

fn write_table(out: &mut impl std::io::Write, r: &EvalReport) -> std::io::Result<()> {
    writeln!(out, "subset\tn\tstep\t±1\t±2\tagent\tR@3\tR@5")?;
    for (name, s) in &r.subsets {
        writeln!(
            out,
            "{name}\t{}\t{:.1}\t{:.1}\t{:.1}\t{:.1}\t{:.1}\t{:.1}",
            s.n,
            100.0 * s.step_acc,
            100.0 * s.step_acc_within_1,
            100.0 * s.step_acc_within_2,
            100.0 * s.agent_acc,
            100.0 * s.recall_at_3,
            100.0 * s.recall_at_5
        )?;
    }
    Ok(())
}
