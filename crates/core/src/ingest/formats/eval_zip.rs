//! Inspect AI `.eval` logs: a ZIP archive holding `header.json` (the log without its samples)
//! and one `samples/<id>_epoch_<n>.json` per sample (plus summaries and a journal, not needed).
//!
//! The archive is recognised by its magic bytes (`PK\x03\x04`), never by the file name, kept
//! whole (a ZIP is read from its end, the central directory) and read here with a small reader:
//! stored and deflated entries, bounds-checked, with the inflated size capped by the size the
//! directory declares. ZIP64 archives and other compression methods are reported as errors.

use std::io::Read as _;

use serde_json::Value;

use super::inspect;
use crate::model::{Format, IngestStats, Trace, Trajectory};

const LOCAL_MAGIC: &[u8; 4] = b"PK\x03\x04";
const EOCD_MAGIC: u32 = 0x0605_4b50;
const CENTRAL_MAGIC: u32 = 0x0201_4b50;
/// An entry larger than this is refused rather than inflated (a zip bomb guard).
const MAX_ENTRY: u64 = 1 << 30;

/// Watches the first bytes of the input for a ZIP archive. Until the 4-byte magic is complete
/// the bytes also go on to the text path (so nothing is held back); once it is, the rest of the
/// input is kept for the end and the text path's view of the first bytes is dropped.
#[derive(Default)]
pub struct ZipSniffer {
    state: State,
}

enum State {
    /// The first bytes seen so far (a prefix of the magic).
    Watching(Vec<u8>),
    /// A ZIP archive: every byte is kept for the end.
    Zip(Vec<u8>),
    /// Not an archive: bytes pass through.
    Plain,
}

impl Default for State {
    fn default() -> State {
        State::Watching(Vec::new())
    }
}

/// What to do with a fed chunk.
pub enum ZipPush<'a> {
    /// Kept by the sniffer: the input is an archive.
    Kept,
    /// Bytes for the text path.
    Pass(&'a [u8]),
}

impl ZipSniffer {
    pub fn push<'a>(&mut self, chunk: &'a [u8]) -> ZipPush<'a> {
        match &mut self.state {
            State::Plain => ZipPush::Pass(chunk),
            State::Zip(buf) => {
                buf.extend_from_slice(chunk);
                ZipPush::Kept
            }
            State::Watching(seen) => {
                let need = LOCAL_MAGIC.len() - seen.len();
                let prefix = &chunk[..need.min(chunk.len())];
                let matches =
                    seen.iter().chain(prefix).zip(LOCAL_MAGIC.iter()).all(|(a, b)| a == b);
                if !matches {
                    self.state = State::Plain;
                    return ZipPush::Pass(chunk);
                }
                let mut seen = std::mem::take(seen);
                if seen.len() + prefix.len() == LOCAL_MAGIC.len() {
                    seen.extend_from_slice(chunk);
                    self.state = State::Zip(seen);
                    return ZipPush::Kept;
                }
                seen.extend_from_slice(prefix);
                self.state = State::Watching(seen);
                ZipPush::Pass(chunk)
            }
        }
    }

    /// The archive, if the input was one.
    pub fn take_archive(&mut self) -> Option<Vec<u8>> {
        match std::mem::replace(&mut self.state, State::Plain) {
            State::Zip(z) => Some(z),
            other => {
                self.state = other;
                None
            }
        }
    }
}

fn le16(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(b.get(at..at.checked_add(2)?)?.try_into().ok()?))
}

fn le32(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at.checked_add(4)?)?.try_into().ok()?))
}

/// One entry of the central directory.
struct Entry {
    name: String,
    method: u16,
    compressed: u64,
    size: u64,
    local_offset: usize,
}

fn entries(zip: &[u8]) -> Result<Vec<Entry>, String> {
    // The end-of-central-directory record: 22 bytes plus a comment of up to 64 KiB.
    let lowest = zip.len().saturating_sub(22 + 0xFFFF);
    let eocd = (lowest..=zip.len().saturating_sub(22))
        .rev()
        .find(|&i| le32(zip, i) == Some(EOCD_MAGIC))
        .ok_or("the zip archive has no end-of-directory record (cut short?)")?;
    let count = le16(zip, eocd.saturating_add(10)).ok_or("damaged end-of-directory record")?;
    let cd_offset = le32(zip, eocd.saturating_add(16)).ok_or("damaged end-of-directory record")?;
    if count == 0xFFFF || cd_offset == 0xFFFF_FFFF {
        return Err("ZIP64 archives are not supported".to_string());
    }
    let mut at = cd_offset as usize;
    let mut out = Vec::with_capacity(usize::from(count));
    for n in 0..count {
        let bad = || format!("the zip directory entry {n} is damaged");
        if le32(zip, at) != Some(CENTRAL_MAGIC) {
            return Err(bad());
        }
        let method = le16(zip, at.saturating_add(10)).ok_or_else(bad)?;
        let compressed = le32(zip, at.saturating_add(20)).ok_or_else(bad)?;
        let size = le32(zip, at.saturating_add(24)).ok_or_else(bad)?;
        let name_len = usize::from(le16(zip, at.saturating_add(28)).ok_or_else(bad)?);
        let extra_len = usize::from(le16(zip, at.saturating_add(30)).ok_or_else(bad)?);
        let comment_len = usize::from(le16(zip, at.saturating_add(32)).ok_or_else(bad)?);
        let local = le32(zip, at.saturating_add(42)).ok_or_else(bad)?;
        if compressed == 0xFFFF_FFFF || size == 0xFFFF_FFFF || local == 0xFFFF_FFFF {
            return Err("ZIP64 archives are not supported".to_string());
        }
        let name_at = at.saturating_add(46);
        let name = zip.get(name_at..name_at.saturating_add(name_len)).ok_or_else(bad)?;
        out.push(Entry {
            name: String::from_utf8_lossy(name).into_owned(),
            method,
            compressed: u64::from(compressed),
            size: u64::from(size),
            local_offset: local as usize,
        });
        at = name_at.saturating_add(name_len + extra_len + comment_len);
    }
    Ok(out)
}

fn read_entry(zip: &[u8], e: &Entry) -> Result<Vec<u8>, String> {
    let bad = || format!("the zip entry {} is damaged", e.name);
    let at = e.local_offset;
    if zip.get(at..at.saturating_add(4)) != Some(&LOCAL_MAGIC[..]) {
        return Err(bad());
    }
    let name_len = usize::from(le16(zip, at.saturating_add(26)).ok_or_else(bad)?);
    let extra_len = usize::from(le16(zip, at.saturating_add(28)).ok_or_else(bad)?);
    let start = at.saturating_add(30 + name_len + extra_len);
    let end = start.saturating_add(usize::try_from(e.compressed).unwrap_or(usize::MAX));
    let data = zip.get(start..end).ok_or_else(bad)?;
    if e.size > MAX_ENTRY {
        return Err(format!("the zip entry {} is too large ({} bytes)", e.name, e.size));
    }
    match e.method {
        0 => Ok(data.to_vec()),
        8 => {
            let mut out = Vec::with_capacity((e.size as usize).min(data.len().saturating_mul(8)));
            flate2::read::DeflateDecoder::new(data)
                .take(e.size + 1)
                .read_to_end(&mut out)
                .map_err(|err| format!("the zip entry {} does not inflate: {err}", e.name))?;
            if out.len() as u64 != e.size {
                return Err(format!("the zip entry {} inflates to an unexpected size", e.name));
            }
            Ok(out)
        }
        m => Err(format!("the zip entry {} uses compression method {m}, not supported", e.name)),
    }
}

/// The trajectories of an Inspect `.eval` archive: one per `samples/*.json` entry.
pub fn from_eval_archive(zip: &[u8]) -> Result<Vec<Trajectory>, String> {
    let entries = entries(zip)?;
    let is_eval = entries.iter().any(|e| e.name == "header.json" || e.name.starts_with("samples/"));
    if !is_eval {
        return Err("a zip archive that is not an Inspect .eval log (no header.json or samples/)"
            .to_string());
    }
    let mut out = Vec::new();
    for e in entries.iter().filter(|e| e.name.starts_with("samples/") && e.name.ends_with(".json"))
    {
        let bytes = read_entry(zip, e)?;
        let value: Value = serde_json::from_slice(&bytes)
            .map_err(|err| format!("{} is not valid JSON: {err}", e.name))?;
        let sample = super::as_object(&value, &e.name)?;
        out.push(inspect::sample(sample, &format!("{}:$", e.name))?);
    }
    Ok(out)
}

/// The ingest's end for an archive input: the whole trace (format `inspect`, no lines), or
/// `None` when the input was not an archive.
pub fn finish(sniffer: &mut ZipSniffer) -> Option<Trace> {
    let zip = sniffer.take_archive()?;
    let stats = IngestStats { bytes: zip.len() as u64, ..IngestStats::default() };
    let (trajectories, error) = match from_eval_archive(&zip) {
        Ok(t) => (t, None),
        Err(e) => (Vec::new(), Some(format!("the file is a zip archive, but {e}"))),
    };
    Some(Trace { format: Format::Inspect, stats, quarantine: Vec::new(), trajectories, error })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn push_all(s: &mut ZipSniffer, chunks: &[&[u8]]) -> Vec<u8> {
        let mut passed = Vec::new();
        for c in chunks {
            if let ZipPush::Pass(b) = s.push(c) {
                passed.extend_from_slice(b);
            }
        }
        passed
    }

    #[test]
    fn the_sniffer_passes_text_through_whole_and_keeps_archives() {
        let mut s = ZipSniffer::default();
        assert_eq!(push_all(&mut s, &[b"{", b"\"a", b"\":1}\n", b"x"]), b"{\"a\":1}\nx");
        assert!(s.take_archive().is_none());
        let mut s = ZipSniffer::default();
        assert_eq!(push_all(&mut s, &[b"PK"]), b"PK", "a short file is passed on");
        assert!(s.take_archive().is_none());
        let mut s = ZipSniffer::default();
        assert_eq!(push_all(&mut s, &[b"P", b"K\x03", b"\x04rest", b"more"]), b"PK\x03");
        assert_eq!(s.take_archive().as_deref(), Some(&b"PK\x03\x04restmore"[..]));
    }

    #[test]
    fn damaged_archives_are_errors_not_panics() {
        assert!(from_eval_archive(b"PK\x03\x04").is_err());
        let mut eocd = b"PK\x03\x04junk".to_vec();
        eocd.extend_from_slice(&[0x50, 0x4b, 0x05, 0x06, 0, 0, 0, 0, 9, 0, 9, 0, 0, 0, 0, 0]);
        eocd.extend_from_slice(&[0xff, 0xff, 0xff, 0x7f, 0, 0]);
        assert!(from_eval_archive(&eocd).is_err());
    }
}
