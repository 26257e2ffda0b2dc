//! Archives of traces: a `.tar`, `.tar.gz` or `.zip` (not an Inspect `.eval`, which is one
//! trace) holding several trace files. Every member is ingested as its own trace, named by its
//! member path, under the same caps as a single file (`docs/limits.md`): the archive's entry
//! count, the bytes a `.tar.gz` inflates to, and the bytes all zip members inflate to together.
//! The archive is given whole (the CLI reads the file; the app, the dropped `File`). Member
//! paths lose a leading `./` (`tar -C dir .`); macOS and Windows metadata files
//! ([`is_os_metadata`]) are not members.

use super::formats::eval_zip;
use super::limits::{size_text, Limits};
use super::source::gunzip;
use super::{ingest, IngestOptions};
use crate::model::Trace;

/// The kinds of archive of traces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArchiveKind {
    Tar,
    TarGz,
    Zip,
}

/// One member of an archive, ingested.
#[derive(Clone, Debug, PartialEq)]
pub struct Member {
    /// Its path inside the archive.
    pub path: String,
    pub trace: Trace,
}

/// An archive's members, and the message of the limit or damage that stopped the reading
/// (the members before it are kept).
#[derive(Clone, Debug, PartialEq)]
pub struct Archive {
    pub kind: ArchiveKind,
    pub members: Vec<Member>,
    pub error: Option<String>,
}

const BLOCK: usize = 512;

fn is_tar(block: &[u8]) -> bool {
    block.len() >= BLOCK && &block[257..262] == b"ustar"
}

/// An empty tar: nothing but its end marker, two blocks of zeros (and the zeros that pad it).
fn is_empty_tar(bytes: &[u8]) -> bool {
    bytes.len() >= 2 * BLOCK && bytes.iter().all(|&b| b == 0)
}

/// An empty zip: its end-of-directory record alone, no comment.
fn is_empty_zip(bytes: &[u8]) -> bool {
    bytes.len() == 22 && bytes.starts_with(b"PK\x05\x06")
}

/// What kind of archive of traces `bytes` is, if any (read from the content, never a name).
/// An Inspect `.eval` zip is a trace, not an archive of traces: `None`; so is a zip whose
/// directory cannot be read. An empty archive is one (of no member).
pub fn archive_kind(bytes: &[u8], limits: &Limits) -> Option<ArchiveKind> {
    if is_tar(bytes) || is_empty_tar(bytes) {
        return Some(ArchiveKind::Tar);
    }
    if is_empty_zip(bytes) {
        return Some(ArchiveKind::Zip);
    }
    if bytes.starts_with(b"PK\x03\x04") {
        // A damaged zip is left to the ingest, which says what is wrong with it.
        return (eval_zip::is_eval(bytes, limits) == Some(false)).then_some(ArchiveKind::Zip);
    }
    if bytes.starts_with(&[0x1f, 0x8b, 0x08]) {
        // (An empty tar gzipped is read as a trace, where the ingest says what it is.)
        let (head, _) = gunzip(bytes, BLOCK as u64);
        return is_tar(&head).then_some(ArchiveKind::TarGz);
    }
    None
}

/// Why a decoded input whose first line is `line` cannot be read as lines: it is a tar stream
/// (a header block, or an empty archive's zeros: the whole input when `whole`), which the
/// ingest does not open. `None` for anything else.
pub(crate) fn tar_stream(line: &[u8], whole: bool) -> Option<&'static str> {
    (is_tar(line) || (whole && is_empty_tar(line)))
        .then_some("the file is a tar archive, empty or inside another archive: not opened")
}

/// The file members of an archive of traces, not yet ingested: what the app queues one by one.
#[derive(Clone, Debug, PartialEq)]
pub struct ArchiveFiles {
    pub kind: ArchiveKind,
    /// Each member's path (without a leading `./`) and bytes, in archive order, OS metadata
    /// files left out ([`is_os_metadata`]).
    pub files: Vec<(String, Vec<u8>)>,
    /// The limit or damage that stopped the reading (the members before it are kept).
    pub error: Option<String>,
}

/// Reads an archive of traces into its members' bytes, under the caps of `limits`. `None`
/// when `bytes` is not an archive of traces (see [`archive_kind`]).
pub fn archive_files(bytes: &[u8], limits: &Limits) -> Option<ArchiveFiles> {
    let limits = *limits;
    let kind = archive_kind(bytes, &limits)?;
    let (files, error) = match kind {
        ArchiveKind::Tar => tar_members(bytes, &limits),
        ArchiveKind::TarGz => {
            let (mut tar, read) = gunzip(bytes, limits.max_inflated);
            let mut too_big = None;
            if tar.len() as u64 > limits.max_inflated {
                tar.truncate(limits.max_inflated as usize);
                too_big = Some(format!(
                    "the archive inflates to more than the limit of {} of decompressed bytes",
                    size_text(limits.max_inflated)
                ));
            }
            let damaged = read.map(|e| format!("the gzip stream is damaged ({e})"));
            let (files, error) = tar_members(&tar, &limits);
            (files, too_big.or(damaged).or(error))
        }
        ArchiveKind::Zip => eval_zip::members(bytes, &limits),
    };
    let files: Vec<_> = files
        .into_iter()
        .filter(|(path, _)| !is_os_metadata(path))
        .map(|(path, data)| (path.trim_start_matches("./").to_string(), data))
        .collect();
    let error = match error {
        None if files.is_empty() => Some("the archive holds no files".to_string()),
        error => error,
    };
    Some(ArchiveFiles { kind, files, error })
}

/// Reads an archive of traces: every file member ingested with `opts` as its own trace.
/// `None` when `bytes` is not an archive of traces (see [`archive_kind`]).
pub fn ingest_archive(bytes: &[u8], opts: &IngestOptions) -> Option<Archive> {
    let ArchiveFiles { kind, files, error } = archive_files(bytes, &opts.limits)?;
    let members = files
        .into_iter()
        .map(|(path, data)| Member { trace: ingest(&data, opts.clone()), path })
        .collect();
    Some(Archive { kind, members, error })
}

/// Files an archiver or file manager adds beside the traces, never a trace: macOS's
/// `__MACOSX/` folder and `._name` AppleDouble files, `.DS_Store`, Windows' `Thumbs.db`.
pub fn is_os_metadata(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    path.starts_with("__MACOSX/")
        || path.contains("/__MACOSX/")
        || name.starts_with("._")
        || name == ".DS_Store"
        || name == "Thumbs.db"
}

fn octal(field: &[u8]) -> Option<u64> {
    let text = std::str::from_utf8(field).ok()?;
    let text = text.trim_matches(|c: char| c == '\0' || c == ' ');
    if text.is_empty() {
        return Some(0);
    }
    u64::from_str_radix(text, 8).ok()
}

fn text(field: &[u8]) -> String {
    let end = field.iter().position(|&b| b == 0).unwrap_or(field.len());
    String::from_utf8_lossy(&field[..end]).into_owned()
}

/// The regular files of a tar archive (ustar, GNU long names, pax `path`), each with its path.
fn tar_members(tar: &[u8], limits: &Limits) -> (Vec<(String, Vec<u8>)>, Option<String>) {
    let mut out = Vec::new();
    let mut at = 0usize;
    let mut long_name: Option<String> = None;
    let mut entries = 0u64;
    while at + BLOCK <= tar.len() {
        let header = &tar[at..at + BLOCK];
        if header.iter().all(|&b| b == 0) {
            break; // end of archive
        }
        entries += 1;
        if entries > limits.max_archive_entries {
            let e = format!("it has more than the limit of {} entries", limits.max_archive_entries);
            return (out, Some(e));
        }
        let Some(size) = octal(&header[124..136]) else {
            return (out, Some(format!("the tar header at byte {at} is damaged")));
        };
        let start = at + BLOCK;
        let Some(data) =
            usize::try_from(size).ok().and_then(|n| tar.get(start..start.checked_add(n)?))
        else {
            return (out, Some(format!("the tar entry at byte {at} is cut short")));
        };
        let name = || {
            let prefix = text(&header[345..500]);
            let name = text(&header[..100]);
            if prefix.is_empty() {
                name
            } else {
                format!("{prefix}/{name}")
            }
        };
        match header[156] {
            b'L' => long_name = Some(text(data)),
            b'x' => {
                let pax = String::from_utf8_lossy(data);
                long_name = pax
                    .lines()
                    .find_map(|l| l.split_once(" path=").map(|(_, p)| p.to_string()))
                    .or(long_name);
            }
            b'0' | 0 | b'7' => {
                let path = long_name.take().unwrap_or_else(name);
                out.push((path, data.to_vec()));
            }
            _ => long_name = None, // directories, links and the like hold no trace
        }
        at = start + (data.len()).div_ceil(BLOCK) * BLOCK;
    }
    (out, None)
}
