//! `trajscope dataset TRACE... --labels LABELS... --style trajerrbench|who-and-when -o OUT`:
//! every labelled trajectory as a complete benchmark item, one JSON object per line, written
//! item by item (docs/dataset.md). Secrets are masked unless `--no-redact`. Also the two
//! pieces `trajscope eval` uses to score an export or labels given beside the traces.

use std::io::{BufWriter, Write as _};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use trajscope_core::dataset::{self, ExportOptions, LabelIndex, Source, Style};
use trajscope_core::labels::{self, ImportOptions};
use trajscope_core::model::{Format, Trajectory};
use trajscope_core::Trace;

use crate::io::{load_session, parse_format};
use crate::term::escape;

#[derive(clap::Args)]
pub struct Args {
    /// Trace files or folders (folders are walked as `trajscope eval` walks them).
    #[arg(required = true)]
    traces: Vec<PathBuf>,
    /// Label files: labels JSONL, Who&When-style or TRAJERRBENCH-style exports, benchmark items,
    /// or a dataset exported before. A label names its trace by content hash and trajectory id.
    #[arg(long, required = true, num_args = 1..)]
    labels: Vec<PathBuf>,
    /// The benchmark schema of the items.
    #[arg(long, value_parser = parse_style)]
    style: Style,
    /// Where to write the items (JSONL); `-` for standard output.
    #[arg(short = 'o', long = "output")]
    output: PathBuf,
    /// Keep secrets as they are (redaction is on by default: a dataset is made to be shared).
    #[arg(long)]
    no_redact: bool,
    /// Use this format instead of detecting it from the content (`docs/formats.md`).
    #[arg(long, value_parser = parse_format)]
    format: Option<Format>,
}

fn parse_style(name: &str) -> Result<Style, String> {
    Style::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = Style::ALL.iter().map(|s| s.name()).collect();
        format!("unknown style `{name}`; known: {}", names.join(", "))
    })
}

/// Reads label files into an index (problems reported on stderr, never fatal). A benchmark item
/// file that is its own trace gives its labels the file's own hash.
pub fn read_labels(paths: &[PathBuf]) -> anyhow::Result<LabelIndex> {
    let mut all = Vec::new();
    for p in paths {
        let mut files = Vec::new();
        super::eval::collect(p, &mut files)?;
        for f in files {
            let bytes = std::fs::read(&f)
                .with_context(|| format!("cannot read {}", crate::term::shown(&f)))?;
            let name = f.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            let opts =
                ImportOptions { default_annotator: name, file_hash: labels::content_hash(&bytes) };
            let read = labels::import(&bytes, &opts);
            if !read.problems.is_empty() {
                let first = &read.problems[0];
                eprintln!(
                    "trajscope: {}",
                    escape(&format!(
                        "{}: {} line(s) not read as labels (line {}: {})",
                        crate::term::shown(&f),
                        read.problems.len(),
                        first.line,
                        first.reason
                    ))
                );
            }
            all.extend(read.labels);
        }
    }
    Ok(LabelIndex::new(all))
}

/// A trace with its identity (the content hash labels are keyed by).
pub fn load_with_hash(path: &Path, format: Option<Format>) -> anyhow::Result<(Trace, String)> {
    let session = load_session(path, format, true)?;
    let hash = session.identity().unwrap_or_default().to_string();
    Ok((session.into_trace(), hash))
}

/// How `trajscope eval` names the labelled trajectories of one file: (file, subset) each. An
/// item of a dataset export is named by its source file and subset, so an export scores under
/// the same names as its sources; anything else by its path (with `#id` when the file holds
/// several labelled trajectories) and the folder holding it.
pub fn eval_names(path: &Path, trace: &Trace, labelled: &[&Trajectory]) -> Vec<(String, String)> {
    if let Some(names) = export_names(path, trace, labelled) {
        return names;
    }
    let subset = super::eval::subset_of(path);
    labelled
        .iter()
        .map(|t| {
            let file = if labelled.len() > 1 {
                format!("{}#{}", path.display(), t.id)
            } else {
                path.display().to_string()
            };
            (file, subset.clone())
        })
        .collect()
}

/// The names of a dataset export's items from each line's `metadata.extra`; `None` when the
/// file is not one (or its items cannot all be matched to a line).
fn export_names(
    path: &Path,
    trace: &Trace,
    labelled: &[&Trajectory],
) -> Option<Vec<(String, String)>> {
    if !matches!(trace.format, Format::Trajerrbench | Format::WhoAndWhen) {
        return None;
    }
    let bytes = std::fs::read(path).ok()?;
    let origins: Vec<dataset::Origin> =
        bytes.split(|b| *b == b'\n').filter_map(dataset::origin).collect();
    if origins.is_empty() {
        return None;
    }
    // Items follow the lines in order; an item is matched to the next line of its id (the
    // ingest names a repeated id `ID#2`, `ID#3`…: items of one question from two subsets).
    let same = |read: &str, written: &str| {
        read == written
            || read
                .strip_prefix(written)
                .and_then(|r| r.strip_prefix('#'))
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    };
    let mut next = 0;
    let mut matched = Vec::with_capacity(labelled.len());
    for t in labelled {
        let at = origins[next..].iter().position(|o| same(&t.id, &o.trajectory_id))? + next;
        matched.push(&origins[at]);
        next = at + 1;
    }
    let per_file = |file: &str| matched.iter().filter(|o| o.source_file == file).count();
    Some(
        matched
            .iter()
            .map(|o| {
                let file = if per_file(&o.source_file) > 1 {
                    format!("{}#{}", o.source_file, o.trajectory_id)
                } else {
                    o.source_file.clone()
                };
                (file, o.subset.clone())
            })
            .collect(),
    )
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let index = read_labels(&args.labels)?;
    let mut files = Vec::new();
    for p in &args.traces {
        super::eval::collect(p, &mut files)?;
    }
    let opts = ExportOptions { style: args.style, redact: !args.no_redact };
    let to_stdout = args.output.as_os_str() == "-";
    let sink: Box<dyn std::io::Write> = if to_stdout {
        Box::new(std::io::stdout().lock())
    } else {
        Box::new(
            std::fs::File::create(&args.output)
                .with_context(|| format!("cannot write {}", crate::term::shown(&args.output)))?,
        )
    };
    let mut out = BufWriter::new(sink);
    let (mut written, mut no_step, mut ties, mut matched) = (0usize, 0usize, 0usize, 0usize);
    let started = Instant::now();
    let mut last_progress = started;
    for (i, f) in files.iter().enumerate() {
        let (trace, hash) = match load_with_hash(f, args.format) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("trajscope: skipping {}", escape(&format!("{}: {e:#}", f.display())));
                continue;
            }
        };
        let source = Source {
            file: f.display().to_string(),
            subset: super::eval::subset_of(f),
            format: Some(trace.format),
            content_hash: hash,
        };
        for item in dataset::items(&index, &trace, &source, opts) {
            out.write_all(&item.line)
                .with_context(|| format!("cannot write {}", crate::term::shown(&args.output)))?;
            written += 1;
            matched += 1;
            no_step += usize::from(item.step.is_none() && !item.tie);
            ties += usize::from(item.tie);
            for w in &item.warnings {
                eprintln!(
                    "trajscope: warning: {}",
                    escape(&format!("{}#{}: {w}", f.display(), item.trajectory_id))
                );
            }
        }
        if last_progress.elapsed() >= Duration::from_millis(500) {
            last_progress = Instant::now();
            eprintln!("dataset: {} of {} files read, {written} items written", i + 1, files.len());
        }
    }
    out.flush().with_context(|| format!("cannot write {}", crate::term::shown(&args.output)))?;
    let unmatched = index.len().saturating_sub(matched);
    eprintln!(
        "dataset: {written} {} item(s) written to {} ({no_step} with no critical step, {ties} tied), secrets {}",
        args.style.name(),
        if to_stdout { "standard output".to_string() } else { crate::term::shown(&args.output) },
        if opts.redact { "masked" } else { "kept (--no-redact)" },
    );
    if unmatched > 0 {
        eprintln!(
            "dataset: {unmatched} labelled trajectory(ies) not found in the traces given (a label names its file by content hash and trajectory id)"
        );
    }
    if written == 0 {
        anyhow::bail!("no labelled trajectory found in the traces given: nothing to export");
    }
    Ok(())
}
