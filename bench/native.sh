#!/usr/bin/env bash
# Native speed on every benchmark shape, in one run: `trajscope analyze --json FILE` (ingest and
# the whole analysis) against a Python `orjson.loads`-per-line loop (bench/orjson_loop.py) on the
# same file, started in turn (A B A B ...) so each pair sees the same machine; the ratio is taken
# pair by pair and the median is reported, with both medians of wall time, analyze's peak RSS
# and its minor page faults (median, thousands: each a first write to a fresh page).
# Shapes: see bench/shapes.sh (files in target/bench/, made once); the 1 GB one only with BENCH_1GB=1.
#   bench/native.sh [SIZE_MB=200] [RUNS=5]     (BENCH_SHAPES="short one-step" picks shapes;
#   TRAJSCOPE=path/to/trajscope measures another build; BEFORE=path/to/trajscope adds a build
#   started first in each round (before, analyze, orjson), e.g. a copy of the build before a
#   change, with its own wall and CPU ratios, peak RSS and page-fault columns)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
SIZE_MB="${1:-200}"
RUNS="${2:-5}"
export PATH="$HOME/.cargo/bin:$PATH"
SHAPES="${BENCH_SHAPES:-long short one-step huge-run py-interleaved py-one-line fixtures claude-code codex trajerrbench trajerrbench-ascii chat openai-agents smolagents}"
BIN="${TRAJSCOPE:-target/release/trajscope}"
[ "${BENCH_1GB:-0}" = 1 ] && SHAPES="$SHAPES 1gb"

cargo build --release -q -p trajscope-cli -p trajscope-bench-web --bin trajscope --bin gen-awtl
python3 -c 'import orjson' 2>/dev/null || python3 -m pip install -q orjson \
  || python3 -m pip install -q --break-system-packages orjson
# shellcheck source=shapes.sh
source bench/shapes.sh
for s in $SHAPES; do make_shape "$s"; done

FILES=()
for s in $SHAPES; do FILES+=("$s=$(shape_file "$s")"); done
python3 - "$RUNS" "$BIN" "${BEFORE:-}" "${FILES[@]}" <<'PY'
import os, resource, statistics, subprocess, sys, time

runs = int(sys.argv[1])
binary = sys.argv[2]
before = sys.argv[3]

def spread(xs):
    """The pairs' ratios' first and third quartiles (the lowest and highest of fewer than four)."""
    if len(xs) < 4:
        return min(xs), max(xs)
    q = statistics.quantiles(xs, n=4)
    return q[0], q[2]

def timed(cmd):
    """Wall seconds, CPU seconds (user + sys of every thread), peak RSS (KiB) and minor page
    faults (each a first touch of a fresh page: a large share of the system time) of one run."""
    t = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    if status != 0:
        sys.exit(f"{cmd} failed: {status}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss, usage.ru_minflt

print(f"{binary}; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
print(f"paired runs: {runs} per shape; medians; ratio = orjson / analyze, pair by pair (wall; cpu); p25-p75: the wall ratios' quartiles")
extra = f" | before {before}: {'wall s':>7} {'ratio':>6} {'cpu s':>7} {'ratio':>6} {'peak MiB':>9} {'faults K':>8}" if before else ""
print(f"{'shape':16} {'MB':>7} {'analyze s':>10} {'orjson s':>9} {'ratio':>6} {'p25-p75':>9} {'cpu: analyze':>12} {'orjson':>7} {'ratio':>6} {'peak MiB':>9} {'faults K':>8}{extra}")
for arg in sys.argv[4:]:
    name, path = arg.split("=", 1)
    mb = os.path.getsize(path) / 1e6
    with open(path, "rb") as f:  # warm the page cache: both contenders read from memory
        while f.read(1 << 24):
            pass
    a = [binary, "analyze", "--json", path]
    b = [sys.executable, "bench/orjson_loop.py", path]
    pairs = []
    for _ in range(runs):
        wz, cz, rz, fz = timed([before] + a[1:]) if before else (0.0, 0.0, 0, 0)
        wa, ca, rss, fa = timed(a)
        wb, cb, _, _ = timed(b)
        pairs.append((wa, wb, ca, cb, rss, cz, rz, fa, fz, wz))
    med = lambda f: statistics.median(f(p) for p in pairs)
    wa, wb, ca, cb = med(lambda p: p[0]), med(lambda p: p[1]), med(lambda p: p[2]), med(lambda p: p[3])
    ratio, cratio = med(lambda p: p[1] / p[0]), med(lambda p: p[3] / p[2])
    # How far the pairs spread: this machine's speed drifts by a third between runs of the
    # same build (docs/performance.md, nineteenth pass); a change inside the spread is noise.
    lo, hi = spread([p[1] / p[0] for p in pairs])
    rss, faults = max(p[4] for p in pairs), med(lambda p: p[7]) / 1000
    if before:
        cz, zratio = med(lambda p: p[5]), med(lambda p: p[3] / p[5])
        wz, wratio = med(lambda p: p[9]), med(lambda p: p[1] / p[9])
        extra = f" | {'':>{len(before) + 8}}{wz:7.3f} {wratio:5.2f}x {cz:7.3f} {zratio:5.2f}x {max(p[6] for p in pairs) / 1024:9.0f} {med(lambda p: p[8]) / 1000:8.1f}"
    print(f"{name:16} {mb:7.1f} {wa:10.3f} {wb:9.3f} {ratio:5.2f}x {lo:4.2f}-{hi:4.2f} {ca:12.3f} {cb:7.3f} {cratio:5.2f}x {rss / 1024:9.0f} {faults:8.1f}{extra}", flush=True)
PY
