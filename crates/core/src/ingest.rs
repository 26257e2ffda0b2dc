//! Streaming ingest: bytes in (in chunks of any size), a canonical [`Trace`] out, in layers:
//!
//! 1. **Data source** ([`source`]): the container is decided by its whole header and decoded
//!    (gzip, a zip archive held for the end, a UTF-8 BOM skipped), under the byte caps of
//!    [`Limits`].
//! 2. **Lines** ([`lines`]): the decoded stream is split into lines (the bytes between `\n`,
//!    without the `\n` and one trailing `\r`; a last segment without `\n` is a line when
//!    non-empty). Each line is counted here, once.
//! 3. **Routing** (this file): the format is sniffed from the content (never a file name)
//!    unless a hint is given. JSONL formats are parsed line by line as the chunks arrive;
//!    every line is exactly one of parsed / blank / quarantined. Single-document formats (a
//!    pretty-printed JSON file) are held as their exact bytes and parsed at the end; if that
//!    fails, one clear error with its true position is reported and the lines are taken one
//!    by one, as JSONL.
//! 4. **Adapters** ([`formats`]) build the canonical steps; their texts are compacted
//!    ([`compact`]).

// Parsing ahead needs threads: only native shells have them (the web app's worker reads on
// one thread), so the web build leaves it out.
#[cfg(not(target_arch = "wasm32"))]
mod ahead;
pub mod archive;
mod compact;
pub mod formats;
pub mod limits;
mod lines;
mod list;
mod peek;
mod sniff;
pub(crate) mod source;

use crate::model::{Format, IngestStats, QuarantineEntry, SourceLoc, Trace, Trajectory};
#[cfg(not(target_arch = "wasm32"))]
pub use ahead::{LineParse, PreparedChunk};
pub use archive::{
    archive_files, archive_kind, ingest_archive, is_os_metadata, Archive, ArchiveFiles,
    ArchiveKind, Member,
};
pub use compact::{compact_text, TEXT_COMPACT_ABOVE, TEXT_KEEP_HEAD, TEXT_KEEP_TAIL};
pub use limits::Limits;
pub use lines::{Line, LineEnd, LineSplitter};
pub use sniff::{sniff_document, sniff_jsonl_line};
pub use source::Container;
use source::{Sink, Source};

/// Options for ingest.
#[derive(Clone, Debug, Default)]
pub struct IngestOptions {
    /// Use this format instead of sniffing (the CLI's `--format`).
    pub format: Option<Format>,
    /// The memory caps (see `docs/limits.md`).
    pub limits: Limits,
    /// How many steps of a SWE-agent, mini-swe-agent or OpenHands document (of the first
    /// trajectory of an Inspect log or tau2 results file) to copy while it is read, for a
    /// shell that shows its first steps before the document is parsed whole
    /// ([`Ingestor::snapshot_first`]; `ingest/peek.rs`). 0 (the default) copies nothing and
    /// costs nothing; line formats give their copy either way.
    pub copy_document_steps: usize,
}

/// How far the ingest has got, for progress reporting while chunks stream in.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Progress {
    /// Input bytes fed so far (compressed bytes for a gzip input).
    pub bytes_in: u64,
    pub lines: u64,
    pub quarantined: u64,
}

/// Lines that may form a pretty-printed document are kept until the decision is made. A JSONL
/// whose first line is damaged is recognised by a later line that parses.
const UNDECIDED_MAX_LINES: usize = 64;

/// A would-be document is given up (its lines replayed as JSONL) once this many lines of it are,
/// on their own, complete JSON objects starting at column 0: a pretty-printed document has at
/// most one such line, a JSONL file has them on every line.
const JSONL_EVIDENCE_LINES: u32 = 2;

enum Mode {
    /// Format not known yet: lines are held until one parses.
    Undecided { held: Vec<HeldLine> },
    /// Line-oriented: each line is pushed into the adapter as it arrives.
    Jsonl { format: Format, adapter: Box<dyn formats::JsonlAdapter> },
    /// One JSON record per line of a document format (TRAJERRBENCH as JSONL, a minified file).
    /// Each line is whole, so its trajectories settle as it is read: `handed` of them (the
    /// first, in file order) were handed over and are no longer in `trajectories`.
    Records { format: Format, trajectories: Vec<Trajectory>, handed: usize },
    /// A single (pretty-printed) document: its exact bytes, from line `first_line` at
    /// `first_offset`, parsed at the end (so a parse error's position is the file's).
    Document { buf: Vec<u8>, first_line: u64, first_offset: u64, jsonl_evidence: u32 },
    /// A top-level JSON list of records, read element by element (`ingest/list.rs`):
    /// each record settles as its element ends; `handed` of them were handed over.
    List { stream: Box<list::ListStream>, handed: usize },
}

struct HeldLine {
    no: u64,
    offset: u64,
    bytes: Vec<u8>,
    end: LineEnd,
}

/// A trajectory handed over before the end of the input (see [`Ingestor::take_settled`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Settled {
    /// Its index in [`Trace::trajectories`].
    pub position: usize,
    pub trajectory: Trajectory,
}

/// [`Ingestor::finish_with`]'s result.
#[derive(Debug)]
pub struct Finished {
    pub trace: Trace,
    /// Positions of settled trajectories that changed after they were handed over (a later
    /// line of the same trajectory): anything computed from the handed-over form is stale.
    pub changed: Vec<usize>,
}

/// Streaming ingest. Feed chunks with [`Ingestor::feed`], then call [`Ingestor::finish`].
pub struct Ingestor {
    source: Source,
    router: Router,
}

/// The line and routing layers: lines in, parsed / blank / quarantined out.
struct Router {
    opts: IngestOptions,
    splitter: LineSplitter,
    mode: Mode,
    stats: IngestStats,
    quarantine: Vec<QuarantineEntry>,
    /// Bytes the quarantine holds, against [`Limits::max_quarantine_bytes`].
    quarantine_held: u64,
    ingest_seq: u64,
    /// Set once a would-be document failed to parse: its lines are replayed as JSONL.
    no_document: bool,
    /// Why and where a limit stopped the input.
    stopped: Option<String>,
    /// The decoded offset where the router's own limit stopped reading.
    stop_offset: Option<u64>,
    /// Notes for the trace's error (a document over its limit, an encoding hint).
    notes: Vec<String>,
    /// What the first line and the line endings suggest, for a hint when nothing parsed.
    utf16: Option<&'static str>,
    lone_cr: bool,
    /// The input is compressed: [`Limits::max_compressed_records`] applies.
    compressed: bool,
    /// Whether the first line was seen (for the encoding hints).
    first_seen: bool,
    /// While the format is undecided, a look at whether the file is a list of records to
    /// read element by element ([`Mode::List`]); dropped once it says no.
    probe: Option<Box<list::ListStream>>,
    /// While the input may be a document (undecided, or held as one), a copy of its first
    /// steps as read so far (`ingest/peek.rs`); dropped once it has nothing to give.
    peek: Option<Box<peek::DocPeek>>,
    /// The parses of the chunk being fed ([`Ingestor::feed_prepared`]), else empty.
    #[cfg(not(target_arch = "wasm32"))]
    ahead: ahead::Ahead,
}

impl Ingestor {
    pub fn new(opts: IngestOptions) -> Ingestor {
        let mode = match opts.format {
            Some(f) if f.is_jsonl() => {
                Mode::Jsonl { format: f, adapter: formats::jsonl_adapter(f) }
            }
            _ => Mode::Undecided { held: Vec::new() },
        };
        let limits = opts.limits;
        let probe = (matches!(mode, Mode::Undecided { .. })
            && opts.format.is_none_or(|f| !f.is_jsonl()))
        .then(|| Box::new(list::ListStream::new(0, limits.max_line, opts.format)));
        let peek = (matches!(mode, Mode::Undecided { .. })
            && opts.copy_document_steps > 0
            && opts.format.is_none_or(|f| {
                use Format::*;
                matches!(f, SweAgent | MiniSweAgent | Openhands | Inspect | Tau2)
            }))
        .then(|| Box::new(peek::DocPeek::new(limits.max_line, opts.copy_document_steps)));
        Ingestor {
            source: Source::new(limits),
            router: Router {
                splitter: LineSplitter::resume(1, 0, limits.max_line),
                opts,
                mode,
                stats: IngestStats::default(),
                quarantine: Vec::new(),
                quarantine_held: 0,
                ingest_seq: 0,
                no_document: false,
                stopped: None,
                stop_offset: None,
                notes: Vec::new(),
                utf16: None,
                lone_cr: false,
                compressed: false,
                first_seen: false,
                probe,
                peek,
                #[cfg(not(target_arch = "wasm32"))]
                ahead: ahead::Ahead::default(),
            },
        }
    }

    /// Feeds the next chunk of the input. Chunks may split lines, UTF-8 sequences and gzip
    /// blocks anywhere.
    pub fn feed(&mut self, chunk: &[u8]) {
        if self.router.stopped.is_some() {
            self.source.count(chunk.len());
            return;
        }
        self.source.push(chunk, &mut self.router);
    }

    /// [`Ingestor::feed`] for a chunk whose lines were parsed ahead: each line routed that
    /// is one of them takes its parse instead of being parsed (the same trace).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn feed_prepared(&mut self, chunk: &mut PreparedChunk) {
        let (bytes, ahead) = chunk.split();
        self.router.ahead = ahead;
        self.feed(bytes);
        self.router.ahead = ahead::Ahead::default();
    }

    /// The format whose lines parsed ahead ([`PreparedChunk`]) would be taken now: the input
    /// is plain lines of one of [`LineParse::FORMATS`], still read, and its reader has not
    /// had to read too many of them again in their turn (otherwise chunks are fed as any
    /// chunk, their parses unread).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn parses_ahead(&self) -> Option<Format> {
        if self.router.stopped.is_some() || self.source.container() != Container::Plain {
            return None;
        }
        match self.router.mode {
            Mode::Jsonl { format, ref adapter }
                if LineParse::FORMATS.contains(&format) && adapter.parses_ahead_well() =>
            {
                Some(format)
            }
            _ => None,
        }
    }

    /// Progress so far.
    pub fn progress(&self) -> Progress {
        Progress {
            bytes_in: self.source.bytes_in(),
            lines: self.router.stats.lines_total,
            quarantined: self.router.stats.lines_quarantined,
        }
    }

    /// What the input's container turned out to be (final once the first bytes decided it).
    pub fn container(&self) -> Container {
        self.source.container()
    }

    /// The format, once the input is known to be of a kind that settles trajectories early
    /// (line-oriented, a record per line, a list read element by element); `None` before that
    /// or for a document.
    pub fn jsonl_format(&self) -> Option<Format> {
        match &self.router.mode {
            Mode::Jsonl { format, .. } | Mode::Records { format, .. } => Some(*format),
            Mode::List { stream, .. } => Some(stream.format()),
            _ => None,
        }
    }

    /// Stops copying a document's steps (a shell that has shown its copy needs no more):
    /// the copy is dropped, the rest of the document is only held for its parse.
    pub fn stop_copy(&mut self) {
        self.router.peek = None;
    }

    /// The format of the copy [`Ingestor::snapshot_first`] gives of a document still read
    /// (SWE-agent, mini-swe-agent, OpenHands, Inspect, tau2), once it holds a step;
    /// provisional as the copy is.
    pub fn peek_format(&self) -> Option<Format> {
        match &self.router.mode {
            Mode::Undecided { .. } | Mode::Document { .. } => self.router.peek.as_ref()?.format(),
            _ => None,
        }
    }

    /// Trajectories complete before the end of the input (AWTL: a run whose `run_end` was
    /// read; a record-per-line file: every record read), in their final form, each once: a caller may work on them (the CLI analyses them
    /// on another core) while the rest is read, and must give every one back to
    /// [`Ingestor::finish_with`]. Formats without an end marker settle nothing.
    pub fn take_settled(&mut self) -> Vec<Settled> {
        match &mut self.router.mode {
            Mode::Jsonl { adapter, .. } => {
                let mut settled = adapter.take_settled();
                if !adapter.compacts_steps() {
                    // In their final form (see below).
                    settled.iter_mut().for_each(|s| {
                        compact::compact_all(std::slice::from_mut(&mut s.trajectory))
                    });
                }
                settled
            }
            Mode::Records { trajectories, handed, .. } => {
                let first = *handed;
                *handed += trajectories.len();
                // In their final form: compacted as the trace's are (compacting again at the
                // end changes nothing).
                compact::compact_all(trajectories);
                std::mem::take(trajectories)
                    .into_iter()
                    .enumerate()
                    .map(|(i, trajectory)| Settled { position: first + i, trajectory })
                    .collect()
            }
            Mode::List { stream, handed } => {
                let mut read: Vec<Trajectory> =
                    stream.take_read().into_iter().map(|(_, t)| t).collect();
                let first = *handed;
                *handed += read.len();
                compact::compact_all(&mut read);
                read.into_iter()
                    .enumerate()
                    .map(|(i, trajectory)| Settled { position: first + i, trajectory })
                    .collect()
            }
            _ => Vec::new(),
        }
    }

    /// A copy of the first trajectory as read so far while it is still open (AWTL: the first
    /// run before its `run_end`; Claude Code: the first session; Codex: the file's one
    /// session; an OpenAI Agents SDK export or OTLP file: the trace of its first span; plain
    /// messages: the file's one trajectory; a SWE-agent, mini-swe-agent or OpenHands document:
    /// the steps of its list read so far; an Inspect log or tau2 results file: its first
    /// trajectory once read whole), at most its first `max_steps` steps, its texts compacted as
    /// the trace's are: what a shell shows of a file none of whose trajectories has settled
    /// yet (one huge run, runs without an end marker). Provisional: the trajectory the trace
    /// ends with may have more steps, another outcome, even another order (`writer_seq`).
    /// Nothing is handed over; `None` for a format that cannot say, or before the first line.
    pub fn snapshot_first(&self, max_steps: usize) -> Option<Trajectory> {
        let mut t = match &self.router.mode {
            Mode::Jsonl { adapter, .. } => adapter.snapshot_first(max_steps)?,
            // A document: its steps read so far (`ingest/peek.rs`).
            Mode::Undecided { .. } | Mode::Document { .. } => {
                self.router.peek.as_ref()?.snapshot(max_steps)?
            }
            _ => return None,
        };
        compact::compact_all(std::slice::from_mut(&mut t));
        Some(t)
    }

    /// Ends the input and returns the trace.
    pub fn finish(self) -> Trace {
        self.finish_with(Vec::new()).trace
    }

    /// Ends the input, with the trajectories [`Ingestor::take_settled`] handed over given back.
    pub fn finish_with(mut self, returned: Vec<Settled>) -> Finished {
        let archive =
            if self.router.stopped.is_none() { self.source.finish(&mut self.router) } else { None };
        let mut r = self.router;
        r.finish_list();
        if r.stopped.is_none() {
            let mut splitter = std::mem::take(&mut r.splitter);
            splitter.finish(|line| r.on_line(line));
        }
        if let Some(zip) = archive {
            // An Inspect `.eval` zip: no lines (the text path saw none), one trace.
            debug_assert!(returned.is_empty());
            let limits = r.opts.limits;
            let (trajectories, error) = formats::eval_zip::from_eval_archive(&zip, &limits);
            let stats = IngestStats { bytes: zip.len() as u64, ..IngestStats::default() };
            let error = error.map(|e| format!("the file is a zip archive, but {e}"));
            let mut trajectories = trajectories;
            unique_ids(&mut trajectories);
            let trace = Trace {
                format: Format::Inspect,
                stats,
                quarantine: Vec::new(),
                trajectories,
                error,
            };
            return Finished { trace, changed: Vec::new() };
        }
        // Decoded bytes read: up to where a limit of the router stopped reading, if one did.
        r.stats.bytes = r.stop_offset.unwrap_or_else(|| self.source.decoded());
        let mut error = self.source.take_error();
        let mode = std::mem::replace(&mut r.mode, Mode::Undecided { held: Vec::new() });
        // Ids the adapter keeps distinct itself need no check (100,000 hashed on one thread).
        let distinct = matches!(&mode, Mode::Jsonl { adapter, .. } if adapter.ids_distinct());
        // Where the settled trajectories were handed over (for a renamed one, below).
        let handed_at: Vec<usize> = match distinct {
            true => Vec::new(),
            false => returned.iter().map(|s| s.position).collect(),
        };
        // Steps compacted as read need no second pass (a long run's are hundreds of MB).
        let compacted = matches!(&mode, Mode::Jsonl { adapter, .. } if adapter.compacts_steps());
        let (format, mut trajectories, changed) = match mode {
            Mode::Jsonl { format, adapter } => {
                let (trajectories, changed) = adapter.finish_with(returned);
                (format, trajectories, changed)
            }
            Mode::Records { format, trajectories: rest, handed } => {
                let mut trajectories = in_order(returned, handed);
                trajectories.extend(rest);
                (format, trajectories, Vec::new())
            }
            Mode::List { mut stream, handed } => {
                let mut trajectories = in_order(returned, handed);
                // A limit of the router stopped reading at a line: the records that start
                // after it were not read, as far as the trace is concerned.
                let stop = r.stop_offset.unwrap_or(u64::MAX);
                trajectories.extend(
                    stream.take_read().into_iter().filter(|(at, _)| *at < stop).map(|(_, t)| t),
                );
                trajectories.extend(stream.finish_adapter());
                (stream.format(), trajectories, Vec::new())
            }
            other => {
                debug_assert!(returned.is_empty(), "only line-oriented formats settle");
                let (format, trajectories) = r.finish_mode(other, &mut error);
                (format, trajectories, Vec::new())
            }
        };
        if !compacted {
            compact::compact_all(&mut trajectories);
        }
        // A settled trajectory renamed for a duplicate id (one a later record has as `x#2`)
        // is changed: its early form carried the old id. (The formats that rename are not
        // those that reopen: no position twice.)
        let mut changed = changed;
        let renamed = if distinct { Vec::new() } else { unique_ids(&mut trajectories) };
        if !renamed.is_empty() {
            let mut handed = vec![false; trajectories.len()];
            for i in handed_at {
                if let Some(h) = handed.get_mut(i) {
                    *h = true;
                }
            }
            changed.extend(renamed.into_iter().filter(|&i| handed[i]));
        }
        crate::sort::sort_by_key(&mut r.quarantine, |q| q.line);
        debug_assert_eq!(
            r.stats.lines_total,
            r.stats.lines_parsed + r.stats.lines_blank + r.stats.lines_quarantined
        );
        let mut messages: Vec<String> = error.into_iter().collect();
        messages.append(&mut r.notes);
        match r.stats.lines_parsed {
            0 => messages.extend(r.hint()),
            _ => messages.extend(r.eight_bit_note()),
        }
        messages.extend(r.stopped.take());
        let error = (!messages.is_empty()).then(|| messages.join("; "));
        let trace = Trace { format, stats: r.stats, quarantine: r.quarantine, trajectories, error };
        Finished { trace, changed }
    }
}

/// The settled trajectories given back (all `handed` of them), in their positions' order.
fn in_order(mut returned: Vec<Settled>, handed: usize) -> Vec<Trajectory> {
    debug_assert_eq!(returned.len(), handed, "every settled record is given back");
    if !returned.is_sorted_by_key(|s| s.position) {
        crate::sort::sort_by_key(&mut returned, |s| s.position);
    }
    returned.into_iter().map(|s| s.trajectory).collect()
}

/// Two trajectories with the same id stay addressable: a later one gets `#2`, `#3`, … after
/// the original id (which stays visible), never an id another trajectory has. Gives the
/// positions of those renamed.
fn unique_ids(trajectories: &mut [Trajectory]) -> Vec<usize> {
    let mut renamed = Vec::new();
    // The common case, every id distinct, is checked on borrowed ids: no copy per trajectory.
    let distinct: crate::attribution::text::FastMap<&str, ()> =
        trajectories.iter().map(|t| (t.id.as_str(), ())).collect();
    if distinct.len() == trajectories.len() {
        return renamed;
    }
    // Sets as maps to nothing of a type the web bundle already has (one table type less).
    type Set = std::collections::HashMap<String, usize>;
    let mut taken = Set::new();
    let originals: Set = trajectories.iter().map(|t| (t.id.clone(), 0)).collect();
    // Per id, the suffix to try first: every smaller one was an original or taken when tried,
    // and both sets only grow, so starting there gives the smallest free suffix, as starting
    // at 2 would, without trying 2..k again for the k-th copy (a file of 3,000 records of one
    // id spent a sixth of its time here; 100,000 would not have finished).
    // (`usize`: a map of this type is already in the web bundle, one of `u64` would not be.)
    let mut next: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for (i, t) in trajectories.iter_mut().enumerate() {
        if taken.insert(t.id.clone(), 0).is_none() {
            continue;
        }
        let n = next.entry(t.id.clone()).or_insert(2);
        let id = loop {
            let candidate = format!("{}#{n}", t.id);
            *n += 1;
            if !originals.contains_key(&candidate) && !taken.contains_key(&candidate) {
                break candidate;
            }
        };
        taken.insert(id.clone(), 0);
        t.id = id;
        renamed.push(i);
    }
    renamed
}

impl Sink for Router {
    fn container(&mut self, c: Container) {
        self.compressed = c != Container::Plain;
    }

    fn bom(&mut self) {
        self.splitter = LineSplitter::resume(1, 3, self.opts.limits.max_line);
        if let Some(p) = &mut self.probe {
            p.start_at(3);
        }
    }

    fn bytes(&mut self, bytes: &[u8]) {
        if self.stopped.is_some() {
            return;
        }
        // The element reader sees the bytes before the lines are split, so a line's fate is
        // known (or held) when it arrives.
        if let Some(p) = &mut self.probe {
            p.push(bytes);
            match p.probe() {
                list::Probe::Open => {}
                list::Probe::No => self.probe = None,
                list::Probe::List => self.commit_list(),
            }
        } else if let Mode::List { stream, .. } = &mut self.mode {
            stream.push(bytes);
        }
        if let Some(p) = &mut self.peek {
            if matches!(self.mode, Mode::Undecided { .. } | Mode::Document { .. }) && !p.done() {
                p.push(bytes);
            }
            // Nothing to give now or later: dropped.
            if (p.done() && p.format().is_none())
                || !matches!(self.mode, Mode::Undecided { .. } | Mode::Document { .. })
            {
                self.peek = None;
            }
        }
        self.release_list();
        let mut splitter = std::mem::take(&mut self.splitter);
        splitter.push(bytes, |line| self.on_line(line));
        self.splitter = splitter;
    }

    fn stopped(&self) -> bool {
        self.stopped.is_some()
    }

    fn stop(&mut self, why: String) {
        if self.stopped.is_none() {
            let (no, offset) = self.splitter.position();
            self.splitter.abandon();
            self.halt(why, no, offset);
            // The source's own limit: it decoded exactly up to it, and `bytes` says so.
            self.stop_offset = None;
        }
    }
}

impl Router {
    /// The probe found a list of records: the file is read element by element from now
    /// on, and the lines routed so far (held while undecided, not counted yet) are accounted
    /// as the list says.
    fn commit_list(&mut self) {
        let Some(stream) = self.probe.take() else { return };
        if !matches!(self.mode, Mode::Undecided { .. } | Mode::Document { .. }) {
            return; // decided otherwise already (a record per line)
        }
        match std::mem::replace(&mut self.mode, Mode::List { stream, handed: 0 }) {
            Mode::Undecided { held } => {
                for h in held {
                    let len = h.bytes.len() as u64;
                    self.route(Line {
                        bytes: &h.bytes,
                        no: h.no,
                        offset: h.offset,
                        end: h.end,
                        len,
                    });
                }
            }
            Mode::Document { buf, first_line, first_offset, .. } => {
                let mut splitter = LineSplitter::resume(first_line, first_offset, usize::MAX);
                splitter.push(&buf, |line| self.route(line));
                splitter.finish(|line| self.route(line));
            }
            _ => unreachable!("checked above"),
        }
    }

    /// Accounts the held lines of a list whose fate is known now.
    fn release_list(&mut self) {
        let Mode::List { stream, .. } = &mut self.mode else { return };
        for (h, fate) in stream.release() {
            self.account_list_line(h.no, h.offset, &h.bytes, h.end, h.cut, fate);
        }
    }

    /// Ends a list read element by element: an open element is damaged, the held lines are
    /// accounted.
    fn finish_list(&mut self) {
        let stopped = self.stopped.is_some();
        let Mode::List { stream, .. } = &mut self.mode else { return };
        let note = stream.finish(stopped);
        self.notes.extend(stream.take_notes());
        self.notes.extend(note);
        self.release_list();
    }

    /// One line of a list read element by element, as its fate says.
    fn account_list_line(
        &mut self,
        no: u64,
        offset: u64,
        bytes: &[u8],
        end: LineEnd,
        cut: bool,
        fate: list::Fate,
    ) {
        match fate {
            list::Fate::Blank => {
                self.stats.lines_total += 1;
                self.stats.lines_blank += 1;
            }
            list::Fate::Parsed => {
                self.stats.lines_total += 1;
                self.stats.lines_parsed += 1;
                self.ingest_seq += 1;
            }
            list::Fate::Quarantined { mut reason, cut_short, element } => {
                let limit = limits::size_text(self.opts.limits.max_line as u64);
                // What is kept, where, and whether it reaches the end of the input.
                let (offset, keep, to_the_end) = match (cut, &element) {
                    // Of a line too long to keep, the damaged element's first bytes (at its
                    // own offset): the line's start is other, good elements. They reach the
                    // end only when they are all of it.
                    (true, Some((at, head))) => {
                        reason.push_str(&format!(
                            "; the line is over the limit of {limit} kept whole: the element's \
                             first {} bytes are kept, at its offset",
                            head.len()
                        ));
                        (*at, &head[..], head.len() < limits::QUARANTINE_KEEP)
                    }
                    (true, None) => {
                        let keep = &bytes[..bytes.len().min(limits::QUARANTINE_KEEP)];
                        reason.push_str(&format!(
                            "; the line is over the limit of {limit} kept whole, its first {} \
                             bytes are kept",
                            keep.len()
                        ));
                        (offset, keep, true)
                    }
                    (false, _) => (offset, bytes, true),
                };
                self.quarantine_with_reason(no, offset, keep, reason, end);
                if let Some(q) = self.quarantine.last_mut() {
                    q.truncated_tail = cut_short && end == LineEnd::Eof && to_the_end;
                }
            }
        }
    }

    /// A limit stopped the input before line `no` (at `offset`): the lines before it are
    /// accounted, nothing after it is read.
    fn halt(&mut self, why: String, no: u64, offset: u64) {
        self.stop_offset = Some(offset);
        self.stopped = Some(format!(
            "{why}: reading stopped at line {no} (byte {offset} of the decoded input); the lines \
             before it are accounted"
        ));
    }

    /// A hint for a file none of whose lines parsed: an encoding or line ending trajscope
    /// does not read.
    fn hint(&self) -> Option<String> {
        // Nothing to read at all: said, rather than an empty trace of some format (unless the
        // reading stopped at once, which says why).
        if self.quarantine.is_empty()
            && self.stats.lines_total == self.stats.lines_blank
            && self.stopped.is_none()
        {
            return Some(match self.stats.lines_total {
                0 => "the file is empty: there is no trace in it".to_string(),
                n => format!("the file holds only blank lines ({n}): there is no trace in it"),
            });
        }
        if let Some(enc) = self.utf16 {
            return Some(format!(
                "the file looks like {enc} text; trajscope reads UTF-8 (convert it, e.g. with \
                 `iconv -f {enc} -t UTF-8`)"
            ));
        }
        // Most lines not UTF-8 at all (and not UTF-16): a binary file, whatever JSON error the
        // first bytes gave.
        let not_utf8: Vec<&[u8]> = (self.quarantine.iter())
            .filter(|q| q.reason.starts_with("invalid UTF-8"))
            .map(|q| q.raw.trim_ascii_start())
            .collect();
        if !not_utf8.is_empty() && not_utf8.len() * 2 > self.quarantine.len() {
            // Lines that open as JSON do: text in an 8-bit encoding (a Windows program's
            // default), whose accented letters are single bytes UTF-8 does not allow.
            let json = not_utf8.iter().filter(|l| matches!(l.first(), Some(b'{' | b'['))).count();
            return Some(if json * 2 > not_utf8.len() {
                format!(
                    "the file's lines look like JSON in an 8-bit encoding such as \
                     Windows-1252 or Latin-1, not UTF-8; {FROM_8_BIT}"
                )
            } else {
                "most of the file is not UTF-8 text: it looks like a binary file, not a trace \
                 (trajscope reads JSON or JSONL, plain or gzip / tar / zip)"
                    .to_string()
            });
        }
        // Most lines prose (a log or notes; a line of it may look like damaged JSON): a text
        // file. No line parsed, or there would be no hint at all.
        let text = self.quarantine.iter().filter(|q| q.reason == formats::PLAIN_TEXT).count();
        if text * 2 > self.quarantine.len() {
            return Some(
                "no line of the file is JSON: it looks like a text file, not a trace".into(),
            );
        }
        self.lone_cr.then(|| {
            "the file's lines end with a lone carriage return (\\r, old Mac style); trajscope \
             splits lines at \\n (convert them, e.g. with `tr '\\r' '\\n'`)"
                .to_string()
        })
    }

    /// A note for a file some of whose lines were read: the quarantined lines that look like
    /// a Windows program's 8-bit text among plain-ASCII lines ([`is_8_bit_json`]).
    fn eight_bit_note(&self) -> Option<String> {
        let n = (self.quarantine.iter())
            .filter(|q| q.reason.starts_with("invalid UTF-8 at") && is_8_bit_json(&q.raw))
            .count();
        (n > 0).then(|| {
            format!(
                "quarantined lines that read as JSON in an 8-bit encoding such as Windows-1252, \
                 not UTF-8: {n}; {FROM_8_BIT}"
            )
        })
    }

    fn finish_mode(&mut self, mode: Mode, error: &mut Option<String>) -> (Format, Vec<Trajectory>) {
        match mode {
            Mode::Jsonl { format, adapter } => (format, adapter.finish()),
            Mode::Records { format, trajectories, .. } => (format, trajectories),
            Mode::List { mut stream, .. } => {
                let mut ts: Vec<Trajectory> =
                    stream.take_read().into_iter().map(|(_, t)| t).collect();
                ts.extend(stream.finish_adapter());
                (stream.format(), ts)
            }
            Mode::Undecided { held } => {
                // No line parsed as an object: everything held is quarantined.
                for h in held {
                    self.quarantine_line(h.no, h.offset, &h.bytes, h.end);
                }
                (self.opts.format.unwrap_or(Format::Generic), Vec::new())
            }
            Mode::Document { buf, first_line, first_offset, .. } => {
                let mut parsed = false;
                let failure = match formats::parse_document(&buf) {
                    Ok(value) => {
                        parsed = true;
                        // A document of no document format may be one record of a line
                        // format, pretty-printed (an OTLP `{"resourceSpans": …}` export).
                        let format =
                            self.opts.format.or_else(|| sniff_document(&value)).or_else(|| {
                                let f = value.is_object().then(|| sniff_jsonl_line(&value))?;
                                (f != Format::Generic).then_some(f)
                            });
                        let loc = SourceLoc {
                            line: line_u32(first_line),
                            offset: first_offset,
                            path: Box::default(),
                        };
                        let read = |f: Format, value: serde_json::Value| match f {
                            f if f.is_jsonl() && f != Format::OpenaiAgents => {
                                let mut adapter = formats::jsonl_adapter(f);
                                adapter.push_line(&crate::json::to_text(&value), loc, 0)?;
                                Ok(adapter.finish())
                            }
                            f => formats::from_document(f, value),
                        };
                        let shape = format.is_none().then(|| document_shape(&value));
                        match format.map(|f| (f, read(f, value))) {
                            Some((f, Ok(mut trajectories))) => {
                                // A document without an id of its own is named after its format.
                                for t in trajectories.iter_mut().filter(|t| t.id.is_empty()) {
                                    t.id = format!("{f}-1");
                                }
                                for t in &mut trajectories {
                                    self.notes.extend(formats::check_gold(t));
                                }
                                // The document's lines are accounted as parsed or blank.
                                let mut splitter = LineSplitter::resume(first_line, 0, usize::MAX);
                                let stats = &mut self.stats;
                                let mut count = |line: Line<'_>| {
                                    stats.lines_total += 1;
                                    match is_blank(line.bytes) {
                                        true => stats.lines_blank += 1,
                                        false => stats.lines_parsed += 1,
                                    }
                                };
                                splitter.push(&buf, &mut count);
                                splitter.finish(&mut count);
                                return (f, trajectories);
                            }
                            Some((f, Err(e))) => format!("the document looks like {f} but {e}"),
                            None => format!(
                                "the file is one JSON document of a shape no supported format has \
                                 ({}; docs/formats.md lists the shapes read)",
                                shape.unwrap_or_default()
                            ),
                        }
                    }
                    Err(e) => format!(
                        "the file is not valid JSON: {} (line {}, column {})",
                        describe_json_error(&e),
                        // serde counts from the held bytes' first line.
                        e.line() as u64 + first_line - 1,
                        e.column()
                    ),
                };
                if parsed {
                    // Valid JSON as a whole, of no known shape: not a JSONL file either, so its
                    // lines are quarantined with the document's reason, not read one by one
                    // (where each would fail with a reason of its own, or a nested object on
                    // a line of its own would pass for a record).
                    self.quarantine_document(&buf, first_line, first_offset, &failure);
                    drop(buf);
                    *error = Some(match error.take() {
                        Some(gzip) => format!("{gzip}; {failure}"),
                        None => failure,
                    });
                    return (self.opts.format.unwrap_or(Format::Generic), Vec::new());
                }
                // Not a document after all (or a broken one): take the lines one by one, so a
                // JSONL whose first line is damaged still yields its good lines.
                self.replay_as_lines(&buf, first_line, first_offset);
                drop(buf);
                let mode = std::mem::replace(&mut self.mode, Mode::Undecided { held: Vec::new() });
                if self.stats.lines_parsed == 0 {
                    *error = Some(match error.take() {
                        Some(gzip) => format!("{gzip}; {failure}"),
                        None => failure,
                    });
                }
                self.finish_mode(mode, error)
            }
        }
    }

    /// A document that is valid JSON of no known shape: each of its lines is quarantined (a
    /// blank one counted blank) with the document's reason.
    fn quarantine_document(&mut self, buf: &[u8], first_line: u64, first_offset: u64, why: &str) {
        let reason = format!("part of a JSON document that is not a trace: {why}");
        let mut splitter = LineSplitter::resume(first_line, first_offset, usize::MAX);
        let mut take = |line: Line<'_>| match is_blank(line.bytes) {
            true => {
                self.stats.lines_total += 1;
                self.stats.lines_blank += 1;
            }
            false => {
                let (no, offset, end) = (line.no, line.offset, line.end);
                self.quarantine_with_reason(no, offset, line.bytes, reason.clone(), end);
            }
        };
        splitter.push(buf, &mut take);
        splitter.finish(&mut take);
    }

    /// Gives up a would-be document: its lines (not counted yet) are routed again one by one,
    /// as JSONL. They are its exact bytes, so they split into the same lines again.
    fn replay_as_lines(&mut self, buf: &[u8], first_line: u64, first_offset: u64) {
        self.no_document = true;
        self.mode = Mode::Undecided { held: Vec::new() };
        let mut splitter = LineSplitter::resume(first_line, first_offset, usize::MAX);
        splitter.push(buf, |line| self.route(line));
        splitter.finish(|line| self.route(line));
    }

    /// A line from the splitter, routed. It is counted once, when its fate is decided (parsed,
    /// blank or quarantined): a line held for a would-be document is counted when the document
    /// is parsed or given up, so a limit that stops the input leaves no line half-counted.
    fn on_line(&mut self, line: Line<'_>) {
        if self.stopped.is_some() {
            return;
        }
        if self.compressed && self.stats.lines_parsed >= self.opts.limits.max_compressed_records {
            let why = format!(
                "the compressed input holds more than the limit of {} records",
                self.opts.limits.max_compressed_records
            );
            self.halt(why, line.no, line.offset);
            return;
        }
        if !self.first_seen {
            self.first_seen = true;
            self.utf16 = utf16_guess(line.bytes);
            self.lone_cr = line.end == LineEnd::Eof
                && memchr::memchr(b'\r', line.bytes).is_some_and(|i| i + 1 < line.bytes.len());
            // A tar stream read as text would glue its first header to its first member's
            // first line: not read at all, said instead (an archive is read as one only when
            // given whole, not inside another or through a pipe). Not a line that opens JSON,
            // nor zeros that a line follows (a crashed writer's padding before good lines).
            let tar = (!opens_json(line.bytes))
                .then(|| archive::tar_stream(line.bytes, line.end == LineEnd::Eof))
                .flatten();
            if let Some(why) = tar {
                self.halt(why.to_string(), line.no, line.offset);
                return;
            }
        }
        self.route(line);
    }

    /// Decides a line's fate (or holds it while the format is undecided).
    fn route(&mut self, line: Line<'_>) {
        if self.stopped.is_some() {
            return;
        }
        if self.quarantine_held >= self.opts.limits.max_quarantine_bytes {
            let why = format!(
                "the quarantine holds more than the limit of {} of lines that could not be read",
                limits::size_text(self.opts.limits.max_quarantine_bytes)
            );
            self.halt(why, line.no, line.offset);
            return;
        }
        if let Mode::List { stream, .. } = &mut self.mode {
            // Even a line over the limit kept whole: its elements were read as they came.
            if let Some(fate) = stream.on_line(&line) {
                let cut = line.is_cut();
                self.account_list_line(line.no, line.offset, line.bytes, line.end, cut, fate);
            }
            return;
        }
        let Line { bytes, no, offset, end, .. } = line;
        if line.is_cut() {
            self.cut_line(line);
            return;
        }
        match &mut self.mode {
            Mode::Document { buf, jsonl_evidence, first_line, first_offset } => {
                if buf.len() as u64 + line.len + 2 > self.opts.limits.max_document {
                    let (buf, first_line, first_offset) =
                        (std::mem::take(buf), *first_line, *first_offset);
                    self.notes.push(format!(
                        "the file is one JSON document larger than the limit of {} held for \
                         parsing; its lines were read one by one",
                        limits::size_text(self.opts.limits.max_document)
                    ));
                    self.replay_as_lines(&buf, first_line, first_offset);
                    self.route(line);
                    return;
                }
                buf.extend_from_slice(bytes);
                buf.extend_from_slice(end.bytes());
                if is_complete_object_line(bytes) {
                    *jsonl_evidence += 1;
                    if *jsonl_evidence >= JSONL_EVIDENCE_LINES {
                        let (buf, first_line, first_offset) =
                            (std::mem::take(buf), *first_line, *first_offset);
                        self.replay_as_lines(&buf, first_line, first_offset);
                    }
                }
                return;
            }
            Mode::Undecided { held } if is_blank(bytes) => {
                if held.is_empty() {
                    self.stats.lines_total += 1;
                    self.stats.lines_blank += 1;
                } else {
                    // Held with the lines around it (counted when they are), so a would-be
                    // document made of them keeps every line at its number and offset.
                    held.push(HeldLine { no, offset, bytes: bytes.to_vec(), end });
                }
                return;
            }
            Mode::Undecided { .. } => {
                let decision = self.decide(bytes);
                let Mode::Undecided { held } = &mut self.mode else { unreachable!() };
                if let Some((format, record)) = decision {
                    let held = std::mem::take(held);
                    self.mode = match record {
                        true => Mode::Records { format, trajectories: Vec::new(), handed: 0 },
                        false => Mode::Jsonl { format, adapter: formats::jsonl_adapter(format) },
                    };
                    for h in held {
                        self.quarantine_line(h.no, h.offset, &h.bytes, h.end);
                    }
                } else if self.no_document || (held.is_empty() && !opens_json(bytes)) {
                    // Held lines are only kept to tell a document; a line that does not
                    // decide the format is quarantined whatever comes later. So is every such
                    // line once the first is not even the start of one (a log, plain text):
                    // it is no document, nor told of as one that failed.
                    self.no_document = true;
                    self.quarantine_line(no, offset, bytes, end);
                    return;
                } else {
                    let looks_like_document = held.is_empty() && starts_document(bytes);
                    held.push(HeldLine { no, offset, bytes: bytes.to_vec(), end });
                    if looks_like_document || held.len() > UNDECIDED_MAX_LINES {
                        let held = std::mem::take(held);
                        let mut buf = Vec::new();
                        let mut jsonl_evidence = 0;
                        let (first_line, first_offset) = (held[0].no, held[0].offset);
                        for h in held {
                            jsonl_evidence += u32::from(is_complete_object_line(&h.bytes));
                            buf.extend_from_slice(&h.bytes);
                            buf.extend_from_slice(h.end.bytes());
                        }
                        self.mode =
                            Mode::Document { buf, first_line, first_offset, jsonl_evidence };
                    }
                    return;
                }
            }
            _ => {}
        }
        if is_blank(bytes) {
            self.stats.lines_total += 1;
            self.stats.lines_blank += 1;
            return;
        }
        let loc = SourceLoc { line: line_u32(no), offset, path: Box::default() };
        let seq = self.ingest_seq;
        let result = match line_text(bytes) {
            Err(reason) => Err(reason),
            Ok(text) => match &mut self.mode {
                #[cfg(not(target_arch = "wasm32"))]
                Mode::Jsonl { adapter, .. } => match self.ahead.take(bytes) {
                    Some(parsed) => adapter
                        .push_parsed(parsed, loc, seq)
                        .unwrap_or_else(|loc| adapter.push_line(text, loc, seq)),
                    None => adapter.push_line(text, loc, seq),
                },
                #[cfg(target_arch = "wasm32")]
                Mode::Jsonl { adapter, .. } => adapter.push_line(text, loc, seq),
                Mode::Records { format, trajectories, .. } => {
                    let notes = &mut self.notes;
                    formats::parse_value(text).and_then(|v| {
                        let mut ts = formats::from_document(*format, v)?;
                        for t in &mut ts {
                            // A record without an id of its own is named after its line.
                            if t.id.is_empty() {
                                t.id = format!("line-{no}");
                            }
                            notes.extend(formats::check_gold(t));
                            for s in &mut t.steps {
                                s.loc.line = line_u32(no);
                                s.loc.offset = offset;
                            }
                        }
                        trajectories.extend(ts);
                        Ok(())
                    })
                }
                _ => unreachable!("mode decided above"),
            },
        };
        match result {
            Ok(()) => {
                self.stats.lines_total += 1;
                self.stats.lines_parsed += 1;
                self.ingest_seq += 1;
                let opened = match &self.mode {
                    Mode::Jsonl { adapter, .. } => adapter.trajectory_count() as u64,
                    Mode::Records { trajectories, handed, .. } => {
                        (trajectories.len() + handed) as u64
                    }
                    _ => 0,
                };
                let max = self.opts.limits.max_trajectories;
                if opened > max {
                    // The line that opened one too many is read; the ones after it are not.
                    let why = format!(
                        "the file holds more than the limit of {max} trajectories one input may \
                         open (docs/limits.md)"
                    );
                    let next = offset + line.len + end.bytes().len() as u64;
                    self.halt(why, no + 1, next);
                }
            }
            Err(reason) => self.quarantine_with_reason(no, offset, bytes, reason, end),
        }
    }

    /// A line longer than the longest line kept whole: quarantined with its first bytes.
    fn cut_line(&mut self, line: Line<'_>) {
        let limit = self.opts.limits.max_line;
        // A would-be document cannot hold it whole: its lines go back to being lines.
        if let Mode::Document { buf, first_line, first_offset, .. } = &mut self.mode {
            let (buf, first_line, first_offset) = (std::mem::take(buf), *first_line, *first_offset);
            self.replay_as_lines(&buf, first_line, first_offset);
        }
        let keep = &line.bytes[..line.bytes.len().min(limits::QUARANTINE_KEEP)];
        let reason = format!(
            "the line is {} bytes long, over the limit of {} kept whole; its first {} bytes are kept",
            line.len,
            limits::size_text(limit as u64),
            keep.len()
        );
        self.quarantine_with_reason(line.no, line.offset, keep, reason, LineEnd::Lf);
    }

    /// For a line while undecided: `Some((format, is_record_per_line))` if it parses as a JSON
    /// object (or array of a known document shape) and fixes the format.
    fn decide(&self, line: &[u8]) -> Option<(Format, bool)> {
        let text = std::str::from_utf8(line).ok().map(without_bom)?;
        let value = formats::parse_value(text).ok()?;
        if let Some(f) = self.opts.format {
            // LangSmith runs one per line are grouped by trace, not read line by line as
            // documents.
            let lines = f.is_jsonl()
                || (matches!(f, Format::Langsmith | Format::Langfuse)
                    && sniff_jsonl_line(&value) == f);
            return Some((f, !lines));
        }
        // A line format's own marks first: an AWTL `run_start` may carry a `history` list
        // without being a Who&When document.
        let line_format = sniff_jsonl_line(&value);
        if line_format != Format::Generic {
            return Some((line_format, false));
        }
        if let Some(doc) = sniff_document(&value) {
            return Some((doc, true));
        }
        value.is_object().then_some((Format::Generic, false))
    }

    fn quarantine_line(&mut self, no: u64, offset: u64, line: &[u8], end: LineEnd) {
        if is_blank(line) {
            self.stats.lines_total += 1;
            self.stats.lines_blank += 1;
            return;
        }
        let reason = line_failure_reason(line);
        self.quarantine_with_reason(no, offset, line, reason, end);
    }

    fn quarantine_with_reason(
        &mut self,
        no: u64,
        offset: u64,
        line: &[u8],
        reason: String,
        end: LineEnd,
    ) {
        self.stats.lines_total += 1;
        self.stats.lines_quarantined += 1;
        self.quarantine_held +=
            line.len() as u64 + reason.len() as u64 + limits::QUARANTINE_ENTRY_COST;
        self.quarantine.push(QuarantineEntry {
            line: no,
            offset,
            reason,
            truncated_tail: end == LineEnd::Eof && looks_interrupted(line),
            raw: line.to_vec(),
        });
    }
}

/// A step's line number: 32 bits in the model; a step past line 4,294,967,295 keeps that
/// number (its offset stays exact). Quarantine entries carry the full 64-bit number.
fn line_u32(no: u64) -> u32 {
    u32::try_from(no).unwrap_or(u32::MAX)
}

/// The encoding a first line suggests when it is UTF-16 rather than UTF-8: a UTF-16
/// byte-order mark, or ASCII interleaved with NUL bytes.
fn utf16_guess(line: &[u8]) -> Option<&'static str> {
    match line {
        [0xFF, 0xFE, ..] => return Some("UTF-16LE"),
        [0xFE, 0xFF, ..] => return Some("UTF-16BE"),
        _ => {}
    }
    let head = &line[..line.len().min(64) & !1];
    if head.len() < 4 {
        return None;
    }
    let (mut even_nul, mut odd_nul) = (0, 0);
    for pair in head.chunks_exact(2) {
        even_nul += usize::from(pair[0] == 0 && pair[1] != 0);
        odd_nul += usize::from(pair[1] == 0 && pair[0] != 0);
    }
    let pairs = head.len() / 2;
    if odd_nul * 4 >= pairs * 3 {
        Some("UTF-16LE")
    } else if even_nul * 4 >= pairs * 3 {
        Some("UTF-16BE")
    } else {
        None
    }
}

/// Ingests a whole input at once (the CLI and tests; the app feeds chunks).
pub fn ingest(bytes: &[u8], opts: IngestOptions) -> Trace {
    let mut ingestor = Ingestor::new(opts);
    ingestor.feed(bytes);
    ingestor.finish()
}

fn is_blank(line: &[u8]) -> bool {
    line.iter().all(|b| b.is_ascii_whitespace())
}

/// A line that may start a JSON document: its first byte that is not white space opens an
/// object or an array.
fn opens_json(line: &[u8]) -> bool {
    line.iter().find(|b| !b.is_ascii_whitespace()).is_some_and(|&b| b == b'{' || b == b'[')
}

/// A first line that opens a pretty-printed document rather than a JSONL record.
fn starts_document(line: &[u8]) -> bool {
    let t = line.trim_ascii();
    t.first() == Some(&b'[') || t == b"{" || (t.first() == Some(&b'{') && t.last() != Some(&b'}'))
}

/// A line that is, on its own, a complete JSON object written from column 0 (a JSONL record).
fn is_complete_object_line(line: &[u8]) -> bool {
    line.first() == Some(&b'{')
        && serde_json::from_slice::<serde_json::Map<String, serde_json::Value>>(line).is_ok()
}

/// Whether a final line without `\n` that failed to parse reads as a write cut short: its JSON
/// (or its last UTF-8 sequence) is incomplete, rather than wrong.
fn looks_interrupted(line: &[u8]) -> bool {
    match std::str::from_utf8(line) {
        Err(e) => e.error_len().is_none(),
        Ok(text) => crate::json::from_str::<serde::de::IgnoredAny>(text).is_err_and(|e| e.is_eof()),
    }
}

/// The line as text: validated with SIMD where the target has it; the reason from the standard
/// validator (which says where) only when it is not UTF-8.
/// A byte-order mark (U+FEFF) that opens a line is skipped: files joined with `cat` keep each
/// one's mark at the start of its first line (the line keeps its number and offset, and its
/// bytes in the quarantine).
fn line_text(line: &[u8]) -> Result<&str, String> {
    simdutf8::basic::from_utf8(line).map(without_bom).map_err(|_| {
        match std::str::from_utf8(line) {
            Err(e) => utf8_reason(&e),
            Ok(_) => "invalid UTF-8".to_string(), // the validators agree; kept total
        }
    })
}

/// A line's text without the byte-order mark that may open it (see [`line_text`]).
fn without_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

/// Whether a line that is not UTF-8 reads as JSON in Latin-1 with each byte above ASCII a
/// letter (0xC0–0xFF but `×` and `÷`) beside an ASCII one: the accented letters of words
/// (`caf\xe9`), not damaged bytes (`\xff\xfe`, or a character cut short).
fn is_8_bit_json(raw: &[u8]) -> bool {
    let ascii_letter =
        |i: Option<usize>| i.and_then(|i| raw.get(i)).is_some_and(u8::is_ascii_alphabetic);
    let letters = raw.iter().enumerate().all(|(i, &b)| {
        b < 0x80
            || (b >= 0xC0
                && b != 0xD7
                && b != 0xF7
                && (ascii_letter(i.checked_sub(1)) || ascii_letter(Some(i + 1))))
    });
    letters
        && serde_json::from_slice::<serde_json::Value>(
            raw.iter().map(|&b| b as char).collect::<String>().as_bytes(),
        )
        .is_ok()
}

/// What to do about a file in an 8-bit encoding (the end of two of the router's messages).
const FROM_8_BIT: &str =
    "trajscope reads UTF-8 (convert it, e.g. with `iconv -f WINDOWS-1252 -t UTF-8`)";

fn utf8_reason(e: &std::str::Utf8Error) -> String {
    match e.error_len() {
        Some(_) => format!("invalid UTF-8 at byte {} of the line", e.valid_up_to()),
        None => {
            format!("invalid UTF-8: the line ends inside a character (at byte {})", e.valid_up_to())
        }
    }
}

/// Why a line cannot be taken as a JSON object.
pub fn line_failure_reason(line: &[u8]) -> String {
    match std::str::from_utf8(line).map(without_bom) {
        Err(e) => utf8_reason(&e),
        Ok(text) => match formats::parse_value(text) {
            Err(reason) => reason,
            Ok(v) => not_an_object_reason(&v),
        },
    }
}

pub(crate) fn not_an_object_reason(v: &serde_json::Value) -> String {
    let kind = match v {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        // A record written as JSON text, then that text written as JSON again: said, not read
        // (trajscope does not guess which writer did it; the quarantine keeps the line).
        serde_json::Value::String(s)
            if formats::parse_value(s).is_ok_and(|inner| inner.is_object() || inner.is_array()) =>
        {
            "a string holding JSON (encoded twice?)"
        }
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object of an unexpected shape",
    };
    format!("valid JSON but {kind}, not an event object")
}

/// A document of no known shape in a few words, for its reason: an object's keys (sorted), a
/// list's length and what its first item is, so the user can tell which tool wrote it.
fn document_shape(v: &serde_json::Value) -> String {
    fn keys(m: &serde_json::Map<String, serde_json::Value>) -> String {
        const SHOWN: usize = 8;
        let mut names: Vec<&str> = m.keys().take(SHOWN).map(String::as_str).collect();
        if m.len() > SHOWN {
            names.push("…");
        }
        match names.is_empty() {
            true => "no keys".to_string(),
            false => format!("the keys {}", names.join(", ")),
        }
    }
    match v {
        serde_json::Value::Object(m) => format!("an object with {}", keys(m)),
        serde_json::Value::Array(a) => match a.first() {
            Some(serde_json::Value::Object(m)) => {
                format!("a list of {} items, the first an object with {}", a.len(), keys(m))
            }
            Some(_) => format!("a list of {} items, the first not an object", a.len()),
            None => "an empty list".to_string(),
        },
        _ => "not an object or a list".to_string(),
    }
}

pub(crate) fn describe_json_error(e: &serde_json::Error) -> String {
    let msg = e.to_string();
    // serde_json appends " at line L column C"; the caller reports the position itself.
    match msg.rfind(" at line ") {
        Some(i) => msg[..i].to_string(),
        None => msg,
    }
}
