//! The data-source layer: raw input bytes in, one decoded byte stream out, before any format
//! routing (as speedscope's `MaybeCompressedDataReader` does it). The container is decided by
//! its whole header, never by a file name:
//!
//! - gzip: a 10-byte header of `1f 8b 08`, reserved flag bits clear, a defined extra-flags
//!   value and operating system, and a decoder that produces bytes. A
//!   stream that fails before its first decompressed byte was no gzip: its bytes go on as text.
//! - zip (an Inspect `.eval` log): `PK\x03\x04` followed by a well-formed local file header
//!   (a known version and method, a name without control bytes). It is held whole (a zip is
//!   read from its end) and handed to the caller at the end.
//! - anything else: plain bytes.
//!
//! A leading UTF-8 byte-order mark is skipped here (line 1 then starts at offset 3). The byte
//! caps of [`Limits`] are enforced here: past one, the sink is told which limit stopped the
//! input, and nothing after it is passed on.

use std::io::Write as _;

use super::limits::{size_text, Limits};

/// Where the decoded stream goes (the line layer).
pub(crate) trait Sink {
    /// The container is decided (before any of its bytes are passed on).
    fn container(&mut self, c: Container);
    /// The stream began with a UTF-8 byte-order mark (3 bytes, not part of any line).
    fn bom(&mut self);
    /// The next decoded bytes.
    fn bytes(&mut self, bytes: &[u8]);
    /// A limit stopped the input: nothing more comes. `why` names the limit.
    fn stop(&mut self, why: String);
    /// Whether the sink has stopped reading (its own limit): nothing more is decoded.
    fn stopped(&self) -> bool;
}

/// What the input turned out to be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Container {
    Plain,
    Gzip,
    Zip,
}

/// Compressed bytes handed to the gzip decoder at a time, at fixed stream offsets whatever the
/// caller's chunking, so one slice of a highly compressed file never inflates into one huge
/// buffer and a damaged stream gives the same text before its damage however it was sliced.
const GZIP_STEP: usize = 64 * 1024;

/// Compressed bytes after which a gzip stream that produced nothing yet is taken as gzip for
/// good (its raw bytes are no longer held for a fall-back to text).
const GZIP_HOLD: u64 = 1024 * 1024;

const ZIP_MAGIC: &[u8; 4] = b"PK\x03\x04";
const ZIP_LOCAL_HEADER: usize = 30;
const BOM: &[u8] = b"\xEF\xBB\xBF";

pub(crate) struct Source {
    limits: Limits,
    state: State,
    /// Raw input bytes fed so far.
    bytes_in: u64,
    /// Decoded bytes passed on so far (a skipped BOM included).
    decoded: u64,
    /// The first decoded bytes, held until three are seen to tell a UTF-8 BOM.
    bom_hold: Vec<u8>,
    bom_checked: bool,
    container: Container,
    /// Damage in the container (a cut gzip stream), for the trace's error.
    error: Option<String>,
}

enum State {
    /// The first bytes, until the container is decided.
    Sniffing(Vec<u8>),
    Plain,
    Gzip(Box<Gzip>),
    /// A zip archive: every byte is kept for the end.
    Zip(Vec<u8>),
    /// A limit stopped the input, or the container is damaged: later bytes are only counted.
    Stopped,
}

struct Gzip {
    dec: flate2::write::MultiGzDecoder<Vec<u8>>,
    /// Compressed bytes short of a whole [`GZIP_STEP`] piece.
    pending: Vec<u8>,
    /// Every raw byte so far, while the decoder has produced nothing (see [`GZIP_HOLD`]).
    raw: Option<Vec<u8>>,
    /// Compressed bytes given to the decoder.
    consumed: u64,
    /// Decompressed bytes produced.
    produced: u64,
}

/// What the first bytes say, if they say enough.
fn decide(head: &[u8], at_end: bool) -> Option<Container> {
    let need_more = if at_end { Some(Container::Plain) } else { None };
    match head {
        [] => need_more,
        [0x1f] => need_more,
        [0x1f, 0x8b, rest @ ..] if rest.len() < 8 => match rest {
            // Known early: not deflate, or reserved flags set.
            [method, ..] if *method != 8 => Some(Container::Plain),
            [_, flags, ..] if flags & 0xE0 != 0 => Some(Container::Plain),
            _ => need_more,
        },
        // The whole 10-byte header: deflate, no reserved flags, a defined extra-flags value
        // and a defined operating system.
        [0x1f, 0x8b, method, flags, _, _, _, _, xfl, os, ..] => Some(
            if *method == 8
                && flags & 0xE0 == 0
                && matches!(xfl, 0 | 2 | 4)
                && matches!(os, 0..=13 | 255)
            {
                Container::Gzip
            } else {
                Container::Plain
            },
        ),
        _ if ZIP_MAGIC.starts_with(&head[..head.len().min(4)]) => zip_header(head).or(need_more),
        _ => Some(Container::Plain),
    }
}

/// A zip local file header: `None` while more bytes are needed.
fn zip_header(head: &[u8]) -> Option<Container> {
    if head.len() < ZIP_LOCAL_HEADER {
        return None;
    }
    let le16 = |at: usize| u16::from_le_bytes([head[at], head[at + 1]]);
    let version = le16(4);
    let flags = le16(6);
    let method = le16(8);
    let name_len = usize::from(le16(26));
    let plausible = version <= 63
        && flags & 0xF7B0 == 0 // bits the specification leaves unused or reserved
        && matches!(method, 0 | 8 | 9 | 12 | 14 | 93 | 95 | 98 | 99)
        && name_len > 0;
    if !plausible {
        return Some(Container::Plain);
    }
    let name = head.get(ZIP_LOCAL_HEADER..ZIP_LOCAL_HEADER + name_len)?;
    Some(if name.iter().all(|&b| b >= 0x20 && b != 0x7f) {
        Container::Zip
    } else {
        Container::Plain
    })
}

impl Source {
    pub(crate) fn new(limits: Limits) -> Source {
        Source {
            limits,
            state: State::Sniffing(Vec::new()),
            bytes_in: 0,
            decoded: 0,
            bom_hold: Vec::new(),
            bom_checked: false,
            container: Container::Plain,
            error: None,
        }
    }

    /// Raw input bytes fed so far.
    pub(crate) fn bytes_in(&self) -> u64 {
        self.bytes_in
    }

    /// Raw bytes that arrive after the input was stopped: counted, not read.
    pub(crate) fn count(&mut self, n: usize) {
        self.bytes_in += n as u64;
    }

    /// Decoded bytes passed on (or, for a zip, held) so far.
    pub(crate) fn decoded(&self) -> u64 {
        match &self.state {
            State::Zip(z) => z.len() as u64,
            _ => self.decoded,
        }
    }

    pub(crate) fn container(&self) -> Container {
        self.container
    }

    /// Feeds the next raw chunk.
    pub(crate) fn push(&mut self, chunk: &[u8], sink: &mut impl Sink) {
        self.bytes_in += chunk.len() as u64;
        match &mut self.state {
            State::Sniffing(head) => {
                head.extend_from_slice(chunk);
                if let Some(c) = decide(head, false) {
                    let head = std::mem::take(head);
                    self.start(c, &head, sink);
                }
            }
            State::Plain => self.plain(chunk, sink),
            State::Gzip(_) => self.gzip(chunk, sink),
            State::Zip(buf) => {
                if buf.len() as u64 + chunk.len() as u64 > self.limits.max_archive_bytes {
                    let why = format!(
                        "the zip archive is larger than the limit of {} held for reading",
                        size_text(self.limits.max_archive_bytes)
                    );
                    self.state = State::Stopped;
                    sink.stop(why);
                    return;
                }
                buf.extend_from_slice(chunk);
            }
            State::Stopped => {}
        }
    }

    fn start(&mut self, c: Container, head: &[u8], sink: &mut impl Sink) {
        self.container = c;
        sink.container(c);
        match c {
            Container::Plain => {
                self.state = State::Plain;
                self.plain(head, sink);
            }
            Container::Gzip => {
                self.state = State::Gzip(Box::new(Gzip {
                    dec: flate2::write::MultiGzDecoder::new(Vec::new()),
                    pending: Vec::new(),
                    raw: Some(Vec::new()),
                    consumed: 0,
                    produced: 0,
                }));
                self.gzip(head, sink);
            }
            Container::Zip => {
                self.state = State::Zip(Vec::new());
                self.bytes_in -= head.len() as u64; // counted again by push
                self.push(head, sink);
            }
        }
    }

    /// Decoded bytes: a leading UTF-8 BOM is skipped, everything else goes to the sink.
    fn plain(&mut self, mut bytes: &[u8], sink: &mut impl Sink) {
        self.decoded += bytes.len() as u64;
        if !self.bom_checked {
            let take = (BOM.len() - self.bom_hold.len()).min(bytes.len());
            self.bom_hold.extend_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
            if self.bom_hold.len() < BOM.len() && BOM.starts_with(&self.bom_hold) {
                return; // all of `bytes` is held
            }
            self.end_bom_check(sink);
        }
        if !bytes.is_empty() {
            sink.bytes(bytes);
        }
    }

    fn end_bom_check(&mut self, sink: &mut impl Sink) {
        self.bom_checked = true;
        let held = std::mem::take(&mut self.bom_hold);
        if held == BOM {
            sink.bom();
        } else if !held.is_empty() {
            sink.bytes(&held);
        }
    }

    /// Compressed input goes to the decoder in pieces of exactly [`GZIP_STEP`] bytes.
    fn gzip(&mut self, mut chunk: &[u8], sink: &mut impl Sink) {
        let State::Gzip(gz) = &mut self.state else { return };
        if let Some(raw) = gz.raw.as_mut() {
            raw.extend_from_slice(chunk);
        }
        if !gz.pending.is_empty() {
            let take = (GZIP_STEP - gz.pending.len()).min(chunk.len());
            gz.pending.extend_from_slice(&chunk[..take]);
            chunk = &chunk[take..];
            if gz.pending.len() < GZIP_STEP {
                return;
            }
            let piece = std::mem::take(&mut gz.pending);
            if !self.inflate(&piece, sink) {
                return;
            }
            let State::Gzip(gz) = &mut self.state else { return };
            gz.pending = piece;
            gz.pending.clear();
        }
        while chunk.len() >= GZIP_STEP {
            if sink.stopped() || !self.inflate(&chunk[..GZIP_STEP], sink) {
                return;
            }
            chunk = &chunk[GZIP_STEP..];
        }
        if let State::Gzip(gz) = &mut self.state {
            gz.pending.extend_from_slice(chunk);
        }
    }

    /// One piece to the decoder; false once the gzip path has ended (damage, a limit, or a
    /// fall-back to text).
    fn inflate(&mut self, piece: &[u8], sink: &mut impl Sink) -> bool {
        let State::Gzip(gz) = &mut self.state else { return false };
        let result = gz.dec.write_all(piece);
        gz.consumed += piece.len() as u64;
        let out = std::mem::take(gz.dec.get_mut());
        self.after_inflate(out, result.err().map(|e| e.to_string()), sink)
    }

    fn after_inflate(&mut self, out: Vec<u8>, err: Option<String>, sink: &mut impl Sink) -> bool {
        let State::Gzip(gz) = &mut self.state else { return false };
        if !out.is_empty() || gz.consumed >= GZIP_HOLD {
            gz.raw = None;
        }
        if let (Some(_), Some(raw)) = (&err, gz.raw.take()) {
            // Failed before its first byte: not a gzip stream after all.
            self.container = Container::Plain;
            sink.container(Container::Plain);
            self.state = State::Plain;
            self.plain(&raw, sink);
            return false;
        }
        let room = self.limits.max_inflated.saturating_sub(gz.produced);
        gz.produced += out.len() as u64;
        if out.len() as u64 > room {
            self.plain(&out[..room as usize], sink);
            self.state = State::Stopped;
            sink.stop(format!(
                "the gzip stream inflates to more than the limit of {} of decompressed bytes",
                size_text(self.limits.max_inflated)
            ));
            return false;
        }
        self.plain(&out, sink);
        if let Some(e) = err {
            self.error = Some(format!(
                "the gzip stream is damaged ({e}); the text before the damage was read"
            ));
            self.state = State::Stopped;
            return false;
        }
        true
    }

    /// Ends the input. Returns the archive when the input was a zip.
    pub(crate) fn finish(&mut self, sink: &mut impl Sink) -> Option<Vec<u8>> {
        if let State::Sniffing(head) = &mut self.state {
            let head = std::mem::take(head);
            let c = decide(&head, true).unwrap_or(Container::Plain);
            self.start(c, &head, sink);
        }
        if let State::Gzip(gz) = &mut self.state {
            let rest = std::mem::take(&mut gz.pending);
            if self.inflate(&rest, sink) {
                if let State::Gzip(gz) = &mut self.state {
                    let result = gz.dec.try_finish();
                    let out = std::mem::take(gz.dec.get_mut());
                    let err = result.err().map(|e| e.to_string());
                    if self.after_inflate(out, None, sink) {
                        if let Some(e) = err {
                            match self.state {
                                State::Gzip(ref mut gz) if gz.raw.is_some() => {
                                    let raw = gz.raw.take().unwrap_or_default();
                                    self.container = Container::Plain;
                                    sink.container(Container::Plain);
                                    self.state = State::Plain;
                                    self.plain(&raw, sink);
                                }
                                _ => {
                                    self.error = Some(format!(
                                        "the gzip stream is damaged or cut short ({e}); the text \
                                         before that was read"
                                    ));
                                }
                            }
                        }
                    }
                }
            }
        }
        if !self.bom_checked {
            self.end_bom_check(sink);
        }
        match std::mem::replace(&mut self.state, State::Stopped) {
            State::Zip(z) => Some(z),
            _ => None,
        }
    }

    /// The container's damage, if any.
    pub(crate) fn take_error(&mut self) -> Option<String> {
        self.error.take()
    }
}

/// Inflates a gzip stream whole (its members one after another, as `cat a.gz b.gz` makes them),
/// stopping once past `max` bytes of output (by at most what 4 KB of input inflates to), with
/// the error that stopped it if any (the text before a damage is kept). The streaming reader's
/// decoder, so the web bundle holds one gzip decoder, not two.
pub(crate) fn gunzip(bytes: &[u8], max: u64) -> (Vec<u8>, Option<std::io::Error>) {
    let mut dec = flate2::write::MultiGzDecoder::new(Vec::new());
    for piece in bytes.chunks(4096) {
        let err = dec.write_all(piece).err();
        if err.is_some() || dec.get_ref().len() as u64 > max {
            return (std::mem::take(dec.get_mut()), err);
        }
    }
    let err = dec.try_finish().err();
    (std::mem::take(dec.get_mut()), err)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_container_is_decided_by_its_whole_header() {
        assert_eq!(decide(b"\x1f\x8b\x08\x00", false), None, "the header is 10 bytes");
        assert_eq!(decide(b"\x1f\x8b\x08\x00\0\0\0\0\x02\x03", false), Some(Container::Gzip));
        assert_eq!(decide(b"\x1f\x8b\x08\x00 not gzip", false), Some(Container::Plain));
        assert_eq!(decide(b"\x1f\x8b{\"", false), Some(Container::Plain));
        assert_eq!(decide(b"\x1f\x8b\x08\xff", false), Some(Container::Plain));
        assert_eq!(decide(b"\x1f\x8b", false), None);
        assert_eq!(decide(b"\x1f\x8b", true), Some(Container::Plain));
        assert_eq!(decide(b"PK\x03\x04{\"type\":\"action\",\"run_id\":\"r\"}\n", false), {
            Some(Container::Plain)
        });
        let mut zip = b"PK\x03\x04\x14\x00\x00\x00\x08\x00".to_vec();
        zip.extend_from_slice(&[0; 16]);
        zip.extend_from_slice(&[11, 0, 0, 0]);
        assert_eq!(decide(&zip, false), None, "the name is not there yet");
        zip.extend_from_slice(b"header.json");
        assert_eq!(decide(&zip, false), Some(Container::Zip));
        assert_eq!(decide(b"PK", true), Some(Container::Plain));
        assert_eq!(decide(b"{}", false), Some(Container::Plain));
    }
}
