#!/usr/bin/env bash
# Native ingest speed on the same generated AWTL trace, in one run:
#   - `trajscope analyze --json FILE` (ingest + the whole analysis, the issue's target),
#   - the core's ingest alone (bin `ingest-file`: the same 1 MiB streaming as the CLI),
#   - a Python `orjson.loads`-per-line loop (the fastest parse-only loop a user could write).
# Prints MB/s and the ratios, by wall time (best of RUNS) and by CPU time (user+sys, which a
# busy shared machine disturbs less).
#   bench/native.sh [SIZE_MB=200] [RUNS=3]
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
SIZE_MB="${1:-200}"
RUNS="${2:-3}"
export PATH="$HOME/.cargo/bin:$PATH"

cargo build --release -q -p trajscope-cli -p trajscope-bench-web --bin trajscope --bin gen-awtl --bin ingest-file
FILE="target/bench/awtl-${SIZE_MB}mb.jsonl"
mkdir -p target/bench
[ -s "$FILE" ] || target/release/gen-awtl "$FILE" "$SIZE_MB"
python3 -c 'import orjson' 2>/dev/null || python3 -m pip install -q orjson

python3 - "$FILE" "$RUNS" <<'PY'
import os, resource, subprocess, sys, time
import orjson

path, runs = sys.argv[1], int(sys.argv[2])
mb = os.path.getsize(path) / 1e6

def child(cmd):
    def run():
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return run

def orjson_loop():
    cpu = time.process_time()
    loads = orjson.loads
    with open(path, "rb") as f:
        for line in f:
            loads(line)
    return time.process_time() - cpu

def best(fn):
    walls, cpus = [], []
    for _ in range(runs):
        t = time.perf_counter()
        cpus.append(fn())
        walls.append(time.perf_counter() - t)
    return min(walls), min(cpus)

with open(path, "rb") as f:  # warm the page cache: every contender reads from memory
    while f.read(1 << 24):
        pass
analyze = best(child(["target/release/trajscope", "analyze", "--json", path]))
rss_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
ingest = best(child(["target/release/ingest-file", path]))
py = best(orjson_loop)
print(f"file: {path} ({mb:.1f} MB); best of {runs}; MB/s by wall time / by CPU time")
for name, (wall, cpu) in [("trajscope analyze --json", analyze), ("core ingest alone", ingest), ("python orjson.loads loop", py)]:
    print(f"{name:25}: {mb / wall:7.1f} MB/s wall ({wall:.3f} s)  {mb / cpu:7.1f} MB/s cpu ({cpu:.3f} s)")
print(f"peak RSS of analyze      : {rss_kb / 1024:.0f} MiB")
print(f"ratio analyze / orjson   : {py[0] / analyze[0]:.2f}x wall, {py[1] / analyze[1]:.2f}x cpu")
print(f"ratio ingest / orjson    : {py[0] / ingest[0]:.2f}x wall, {py[1] / ingest[1]:.2f}x cpu")
PY
