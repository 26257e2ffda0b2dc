//! Fuzz target: ingest never panics, its accounting always adds up, any chunking gives the same
//! trace (also when settled trajectories are taken between chunks and given back, and every
//! one that changed after being handed over is named), and every quarantined line's raw bytes
//! are exactly the input's bytes at its offset.
//! The first input byte picks a chunk size and a format hint; the rest is the file.
#![no_main]

use libfuzzer_sys::fuzz_target;
use trajscope_core::model::Format;
use trajscope_core::{ingest, IngestOptions, Ingestor};

fuzz_target!(|data: &[u8]| {
    let Some((&knob, input)) = data.split_first() else { return };
    let format = match knob >> 4 {
        n @ 0..=12 if knob & 1 == 1 => Some(Format::ALL[n as usize]),
        _ => None,
    };
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

    if !input.starts_with(&[0x1f, 0x8b]) {
        assert_eq!(s.bytes as usize, input.len());
        for q in &whole.quarantine {
            let start = q.offset as usize;
            assert_eq!(input.get(start..start + q.raw.len()), Some(&q.raw[..]));
            if q.truncated_tail {
                assert_eq!(start + q.raw.len(), input.len());
            }
        }
    }
});
