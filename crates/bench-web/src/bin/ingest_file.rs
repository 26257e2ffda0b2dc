//! `ingest-file FILE`: the core's streaming ingest alone (no analysis), fed in 1 MiB slices on
//! one thread (the CLI reads on a second thread beside the parse); prints the line accounting
//! and the seconds the ingest took. For bench/native.sh, to tell ingest speed from the whole
//! `analyze` pipeline.

use std::io::Read as _;
use std::time::Instant;

use trajscope_core::{IngestOptions, Ingestor};

fn main() -> std::io::Result<()> {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: ingest-file FILE");
        std::process::exit(2);
    };
    let mut file = std::fs::File::open(&path)?;
    let start = Instant::now();
    let mut ingestor = Ingestor::new(IngestOptions::default());
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            break;
        }
        ingestor.feed(&buf[..n]);
    }
    let trace = ingestor.finish();
    let seconds = start.elapsed().as_secs_f64();
    let steps: usize = trace.trajectories.iter().map(|t| t.steps.len()).sum();
    let s = &trace.stats;
    println!(
        "{{\"seconds\":{seconds},\"bytes\":{},\"lines_parsed\":{},\"lines_quarantined\":{},\"steps\":{steps}}}",
        s.bytes, s.lines_parsed, s.lines_quarantined
    );
    // As the CLI does at exit: the OS takes the memory back, freeing it step by step is not
    // part of the ingest.
    std::mem::forget(trace);
    Ok(())
}
