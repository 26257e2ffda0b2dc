//! Criterion benchmark of the streaming ingest on a generated AWTL trace (the same generator as
//! bench/native.sh and bench/browser.sh, at a smaller size): plain and gzip-compressed input,
//! fed in 1 MiB slices as the CLI feeds a file. `cargo bench -p trajscope-core --bench ingest`.
//! Criterion is native only; on wasm32 this bench is empty.

#[cfg(not(target_arch = "wasm32"))]
#[path = "../../bench-web/src/awtl_gen.rs"]
#[allow(dead_code)] // the shapes are bench/native.sh's; this bench uses the default one
mod awtl_gen;

#[cfg(not(target_arch = "wasm32"))]
const SIZE: u64 = 16_000_000;

#[cfg(not(target_arch = "wasm32"))]
fn ingest_in_slices(bytes: &[u8]) -> usize {
    use trajscope_core::{IngestOptions, Ingestor};
    let mut ingestor = Ingestor::new(IngestOptions::default());
    for slice in bytes.chunks(1 << 20) {
        ingestor.feed(slice);
    }
    let trace = ingestor.finish();
    trace.trajectories.iter().map(|t| t.steps.len()).sum()
}

#[cfg(not(target_arch = "wasm32"))]
fn bench_ingest(c: &mut criterion::Criterion) {
    use std::io::Write as _;
    let mut plain = Vec::new();
    awtl_gen::generate(7, SIZE, &mut plain).expect("in-memory write");
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(&plain).expect("in-memory write");
    let gz = enc.finish().expect("in-memory write");

    let mut group = c.benchmark_group("ingest");
    group.sample_size(10);
    group.throughput(criterion::Throughput::Bytes(plain.len() as u64));
    group.bench_function("awtl_16mb", |b| b.iter(|| ingest_in_slices(&plain)));
    group.bench_function("awtl_16mb_gzip", |b| b.iter(|| ingest_in_slices(&gz)));
    group.finish();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    let mut c = criterion::Criterion::default().configure_from_args();
    bench_ingest(&mut c);
    c.final_summary();
}

#[cfg(target_arch = "wasm32")]
fn main() {}
