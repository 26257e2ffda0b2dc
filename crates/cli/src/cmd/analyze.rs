//! `trajscope analyze PATH... [--format NAME] [--json | --jsonl] [--outcome failed|passed
//! [--trajectory ID]]`: the diagnosis of every failed
//! trajectory (human output), the JSON report (`--json`, the contract of `docs/report.md`), or
//! one JSON record per trajectory (`--jsonl`, for pipelines). A folder stands for every file
//! under it (links to folders inside not followed).

mod ahead;
mod human;

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::mpsc;

use anyhow::Context as _;
use serde::Serialize;
use trajscope_core::attribution::{
    analyze_trajectory, analyze_trajectory_with, TrajectoryAnalysis,
};
use trajscope_core::model::{Format, Step};
use trajscope_core::report::{json, Overview, Report};
use trajscope_core::{IngestOptions, Loader, Session, Settled};

use crate::io::{parse_format, read_into};
use crate::reviewer::OutcomeArgs;
use trajscope_core::outcome::ReviewerOutcome;

#[derive(clap::Args)]
pub struct Args {
    /// Trace files, or folders (every file under a folder, in name order, hidden ones skipped,
    /// links to folders inside not followed); `-` reads standard input.
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<PathBuf>,
    /// Use this format instead of detecting it from the content.
    #[arg(long, value_parser = parse_format)]
    format: Option<Format>,
    /// Print the JSON report (one file) instead of the diagnosis.
    #[arg(long, conflicts_with = "jsonl")]
    json: bool,
    /// Print one JSON record per trajectory (with its file name), for pipelines.
    #[arg(long)]
    jsonl: bool,
    #[command(flatten)]
    outcome: OutcomeArgs,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let files = expand(&args.paths)?;
    let reviewer = args.outcome.reviewer();
    let reviewer = reviewer.as_ref();
    if args.json {
        let [file] = files.as_slice() else {
            anyhow::bail!(
                "--json reports one file ({} given); use --jsonl for several",
                files.len()
            );
        };
        return json(file, args.format, reviewer);
    }
    let colour = !args.jsonl && crate::term::colour_stdout();
    let paint = crate::term::Paint { on: colour };
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let mut unreadable = 0;
    let mut n = 0;
    for file in &files {
        // An archive of traces: each member reported as a file of its own (`FILE!MEMBER`).
        match crate::io::load_archive(file, args.format) {
            Ok(Some((members, error))) => {
                if let Some(e) = error {
                    out.flush()?;
                    let msg = format!("{}: {e}", crate::term::shown(file));
                    eprintln!("trajscope: {}", crate::term::escape(&msg));
                }
                for (name, mut session) in members {
                    // The reviewer's word holds for the members that hold its trajectory.
                    if let Some(r) = reviewer {
                        let _ = session.set_outcome(r);
                    }
                    session.analyse_all();
                    if args.jsonl {
                        write_jsonl(&mut out, Path::new(&name), &session)?;
                    } else {
                        if n > 0 {
                            writeln!(out)?;
                        }
                        human::write(&mut out, &name, &mut session, paint)?;
                    }
                    n += 1;
                }
                continue;
            }
            Ok(None) => {}
            Err(e) => {
                unreadable += 1;
                out.flush()?;
                eprintln!("trajscope: {}", crate::term::escape(&format!("{e:#}")));
                continue;
            }
        }
        // The identity fixes the case ids the diagnosis's brief line names.
        let mut session = match load_analysed(file, args.format, !args.jsonl, reviewer, true) {
            Ok(s) => s,
            Err(e) => {
                unreadable += 1;
                out.flush()?;
                eprintln!("trajscope: {}", crate::term::escape(&format!("{e:#}")));
                continue;
            }
        };
        if args.jsonl {
            write_jsonl(&mut out, file, &session)?;
        } else {
            if n > 0 {
                writeln!(out)?;
            }
            human::write(&mut out, &file.display().to_string(), &mut session, paint)?;
        }
        n += 1;
        // Freeing a large trace step by step would only give back memory the OS reclaims at
        // exit anyway (a tenth of the run on a 200 MB trace).
        std::mem::forget(session);
    }
    out.flush()?;
    if unreadable > 0 {
        anyhow::bail!("{unreadable} of {} file(s) could not be read", files.len());
    }
    Ok(())
}

fn json(
    file: &Path,
    format: Option<Format>,
    reviewer: Option<&ReviewerOutcome>,
) -> anyhow::Result<()> {
    // An archive holds several traces: the one-file report would read its tar or zip bytes.
    if let Some((members, _)) = crate::io::load_archive(file, format)? {
        anyhow::bail!(
            "{} is an archive of {} trace file(s); --json reports one file: name a member as \
             ARCHIVE!MEMBER, or use --jsonl (one record per trajectory, each named \
             ARCHIVE!MEMBER)",
            crate::term::shown(file),
            members.len()
        );
    }
    // The trajectories not analysed during the read are analysed below, block by block,
    // together with their overviews' JSON. Those that settled during the read have theirs
    // already (see `load`); a file that cannot be read twice is not rendered early (a fallback
    // may read it again).
    let early = reviewer.is_none() && std::fs::metadata(file).is_ok_and(|m| m.is_file());
    let (session, rendered) = load(file, format, false, reviewer, false, early)?;
    let opts = session.options().clone();
    let (trace, mut analyses) = session.into_parts();
    let mut pre: Vec<Option<Box<[u8]>>> = Vec::new();
    if !rendered.is_empty() {
        pre.resize_with(trace.trajectories.len(), || None);
        for r in rendered {
            pre[r.position] = Some(r.json);
        }
    } else {
        pre.resize_with(trace.trajectories.len().min(BLOCK), || None);
    }
    let mut out = crate::io::raw_stdout();
    // Written out in pieces: the head of a file of damaged lines holds each line's bytes twice
    // (base64 and text), several times the file.
    let mut head = Vec::new();
    Report::write_json_head_in_pieces(&trace, &mut head, HEAD_PIECE, |piece| {
        out.write_all(piece)?;
        piece.clear();
        anyhow::Ok(())
    })?;
    out.write_all(&head)?;
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(BLOCK);
    // Each block not rendered during the read is shared out in contiguous parts, one a thread:
    // this thread renders the first and writes the block; each helper renders its part of every
    // block in turn and hands it over, already at work on the next block's while this one is
    // written (no threads started, nor waited for, per block). The parts are written in order,
    // so the bytes are those of the whole report serialised at once. Every part but the
    // report's first starts with the comma that separates it from the one before.
    let mut own: Vec<Block<'_>> = Vec::new();
    let mut helpers: Vec<Vec<Part<'_>>> = (1..threads).map(|_| Vec::new()).collect();
    for (b, (ts, as_)) in
        trace.trajectories.chunks(BLOCK).zip(analyses.chunks_mut(BLOCK)).enumerate()
    {
        // The overviews rendered during the read, if any (else a block of nothing).
        let pre = match pre.len() == trace.trajectories.len() {
            true => &pre[b * BLOCK..b * BLOCK + ts.len()],
            false => &pre[..ts.len()],
        };
        // A block whose overviews were all rendered during the read is written from where they
        // are held: copying them into one buffer per thread first took most of the 10 ms
        // between the read's end and the last byte of `fixtures`' 54 MB report
        // (docs/performance.md, twenty-third pass).
        if pre.iter().all(Option::is_some) {
            own.push(Block::Rendered(pre));
            continue;
        }
        // As many parts as threads (fewer only in a last block of fewer trajectories, the
        // highest helpers then left out), their sizes within one of each other.
        let n = threads.min(ts.len());
        let (mut ts, mut as_, mut pre) = (ts, as_, pre);
        for i in 0..n {
            let len = ts.len() / (n - i);
            let (t, rest_t) = ts.split_at(len);
            let (a, rest_a) = std::mem::take(&mut as_).split_at_mut(len);
            let (p, rest_p) = pre.split_at(len);
            (ts, as_, pre) = (rest_t, rest_a, rest_p);
            let part = Part { ts: t, analyses: a, pre: p, comma: b > 0 || i > 0, block: b, of: n };
            match i {
                0 => own.push(Block::Part(part)),
                i => helpers[i - 1].push(part),
            }
        }
    }
    let opts = &opts;
    std::thread::scope(|scope| {
        let mut handed = Vec::new();
        for parts in helpers.into_iter().filter(|h| !h.is_empty()) {
            // Two parts ahead at most: the report is never held whole.
            let (tx, rx) = mpsc::sync_channel::<HelperPart>(2);
            handed.push(rx);
            scope.spawn(move || {
                for part in parts {
                    let block = part.block;
                    // The receiver hangs up only when the report failed: stop then.
                    if tx.send((block, part.render(opts))).is_err() {
                        return;
                    }
                }
            });
        }
        for (b, block) in own.into_iter().enumerate() {
            let part = match block {
                Block::Rendered(pre) => {
                    write_rendered(&mut out, pre, b > 0)?;
                    continue;
                }
                Block::Part(part) => part,
            };
            let of = part.of;
            out.write_all(&part.render(opts)?)?;
            // The helpers' parts of this block, in order: the first `of - 1` helpers have one
            // (all of them but in a last block of fewer trajectories than threads).
            for rx in &handed[..of - 1] {
                // A helper hangs up early only if it panicked (the scope then panics too).
                let (block, json) =
                    rx.recv().map_err(|_| anyhow::anyhow!("a report thread stopped"))?;
                debug_assert_eq!(block, b, "a helper's parts come block by block");
                out.write_all(&json?)?;
            }
        }
        anyhow::Ok(())
    })?;
    let mut tail = Report::JSON_TAIL.to_vec();
    tail.push(b'\n');
    out.write_all(&tail)?;
    out.flush()?;
    // Freeing a large trace step by step would only give back memory the OS reclaims at exit.
    std::mem::forget(trace);
    Ok(())
}

/// Overviews rendered during the read, comma-separated (and after a comma when `comma`), written
/// from where they are held in a few vectored writes.
fn write_rendered(
    out: &mut dyn std::io::Write,
    pre: &[Option<Box<[u8]>>],
    comma: bool,
) -> std::io::Result<()> {
    let mut slices = Vec::with_capacity(2 * pre.len());
    for (i, json) in pre.iter().flatten().enumerate() {
        if i > 0 || comma {
            slices.push(std::io::IoSlice::new(b","));
        }
        slices.push(std::io::IoSlice::new(json));
    }
    crate::io::write_all_vectored(out, &mut slices)
}

/// The size of the pieces the report's head (its quarantine) is written out in.
const HEAD_PIECE: usize = 1 << 20;

/// Trajectories per block of the streamed report: enough to share among threads, few enough
/// that a block's JSON stays small.
const BLOCK: usize = 2048;

/// A helper's part of a block: the block's index and the part's JSON.
type HelperPart = (usize, Result<Vec<u8>, json::Error>);

/// A block of the report as this thread writes it.
enum Block<'a> {
    /// Every overview rendered during the read.
    Rendered(&'a [Option<Box<[u8]>>]),
    /// This thread's part to render (the helpers render the rest).
    Part(Part<'a>),
}

/// A contiguous part of a block of trajectories, rendered by one thread.
struct Part<'a> {
    ts: &'a [trajscope_core::model::Trajectory],
    analyses: &'a mut [Option<Box<TrajectoryAnalysis>>],
    pre: &'a [Option<Box<[u8]>>],
    /// Whether the part follows another in the report (its JSON then starts with a comma).
    comma: bool,
    block: usize,
    /// How many parts the block is cut into.
    of: usize,
}

impl Part<'_> {
    /// The overviews' JSON of the part's trajectories, comma-separated (and after a comma when
    /// `comma`): as `pre` holds it when it was rendered during the read, else each analysed first
    /// unless its analysis is held already.
    fn render(
        self,
        opts: &trajscope_core::attribution::AnalysisOptions,
    ) -> Result<Vec<u8>, json::Error> {
        // An overview is about 1.3 KB of JSON for a one-step run, more for a longer one.
        let size = self.pre.iter().map(|p| p.as_ref().map_or(2048, |j| j.len() + 1)).sum();
        let mut out = Vec::with_capacity(size);
        for (i, ((t, a), p)) in self.ts.iter().zip(self.analyses).zip(self.pre).enumerate() {
            if i > 0 || self.comma {
                out.push(b',');
            }
            if let Some(json) = p {
                out.extend_from_slice(json);
                continue;
            }
            write_analysed_overview(&mut out, t, a.take().map(|a| *a), opts)?;
        }
        Ok(out)
    }
}

/// From this many steps a trajectory's overview head is worked out on a second thread while the
/// trajectory is analysed ([`write_analysed_overview`]): the head sorts every action, about a fifth
/// of the analysis's time on a long run, which a lone trajectory (the last of a file, one session)
/// would otherwise wait for with the second core idle (docs/performance.md, sixteenth pass). The
/// same thread works out the step facts first (eighteenth and twentieth passes).
const HEAD_APART_FROM: usize = 1 << 12;

/// `t`'s overview JSON onto `out`, `t` analysed first unless `analysis` is given.
fn write_analysed_overview(
    out: &mut Vec<u8>,
    t: &trajscope_core::model::Trajectory,
    analysis: Option<TrajectoryAnalysis>,
    opts: &trajscope_core::attribution::AnalysisOptions,
) -> Result<(), json::Error> {
    let (a, head) = match analysis {
        Some(a) => (a, None),
        None if t.steps.len() >= HEAD_APART_FROM => {
            // A helper works out the text scans of the run's steps from the last chunk back
            // (docs/performance.md, eighteenth pass), then the head: once its facts meet the
            // pass the second core would be idle, and a third thread beside the two while they
            // race slowed the pass (twentieth pass).
            let ahead = ahead::Ahead::new(&t.steps);
            std::thread::scope(|scope| {
                let helper = scope.spawn(|| {
                    ahead.work();
                    json::OverviewHead::of(t)
                });
                let a = analyze_trajectory_with(t, opts, &mut |c| ahead.take(c));
                (a, Some(helper.join().expect("a step's facts and an overview's head never panic")))
            })
        }
        None => (analyze_trajectory(t, opts), None),
    };
    match head {
        Some(head) => json::write_analysed_with(out, t, &a, &head),
        None => json::write_analysed(out, t, &a),
    }
}

/// One `--jsonl` record: a trajectory's overview with the file and format it came from. A file
/// whose trace has an error or no trajectory also gets a record of the file (its line counts and
/// error) with no trajectory fields, so no file given is left out.
#[derive(Serialize)]
struct Record<'a> {
    file: String,
    format: Format,
    #[serde(skip_serializing_if = "Option::is_none")]
    stats: Option<&'a trajscope_core::model::IngestStats>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a str>,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    trajectory: Option<Overview>,
}

fn write_jsonl(out: &mut impl std::io::Write, file: &Path, s: &Session) -> anyhow::Result<()> {
    let trace = s.trace();
    let file = file.display().to_string();
    if trace.error.is_some() || trace.trajectories.is_empty() {
        let rec = Record {
            file: file.clone(),
            format: trace.format,
            stats: Some(&trace.stats),
            error: trace.error.as_deref(),
            trajectory: None,
        };
        serde_json::to_writer(&mut *out, &rec)?;
        writeln!(out)?;
    }
    // One overview at a time, written and dropped (each is a few KB: all of a file of many
    // runs at once was twice the memory of the trace).
    for overview in (0..s.len()).filter_map(|i| s.overview(i)) {
        let rec = Record {
            file: file.clone(),
            format: trace.format,
            stats: None,
            error: None,
            trajectory: Some(overview),
        };
        serde_json::to_writer(&mut *out, &rec)?;
        writeln!(out)?;
    }
    Ok(())
}

/// The files `paths` name: files as given, folders walked (name order, hidden entries skipped).
/// A link to a folder found inside a walk is not followed (said on stderr): a link back to a
/// parent would make the walk endless. A folder given as a path is walked even through a link.
fn expand(paths: &[PathBuf]) -> anyhow::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            walk(p, &mut out)?;
        } else {
            out.push(p.clone());
        }
    }
    Ok(out)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> anyhow::Result<()> {
    // The entry's own type: a link is a link, not what it points to.
    let mut entries: Vec<(PathBuf, Option<std::fs::FileType>)> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot read folder {}", crate::term::shown(dir)))?
        .filter_map(Result::ok)
        .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
        .map(|e| (e.path(), e.file_type().ok()))
        .collect();
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    for (p, kind) in entries {
        if kind.is_some_and(|k| k.is_dir()) {
            walk(&p, out)?;
        } else if !crate::io::is_link_to_folder(&p) {
            out.push(p);
        }
    }
    Ok(())
}

/// Reads and ingests the file while a worker thread analyses the trajectories that settle on
/// the way (an AWTL run whose end was read), so most of the analysis runs beside the parse
/// instead of after it. The others, and any that a later line changed, are analysed at the end
/// on all cores. The core stays single-threaded and pure; threads live here at the edge. A
/// reviewer's outcome is set on each trajectory before it is analysed. Without `rest`, the
/// trajectories not analysed during the read are left to the caller.
fn load_analysed(
    path: &Path,
    format: Option<Format>,
    hash: bool,
    reviewer: Option<&ReviewerOutcome>,
    rest: bool,
) -> anyhow::Result<Session> {
    load(path, format, hash, reviewer, rest, false).map(|(session, _)| session)
}

/// A settled trajectory of more steps keeps its steps when its overview is written during the
/// read: freeing them one by one costs more than reusing their memory saves (it is mostly the
/// file's last run).
const RENDER_EARLY_UP_TO: usize = 1 << 16;

/// A settled trajectory's overview rendered during the read (`--json`): its position, the id
/// it had then (the ingest may rename a duplicate at the end) and its JSON.
struct Rendered {
    position: usize,
    id: String,
    json: Box<[u8]>,
}

/// [`load_analysed`]; with `render_early`, the worker also renders each settled trajectory's
/// overview JSON and then drops its steps and analysis, so the memory a run took is reused for the
/// next runs instead of the whole trace being held to the end (the page faults of fresh memory were
/// up to half of the CPU time on files of many runs, docs/performance.md). The session's
/// trajectories at the positions returned have no steps, but for those of more than
/// [`RENDER_EARLY_UP_TO`] steps, which keep them. If a later line reopened a settled run or a
/// trajectory was renamed, the early overviews are wrong: the file is read again without them.
fn load(
    path: &Path,
    format: Option<Format>,
    hash: bool,
    reviewer: Option<&ReviewerOutcome>,
    rest: bool,
    render_early: bool,
) -> anyhow::Result<(Session, Vec<Rendered>)> {
    let mut loader = Loader::new(IngestOptions { format, ..IngestOptions::default() }, hash);
    // A rendered trajectory's steps go to `spent`, to be freed by the thread that read them.
    let settle = |mut s: Settled,
                  scratch: &mut Vec<u8>,
                  rendered: &mut Vec<Rendered>,
                  spent: &mut Vec<Vec<Step>>| {
        if let Some(r) = reviewer {
            r.apply(&mut s.trajectory);
        }
        if !render_early {
            // Boxed: the list of settled runs holds a pointer, not room for an analysis each.
            let a = analyze_trajectory(&s.trajectory, &Default::default());
            return (s, Some(Box::new(a)));
        }
        // A long run's overview is written into a buffer of its own, kept as it is (tens of MB
        // for `huge-run`), and its steps stay.
        let keep = s.trajectory.steps.len() > RENDER_EARLY_UP_TO;
        let mut own = Vec::new();
        let out = if keep { &mut own } else { scratch };
        out.clear();
        // On an error the trajectory stays whole and is analysed, rendered (and fails) later.
        if write_analysed_overview(out, &s.trajectory, None, &Default::default()).is_ok() {
            let json = if keep { own.into() } else { out.as_slice().into() };
            let id = s.trajectory.id.clone();
            rendered.push(Rendered { position: s.position, id, json });
            if !keep {
                spent.push(std::mem::take(&mut s.trajectory.steps));
            }
        }
        (s, None)
    };
    // What the reading thread settles itself: see below.
    let (mut own, mut own_rendered, mut own_scratch) = (Vec::new(), Vec::new(), Vec::new());
    let (read, early) = std::thread::scope(|scope| {
        // A short queue: when the worker lags (a busy machine, runs quicker to read than to
        // analyse), the reading thread settles the next runs itself instead of queueing them, so
        // the runs waiting (and their steps) stay few.
        let (tx, rx) = mpsc::sync_channel::<Vec<Settled>>(2);
        // The steps the worker is done with go back to the reading thread, which frees them
        // between chunks: their strings were allocated there (or on a parser thread), and a
        // block freed on another thread than its allocator's goes on a list that thread must
        // collect later (mimalloc), which was 14 % of `short`'s samples (docs/performance.md,
        // nineteenth pass).
        let (spent_tx, spent_rx) = mpsc::channel::<Vec<Vec<Step>>>();
        let worker = scope.spawn(move || {
            let (mut rendered, mut scratch, mut settled) = (Vec::new(), Vec::new(), Vec::new());
            for batch in rx {
                let mut spent = Vec::new();
                settled.extend(
                    batch.into_iter().map(|s| settle(s, &mut scratch, &mut rendered, &mut spent)),
                );
                // The receiver lives until this thread is joined: the send fails only if the
                // reading thread unwound, and then the steps are freed here.
                let _ = spent_tx.send(spent);
            }
            (settled, rendered)
        });
        let mut own_spent = Vec::new();
        // Once runs settle, the analysis thread takes the second core: parsing lines ahead on
        // more threads then only adds work (measured on 2 cores, docs/performance.md).
        let mut any_settled = false;
        let read = read_into(path, &mut loader, |loader| {
            spent_rx.try_iter().for_each(drop);
            let settled = loader.take_settled();
            any_settled |= !settled.is_empty();
            if settled.is_empty() {
                return !any_settled;
            }
            match tx.try_send(settled) {
                Ok(()) => {}
                Err(mpsc::TrySendError::Full(settled)) => {
                    own.extend(
                        settled.into_iter().map(|s| {
                            settle(s, &mut own_scratch, &mut own_rendered, &mut own_spent)
                        }),
                    );
                    own_spent.clear();
                }
                // The worker only stops when this sender is dropped.
                Err(mpsc::TrySendError::Disconnected(_)) => panic!("the analysis worker is alive"),
            }
            false
        });
        drop(tx);
        let early = worker.join().expect("analysis never panics (property-tested)");
        (read, early)
    });
    read?;
    let (mut settled, mut rendered) = early;
    settled.append(&mut own);
    rendered.append(&mut own_rendered);
    let (mut session, changed) = loader.finish_returning(settled);
    if render_early {
        let ts = &session.trace().trajectories;
        let renamed = rendered.iter().any(|r| ts.get(r.position).is_none_or(|t| t.id != r.id));
        if !changed.is_empty() || renamed {
            // Rare (a line after a run's end, a duplicate run id): read again, all kept.
            drop(session);
            return load(path, format, hash, reviewer, rest, false);
        }
    }
    crate::reviewer::apply(reviewer, &mut session)?;
    if !rest {
        return Ok((session, rendered));
    }
    let missing = session.unanalysed();
    for (i, a) in analyse_on_all_cores(&session, &missing) {
        session.set_analysis(i, a);
    }
    Ok((session, rendered))
}

/// Analyses the trajectories at `which`, which are independent, on the available cores.
fn analyse_on_all_cores(s: &Session, which: &[usize]) -> Vec<(usize, TrajectoryAnalysis)> {
    let trajectories = &s.trace().trajectories;
    let opts = s.options();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let one = |&i: &usize| (i, analyze_trajectory(&trajectories[i], opts));
    if threads < 2 || which.len() < 2 {
        return which.iter().map(one).collect();
    }
    // Interleaved assignment balances long and short runs without measuring them.
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|w| scope.spawn(move || which.iter().skip(w).step_by(threads).map(one).collect()))
            .collect();
        workers
            .into_iter()
            .flat_map(|w| -> Vec<_> { w.join().expect("analysis never panics (property-tested)") })
            .collect()
    })
}
