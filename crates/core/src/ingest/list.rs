//! A file that is a top-level JSON list of records (a `json.dump` of a dataset: chat records,
//! TRAJERRBENCH or Who&When items, agent trajectories), read element by element: each record
//! becomes a trajectory as soon as its closing bracket is read,
//! as a JSONL record does at its line's end, instead of once the whole document is parsed. So
//! the first conversation of a 50 MB list can be shown at once, and a list larger than the
//! document limit (or than the longest line kept whole, when it is written on one line) is
//! still read.
//!
//! The scanner follows only strings and brackets; each element's bytes are parsed on their own
//! when it ends, so a damaged element costs only itself. Lines keep their accounting (every
//! line is parsed, blank or quarantined): a line that holds any byte of a damaged element is
//! quarantined, with the element's reason; any other line with content is parsed. A line's
//! fate is known once every element touching it has ended, so a line inside an open element is
//! held until then (at most that element's size, which is bounded).
//!
//! The file is read this way only when its first value is a list whose first element is, on
//! its own, a record of a format whose records are independent documents, or an event of a
//! line format (then every element goes to that format's reader as a line would; any other
//! object to the generic fallback's): see `docs/formats.md`. That element decides the format
//! of every element. A list of one trajectory's events or messages that a document format
//! reads whole (OpenHands, LangSmith, plain messages) is not read this way. After the
//! list, further top-level lists and objects are read the same way (a JSONL of lists), each
//! object as one record.

use std::collections::VecDeque;

use serde_json::Value;

use super::formats::{self, chat};
use super::lines::{Line, LineEnd};
use super::{limits, line_text, line_u32, sniff};
use crate::model::{Format, SourceLoc, Trajectory};

/// How a line read in list mode is accounted.
#[derive(Debug)]
pub(crate) enum Fate {
    Blank,
    Parsed,
    /// It holds a byte of a damaged element: the reason, and whether the element was cut short
    /// by the end of the input.
    Quarantined {
        reason: String,
        cut_short: bool,
        /// For a line over the longest kept whole: the damaged element's offset and first
        /// bytes (what to keep of the line is the element, not the line's start).
        element: Option<(u64, Vec<u8>)>,
    },
}

/// A complete line whose fate waits on an element that has not ended.
pub(crate) struct Held {
    pub no: u64,
    pub offset: u64,
    pub bytes: Vec<u8>,
    pub end: LineEnd,
    /// Longer than the longest line kept whole (`bytes` is its start).
    pub cut: bool,
}

/// A damaged element: the lines it spans and why it could not be read.
struct Damaged {
    first: u64,
    last: u64,
    reason: String,
    cut_short: bool,
    /// Its offset and first bytes (at most `limits::QUARANTINE_KEEP`).
    offset: u64,
    head: Vec<u8>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// An object, a list or a string: ends when its brackets balance (or its string closes).
    Nested,
    /// A number, `true`, `null` or stray bytes: ends before the next delimiter.
    Bare,
}

/// The element being read.
struct Elem {
    line: u64,
    offset: u64,
    /// Its position in its top-level list; `None` for a top-level value (not in a list).
    index: Option<usize>,
    kind: Kind,
    depth: u32,
    in_string: bool,
    escape: bool,
    /// Longer than the longest element kept whole: its bytes are no longer kept.
    cut: bool,
}

impl Elem {
    /// Where the element is, as its reasons name it.
    fn at(&self) -> String {
        match self.index {
            Some(i) => format!("list element [{i}] (line {}, byte {})", self.line, self.offset),
            None => format!("the value at line {}, byte {}", self.line, self.offset),
        }
    }

    /// The reason of an element longer than the longest kept whole.
    fn too_long(&self, max_elem: usize) -> String {
        let limit = limits::size_text(max_elem as u64);
        format!("{} is longer than the limit of {limit} kept whole", self.at())
    }
}

/// What the first element said, while the file is only probed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Probe {
    /// Not decided yet.
    Open,
    /// The first value is a list whose first element is a record: read it element by element.
    List,
    /// Anything else: the file is read the usual way.
    No,
}

pub(crate) struct ListStream {
    /// Line number and offset of the next byte.
    line: u64,
    offset: u64,
    /// Whether a non-whitespace byte was seen.
    started: bool,
    /// Inside a top-level list, and the index its next element gets.
    in_list: bool,
    index: usize,
    elem: Option<Elem>,
    buf: Vec<u8>,
    max_elem: usize,
    probe: Probe,
    /// What reads the elements: the format the first element decided (and, for a line
    /// format, its adapter).
    reader: Reader,
    /// Records read and not handed over yet: each with its element's offset.
    read: Vec<(u64, Trajectory)>,
    /// Notes on records read (a gold step out of range), for the trace's `error`.
    notes: Vec<String>,
    damaged: VecDeque<Damaged>,
    held: VecDeque<Held>,
}

impl ListStream {
    /// A stream whose first byte is at `offset` (after a byte-order mark), keeping elements of
    /// at most `max_elem` bytes.
    pub(crate) fn new(offset: u64, max_elem: usize, forced: Option<Format>) -> ListStream {
        ListStream {
            line: 1,
            offset,
            started: false,
            in_list: false,
            index: 0,
            elem: None,
            buf: Vec::new(),
            max_elem,
            probe: Probe::Open,
            reader: Reader { forced, format: None, adapter: None, seq: 0 },
            read: Vec::new(),
            notes: Vec::new(),
            damaged: VecDeque::new(),
            held: VecDeque::new(),
        }
    }

    pub(crate) fn probe(&self) -> Probe {
        self.probe
    }

    /// The records' format (decided by the first element).
    pub(crate) fn format(&self) -> Format {
        self.reader.format.unwrap_or(Format::Chat)
    }

    /// The trajectories a line format's adapter made of the elements (none settle early).
    pub(crate) fn finish_adapter(&mut self) -> Vec<Trajectory> {
        self.reader.adapter.take().map(|a| a.finish()).unwrap_or_default()
    }

    /// Moves the stream's first byte (a byte-order mark was skipped before any was fed).
    pub(crate) fn start_at(&mut self, offset: u64) {
        self.offset = offset;
    }

    /// Records read since the last call, each with its element's offset.
    pub(crate) fn take_read(&mut self) -> Vec<(u64, Trajectory)> {
        std::mem::take(&mut self.read)
    }

    /// Feeds the next bytes of the stream.
    pub(crate) fn push(&mut self, bytes: &[u8]) {
        let mut i = 0;
        while i < bytes.len() {
            if self.probe == Probe::No {
                return;
            }
            if self.elem.is_some() {
                i = self.in_elem(bytes, i);
                continue;
            }
            let b = bytes[i];
            match b {
                b'\n' => self.newline(),
                b' ' | b'\t' | b'\r' => {}
                b'[' if !self.in_list => {
                    self.started = true;
                    self.in_list = true;
                    self.index = 0;
                }
                _ if !self.started => {
                    // The first value is not a list.
                    self.started = true;
                    self.probe = Probe::No;
                }
                b',' if self.in_list => {}
                b']' if self.in_list => self.in_list = false,
                _ => {
                    self.start_elem(b);
                    continue; // the element consumes its first byte
                }
            }
            self.offset += 1;
            i += 1;
        }
    }

    fn newline(&mut self) {
        self.line += 1;
    }

    fn start_elem(&mut self, first: u8) {
        let index = self.in_list.then_some(self.index);
        let kind = match first {
            b'{' | b'[' | b'"' => Kind::Nested,
            _ => Kind::Bare,
        };
        self.buf.clear();
        self.elem = Some(Elem {
            line: self.line,
            offset: self.offset,
            index,
            kind,
            depth: 0,
            in_string: false,
            escape: false,
            cut: false,
        });
    }

    /// Reads element bytes from `bytes[i..]`; returns where it stopped (the element ended, or
    /// the bytes did).
    fn in_elem(&mut self, bytes: &[u8], start: usize) -> usize {
        let e = self.elem.as_mut().expect("an element is open");
        let mut i = start;
        let mut ended = false;
        match e.kind {
            Kind::Bare => {
                // The first byte always belongs to it (so a stray `}` is an element of its own).
                if i == start && self.buf.is_empty() && !e.cut {
                    i += 1;
                }
                while i < bytes.len() {
                    if matches!(
                        bytes[i],
                        b' ' | b'\t' | b'\r' | b'\n' | b',' | b']' | b'}' | b'[' | b'{' | b'"'
                    ) {
                        ended = true;
                        break;
                    }
                    i += 1;
                }
            }
            Kind::Nested => {
                while i < bytes.len() {
                    if e.escape {
                        e.escape = false;
                        i += 1;
                        continue;
                    }
                    if e.in_string {
                        match memchr::memchr2(b'"', b'\\', &bytes[i..]) {
                            None => i = bytes.len(),
                            Some(k) => {
                                i += k;
                                if bytes[i] == b'\\' {
                                    e.escape = true;
                                } else {
                                    e.in_string = false;
                                    if e.depth == 0 {
                                        i += 1;
                                        ended = true;
                                        break;
                                    }
                                }
                                i += 1;
                            }
                        }
                        continue;
                    }
                    match bytes[i] {
                        b'"' => e.in_string = true,
                        b'{' | b'[' => e.depth += 1,
                        b'}' | b']' => {
                            e.depth = e.depth.saturating_sub(1);
                            if e.depth == 0 {
                                i += 1;
                                ended = true;
                                break;
                            }
                        }
                        _ => {}
                    }
                    i += 1;
                }
            }
        }
        let taken = &bytes[start..i];
        self.line += memchr::memchr_iter(b'\n', taken).count() as u64;
        self.offset += taken.len() as u64;
        if !e.cut {
            if self.buf.len() + taken.len() > self.max_elem {
                e.cut = true;
                // Its first bytes stay, for the quarantine of a line longer than kept whole.
                let room = limits::QUARANTINE_KEEP.saturating_sub(self.buf.len());
                self.buf.extend_from_slice(&taken[..room.min(taken.len())]);
                self.buf.truncate(limits::QUARANTINE_KEEP);
                self.buf.shrink_to_fit();
            } else {
                self.buf.extend_from_slice(taken);
            }
        }
        if ended {
            self.end_elem(None);
        }
        i
    }

    /// The open element ended (or, with `short`, the input ended inside it, for that reason).
    fn end_elem(&mut self, short: Option<&str>) {
        let Some(e) = self.elem.take() else { return };
        let at = e.at();
        let result = match (short, e.cut) {
            (Some(why), _) => Err(format!("{at} {why}")),
            (None, true) => Err(e.too_long(self.max_elem)),
            (None, false) => {
                read_records(&self.buf, &e, &mut self.reader).map_err(|why| format!("{at} {why}"))
            }
        };
        if self.probe == Probe::Open {
            self.probe = if result.is_ok() && e.index.is_some() { Probe::List } else { Probe::No };
        }
        match result {
            Ok(mut ts) => {
                self.notes.extend(ts.iter_mut().filter_map(formats::check_gold));
                self.read.extend(ts.into_iter().map(|t| (e.offset, t)));
            }
            Err(reason) => self.damaged.push_back(Damaged {
                first: e.line,
                // The element's last byte is on the current line (or, ended by a delimiter or
                // the input, on the line before a newline that ended it).
                last: self.line,
                reason,
                cut_short: short.is_some(),
                offset: e.offset,
                head: self.buf[..self.buf.len().min(limits::QUARANTINE_KEEP)].to_vec(),
            }),
        }
        if e.index.is_some() {
            self.index += 1;
        }
        self.buf.clear();
        if self.buf.capacity() > 1 << 20 {
            self.buf = Vec::new();
        }
    }

    /// The notes on the records read so far (see [`formats::check_gold`]).
    pub(crate) fn take_notes(&mut self) -> Vec<String> {
        std::mem::take(&mut self.notes)
    }

    /// The input ended (`stopped`: a limit stopped it): an open element is damaged; returns a
    /// note for a list left without its closing bracket.
    pub(crate) fn finish(&mut self, stopped: bool) -> Option<String> {
        let why = if stopped {
            "was not read to its end: reading stopped inside it"
        } else {
            "is cut short: the input ends inside it"
        };
        self.end_elem(Some(why));
        (self.in_list && !stopped).then(|| {
            "the file's JSON list has no closing `]`: the file may be cut short (every \
             element before its end was read)"
                .to_string()
        })
    }

    /// A complete line: its fate, or `None` when it is held (its fate waits on an open element).
    pub(crate) fn on_line(&mut self, line: &Line<'_>) -> Option<Fate> {
        if !self.held.is_empty() || self.waits(line.no) {
            self.held.push_back(Held {
                no: line.no,
                offset: line.offset,
                bytes: line.bytes.to_vec(),
                end: line.end,
                cut: line.is_cut(),
            });
            return None;
        }
        Some(self.fate(line.no, line.bytes, line.is_cut()))
    }

    /// Held lines whose fate is known now, in order.
    pub(crate) fn release(&mut self) -> Vec<(Held, Fate)> {
        let mut out = Vec::new();
        while let Some(h) = self.held.front() {
            if self.waits(h.no) {
                break;
            }
            let h = self.held.pop_front().expect("checked");
            let fate = self.fate(h.no, &h.bytes, h.cut);
            out.push((h, fate));
        }
        out
    }

    /// Whether line `no` touches the open element, whose fate is not known yet (an element
    /// over the limit is known to be damaged).
    fn waits(&self, no: u64) -> bool {
        self.elem.as_ref().is_some_and(|e| e.line <= no && !e.cut)
    }

    fn fate(&mut self, no: u64, bytes: &[u8], cut: bool) -> Fate {
        while self.damaged.front().is_some_and(|d| d.last < no) {
            self.damaged.pop_front();
        }
        if let Some(d) = self.damaged.front().filter(|d| d.first <= no) {
            let element = cut.then(|| (d.offset, d.head.clone()));
            return Fate::Quarantined { reason: d.reason.clone(), cut_short: d.cut_short, element };
        }
        if let Some(e) = self.elem.as_ref().filter(|e| e.cut && e.line <= no) {
            let reason = e.too_long(self.max_elem);
            let element = cut.then(|| (e.offset, self.buf.clone()));
            return Fate::Quarantined { reason, cut_short: false, element };
        }
        match bytes.iter().all(u8::is_ascii_whitespace) {
            true => Fate::Blank,
            false => Fate::Parsed,
        }
    }
}

/// How the elements of a list are read.
struct Reader {
    /// The format the caller named, if any.
    forced: Option<Format>,
    /// The format the first element decided.
    format: Option<Format>,
    /// For a line format: its adapter, fed each element as a line.
    adapter: Option<Box<dyn formats::JsonlAdapter>>,
    seq: u64,
}

/// An element's bytes as a record (or the records of one document, for a format whose document
/// holds several): of the format the first element decided (deciding it, for the first). In a
/// list, one without an id is named after its position (`chat-2`, as the whole document's
/// reading names a chat record); a top-level object after its line. For a line format (a list
/// of AWTL, OTel or generic events) the element goes to the format's adapter as a line would,
/// and its trajectories come at the end.
fn read_records(bytes: &[u8], e: &Elem, reader: &mut Reader) -> Result<Vec<Trajectory>, String> {
    let text = line_text(bytes)?;
    if let Some(adapter) = reader.adapter.as_mut() {
        let loc = SourceLoc { line: line_u32(e.line), offset: e.offset, path: Box::default() };
        reader.seq += 1;
        let f = reader.format.unwrap_or(Format::Generic);
        return adapter
            .push_line(text, loc, reader.seq - 1)
            .map(|()| Vec::new())
            .map_err(|why| format!("is not a {f} event: {why}"));
    }
    let value = formats::parse_value(text).map_err(|reason| {
        match crate::json::from_str::<serde::de::IgnoredAny>(text) {
            Err(err) if err.line() > 1 => format!(
                "is not valid JSON: {} (line {}, column {})",
                super::describe_json_error(&err),
                e.line + err.line() as u64 - 1,
                err.column()
            ),
            // On the element's first line: where in the file, not in the element.
            Err(err) if err.column() > 0 => format!(
                "is not valid JSON: {} (byte {})",
                super::describe_json_error(&err),
                e.offset + err.column() as u64 - 1
            ),
            _ => format!("is not valid JSON: {reason}"),
        }
    })?;
    let f = match reader.format {
        Some(f) => f,
        None => {
            let f = record_format(&value, reader.forced)
                .ok_or("is not a record of a format read one element at a time")?;
            reader.format = Some(f);
            if f.is_jsonl() {
                reader.adapter = Some(formats::jsonl_adapter(f));
                return read_records(bytes, e, reader);
            }
            f
        }
    };
    let mut ts = match (f, e.index) {
        // The path of a record's messages in the list (`$[3].messages[0]`).
        (Format::Chat, Some(i)) => chat::list_element(value, i).map(|t| vec![t]),
        _ => formats::from_document(f, value),
    }
    .map_err(|why| format!("is not a {f} record: {why}"))?;
    for t in &mut ts {
        if t.id.is_empty() {
            t.id = match e.index {
                Some(i) => format!("{f}-{}", i + 1),
                None => format!("line-{}", e.line),
            };
        }
        for s in &mut t.steps {
            s.loc.line = line_u32(e.line);
            s.loc.offset = e.offset;
        }
    }
    Ok(ts)
}

/// The format of a list's first element: a record of a format whose records are independent
/// documents, or an event of a line format (AWTL, OTel, Claude Code, Codex, or any object the
/// generic fallback reads), whose adapter then reads every element as a line. `None` for an
/// element that is one event or message of a trajectory a document format makes of the whole
/// list (OpenHands events, LangSmith runs, Agents SDK spans, Langfuse observations, plain
/// messages), or no object.
fn record_format(v: &Value, forced: Option<Format>) -> Option<Format> {
    let o = v.as_object()?;
    let as_list = sniff::sniff_document(&Value::Array(vec![v.clone()]));
    if matches!(
        as_list,
        Some(Format::Openhands | Format::Langsmith | Format::OpenaiAgents | Format::MiniSweAgent)
    ) || (as_list == Some(Format::Langfuse) && !super::formats::langfuse::is_trace(o))
    {
        return None;
    }
    if let Some(f) = forced.filter(|f| f.is_jsonl()) {
        return Some(f);
    }
    match forced.or_else(|| sniff::sniff_document(v)) {
        Some(
            f @ (Format::Chat
            | Format::Trajerrbench
            | Format::WhoAndWhen
            | Format::SweAgent
            | Format::MiniSweAgent
            | Format::Tau2
            | Format::Inspect
            | Format::Openhands
            | Format::Atif
            | Format::Langfuse
            | Format::Smolagents),
        ) => Some(f),
        Some(_) => None,
        // No document's record: an event of a line format, as a JSONL line of it would be.
        None => Some(sniff::sniff_jsonl_line(v)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(id: &str) -> String {
        format!(
            r#"{{"id":"{id}","messages":[{{"role":"user","content":"a \"quoted\" [x]"}},{{"role":"assistant","content":"b"}}]}}"#
        )
    }

    #[test]
    fn elements_end_where_their_brackets_balance_in_any_chunking() {
        let text = format!("[{}, {},\n {}]", record("a"), record("b"), record("c"));
        for cut in 0..text.len() {
            let mut s = ListStream::new(0, usize::MAX, None);
            s.push(&text.as_bytes()[..cut]);
            s.push(&text.as_bytes()[cut..]);
            assert_eq!(s.finish(false), None);
            let ids: Vec<String> = s.take_read().into_iter().map(|(_, t)| t.id).collect();
            assert_eq!(ids, ["a", "b", "c"], "cut at {cut}");
            assert_eq!(s.probe(), Probe::List);
        }
    }

    #[test]
    fn a_file_not_starting_with_a_list_of_objects_is_not_taken() {
        for text in ["{\"id\":1}", "[1, 2]", "[[{\"messages\":3}]]", " \n x"] {
            let mut s = ListStream::new(0, usize::MAX, None);
            s.push(text.as_bytes());
            s.finish(false);
            assert_eq!(s.probe(), Probe::No, "{text}");
        }
    }
}
