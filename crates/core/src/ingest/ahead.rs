//! Lines parsed ahead of their turn (AWTL, Claude Code, Agents SDK and smolagents lines, whose
//! parse depends on the line alone): a shell with threads parses the next chunk's lines
//! ([`PreparedChunk::new`], pure) while the ingestor files the previous chunk's, then feeds the
//! chunk with its parses ([`crate::Ingestor::feed_prepared`]). The ingestor still splits,
//! counts and routes every line itself; where a line it routes is one the chunk parsed (the
//! same bytes: the same address in the chunk, the same length), it takes that parse instead of
//! parsing again. A parse depends on the line's text alone, so the trace is the same byte for
//! byte with or without them, whatever the chunking (tested).

use super::formats::{awtl, claude_code, openai_agents, smolagents};
use super::lines::strip_cr;
use crate::model::Format;

/// A line's parse made ahead, by the reader of its format: an adapter takes the parse of its
/// own format, and the ingestor pushes the line itself otherwise (or when the adapter needs the
/// line's text: an Agents SDK span exported before)
/// ([`super::formats::JsonlAdapter::push_parsed`]). An AWTL line's parse (a whole step) is held
/// inline, not boxed: an allocation a line, freed on another thread, would cost more than the
/// room a Claude Code line's parse leaves unused.
#[allow(clippy::large_enum_variant)]
pub enum LineParse {
    Awtl(Result<awtl::Parsed, String>),
    ClaudeCode(Result<claude_code::Parsed, String>),
    OpenaiAgents(Result<openai_agents::Parsed, String>),
    Smolagents(Result<smolagents::Parsed, String>),
}

impl LineParse {
    /// The formats whose lines are parsed ahead.
    pub const FORMATS: [Format; 4] =
        [Format::Awtl, Format::ClaudeCode, Format::OpenaiAgents, Format::Smolagents];
}

/// A chunk of input and the parses of its complete lines (those between two line feeds of the
/// chunk; the first and last pieces may continue lines of other chunks and are left to the
/// ingestor). It owns its bytes, so the parses stay those of the bytes fed.
pub struct PreparedChunk {
    bytes: Vec<u8>,
    len: usize,
    lines: Vec<AheadLine>,
}

struct AheadLine {
    /// The line's address in the chunk and its length without the line end.
    at: usize,
    len: usize,
    parsed: Option<LineParse>,
}

impl PreparedChunk {
    /// `buf[..len]`, its complete lines parsed as lines of `format` when it is one of
    /// [`LineParse::FORMATS`] (the caller knows the input's format:
    /// [`crate::Loader::parses_ahead`]); otherwise no line is parsed and the chunk feeds as
    /// [`crate::Ingestor::feed`] would.
    pub fn new(buf: Vec<u8>, len: usize, format: Option<Format>) -> PreparedChunk {
        let len = len.min(buf.len());
        let mut lines = Vec::new();
        let parse: Option<fn(&str) -> LineParse> = match format {
            Some(Format::Awtl) => Some(|l| LineParse::Awtl(awtl::parse(l))),
            Some(Format::ClaudeCode) => Some(|l| LineParse::ClaudeCode(claude_code::parse(l))),
            Some(Format::OpenaiAgents) => {
                Some(|l| LineParse::OpenaiAgents(openai_agents::parse(l)))
            }
            Some(Format::Smolagents) => Some(|l| LineParse::Smolagents(smolagents::parse(l))),
            _ => None,
        };
        if let Some(parse) = parse {
            let bytes = &buf[..len];
            // Sized once: a parse is a whole step, and growing the list would copy them all.
            lines.reserve_exact(memchr::memchr_iter(b'\n', bytes).count());
            let mut ends = memchr::memchr_iter(b'\n', bytes);
            if let Some(mut start) = ends.next().map(|i| i + 1) {
                for end in ends {
                    let (line, _) = strip_cr(&bytes[start..end]);
                    start = end + 1;
                    if super::is_blank(line) {
                        continue;
                    }
                    // A line that is not UTF-8 is quarantined by the ingestor, unparsed.
                    let Ok(text) = super::line_text(line) else { continue };
                    lines.push(AheadLine {
                        at: line.as_ptr() as usize,
                        len: line.len(),
                        parsed: Some(parse(text)),
                    });
                }
            }
        }
        PreparedChunk { bytes: buf, len, lines }
    }

    /// The chunk's bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes[..self.len]
    }

    /// How many of its lines were parsed ahead.
    pub fn parsed_lines(&self) -> usize {
        self.lines.len()
    }

    /// The buffer back, to be filled again.
    pub fn into_buffer(self) -> Vec<u8> {
        self.bytes
    }

    /// The chunk's bytes and its parses, for the ingestor to take while it feeds the bytes.
    pub(super) fn split(&mut self) -> (&[u8], Ahead) {
        let bytes = &self.bytes[..self.len];
        let start = bytes.as_ptr() as usize;
        let lines = std::mem::take(&mut self.lines);
        (bytes, Ahead { lines, next: 0, start, end: start + bytes.len() })
    }
}

/// The parses of the chunk being fed, taken in order as its lines are routed.
#[derive(Default)]
pub(super) struct Ahead {
    lines: Vec<AheadLine>,
    next: usize,
    /// The chunk's address range: a line from elsewhere (held bytes, a decoder's output, the
    /// splitter's carry of a line cut by the chunk) was not parsed ahead.
    start: usize,
    end: usize,
}

impl Ahead {
    /// The parse of `line` if it is a line of the chunk parsed ahead: the same address and
    /// length. Lines come in the chunk's order, so the ones passed are skipped for good.
    pub(super) fn take(&mut self, line: &[u8]) -> Option<LineParse> {
        let at = line.as_ptr() as usize;
        if at < self.start || at >= self.end {
            return None;
        }
        while let Some(l) = self.lines.get_mut(self.next) {
            if l.at > at {
                return None;
            }
            self.next += 1;
            if l.at == at {
                return if l.len == line.len() { l.parsed.take() } else { None };
            }
        }
        None
    }
}
