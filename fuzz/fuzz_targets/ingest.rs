//! Fuzz target: ingest never panics, its accounting always adds up, any chunking gives the same
//! trace (also when settled trajectories are taken between chunks and given back, and every
//! one that changed after being handed over is named), and every quarantined line's raw bytes
//! are exactly the input's bytes at its offset.
//! The first input byte picks a chunk size, a format hint and a container; the rest is the
//! file, fed as it is, gzip-compressed (the decoded stream is then the file itself), or as the
//! one sample of a zip archive (an Inspect `.eval`).
#![no_main]

use std::io::Write as _;

use libfuzzer_sys::fuzz_target;
use trajscope_core::model::Format;
use trajscope_core::{ingest, IngestOptions, Ingestor};

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    enc.write_all(bytes).expect("in-memory write");
    enc.finish().expect("in-memory write")
}

/// A zip archive with `header.json` and one stored `samples/1_epoch_1.json` holding `bytes`.
fn zip(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for (name, data) in [(&b"header.json"[..], &b"{}"[..]), (b"samples/1_epoch_1.json", bytes)] {
        let offset = out.len() as u32;
        let size = (data.len() as u32).to_le_bytes();
        out.extend_from_slice(b"PK\x03\x04\x14\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00");
        out.extend_from_slice(&size);
        out.extend_from_slice(&size);
        out.extend_from_slice(&(name.len() as u16).to_le_bytes());
        out.extend_from_slice(&[0, 0]);
        out.extend_from_slice(name);
        out.extend_from_slice(data);
        central.extend_from_slice(b"PK\x01\x02\x14\x00\x14\x00\x00\x00\x00\x00");
        central.extend_from_slice(&[0; 8]);
        central.extend_from_slice(&size);
        central.extend_from_slice(&size);
        central.extend_from_slice(&(name.len() as u16).to_le_bytes());
        central.extend_from_slice(&[0; 12]);
        central.extend_from_slice(&offset.to_le_bytes());
        central.extend_from_slice(name);
    }
    let cd_offset = out.len() as u32;
    out.extend_from_slice(&central);
    out.extend_from_slice(b"PK\x05\x06\x00\x00\x00\x00\x02\x00\x02\x00");
    out.extend_from_slice(&(central.len() as u32).to_le_bytes());
    out.extend_from_slice(&cd_offset.to_le_bytes());
    out.extend_from_slice(&[0, 0]);
    out
}

fuzz_target!(|data: &[u8]| {
    let Some((&knob, file)) = data.split_first() else { return };
    let format = match knob >> 4 {
        n @ 0..=12 if knob & 1 == 1 => Some(Format::ALL[n as usize]),
        _ => None,
    };
    let container = (knob >> 1) & 3;
    let input = match container {
        2 => gzip(file),
        3 => zip(file),
        _ => file.to_vec(),
    };
    let input = &input[..];
    let opts = || IngestOptions { format, ..IngestOptions::default() };
    let whole = ingest(input, opts());
    let s = &whole.stats;
    assert_eq!(s.lines_total, s.lines_parsed + s.lines_blank + s.lines_quarantined);
    assert_eq!(s.lines_quarantined as usize, whole.quarantine.len());

    let size = usize::from(knob % 13) + 1;
    let mut ingestor = Ingestor::new(opts());
    for chunk in input.chunks(size) {
        ingestor.feed(chunk);
    }
    assert_eq!(ingestor.finish(), whole, "chunks of {size} bytes");

    let mut ingestor = Ingestor::new(opts());
    let mut settled = Vec::new();
    for chunk in input.chunks(size) {
        ingestor.feed(chunk);
        settled.extend(ingestor.take_settled());
    }
    let handed = settled.clone();
    let finished = ingestor.finish_with(settled);
    assert_eq!(finished.trace, whole, "settling, chunks of {size} bytes");
    for s in &handed {
        let stale = whole.trajectories[s.position] != s.trajectory;
        assert_eq!(stale, finished.changed.contains(&s.position), "position {}", s.position);
    }

    // The decoded stream: the file itself when gzip-compressed here, the input when plain
    // (a plain input that is itself a gzip stream is skipped).
    let decoded = match container {
        2 => Some(file),
        3 => None,
        _ if input.starts_with(&[0x1f, 0x8b]) => None,
        _ => Some(input),
    };
    if let Some(decoded) = decoded {
        if whole.format != Format::Inspect {
            assert_eq!(s.bytes as usize, decoded.len());
        }
        for q in &whole.quarantine {
            let start = q.offset as usize;
            assert_eq!(decoded.get(start..start + q.raw.len()), Some(&q.raw[..]));
            if q.truncated_tail {
                assert_eq!(start + q.raw.len(), decoded.len());
            }
        }
    }
});
