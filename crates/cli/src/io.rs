//! File input for the CLI: streams a file into the core's [`Loader`] in 1 MiB chunks, read on
//! a thread of its own while the core parses the previous ones.

use std::io::Read as _;
use std::path::Path;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::mpsc;

use anyhow::Context as _;
use trajscope_core::ingest::{
    archive_files, archive_kind, ingest_archive, ArchiveFiles, ArchiveKind, LineParse,
    PreparedChunk,
};
use trajscope_core::model::Format;
use trajscope_core::{IngestOptions, Loader, Session, Trace};

/// Reads and ingests a trace file.
pub fn load(path: &Path, format: Option<Format>) -> anyhow::Result<Trace> {
    Ok(load_session(path, format, false)?.into_trace())
}

/// Reads a trace file into a session; with `hash`, the session knows its identity
/// (`sha256:<hex>`, which labels and case ids use). Only the commands that need the identity pay
/// for it.
///
/// A member of an archive of traces is read as the file it is (`ARCHIVE!MEMBER`, the name
/// `analyze` and the app give it; its identity is the member's); an archive named whole is read
/// when it holds one file, and refused otherwise with a message listing its members (read as one
/// trace, an archive would hold no trajectory).
pub fn load_session(path: &Path, format: Option<Format>, hash: bool) -> anyhow::Result<Session> {
    let mut loader = Loader::new(IngestOptions { format, ..IngestOptions::default() }, hash);
    match archive_member(path)? {
        Some(member) => loader.feed(&member),
        None => read_into(path, &mut loader, |_| true)?,
    }
    Ok(loader.finish())
}

/// How many members a message lists.
const MEMBERS_LISTED: usize = 20;

/// `ARCHIVE!MEMBER` split where the part before a `!` is a regular file (a path that exists as
/// it is is never split; the first `!` that gives a file wins, so a folder or archive name may
/// hold one). `None` when no prefix is a file.
pub fn split_member(path: &Path) -> Option<(std::path::PathBuf, String)> {
    if is_stdin(path) || std::fs::symlink_metadata(path).is_ok() {
        return None;
    }
    let text = path.to_str()?;
    text.match_indices('!').find_map(|(i, _)| {
        let archive = Path::new(&text[..i]);
        archive.is_file().then(|| (archive.to_path_buf(), text[i + 1..].to_string()))
    })
}

/// The member `path` names, `ARCHIVE!MEMBER`: read from the archive under its caps. An error
/// when the file before the `!` is no archive of traces, cannot be held, or has no such member
/// (the message lists the members). `None` for a path of no such form.
pub fn named_member(path: &Path) -> anyhow::Result<Option<Vec<u8>>> {
    let Some((archive, member)) = split_member(path) else { return Ok(None) };
    let mut files = read_archive(&archive)?;
    let wanted = member.trim_start_matches("./");
    match files.files.iter().position(|(p, _)| p == wanted) {
        Some(at) => Ok(Some(files.files.swap_remove(at).1)),
        None => anyhow::bail!(
            "{} has no member `{}`{}",
            crate::term::shown(&archive),
            crate::term::escape_line(&member),
            members_text(&archive, &files)
        ),
    }
}

/// What a one-trace command reads of `path` when it is, or names, an archive's member: the
/// member `ARCHIVE!MEMBER` names, or an archive's only file (said on stderr). An archive of
/// several files (or none) is an error listing them and the `ARCHIVE!MEMBER` syntax. `None` for
/// any other file, standard input (told apart as it is read) and an Inspect `.eval` (one trace).
pub fn archive_member(path: &Path) -> anyhow::Result<Option<Vec<u8>>> {
    if let Some(m) = named_member(path)? {
        return Ok(Some(m));
    }
    let limits = trajscope_core::ingest::Limits::default();
    let Some(probe) = archive_probe(path, &limits)? else { return Ok(None) };
    if archive_kind(&probe.bytes, &limits).is_none() {
        return Ok(None);
    }
    let mut files = match probe.whole {
        true => archive_files(&probe.bytes, &limits).context("an archive of traces")?,
        false => read_archive(path)?,
    };
    if files.files.len() == 1 && files.error.is_none() {
        let (member, bytes) = files.files.swap_remove(0);
        let said = format!("reading {}, the archive's one file", member_name(path, &member));
        eprintln!("trajscope: {}", crate::term::escape(&said));
        return Ok(Some(bytes));
    }
    let holding = match files.files.len() {
        0 => anyhow::bail!(
            "{} is {} holding no file{}",
            crate::term::shown(path),
            archive_words(files.kind),
            members_text(path, &files)
        ),
        1 => "1 file read before it stopped".to_string(),
        n => format!("{n} files"),
    };
    anyhow::bail!(
        "{} is {} holding {holding}: name the one to read as ARCHIVE!MEMBER (`trajscope analyze \
         {}` reads them all){}",
        crate::term::shown(path),
        archive_words(files.kind),
        crate::term::shown(path),
        members_text(path, &files)
    )
}

/// `ARCHIVE!MEMBER`, as `analyze` and the app name a member.
fn member_name(archive: &Path, member: &str) -> String {
    format!("{}!{member}", archive.display())
}

/// The archive's whole bytes read into its members, under the caps; an error when it is no
/// archive of traces or is over the bytes an archive may hold.
fn read_archive(archive: &Path) -> anyhow::Result<ArchiveFiles> {
    let limits = trajscope_core::ingest::Limits::default();
    let size = std::fs::metadata(archive).map(|m| m.len()).unwrap_or(0);
    if size > limits.max_archive_bytes {
        anyhow::bail!(
            "{} is {} bytes, over the limit of {} an archive may hold: its members are not read",
            crate::term::shown(archive),
            size,
            trajscope_core::ingest::limits::size_text(limits.max_archive_bytes)
        );
    }
    let bytes = std::fs::read(archive)
        .with_context(|| format!("cannot read {}", crate::term::shown(archive)))?;
    archive_files(&bytes, &limits).with_context(|| {
        format!(
            "{} is not an archive of traces (a .tar, .tar.gz or .zip): ARCHIVE!MEMBER names a \
             member of one",
            crate::term::shown(archive)
        )
    })
}

/// The members of an archive for a message: the first [`MEMBERS_LISTED`], each on a line as
/// `ARCHIVE!MEMBER`, and what stopped the reading, if anything did.
fn members_text(archive: &Path, files: &ArchiveFiles) -> String {
    let mut out = match files.files.is_empty() {
        true => String::new(),
        false => ". Its members:".to_string(),
    };
    for (p, _) in files.files.iter().take(MEMBERS_LISTED) {
        out.push_str("\n  ");
        out.push_str(&crate::term::escape_line(&member_name(archive, p)));
    }
    if files.files.len() > MEMBERS_LISTED {
        out.push_str(&format!("\n  … and {} more", files.files.len() - MEMBERS_LISTED));
    }
    if let Some(e) = &files.error {
        out.push_str(&format!("\n  (reading stopped: {e})"));
    }
    out
}

/// Refuses an output that is the file `input` reads (itself, or the archive of an
/// `ARCHIVE!MEMBER`): the write would replace the trace before or while it is read. Nothing is
/// written then. Standard input or output (`-`) and an output that does not exist yet pass.
pub fn refuse_overwrite(input: &Path, output: &Path) -> anyhow::Result<()> {
    if is_stdin(input) || is_stdin(output) {
        return Ok(());
    }
    let read = split_member(input).map_or_else(|| input.to_path_buf(), |(archive, _)| archive);
    let same = |a: &Path, b: &Path| matches!((std::fs::canonicalize(a), std::fs::canonicalize(b)), (Ok(a), Ok(b)) if a == b);
    if same(&read, output) {
        anyhow::bail!(
            "{} is the trace read as well as the output: writing it would replace the trace \
             (nothing written); name another output",
            crate::term::shown(output)
        );
    }
    Ok(())
}

/// Whether `path` is `-`, standard input.
pub fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// Streams the file (`-`: standard input) into `loader`; `after_chunk` sees the loader after
/// every chunk (to take what has settled) and says whether the next chunks' AWTL lines are
/// still worth parsing ahead on other threads (no: the caller keeps the other cores busy
/// itself). The loader does the rest: this only moves bytes.
///
/// Standard input cannot be read twice, so an archive of traces is told there from its first
/// bytes (a tar, a `.tar.gz`) or, for a zip, once it is read whole (held, up to the archive
/// limit): it is refused (the members are read from a file only), while an Inspect `.eval` zip
/// is one trace and read.
pub fn read_into(
    path: &Path,
    loader: &mut Loader,
    mut after_chunk: impl FnMut(&mut Loader) -> bool,
) -> anyhow::Result<()> {
    // `ARCHIVE!MEMBER`: the member's bytes, read out of the archive whole (under its caps).
    if let Some(member) = named_member(path)? {
        loader.feed(&member);
        after_chunk(loader);
        return Ok(());
    }
    let stdin = is_stdin(path);
    let source: Box<dyn std::io::Read + Send> = if stdin {
        Box::new(std::io::stdin())
    } else {
        Box::new(
            std::fs::File::open(path)
                .with_context(|| format!("cannot read {}", crate::term::shown(path)))?,
        )
    };
    let limits = trajscope_core::ingest::Limits::default();
    // A reader thread keeps the next chunks coming (the kernel's copy into our buffers runs
    // beside the parse instead of between parses), dealt in turn to parser threads that parse
    // each chunk's lines ahead (`PreparedChunk`: the core's pure half of a line's reading)
    // while this thread files the chunks before, taken back in the same turn (input order).
    // Buffers go back to the reader to be reused, so memory stays at CHUNK * (BUFFERS + two a
    // parser) (and the parses of the chunks in flight) whatever the file size.
    let parsers = parser_threads();
    let (mut full_txs, mut ready_rxs, mut parser_ends) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..parsers {
        let (full_tx, full_rx) = mpsc::sync_channel::<Filled>(1);
        let (ready_tx, ready_rx) = mpsc::sync_channel::<std::io::Result<PreparedChunk>>(1);
        full_txs.push(full_tx);
        ready_rxs.push(ready_rx);
        parser_ends.push((full_rx, ready_tx));
    }
    let (empty_tx, empty_rx) = mpsc::channel::<Vec<u8>>();
    for _ in 0..BUFFERS + 2 * parsers {
        empty_tx.send(vec![0u8; CHUNK]).expect("the receiver is alive");
    }
    // The format of the input's lines when the loader takes their parses (plain lines of one
    // of `LineParse::FORMATS`, while its reader says they are worth it): known once the first
    // chunk is fed (the parsers wait for that verdict before any other), updated after each
    // chunk. Any other input passes through unparsed.
    let ahead = AtomicU8::new(ahead_code(None));
    let verdict = Verdict::default();
    std::thread::scope(|scope| {
        scope.spawn(move || read_chunks(source, &empty_rx, &full_txs));
        let (ahead, verdict) = (&ahead, &verdict);
        for (p, (full_rx, ready_tx)) in parser_ends.into_iter().enumerate() {
            scope.spawn(move || {
                for (i, chunk) in full_rx.into_iter().enumerate() {
                    // The chunk `i * parsers + p` of the input: all but the first wait.
                    if i > 0 || p > 0 {
                        verdict.wait();
                    }
                    let prepared =
                        chunk.map(|(buf, n)| PreparedChunk::new(buf, n, ahead_format(ahead)));
                    if ready_tx.send(prepared).is_err() {
                        return;
                    }
                }
            });
        }
        // Standard input that starts as a zip, held until it is whole or too large to be an
        // archive of traces.
        let mut held: Option<Vec<u8>> = None;
        let mut first = stdin;
        // Dropped on every way out of here, an error too: the parsers stop waiting for the
        // verdict, and then for this thread to take their chunks.
        let _verdict = GiveOnDrop(verdict);
        let ready_rxs = ready_rxs;
        // A parser that has hung up has passed on every chunk it was dealt: the input ended.
        for chunk in (0..parsers).cycle().map_while(|p| ready_rxs[p].recv().ok()) {
            let mut chunk =
                chunk.with_context(|| format!("cannot read {}", crate::term::shown(path)))?;
            let bytes = chunk.bytes();
            if std::mem::take(&mut first) {
                if let Some(kind) = archive_kind(bytes, &limits) {
                    anyhow::bail!(stdin_archive(kind));
                }
                if bytes.starts_with(b"PK\x03\x04") {
                    held = Some(Vec::new());
                }
            }
            match &mut held {
                Some(h) if (h.len() + bytes.len()) as u64 <= limits.max_archive_bytes => {
                    h.extend_from_slice(bytes);
                }
                _ => {
                    if let Some(h) = held.take() {
                        loader.feed(&h);
                    }
                    loader.feed_prepared(&mut chunk);
                    let worth = after_chunk(loader);
                    let format = loader.parses_ahead().filter(|_| worth);
                    ahead.store(ahead_code(format), Ordering::Relaxed);
                }
            }
            // After the first chunk, fed or held (a held zip is no AWTL).
            verdict.give();
            // The reader may have stopped (end of file); then the buffer is simply dropped.
            let _ = empty_tx.send(chunk.into_buffer());
        }
        if let Some(h) = held {
            if let Some(kind) = archive_kind(&h, &limits) {
                anyhow::bail!(stdin_archive(kind));
            }
            loader.feed(&h);
            after_chunk(loader);
        }
        // Closing the empty-buffer channel lets a reader still waiting for one finish.
        drop(empty_tx);
        Ok::<_, anyhow::Error>(())
    })
}

struct GiveOnDrop<'a>(&'a Verdict);

impl Drop for GiveOnDrop<'_> {
    fn drop(&mut self) {
        self.0.give();
    }
}

/// The format whose lines the parser threads parse ahead, as one atomic byte: 0 for none, else
/// 1 + its place in [`LineParse::FORMATS`].
fn ahead_code(format: Option<Format>) -> u8 {
    format.and_then(|f| LineParse::FORMATS.iter().position(|&g| g == f)).map_or(0, |i| i as u8 + 1)
}

fn ahead_format(code: &AtomicU8) -> Option<Format> {
    let code = code.load(Ordering::Relaxed);
    code.checked_sub(1).and_then(|i| LineParse::FORMATS.get(usize::from(i)).copied())
}

/// Parser threads for [`read_into`]: the cores there are, at most three (the filing of the
/// lines, on the calling thread, keeps up with about three).
fn parser_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, 3)
}

/// Said once, waited for by many: that the first chunk was fed.
#[derive(Default)]
struct Verdict {
    given: std::sync::Mutex<bool>,
    cond: std::sync::Condvar,
}

impl Verdict {
    fn give(&self) {
        let mut given = self.given.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if !*given {
            *given = true;
            self.cond.notify_all();
        }
    }

    fn wait(&self) {
        let mut given = self.given.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        while !*given {
            given = self.cond.wait(given).unwrap_or_else(std::sync::PoisonError::into_inner);
        }
    }
}

fn stdin_archive(kind: ArchiveKind) -> String {
    format!(
        "standard input holds {}: archives are read from a file (`trajscope analyze ARCHIVE` \
         reads each member as its own file; ARCHIVE!MEMBER names one)",
        archive_words(kind)
    )
}

fn archive_words(kind: ArchiveKind) -> &'static str {
    match kind {
        ArchiveKind::Tar => "a tar archive of traces",
        ArchiveKind::TarGz => "a .tar.gz archive of traces",
        ArchiveKind::Zip => "a zip archive of traces",
    }
}

/// A buffer the reader filled and how many of its bytes, or the read's error.
type Filled = std::io::Result<(Vec<u8>, usize)>;

const CHUNK: usize = 1 << 20;
const IN_FLIGHT: usize = 2;
/// The first chunk's size: enough to tell an archive (a tar header, a zip's or gzip's magic)
/// and, mostly, the format.
const FIRST_CHUNK: usize = 64 << 10;
/// Buffers in use at once: the reader's, the one parsed ahead, those queued, the one fed.
const BUFFERS: usize = IN_FLIGHT + 3;

/// The reader thread: fills the buffers it is given, in input order (each one full but the
/// last, the first to [`FIRST_CHUNK`]: a pipe's short reads are gathered, so the first chunk
/// holds enough to tell an archive; a zip on standard input is held whole anyway), and deals
/// them to the parsers in turn, until the end of the input, a read error (dealt on, then stop)
/// or the consumer hanging up.
fn read_chunks(
    mut source: Box<dyn std::io::Read + Send>,
    empty: &mpsc::Receiver<Vec<u8>>,
    parsers: &[mpsc::SyncSender<Filled>],
) {
    // Dealt in turn: the consumer takes them back in the same turn.
    let mut turn = parsers.iter().cycle();
    let mut deal = |chunk| turn.next().is_some_and(|p| p.send(chunk).is_ok());
    // The first chunk is fed before any is parsed ahead (it tells the format): a short one.
    let mut want = FIRST_CHUNK;
    while let Ok(mut buf) = empty.recv() {
        let mut n = 0;
        let mut failed = None;
        let want = std::mem::replace(&mut want, buf.len()).min(buf.len());
        while n < want {
            match source.read(&mut buf[n..want]) {
                Ok(0) => break,
                Ok(k) => n += k,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    failed = Some(e);
                    break;
                }
            }
        }
        if n > 0 && !deal(Ok((buf, n))) {
            return;
        }
        if let Some(e) = failed {
            deal(Err(e));
            return;
        }
        if n == 0 {
            return;
        }
    }
}

/// Whether `path`, an entry found in a folder walk, is a link to a folder; if so, stderr says
/// it is not followed. Walks do not follow them: a link back to a parent would make a walk
/// endless.
pub fn is_link_to_folder(path: &Path) -> bool {
    let link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    if link && path.is_dir() {
        let msg = format!("{}: a link to a folder, not followed", crate::term::shown(path));
        eprintln!("trajscope: {}", crate::term::escape(&msg));
        return true;
    }
    false
}

/// `--format NAME` parser: the names of [`Format::name`].
pub fn parse_format(name: &str) -> Result<Format, String> {
    Format::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = Format::ALL.iter().map(|f| f.name()).collect();
        format!("unknown format `{name}`; known: {}", names.join(", "))
    })
}

/// What tells whether a file is an archive of traces: its first 64 KiB, or all of it (`whole`)
/// when it starts as a zip (whose directory is at its end).
struct Probe {
    bytes: Vec<u8>,
    whole: bool,
}

/// The [`Probe`] of the regular file `path`; `None` for what is not a regular file (a pipe
/// cannot be read twice) and for a zip over the archive limit (read as one trace, where the
/// same limit names itself).
fn archive_probe(
    path: &Path,
    limits: &trajscope_core::ingest::Limits,
) -> anyhow::Result<Option<Probe>> {
    let Ok(meta) = std::fs::metadata(path) else { return Ok(None) };
    if !meta.is_file() {
        return Ok(None);
    }
    let mut head = Vec::with_capacity(64 * 1024);
    std::fs::File::open(path)
        .and_then(|f| f.take(64 * 1024).read_to_end(&mut head))
        .with_context(|| format!("cannot read {}", crate::term::shown(path)))?;
    if !head.starts_with(b"PK\x03\x04") {
        return Ok(Some(Probe { bytes: head, whole: false }));
    }
    if meta.len() > limits.max_archive_bytes {
        return Ok(None);
    }
    let bytes =
        std::fs::read(path).with_context(|| format!("cannot read {}", crate::term::shown(path)))?;
    Ok(Some(Probe { bytes, whole: true }))
}

/// The members of an archive of traces, each as a session named `FILE!MEMBER`, and the message
/// of the limit that stopped the reading, if any.
pub type ArchiveSessions = (Vec<(String, Session)>, Option<String>);

/// An archive of traces (`.tar`, `.tar.gz`, or a `.zip` other than an Inspect `.eval`), told by
/// its first bytes: each member ingested as its own session, named `FILE!MEMBER`, and the
/// message of the limit that stopped the reading, if any. `None` for any other file.
pub fn load_archive(
    path: &Path,
    format: Option<Format>,
) -> anyhow::Result<Option<ArchiveSessions>> {
    let opts = IngestOptions { format, ..IngestOptions::default() };
    // Not a regular file (a pipe cannot be read twice) or a zip over the limit: one trace.
    let Some(probe) = archive_probe(path, &opts.limits)? else { return Ok(None) };
    let bytes = match probe {
        Probe { bytes, whole: true } => bytes,
        Probe { bytes, .. } if archive_kind(&bytes, &opts.limits).is_none() => return Ok(None),
        _ => {
            let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
            if size > opts.limits.max_archive_bytes {
                return Ok(None); // read as one trace, where the same limit names itself
            }
            std::fs::read(path)
                .with_context(|| format!("cannot read {}", crate::term::shown(path)))?
        }
    };
    let Some(archive) = ingest_archive(&bytes, &opts) else { return Ok(None) };
    let members = archive
        .members
        .into_iter()
        .map(|m| (member_name(path, &m.path), Session::new(m.trace, None)))
        .collect();
    Ok(Some((members, archive.error)))
}

/// Standard output for large writes: a duplicate of its descriptor as a plain file, so a write
/// goes straight to the kernel (the standard handle is line-buffered and scans every byte for a
/// newline first). The caller gathers its output in large buffers. Elsewhere than Unix, the
/// standard handle.
#[cfg(unix)]
pub fn raw_stdout() -> Box<dyn std::io::Write> {
    use std::os::fd::AsFd as _;
    match std::io::stdout().as_fd().try_clone_to_owned() {
        Ok(fd) => Box::new(std::fs::File::from(fd)),
        Err(_) => Box::new(std::io::stdout().lock()),
    }
}

/// Writes every byte of `slices` with as few `writev` calls as the system allows (std's
/// `write_all_vectored` is not stable yet).
pub fn write_all_vectored(
    out: &mut dyn std::io::Write,
    mut slices: &mut [std::io::IoSlice<'_>],
) -> std::io::Result<()> {
    while !slices.is_empty() {
        match out.write_vectored(slices) {
            Ok(0) => return Err(std::io::ErrorKind::WriteZero.into()),
            Ok(n) => std::io::IoSlice::advance_slices(&mut slices, n),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

#[cfg(not(unix))]
pub fn raw_stdout() -> Box<dyn std::io::Write> {
    Box::new(std::io::stdout().lock())
}
