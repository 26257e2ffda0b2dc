#!/usr/bin/env bash
# Native speed on every benchmark shape, in one run: `trajscope analyze --json FILE` (ingest and
# the whole analysis) against a Python `orjson.loads`-per-line loop (bench/orjson_loop.py) on the
# same file, started in turn (A B A B ...) so each pair sees the same machine; the ratio is taken
# pair by pair and the median is reported, with both medians of wall time and analyze's peak RSS.
# Shapes (files in target/bench/, made once):
#   long      long runs (the original shape), SIZE_MB megabytes          (gen-awtl --shape long)
#   short     10,000 runs of ~35 steps                                     (gen-awtl --shape short)
#   one-step  100,000 one-step runs                                        (gen-awtl --shape one-step)
#   huge-run  one run of 1,000,000 steps                                   (gen-awtl --shape huge-run)
#   py-interleaved  10,000 short runs interleaved, written by bench/other_shapes.py
#   py-one-line     100,000 one-line runs, written by bench/other_shapes.py
#   fixtures        the real AWTL fixtures concatenated 2,000 times (bench/other_shapes.py)
#   1gb       long runs, 1,000 MB: only with BENCH_1GB=1
#   bench/native.sh [SIZE_MB=200] [RUNS=5]     (BENCH_SHAPES="short one-step" picks shapes)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
SIZE_MB="${1:-200}"
RUNS="${2:-5}"
export PATH="$HOME/.cargo/bin:$PATH"
SHAPES="${BENCH_SHAPES:-long short one-step huge-run py-interleaved py-one-line fixtures}"
[ "${BENCH_1GB:-0}" = 1 ] && SHAPES="$SHAPES 1gb"

cargo build --release -q -p trajscope-cli -p trajscope-bench-web --bin trajscope --bin gen-awtl
python3 -c 'import orjson' 2>/dev/null || python3 -m pip install -q orjson \
  || python3 -m pip install -q --break-system-packages orjson
mkdir -p target/bench

file_of() {
  case "$1" in
    long) echo "target/bench/awtl-${SIZE_MB}mb.jsonl" ;;
    1gb) echo "target/bench/awtl-1000mb.jsonl" ;;
    *) echo "target/bench/$1.jsonl" ;;
  esac
}
make_shape() {
  local f; f="$(file_of "$1")"
  [ -s "$f" ] && return
  case "$1" in
    long) target/release/gen-awtl "$f" "$SIZE_MB" ;;
    1gb) target/release/gen-awtl "$f" 1000 ;;
    short|one-step|huge-run) target/release/gen-awtl --shape "$1" "$f" 0 ;;
    py-interleaved) python3 bench/other_shapes.py interleaved "$f" ;;
    py-one-line) python3 bench/other_shapes.py one-line "$f" ;;
    fixtures) python3 bench/other_shapes.py fixtures "$f" ;;
  esac
}
for s in $SHAPES; do make_shape "$s"; done

FILES=()
for s in $SHAPES; do FILES+=("$s=$(file_of "$s")"); done
python3 - "$RUNS" "${FILES[@]}" <<'PY'
import os, resource, statistics, subprocess, sys, time

runs = int(sys.argv[1])

def timed(cmd):
    """Wall seconds and peak RSS (KiB) of one child run."""
    t = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    if status != 0:
        sys.exit(f"{cmd} failed: {status}")
    return wall, usage.ru_maxrss

print(f"paired runs: {runs} per shape; medians; ratio = orjson wall / analyze wall (pair by pair)")
print(f"{'shape':16} {'MB':>7} {'analyze s':>10} {'orjson s':>9} {'ratio':>6} {'analyze MB/s':>12} {'peak MiB':>9}")
for arg in sys.argv[2:]:
    name, path = arg.split("=", 1)
    mb = os.path.getsize(path) / 1e6
    with open(path, "rb") as f:  # warm the page cache: both contenders read from memory
        while f.read(1 << 24):
            pass
    a = ["target/release/trajscope", "analyze", "--json", path]
    b = [sys.executable, "bench/orjson_loop.py", path]
    pairs = []
    for _ in range(runs):
        wa, rss = timed(a)
        wb, _ = timed(b)
        pairs.append((wa, wb, rss))
    wa = statistics.median(p[0] for p in pairs)
    wb = statistics.median(p[1] for p in pairs)
    ratio = statistics.median(p[1] / p[0] for p in pairs)
    rss = max(p[2] for p in pairs)
    print(f"{name:16} {mb:7.1f} {wa:10.3f} {wb:9.3f} {ratio:5.2f}x {mb / wa:12.1f} {rss / 1024:9.0f}", flush=True)
PY
