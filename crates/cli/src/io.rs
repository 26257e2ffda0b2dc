//! File input for the CLI: streams a file into the core in 1 MiB chunks.

use std::io::Read as _;
use std::path::Path;

use anyhow::Context as _;
use trajscope_core::labels::ContentHasher;
use trajscope_core::model::Format;
use trajscope_core::{IngestOptions, Ingestor, Trace};

/// Reads and ingests a trace file.
pub fn load(path: &Path, format: Option<Format>) -> anyhow::Result<Trace> {
    Ok(load_hashed(path, format)?.0)
}

/// Reads and ingests a trace file, also returning its content hash (`sha256:<hex>`, the trace
/// identity that labels and case ids use).
pub fn load_hashed(path: &Path, format: Option<Format>) -> anyhow::Result<(Trace, String)> {
    let mut file =
        std::fs::File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut ingestor = Ingestor::new(IngestOptions { format });
    // The SHA-256 runs on its own thread, a chunk behind the ingest: the same digest of the
    // same bytes in the same order, off the ingest's critical path. Chunks go over and come
    // back (a small pool of buffers, no allocation per chunk).
    const POOL: usize = 3;
    let (to_hasher, hasher_rx) = std::sync::mpsc::sync_channel::<(Vec<u8>, usize)>(POOL);
    let (to_reader, reader_rx) = std::sync::mpsc::channel::<Vec<u8>>();
    std::thread::scope(|scope| {
        let hashing = scope.spawn(move || {
            let mut hasher = ContentHasher::new();
            for (buf, n) in hasher_rx {
                hasher.update(&buf[..n]);
                // The reader may have stopped (an error): the buffer is just dropped then.
                let _ = to_reader.send(buf);
            }
            hasher.finish()
        });
        let mut pool: Vec<Vec<u8>> = (0..POOL).map(|_| vec![0u8; 1 << 20]).collect();
        let read = (|| -> anyhow::Result<()> {
            loop {
                let mut buf = match pool.pop() {
                    Some(b) => b,
                    None => reader_rx.recv().context("hashing thread stopped")?,
                };
                let n = file
                    .read(&mut buf)
                    .with_context(|| format!("cannot read {}", path.display()))?;
                if n == 0 {
                    return Ok(());
                }
                ingestor.feed(&buf[..n]);
                to_hasher.send((buf, n)).context("hashing thread stopped")?;
            }
        })();
        drop(to_hasher);
        let digest = hashing.join().map_err(|_| anyhow::anyhow!("hashing thread panicked"))?;
        read?;
        Ok((ingestor.finish(), digest))
    })
}

/// `--format NAME` parser: the names of [`Format::name`].
pub fn parse_format(name: &str) -> Result<Format, String> {
    Format::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = Format::ALL.iter().map(|f| f.name()).collect();
        format!("unknown format `{name}`; known: {}", names.join(", "))
    })
}
