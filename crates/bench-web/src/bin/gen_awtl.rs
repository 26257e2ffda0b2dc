//! `gen-awtl OUT SIZE_MB [SEED]`: writes a deterministic, realistic AWTL trace of at least
//! SIZE_MB megabytes (10^6 bytes) to OUT, for the benchmarks (bench/native.sh, bench/browser.sh).

use std::io::Write as _;

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let usage = "usage: gen-awtl OUT SIZE_MB [SEED]";
    let (Some(out), Some(size)) = (args.get(1), args.get(2)) else {
        eprintln!("{usage}");
        std::process::exit(2);
    };
    let Ok(mb) = size.parse::<u64>() else {
        eprintln!("{usage}");
        std::process::exit(2);
    };
    let seed = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(42);
    let mut w = std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(out)?);
    let n = trajscope_bench_web::awtl_gen::generate(seed, mb * 1_000_000, &mut w)?;
    w.flush()?;
    eprintln!("wrote {n} bytes to {out}");
    Ok(())
}
