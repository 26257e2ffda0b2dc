//! Inspect AI `.eval` logs: a ZIP archive holding `header.json` (the log without its samples)
//! and one `samples/<id>_epoch_<n>.json` per sample (plus summaries and a journal, not needed).
//!
//! The archive is recognised by the data-source layer (`ingest/source.rs`) by its local file
//! header, never by the file name, held whole (a ZIP is read from its end, the central
//! directory) and read here with a small reader: stored and deflated entries, bounds-checked,
//! each inflated no further than the size the directory declares. The archive as a whole is
//! capped (see [`Limits`]): the number of directory entries, and the bytes inflated over all
//! entries together, so a directory whose entries all point at one huge stream is stopped at
//! the cap however many entries it has. ZIP64 archives and other compression methods are
//! reported as errors.

use std::io::Read as _;

use serde_json::Value;

use super::inspect;
use crate::ingest::limits::{size_text, Limits};
use crate::model::Trajectory;

const LOCAL_MAGIC: &[u8; 4] = b"PK\x03\x04";
const EOCD_MAGIC: u32 = 0x0605_4b50;
const CENTRAL_MAGIC: u32 = 0x0201_4b50;

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

fn entries(zip: &[u8], limits: &Limits) -> Result<Vec<Entry>, String> {
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
    if u64::from(count) > limits.max_archive_entries {
        return Err(format!(
            "its directory has {count} entries, more than the limit of {}",
            limits.max_archive_entries
        ));
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

/// Bytes inflated so far over the whole archive, against [`Limits::max_inflated`].
pub(crate) struct Budget {
    pub(crate) left: u64,
    pub(crate) limit: u64,
}

impl Budget {
    pub(crate) fn new(limits: &Limits) -> Budget {
        Budget { left: limits.max_inflated, limit: limits.max_inflated }
    }
}

fn read_entry(zip: &[u8], e: &Entry, budget: &mut Budget) -> Result<Vec<u8>, String> {
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
    // Checked before inflating: the declared size bounds what is inflated.
    if e.size > budget.left {
        return Err(format!(
            "the archive inflates to more than the limit of {} of decompressed bytes (at entry {})",
            size_text(budget.limit),
            e.name
        ));
    }
    budget.left -= e.size;
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

/// Whether a readable zip archive is an Inspect `.eval` log (one trace) rather than a zip of
/// traces; `None` when its directory cannot be read (the ingest then reports why).
pub(crate) fn is_eval(zip: &[u8], limits: &Limits) -> Option<bool> {
    entries(zip, limits).ok().map(|entries| {
        entries.iter().any(|e| e.name == "header.json" || e.name.starts_with("samples/"))
    })
}

/// Every file member of a zip archive, in directory order, under one inflate budget: each
/// member's name and bytes, and the error that stopped the reading (the members before it are
/// kept).
pub(crate) fn members(zip: &[u8], limits: &Limits) -> (Vec<(String, Vec<u8>)>, Option<String>) {
    let entries = match entries(zip, limits) {
        Ok(e) => e,
        Err(e) => return (Vec::new(), Some(e)),
    };
    let mut budget = Budget::new(limits);
    let mut out = Vec::new();
    for e in entries.iter().filter(|e| !e.name.ends_with('/')) {
        match read_entry(zip, e, &mut budget) {
            Ok(bytes) => out.push((e.name.clone(), bytes)),
            Err(err) => return (out, Some(err)),
        }
    }
    (out, None)
}

/// The trajectories of an Inspect `.eval` archive: one per `samples/*.json` entry, with the
/// error that stopped the reading, if any (the samples before it are kept).
pub fn from_eval_archive(zip: &[u8], limits: &Limits) -> (Vec<Trajectory>, Option<String>) {
    let entries = match entries(zip, limits) {
        Ok(e) => e,
        Err(e) => return (Vec::new(), Some(e)),
    };
    let is_eval = entries.iter().any(|e| e.name == "header.json" || e.name.starts_with("samples/"));
    if !is_eval {
        let e = "a zip archive that is not an Inspect .eval log (no header.json or samples/)";
        return (Vec::new(), Some(e.to_string()));
    }
    let mut budget = Budget::new(limits);
    let mut out = Vec::new();
    for e in entries.iter().filter(|e| e.name.starts_with("samples/") && e.name.ends_with(".json"))
    {
        match sample(zip, e, &mut budget) {
            Ok(t) => out.push(t),
            Err(err) => return (out, Some(err)),
        }
    }
    (out, None)
}

fn sample(zip: &[u8], e: &Entry, budget: &mut Budget) -> Result<Trajectory, String> {
    let bytes = read_entry(zip, e, budget)?;
    let value: Value = serde_json::from_slice(&bytes)
        .map_err(|err| format!("{} is not valid JSON: {err}", e.name))?;
    let sample = super::as_object(&value, &e.name)?;
    inspect::sample(sample, &format!("{}:$", e.name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn damaged_archives_are_errors_not_panics() {
        let limits = Limits::default();
        assert!(from_eval_archive(b"PK\x03\x04", &limits).1.is_some());
        let mut eocd = b"PK\x03\x04junk".to_vec();
        eocd.extend_from_slice(&[0x50, 0x4b, 0x05, 0x06, 0, 0, 0, 0, 9, 0, 9, 0, 0, 0, 0, 0]);
        eocd.extend_from_slice(&[0xff, 0xff, 0xff, 0x7f, 0, 0]);
        assert!(from_eval_archive(&eocd, &limits).1.is_some());
    }
}
