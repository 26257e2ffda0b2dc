//! Streaming ingest: bytes in (in chunks of any size), a canonical [`Trace`] out.
//!
//! The input is split into lines (the bytes between `\n`, without the `\n` and one trailing
//! `\r`; a last segment without `\n` is a line when non-empty). The format is sniffed from the
//! content (never a file name) unless a hint is given. JSONL formats are parsed line by line as
//! the chunks arrive; every line is exactly one of parsed / blank / quarantined. Single-document
//! formats (a pretty-printed JSON file) are buffered and parsed at the end; if that fails, one
//! clear error with its position is reported and the lines are accounted for as quarantined.
//! A gzip stream (magic bytes `1f 8b`) is decompressed here, in the core.

pub mod formats;
mod lines;
mod sniff;

use std::io::Write as _;

use crate::model::{
    Format, IngestStats, QuarantineEntry, SourceLoc, Step, TextElision, Trace, Trajectory,
};
pub use lines::LineSplitter;
pub use sniff::{sniff_document, sniff_jsonl_line};

/// Options for ingest.
#[derive(Clone, Debug, Default)]
pub struct IngestOptions {
    /// Use this format instead of sniffing (the CLI's `--format`).
    pub format: Option<Format>,
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

/// Compressed bytes handed to the gzip decoder at a time, so one slice of a highly compressed
/// file never inflates into one huge buffer.
const GZIP_STEP: usize = 64 * 1024;

const BOM: &[u8] = b"\xEF\xBB\xBF";

enum Mode {
    /// Format not known yet: lines are held until one parses.
    Undecided { held: Vec<HeldLine> },
    /// Line-oriented: each line is pushed into the adapter as it arrives.
    Jsonl { format: Format, adapter: Box<dyn formats::JsonlAdapter> },
    /// One JSON record per line of a document format (TRAJERRBENCH as JSONL, a minified file).
    Records { format: Format, trajectories: Vec<Trajectory> },
    /// A single (pretty-printed) document: buffered whole, parsed at the end. The lines are
    /// slices of `buf` (each followed by one `\n` there).
    Document { buf: Vec<u8>, lines: Vec<HeldSpan>, jsonl_evidence: u32 },
}

struct HeldLine {
    line: u32,
    offset: u64,
    bytes: Vec<u8>,
    unterminated: bool,
}

struct HeldSpan {
    line: u32,
    offset: u64,
    start: usize,
    len: usize,
    unterminated: bool,
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
    opts: IngestOptions,
    gzip: Option<flate2::write::MultiGzDecoder<Vec<u8>>>,
    sniffed_gzip: bool,
    gzip_error: Option<String>,
    /// Compressed bytes short of a whole [`GZIP_STEP`] piece.
    gzip_pending: Vec<u8>,
    splitter: LineSplitter,
    mode: Mode,
    stats: IngestStats,
    quarantine: Vec<QuarantineEntry>,
    bytes_in: u64,
    ingest_seq: u64,
    /// The first input byte, held until the second arrives to tell a gzip magic.
    magic_hold: Vec<u8>,
    /// The first (decompressed) bytes, held until three are seen to tell a UTF-8 BOM.
    bom_hold: Vec<u8>,
    bom_checked: bool,
    /// Set once a would-be document failed to parse: its lines are replayed as JSONL.
    no_document: bool,
    /// A ZIP archive (an Inspect `.eval` log) is kept whole and read at the end.
    zip: formats::eval_zip::ZipSniffer,
}

impl Ingestor {
    pub fn new(opts: IngestOptions) -> Ingestor {
        let mode = match opts.format {
            Some(f) if f.is_jsonl() => {
                Mode::Jsonl { format: f, adapter: formats::jsonl_adapter(f) }
            }
            _ => Mode::Undecided { held: Vec::new() },
        };
        Ingestor {
            opts,
            gzip: None,
            sniffed_gzip: false,
            gzip_error: None,
            gzip_pending: Vec::new(),
            splitter: LineSplitter::new(),
            mode,
            stats: IngestStats::default(),
            quarantine: Vec::new(),
            bytes_in: 0,
            ingest_seq: 0,
            magic_hold: Vec::new(),
            bom_hold: Vec::new(),
            bom_checked: false,
            no_document: false,
            zip: formats::eval_zip::ZipSniffer::default(),
        }
    }

    /// Feeds the next chunk of the input. Chunks may split lines, UTF-8 sequences and gzip
    /// blocks anywhere.
    pub fn feed(&mut self, chunk: &[u8]) {
        let chunk = match self.zip.push(chunk) {
            formats::eval_zip::ZipPush::Kept => {
                self.bytes_in += chunk.len() as u64;
                return;
            }
            formats::eval_zip::ZipPush::Pass(bytes) => bytes,
        };
        self.bytes_in += chunk.len() as u64;
        if self.sniffed_gzip {
            self.feed_maybe_compressed(chunk);
            return;
        }
        if chunk.is_empty() {
            return;
        }
        if self.magic_hold.is_empty() && chunk.len() < 2 {
            self.magic_hold.extend_from_slice(chunk);
            return;
        }
        self.sniffed_gzip = true;
        let first = std::mem::take(&mut self.magic_hold);
        let mut magic = first.clone();
        magic.extend(chunk.iter().take(2 - first.len()));
        if magic == [0x1f, 0x8b] {
            self.gzip = Some(flate2::write::MultiGzDecoder::new(Vec::new()));
        }
        self.feed_maybe_compressed(&first);
        self.feed_maybe_compressed(chunk);
    }

    /// Compressed input goes to the decoder in pieces of exactly [`GZIP_STEP`] bytes at fixed
    /// stream offsets (the last one shorter), whatever the caller's chunking: the decoder then
    /// sees the same calls for the same file, so even a damaged stream gives the same text
    /// before its damage however it was sliced.
    fn feed_maybe_compressed(&mut self, mut chunk: &[u8]) {
        if self.gzip.is_none() {
            self.feed_plain(chunk);
            return;
        }
        if !self.gzip_pending.is_empty() {
            let take = (GZIP_STEP - self.gzip_pending.len()).min(chunk.len());
            self.gzip_pending.extend_from_slice(&chunk[..take]);
            chunk = &chunk[take..];
            if self.gzip_pending.len() < GZIP_STEP {
                return;
            }
            let piece = std::mem::take(&mut self.gzip_pending);
            self.inflate(&piece);
            self.gzip_pending = piece;
            self.gzip_pending.clear();
        }
        while chunk.len() >= GZIP_STEP {
            self.inflate(&chunk[..GZIP_STEP]);
            chunk = &chunk[GZIP_STEP..];
        }
        self.gzip_pending.extend_from_slice(chunk);
    }

    fn inflate(&mut self, piece: &[u8]) {
        let Some(dec) = self.gzip.as_mut() else { return };
        if self.gzip_error.is_some() {
            return;
        }
        let result = dec.write_all(piece);
        let out = std::mem::take(dec.get_mut());
        if let Err(e) = result {
            self.gzip_error = Some(format!(
                "the gzip stream is damaged ({e}); the text before the damage was read"
            ));
        }
        self.feed_plain(&out);
    }

    /// Decompressed bytes: a leading UTF-8 BOM is skipped (it belongs to no line; line 1 then
    /// starts at offset 3), everything else goes to the line splitter.
    fn feed_plain(&mut self, mut bytes: &[u8]) {
        self.stats.bytes += bytes.len() as u64;
        if !self.bom_checked {
            let take = (BOM.len() - self.bom_hold.len()).min(bytes.len());
            self.bom_hold.extend_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
            if self.bom_hold.len() < BOM.len() && BOM.starts_with(&self.bom_hold) {
                return; // all of `bytes` is held
            }
            self.end_bom_check();
        }
        self.split(bytes, false);
    }

    fn end_bom_check(&mut self) {
        self.bom_checked = true;
        let held = std::mem::take(&mut self.bom_hold);
        if held == BOM {
            self.splitter = LineSplitter::starting_at(BOM.len() as u64);
        } else {
            self.split(&held, false);
        }
    }

    fn split(&mut self, bytes: &[u8], finish: bool) {
        let mut splitter = std::mem::take(&mut self.splitter);
        splitter.push(bytes, |line, no, offset| self.on_line(line, no, offset, false));
        if finish {
            splitter.finish(|line, no, offset| self.on_line(line, no, offset, true));
        }
        self.splitter = splitter;
    }

    /// Progress so far.
    pub fn progress(&self) -> Progress {
        Progress {
            bytes_in: self.bytes_in,
            lines: self.stats.lines_total,
            quarantined: self.stats.lines_quarantined,
        }
    }

    /// Trajectories complete before the end of the input (AWTL: a run whose `run_end` was
    /// read), in their final form, each once: a caller may work on them (the CLI analyses them
    /// on another core) while the rest is read, and must give every one back to
    /// [`Ingestor::finish_with`]. Formats without an end marker settle nothing.
    pub fn take_settled(&mut self) -> Vec<Settled> {
        match &mut self.mode {
            Mode::Jsonl { adapter, .. } => adapter.take_settled(),
            _ => Vec::new(),
        }
    }

    /// Ends the input and returns the trace.
    pub fn finish(self) -> Trace {
        self.finish_with(Vec::new()).trace
    }

    /// Ends the input, with the trajectories [`Ingestor::take_settled`] handed over given back.
    pub fn finish_with(mut self, returned: Vec<Settled>) -> Finished {
        if !self.sniffed_gzip {
            let held = std::mem::take(&mut self.magic_hold);
            self.sniffed_gzip = true;
            self.feed_plain(&held);
        }
        let rest = std::mem::take(&mut self.gzip_pending);
        self.inflate(&rest);
        if let Some(mut dec) = self.gzip.take() {
            if self.gzip_error.is_none() {
                let result = dec.try_finish();
                let out = std::mem::take(dec.get_mut());
                self.feed_plain(&out);
                if let Err(e) = result {
                    self.gzip_error = Some(format!(
                        "the gzip stream is damaged or cut short ({e}); the text before that was read"
                    ));
                }
            }
        }
        if !self.bom_checked {
            self.end_bom_check();
        }
        self.split(&[], true);

        let mut error = self.gzip_error.take();
        if let Some(archive) = formats::eval_zip::finish(&mut self.zip) {
            // An Inspect `.eval` zip: the text path's view is dropped (it settled nothing).
            return Finished { trace: archive, changed: Vec::new() };
        }
        let mode = std::mem::replace(&mut self.mode, Mode::Undecided { held: Vec::new() });
        let (format, trajectories, changed) = match mode {
            Mode::Jsonl { format, adapter } => {
                let (trajectories, changed) = adapter.finish_with(returned);
                (format, trajectories, changed)
            }
            other => {
                debug_assert!(returned.is_empty(), "only line-oriented formats settle");
                let (format, trajectories) = self.finish_mode(other, &mut error);
                (format, trajectories, Vec::new())
            }
        };
        self.quarantine.sort_by_key(|q| q.line);
        debug_assert_eq!(
            self.stats.lines_total,
            self.stats.lines_parsed + self.stats.lines_blank + self.stats.lines_quarantined
        );
        let trace =
            Trace { format, stats: self.stats, quarantine: self.quarantine, trajectories, error };
        Finished { trace, changed }
    }

    fn finish_mode(&mut self, mode: Mode, error: &mut Option<String>) -> (Format, Vec<Trajectory>) {
        match mode {
            Mode::Jsonl { format, adapter } => (format, adapter.finish()),
            Mode::Records { format, trajectories } => (format, trajectories),
            Mode::Undecided { held } => {
                // No line parsed as an object: everything held is quarantined.
                for h in held {
                    self.quarantine_line(h.line, h.offset, &h.bytes, h.unterminated);
                }
                (self.opts.format.unwrap_or(Format::Generic), Vec::new())
            }
            Mode::Document { buf, lines, .. } => {
                let failure = match serde_json::from_slice::<serde_json::Value>(&buf) {
                    Ok(value) => {
                        let format = self.opts.format.or_else(|| sniff_document(&value));
                        match format.map(|f| (f, formats::from_document(f, value))) {
                            Some((f, Ok(trajectories))) => {
                                // The document's lines are accounted as parsed or blank.
                                for h in &lines {
                                    match is_blank(&buf[h.start..h.start + h.len]) {
                                        true => self.stats.lines_blank += 1,
                                        false => self.stats.lines_parsed += 1,
                                    }
                                }
                                return (f, trajectories);
                            }
                            Some((f, Err(e))) => format!("the document looks like {f} but {e}"),
                            None => {
                                "the file is one JSON document of a shape no supported format has"
                                    .to_string()
                            }
                        }
                    }
                    Err(e) => format!(
                        "the file is not valid JSON: {} (line {}, column {})",
                        describe_json_error(&e),
                        e.line(),
                        e.column()
                    ),
                };
                // Not a document after all (or a broken one): take the lines one by one, so a
                // JSONL whose first line is damaged still yields its good lines.
                self.replay_as_lines(&buf, lines);
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

    /// Gives up a would-be document: its lines are taken again one by one, as JSONL.
    fn replay_as_lines(&mut self, buf: &[u8], lines: Vec<HeldSpan>) {
        self.no_document = true;
        self.mode = Mode::Undecided { held: Vec::new() };
        for h in lines {
            self.stats.lines_total -= 1; // on_line counts it again
            self.on_line(&buf[h.start..h.start + h.len], h.line, h.offset, h.unterminated);
        }
    }

    fn on_line(&mut self, line: &[u8], no: u32, offset: u64, unterminated: bool) {
        self.stats.lines_total += 1;
        match &mut self.mode {
            Mode::Document { buf, lines, jsonl_evidence } => {
                let start = buf.len();
                buf.extend_from_slice(line);
                buf.push(b'\n');
                lines.push(HeldSpan { line: no, offset, start, len: line.len(), unterminated });
                if is_complete_object_line(line) {
                    *jsonl_evidence += 1;
                    if *jsonl_evidence >= JSONL_EVIDENCE_LINES {
                        let buf = std::mem::take(buf);
                        let lines = std::mem::take(lines);
                        self.replay_as_lines(&buf, lines);
                    }
                }
                return;
            }
            Mode::Undecided { .. } if is_blank(line) => {
                self.stats.lines_blank += 1;
                return;
            }
            Mode::Undecided { .. } => {
                let decision = self.decide(line);
                let Mode::Undecided { held } = &mut self.mode else { unreachable!() };
                if let Some((format, record)) = decision {
                    let held = std::mem::take(held);
                    self.mode = match record {
                        true => Mode::Records { format, trajectories: Vec::new() },
                        false => Mode::Jsonl { format, adapter: formats::jsonl_adapter(format) },
                    };
                    for h in held {
                        self.quarantine_line(h.line, h.offset, &h.bytes, h.unterminated);
                    }
                } else {
                    let looks_like_document =
                        !self.no_document && held.is_empty() && starts_document(line);
                    held.push(HeldLine { line: no, offset, bytes: line.to_vec(), unterminated });
                    if !self.no_document
                        && (looks_like_document || held.len() > UNDECIDED_MAX_LINES)
                    {
                        let held = std::mem::take(held);
                        let mut buf = Vec::new();
                        let mut lines = Vec::with_capacity(held.len());
                        let mut jsonl_evidence = 0;
                        for h in held {
                            lines.push(HeldSpan {
                                line: h.line,
                                offset: h.offset,
                                start: buf.len(),
                                len: h.bytes.len(),
                                unterminated: h.unterminated,
                            });
                            jsonl_evidence += u32::from(is_complete_object_line(&h.bytes));
                            buf.extend_from_slice(&h.bytes);
                            buf.push(b'\n');
                        }
                        self.mode = Mode::Document { buf, lines, jsonl_evidence };
                    }
                    return;
                }
            }
            _ => {}
        }
        if is_blank(line) {
            self.stats.lines_blank += 1;
            return;
        }
        let loc = SourceLoc { line: no, offset, path: String::new() };
        let seq = self.ingest_seq;
        let result = match line_text(line) {
            Err(reason) => Err(reason),
            Ok(text) => match &mut self.mode {
                Mode::Jsonl { adapter, .. } => adapter.push_line(text, loc, seq),
                Mode::Records { format, trajectories } => {
                    formats::parse_value(text).and_then(|v| {
                        let mut ts = formats::from_document(*format, v)?;
                        for t in &mut ts {
                            for s in &mut t.steps {
                                s.loc.line = no;
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
                self.stats.lines_parsed += 1;
                self.ingest_seq += 1;
            }
            Err(reason) => {
                self.stats.lines_total -= 1; // quarantine_with_reason counts the line again
                self.quarantine_with_reason(no, offset, line, reason, unterminated);
            }
        }
    }

    /// For a line while undecided: `Some((format, is_record_per_line))` if it parses as a JSON
    /// object (or array of a known document shape) and fixes the format.
    fn decide(&self, line: &[u8]) -> Option<(Format, bool)> {
        let text = std::str::from_utf8(line).ok()?;
        let value: serde_json::Value = serde_json::from_str(text).ok()?;
        if let Some(f) = self.opts.format {
            return Some((f, !f.is_jsonl()));
        }
        if let Some(doc) = sniff_document(&value) {
            return Some((doc, true));
        }
        if value.is_object() {
            return Some((sniff_jsonl_line(&value), false));
        }
        None
    }

    fn quarantine_line(&mut self, no: u32, offset: u64, line: &[u8], unterminated: bool) {
        self.stats.lines_total -= 1;
        if is_blank(line) {
            self.stats.lines_total += 1;
            self.stats.lines_blank += 1;
            return;
        }
        let reason = line_failure_reason(line);
        self.quarantine_with_reason(no, offset, line, reason, unterminated);
    }

    fn quarantine_with_reason(
        &mut self,
        no: u32,
        offset: u64,
        line: &[u8],
        reason: String,
        unterminated: bool,
    ) {
        self.stats.lines_total += 1;
        self.stats.lines_quarantined += 1;
        self.quarantine.push(QuarantineEntry {
            line: no,
            offset,
            reason,
            truncated_tail: unterminated && looks_interrupted(line),
            raw: line.to_vec(),
        });
    }
}

/// A text longer than this is kept as a head and a tail (see [`compact_text`]).
pub const TEXT_COMPACT_ABOVE: usize = 12 * 1024;
/// Bytes kept at the start and at the end of a compacted text: more than the most detailed view
/// shows (the high view: 3000 characters, docs/detector.md), with room for the error lines at the end of a log.
pub const TEXT_KEEP_HEAD: usize = 4 * 1024;
pub const TEXT_KEEP_TAIL: usize = 4 * 1024;

/// Keeps memory growing with what the views need, not with every payload: a step's `text` or
/// `args` longer than [`TEXT_COMPACT_ABOVE`] becomes its head and tail around a visible marker
/// line, with a [`TextElision`] saying what was left out and where the full text is (the record
/// at `step.loc.offset`, `source_len` bytes long; 0 if unknown). Adapters call this as they
/// build each step.
pub fn compact_text(step: &mut Step, source_len: u64) {
    let offset = step.loc.offset;
    if let Some(e) = elide(&mut step.text, offset, source_len) {
        step.text_elided = Some(e);
    }
    if let Some(args) = step.args.as_mut() {
        if let Some(e) = elide(args, offset, source_len) {
            step.args_elided = Some(e);
        }
    }
}

fn elide(s: &mut String, source_offset: u64, source_len: u64) -> Option<TextElision> {
    if s.len() <= TEXT_COMPACT_ABOVE {
        return None;
    }
    let mut head = TEXT_KEEP_HEAD;
    while !s.is_char_boundary(head) {
        head -= 1;
    }
    // End the head at a line end when one is near, so the marker stands on its own line.
    if let Some(nl) = s[..head].rfind('\n').filter(|&nl| nl >= head * 3 / 4) {
        head = nl + 1;
    }
    let mut tail = s.len() - TEXT_KEEP_TAIL;
    while !s.is_char_boundary(tail) {
        tail += 1;
    }
    if let Some(nl) = s[tail..].find('\n').filter(|&nl| nl < TEXT_KEEP_TAIL / 4) {
        tail += nl + 1;
    }
    let full_len = s.len();
    let sep = if s[..head].ends_with('\n') { "" } else { "\n" };
    let marker = format!("{sep}[… {} bytes elided …]\n", tail - head);
    let mut out = String::with_capacity(head + marker.len() + (full_len - tail));
    out.push_str(&s[..head]);
    out.push_str(&marker);
    out.push_str(&s[tail..]);
    *s = out;
    Some(TextElision {
        full_len: full_len as u64,
        head_len: head as u64,
        tail_len: (full_len - tail) as u64,
        source_offset,
        source_len,
    })
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
        Ok(text) => serde_json::from_str::<serde::de::IgnoredAny>(text).is_err_and(|e| e.is_eof()),
    }
}

/// The line as text: validated with SIMD where the target has it; the reason from the standard
/// validator (which says where) only when it is not UTF-8.
fn line_text(line: &[u8]) -> Result<&str, String> {
    simdutf8::basic::from_utf8(line).map_err(|_| match std::str::from_utf8(line) {
        Err(e) => utf8_reason(&e),
        Ok(_) => "invalid UTF-8".to_string(), // the validators agree; kept total
    })
}

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
    match std::str::from_utf8(line) {
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
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object of an unexpected shape",
    };
    format!("valid JSON but {kind}, not an event object")
}

pub(crate) fn describe_json_error(e: &serde_json::Error) -> String {
    let msg = e.to_string();
    // serde_json appends " at line L column C"; the caller reports the position itself.
    match msg.rfind(" at line ") {
        Some(i) => msg[..i].to_string(),
        None => msg,
    }
}
