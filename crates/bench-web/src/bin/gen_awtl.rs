//! `gen-awtl [--shape NAME] [--scale N] OUT SIZE_MB [SEED]`: writes a deterministic, realistic
//! AWTL trace to OUT for the benchmarks (bench/native.sh, bench/app.sh, bench/browser.sh).
//! Shapes: `long` (default: long runs until SIZE_MB megabytes of 10^6 bytes), `short` (10,000
//! runs of ~35 steps), `one-step` (100,000 one-step runs), `huge-run` (one run of 1,000,000
//! steps); SIZE_MB only bounds `long`. `--scale N` divides the run or step count by N.

use std::io::Write as _;

use trajscope_bench_web::awtl_gen::{generate_shape, Shape};

fn main() -> std::io::Result<()> {
    let usage =
        "usage: gen-awtl [--shape long|short|one-step|huge-run] [--scale N] OUT SIZE_MB [SEED]";
    let fail = || -> ! {
        eprintln!("{usage}");
        std::process::exit(2);
    };
    let mut args = std::env::args().skip(1);
    let (mut shape_name, mut scale, mut rest) = ("long".to_string(), 1u64, Vec::new());
    while let Some(a) = args.next() {
        match a.as_str() {
            "--shape" => shape_name = args.next().unwrap_or_else(|| fail()),
            "--scale" => scale = args.next().and_then(|s| s.parse().ok()).unwrap_or_else(|| fail()),
            _ => rest.push(a),
        }
    }
    let (Some(out), Some(size)) = (rest.first(), rest.get(1)) else { fail() };
    let Ok(mb) = size.parse::<u64>() else { fail() };
    let seed = rest.get(2).and_then(|s| s.parse().ok()).unwrap_or(42);
    let Some(shape) = Shape::named(&shape_name, mb, scale) else { fail() };
    let mut w = std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(out)?);
    let n = generate_shape(seed, shape, &mut w)?;
    w.flush()?;
    eprintln!("wrote {n} bytes ({shape_name}) to {out}");
    Ok(())
}
