//! trajscope-core: the pure analysis library behind the trajscope app and CLI.
//!
//! Bytes in, data out: no file system, no network, no clock, no UI types. It compiles natively
//! and to `wasm32-unknown-unknown`. The pipeline (`ARCHITECTURE.md`):
//! `ingest` (bytes → [`model::Trace`] + quarantine) → views → attribution → cases → brief, and
//! [`session`], the seam where a loaded trace becomes what the CLI and the app show.

mod ac;
pub mod artifact;
pub mod attribution;
pub mod brief;
pub mod cases;
pub mod dataset;
pub mod diff;
pub mod eval;
pub mod ingest;
pub mod json;
pub mod labels;
pub mod lower;
pub mod model;
pub mod num;
pub mod outcome;
pub mod promote;
pub mod record;
pub mod redact;
pub mod report;
pub mod scorecard;
pub mod session;
pub mod sort;
pub mod usage;
pub mod vecmap;
pub mod views;

/// Classification lives inside attribution; this path is kept for callers.
pub use attribution::classify;
pub use ingest::{ingest, Finished, IngestOptions, Ingestor, Settled};
pub use model::{Format, Trace};
pub use session::{Loader, Session};

/// Serialises raw bytes as base64 (the exact bytes of a quarantined line round-trip).
pub(crate) mod base64_bytes {
    use base64::Engine as _;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&base64::engine::general_purpose::STANDARD.encode(bytes))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        let text = String::deserialize(d)?;
        base64::engine::general_purpose::STANDARD.decode(text).map_err(serde::de::Error::custom)
    }
}
