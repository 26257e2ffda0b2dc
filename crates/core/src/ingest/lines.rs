//! Splits a byte stream, fed in chunks, into lines with their 1-based number and byte offset.
//!
//! A line is the bytes between `\n` separators, without the `\n` and one trailing `\r`; a last
//! segment without `\n` is a line when non-empty. Only a line that spans chunks is copied, and
//! only up to the longest line kept whole (`max_line`): of a longer line the first `max_line`
//! bytes are kept and the rest is counted, so memory never grows with one endless line.
//! Line numbers are 64-bit: they never saturate.

/// How a line ended in the stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineEnd {
    /// `\n`.
    Lf,
    /// `\r\n` (the `\r` is not part of the line).
    CrLf,
    /// The end of the input, without a newline.
    Eof,
}

impl LineEnd {
    /// The terminator's bytes, as they were in the stream.
    pub fn bytes(self) -> &'static [u8] {
        match self {
            LineEnd::Lf => b"\n",
            LineEnd::CrLf => b"\r\n",
            LineEnd::Eof => b"",
        }
    }
}

/// One line of the stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Line<'a> {
    /// The line's bytes (without its terminator); for a line longer than the splitter's
    /// `max_line`, only its first `max_line` bytes.
    pub bytes: &'a [u8],
    /// 1-based line number.
    pub no: u64,
    /// Offset of the line's first byte in the stream.
    pub offset: u64,
    pub end: LineEnd,
    /// The line's full length without its terminator (more than `bytes.len()` when cut).
    pub len: u64,
}

impl Line<'_> {
    /// Whether the line was longer than the longest line kept whole.
    pub fn is_cut(&self) -> bool {
        self.len > self.bytes.len() as u64
    }
}

/// Incremental line splitter.
pub struct LineSplitter {
    /// The start of a line that began in an earlier chunk (at most `max_line` bytes of it).
    pending: Vec<u8>,
    /// The full length of the pending line so far (beyond `pending` when cut).
    pending_len: u64,
    /// The last byte of a cut pending line (to tell a `\r\n` ending).
    cut_last: u8,
    /// Offset of the current line's first byte in the stream.
    line_start: u64,
    next_line: u64,
    max_line: usize,
}

impl Default for LineSplitter {
    fn default() -> Self {
        LineSplitter::new()
    }
}

impl LineSplitter {
    pub fn new() -> LineSplitter {
        LineSplitter::starting_at(0)
    }

    /// A splitter whose first line starts at `offset` (after a skipped byte-order mark).
    pub fn starting_at(offset: u64) -> LineSplitter {
        LineSplitter::resume(1, offset, usize::MAX)
    }

    /// A splitter whose first line is number `line`, at `offset`, keeping at most `max_line`
    /// bytes of any line.
    pub fn resume(line: u64, offset: u64, max_line: usize) -> LineSplitter {
        LineSplitter {
            pending: Vec::new(),
            pending_len: 0,
            cut_last: 0,
            line_start: offset,
            next_line: line,
            max_line,
        }
    }

    /// The number and offset of the line that the next byte belongs to.
    pub fn position(&self) -> (u64, u64) {
        (self.next_line, self.line_start)
    }

    /// Feeds bytes; calls `on_line` for each line completed by them.
    pub fn push(&mut self, mut bytes: &[u8], mut on_line: impl FnMut(Line<'_>)) {
        while let Some(i) = memchr::memchr(b'\n', bytes) {
            let len = if self.pending_len == 0 {
                let (line, end) = strip_cr(&bytes[..i]);
                let kept = &line[..line.len().min(self.max_line)];
                on_line(self.line(kept, end, line.len() as u64));
                i as u64
            } else {
                self.extend(&bytes[..i]);
                let len = self.pending_len;
                let pending = std::mem::take(&mut self.pending);
                let last = if len > pending.len() as u64 { Some(self.cut_last) } else { None };
                match last {
                    // Cut: the `\r` (if any) was among the bytes not kept.
                    Some(b) => {
                        let end = if b == b'\r' { LineEnd::CrLf } else { LineEnd::Lf };
                        let full = len - u64::from(end == LineEnd::CrLf);
                        let kept = &pending[..pending.len().min(full as usize)];
                        on_line(self.line(kept, end, full));
                    }
                    None => {
                        let (line, end) = strip_cr(&pending);
                        on_line(self.line(line, end, line.len() as u64));
                    }
                }
                self.pending = pending;
                self.pending.clear();
                self.pending_len = 0;
                len
            };
            self.line_start += len + 1;
            self.next_line += 1;
            bytes = &bytes[i + 1..];
        }
        self.extend(bytes);
    }

    fn line<'a>(&self, bytes: &'a [u8], end: LineEnd, len: u64) -> Line<'a> {
        Line { bytes, no: self.next_line, offset: self.line_start, end, len }
    }

    fn extend(&mut self, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        let room = self.max_line.saturating_sub(self.pending.len());
        self.pending.extend_from_slice(&bytes[..room.min(bytes.len())]);
        self.pending_len += bytes.len() as u64;
        self.cut_last = bytes[bytes.len() - 1];
    }

    /// Ends the stream: a non-empty last segment without `\n` is a line. Its bytes are kept
    /// whole: a final `\r` there is not part of a line end (no `\n` follows), so it stays.
    pub fn finish(&mut self, mut on_line: impl FnMut(Line<'_>)) {
        if self.pending_len > 0 {
            let line = std::mem::take(&mut self.pending);
            let len = self.pending_len;
            self.pending_len = 0;
            on_line(self.line(&line, LineEnd::Eof, len));
        }
    }

    /// Drops the line in progress (the input stopped at a limit inside it): its number and
    /// offset, if one was in progress.
    pub fn abandon(&mut self) -> Option<(u64, u64)> {
        let had = self.pending_len > 0;
        self.pending = Vec::new();
        self.pending_len = 0;
        had.then_some((self.next_line, self.line_start))
    }
}

pub(crate) fn strip_cr(line: &[u8]) -> (&[u8], LineEnd) {
    match line.strip_suffix(b"\r") {
        Some(l) => (l, LineEnd::CrLf),
        None => (line, LineEnd::Lf),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type Out = Vec<(Vec<u8>, u64, u64, LineEnd, u64)>;

    fn split_with(max: usize, chunks: &[&[u8]]) -> Out {
        let mut s = LineSplitter::resume(1, 0, max);
        let mut out = Vec::new();
        for c in chunks {
            s.push(c, |l| out.push((l.bytes.to_vec(), l.no, l.offset, l.end, l.len)));
        }
        s.finish(|l| out.push((l.bytes.to_vec(), l.no, l.offset, l.end, l.len)));
        out
    }

    fn split(chunks: &[&[u8]]) -> Vec<(Vec<u8>, u64, u64)> {
        split_with(usize::MAX, chunks).into_iter().map(|(b, n, o, _, _)| (b, n, o)).collect()
    }

    #[test]
    fn lines_offsets_and_crlf_survive_any_chunking() {
        let input = b"ab\r\n\ncd\nlast";
        let whole = split(&[input]);
        assert_eq!(
            whole,
            vec![
                (b"ab".to_vec(), 1, 0),
                (b"".to_vec(), 2, 4),
                (b"cd".to_vec(), 3, 5),
                (b"last".to_vec(), 4, 8)
            ]
        );
        for cut in 0..input.len() {
            assert_eq!(split(&[&input[..cut], &input[cut..]]), whole, "cut at {cut}");
        }
        let bytes: Vec<&[u8]> = input.chunks(1).collect();
        assert_eq!(split(&bytes), whole);
    }

    #[test]
    fn a_trailing_newline_makes_no_extra_line() {
        assert_eq!(split(&[b"a\n"]), vec![(b"a".to_vec(), 1, 0)]);
        assert!(split(&[b""]).is_empty());
    }

    #[test]
    fn a_final_cr_without_newline_stays_in_the_line() {
        assert_eq!(split(&[b"a\r\nb\r"]), vec![(b"a".to_vec(), 1, 0), (b"b\r".to_vec(), 2, 3)]);
    }

    #[test]
    fn a_long_line_keeps_its_first_bytes_and_its_full_length_in_any_chunking() {
        let input = b"abcdefgh\r\nxy\n0123456789";
        let whole = split_with(4, &[input]);
        assert_eq!(
            whole,
            vec![
                (b"abcd".to_vec(), 1, 0, LineEnd::CrLf, 8),
                (b"xy".to_vec(), 2, 10, LineEnd::Lf, 2),
                (b"0123".to_vec(), 3, 13, LineEnd::Eof, 10),
            ]
        );
        for cut in 0..input.len() {
            assert_eq!(split_with(4, &[&input[..cut], &input[cut..]]), whole, "cut at {cut}");
        }
        let bytes: Vec<&[u8]> = input.chunks(1).collect();
        assert_eq!(split_with(4, &bytes), whole);
    }

    #[test]
    fn line_numbers_go_past_u32() {
        let mut s = LineSplitter::resume(u64::from(u32::MAX), 7, usize::MAX);
        let mut out = Vec::new();
        s.push(b"\n\nx\n", |l| out.push((l.no, l.offset)));
        assert_eq!(out, vec![(4_294_967_295, 7), (4_294_967_296, 8), (4_294_967_297, 9)]);
    }
}
