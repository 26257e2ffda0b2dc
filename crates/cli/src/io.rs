//! File input for the CLI: streams a file into the core in 1 MiB chunks, read on a thread of
//! its own while the core parses the previous ones.

use std::io::Read as _;
use std::path::Path;
use std::sync::mpsc;

use anyhow::Context as _;
use trajscope_core::labels::ContentHasher;
use trajscope_core::model::Format;
use trajscope_core::{IngestOptions, Ingestor, Trace};

/// Reads and ingests a trace file.
pub fn load(path: &Path, format: Option<Format>) -> anyhow::Result<Trace> {
    Ok(read_into(path, format, None, |_| {})?.finish())
}

/// Reads and ingests a trace file, also returning its content hash (`sha256:<hex>`, the trace
/// identity that labels and case ids use). Only the commands that need the identity pay for it.
pub fn load_hashed(path: &Path, format: Option<Format>) -> anyhow::Result<(Trace, String)> {
    let mut hasher = ContentHasher::new();
    let trace = read_into(path, format, Some(&mut hasher), |_| {})?.finish();
    Ok((trace, hasher.finish()))
}

/// Streams the file into a new ingestor and returns it unfinished; `after_chunk` sees the
/// ingestor after every chunk (to take what has settled).
pub fn read_into(
    path: &Path,
    format: Option<Format>,
    mut hasher: Option<&mut ContentHasher>,
    mut after_chunk: impl FnMut(&mut Ingestor),
) -> anyhow::Result<Ingestor> {
    let file =
        std::fs::File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut ingestor = Ingestor::new(IngestOptions { format, ..IngestOptions::default() });
    // A reader thread keeps the next chunks coming (the kernel's copy into our buffers runs
    // beside the parse instead of between parses); buffers go back to it to be reused, so
    // memory stays at CHUNK * (IN_FLIGHT + 1) whatever the file size.
    let (full_tx, full_rx) = mpsc::sync_channel::<std::io::Result<(Vec<u8>, usize)>>(IN_FLIGHT);
    let (empty_tx, empty_rx) = mpsc::channel::<Vec<u8>>();
    for _ in 0..=IN_FLIGHT {
        empty_tx.send(vec![0u8; CHUNK]).expect("the receiver is alive");
    }
    std::thread::scope(|scope| {
        scope.spawn(move || read_chunks(file, &empty_rx, &full_tx));
        for chunk in full_rx {
            let (buf, n) = chunk.with_context(|| format!("cannot read {}", path.display()))?;
            if let Some(h) = hasher.as_deref_mut() {
                h.update(&buf[..n]);
            }
            ingestor.feed(&buf[..n]);
            after_chunk(&mut ingestor);
            // The reader may have stopped (end of file); then the buffer is simply dropped.
            let _ = empty_tx.send(buf);
        }
        // Closing the empty-buffer channel lets a reader still waiting for one finish.
        drop(empty_tx);
        Ok::<_, anyhow::Error>(())
    })?;
    Ok(ingestor)
}

const CHUNK: usize = 1 << 20;
const IN_FLIGHT: usize = 2;

/// The reader thread: fills the buffers it is given, in file order, until the end of the file,
/// a read error (sent on, then stop) or the consumer hanging up.
fn read_chunks(
    mut file: std::fs::File,
    empty: &mpsc::Receiver<Vec<u8>>,
    full: &mpsc::SyncSender<std::io::Result<(Vec<u8>, usize)>>,
) {
    while let Ok(mut buf) = empty.recv() {
        let read = loop {
            match file.read(&mut buf) {
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                other => break other,
            }
        };
        match read {
            Ok(0) => return,
            Ok(n) => {
                if full.send(Ok((buf, n))).is_err() {
                    return;
                }
            }
            Err(e) => {
                let _ = full.send(Err(e));
                return;
            }
        }
    }
}

/// `--format NAME` parser: the names of [`Format::name`].
pub fn parse_format(name: &str) -> Result<Format, String> {
    Format::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = Format::ALL.iter().map(|f| f.name()).collect();
        format!("unknown format `{name}`; known: {}", names.join(", "))
    })
}
