//! File input for the CLI: streams a file into the core in 1 MiB chunks.

use std::io::Read as _;
use std::path::Path;

use anyhow::Context as _;
use trajscope_core::labels::ContentHasher;
use trajscope_core::model::Format;
use trajscope_core::{IngestOptions, Ingestor, Trace};

/// Reads and ingests a trace file.
pub fn load(path: &Path, format: Option<Format>) -> anyhow::Result<Trace> {
    read_into(path, format, None)
}

/// Reads and ingests a trace file, also returning its content hash (`sha256:<hex>`, the trace
/// identity that labels and case ids use). Only the commands that need the identity pay for it.
pub fn load_hashed(path: &Path, format: Option<Format>) -> anyhow::Result<(Trace, String)> {
    let mut hasher = ContentHasher::new();
    let trace = read_into(path, format, Some(&mut hasher))?;
    Ok((trace, hasher.finish()))
}

fn read_into(
    path: &Path,
    format: Option<Format>,
    mut hasher: Option<&mut ContentHasher>,
) -> anyhow::Result<Trace> {
    let mut file =
        std::fs::File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut ingestor = Ingestor::new(IngestOptions { format });
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = file.read(&mut buf).with_context(|| format!("cannot read {}", path.display()))?;
        if n == 0 {
            break;
        }
        if let Some(h) = hasher.as_deref_mut() {
            h.update(&buf[..n]);
        }
        ingestor.feed(&buf[..n]);
    }
    Ok(ingestor.finish())
}

/// `--format NAME` parser: the names of [`Format::name`].
pub fn parse_format(name: &str) -> Result<Format, String> {
    Format::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = Format::ALL.iter().map(|f| f.name()).collect();
        format!("unknown format `{name}`; known: {}", names.join(", "))
    })
}
