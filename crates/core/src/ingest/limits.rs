//! The caps that keep ingest's memory bounded on hostile input (a decompression bomb, an endless
//! line, a zip whose entries overlap). Documented in `docs/limits.md`; past a cap the trace's
//! `error` says which limit stopped the input and where, and everything before it is accounted
//! exactly.

/// Ingest limits. [`Limits::default`] is what the CLI and the app use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Bytes a compressed input may inflate to: a gzip stream's output, or all the entries of
    /// a zip archive read together (overlapping entries count each time they are read).
    pub max_inflated: u64,
    /// The longest line kept whole. A longer line is quarantined with its first
    /// [`QUARANTINE_KEEP`] bytes and its full length; the lines after it are read as usual.
    pub max_line: usize,
    /// Bytes of a zip archive held for reading (a zip is read from its end).
    pub max_archive_bytes: u64,
    /// Entries in a zip archive's directory.
    pub max_archive_entries: u64,
    /// Bytes of one single (pretty-printed) JSON document held for parsing; a larger one has
    /// its lines read one by one.
    pub max_document: u64,
    /// Lines parsed from a compressed input (each becomes a step or more; a step costs several
    /// hundred bytes beside its text, so a bomb of short valid lines stops here).
    pub max_compressed_records: u64,
    /// Bytes held for quarantined lines (their exact bytes and a fixed cost per entry of
    /// [`QUARANTINE_ENTRY_COST`]): a file of nothing but garbage lines stops here.
    pub max_quarantine_bytes: u64,
    /// Trajectories one input may open (AWTL runs, records of a record-per-line file): past it,
    /// reading stops. Each costs ~2 KB beside its steps once analysed and listed, and the app's
    /// worker and page each hold a wasm32 memory of at most 4 GiB: a 200 MB file of 4,000,000
    /// one-line runs ended the page (docs/limits.md).
    pub max_trajectories: u64,
}

/// Bytes of a line longer than [`Limits::max_line`] kept in its quarantine entry.
pub const QUARANTINE_KEEP: usize = 4 * 1024;

/// What one quarantine entry costs beside its bytes (the entry, its reason), for
/// [`Limits::max_quarantine_bytes`].
pub const QUARANTINE_ENTRY_COST: u64 = 128;

const MIB: u64 = 1024 * 1024;

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_inflated: 512 * MIB,
            max_line: 64 * MIB as usize,
            max_archive_bytes: 512 * MIB,
            max_archive_entries: 10_000,
            max_document: 128 * MIB,
            max_compressed_records: 1_000_000,
            max_quarantine_bytes: 256 * MIB,
            max_trajectories: 1_000_000,
        }
    }
}

impl Limits {
    /// No limits (tests that need a stream larger than the defaults allow).
    pub fn none() -> Limits {
        Limits {
            max_inflated: u64::MAX,
            max_line: usize::MAX,
            max_archive_bytes: u64::MAX,
            max_archive_entries: u64::MAX,
            max_document: u64::MAX,
            max_compressed_records: u64::MAX,
            max_quarantine_bytes: u64::MAX,
            max_trajectories: u64::MAX,
        }
    }
}

/// A byte count for messages: `512 MiB`, `4 KiB`, `100 bytes`.
pub fn size_text(n: u64) -> String {
    const GIB: u64 = 1024 * MIB;
    if n >= GIB && n % GIB == 0 {
        format!("{} GiB", n / GIB)
    } else if n >= MIB && n % MIB == 0 {
        format!("{} MiB", n / MIB)
    } else if n >= 1024 && n % 1024 == 0 {
        format!("{} KiB", n / 1024)
    } else {
        format!("{n} bytes")
    }
}
