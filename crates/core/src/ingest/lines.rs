//! Splits a byte stream, fed in chunks, into lines with their 1-based number and byte offset.
//!
//! A line is the bytes between `\n` separators, without the `\n` and one trailing `\r`; a last
//! segment without `\n` is a line when non-empty. Only a line that spans chunks is copied.

/// Incremental line splitter.
pub struct LineSplitter {
    /// The start of a line that began in an earlier chunk.
    pending: Vec<u8>,
    /// Offset of the current line's first byte in the stream.
    line_start: u64,
    next_line: u32,
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
        LineSplitter { pending: Vec::new(), line_start: offset, next_line: 1 }
    }

    /// Feeds bytes; calls `on_line(line, number, offset)` for each line completed by them.
    pub fn push(&mut self, mut bytes: &[u8], mut on_line: impl FnMut(&[u8], u32, u64)) {
        while let Some(i) = memchr::memchr(b'\n', bytes) {
            let len = if self.pending.is_empty() {
                on_line(strip_cr(&bytes[..i]), self.next_line, self.line_start);
                i
            } else {
                self.pending.extend_from_slice(&bytes[..i]);
                on_line(strip_cr(&self.pending), self.next_line, self.line_start);
                let len = self.pending.len();
                self.pending.clear();
                len
            };
            self.line_start += len as u64 + 1;
            self.next_line = self.next_line.saturating_add(1);
            bytes = &bytes[i + 1..];
        }
        self.pending.extend_from_slice(bytes);
    }

    /// Ends the stream: a non-empty last segment without `\n` is a line. Its bytes are kept
    /// whole: a final `\r` there is not part of a line end (no `\n` follows), so it stays.
    pub fn finish(&mut self, mut on_line: impl FnMut(&[u8], u32, u64)) {
        if !self.pending.is_empty() {
            let line = std::mem::take(&mut self.pending);
            on_line(&line, self.next_line, self.line_start);
        }
    }
}

fn strip_cr(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(chunks: &[&[u8]]) -> Vec<(Vec<u8>, u32, u64)> {
        let mut s = LineSplitter::new();
        let mut out = Vec::new();
        for c in chunks {
            s.push(c, |l, n, o| out.push((l.to_vec(), n, o)));
        }
        s.finish(|l, n, o| out.push((l.to_vec(), n, o)));
        out
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
}
