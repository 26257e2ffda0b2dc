#!/usr/bin/env bash
# Native ingest speed: `trajscope analyze --json` against a Python `orjson.loads`-per-line loop
# on the same generated 200 MB AWTL trace, in one run. Prints MB/s for both and the ratio.
#   bench/native.sh [SIZE_MB=200] [RUNS=3]
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
SIZE_MB="${1:-200}"
RUNS="${2:-3}"
export PATH="$HOME/.cargo/bin:$PATH"

cargo build --release -q -p trajscope-cli -p trajscope-bench-web --bin trajscope --bin gen-awtl
FILE="target/bench/awtl-${SIZE_MB}mb.jsonl"
mkdir -p target/bench
[ -s "$FILE" ] || target/release/gen-awtl "$FILE" "$SIZE_MB"
python3 -c 'import orjson' 2>/dev/null || python3 -m pip install -q orjson

python3 - "$FILE" "$RUNS" <<'PY'
import os, resource, subprocess, sys, time
import orjson

path, runs = sys.argv[1], int(sys.argv[2])
size = os.path.getsize(path)
mb = size / 1e6

def orjson_loop():
    n = 0
    loads = orjson.loads
    with open(path, "rb") as f:
        for line in f:
            loads(line)
            n += 1
    return n

def analyze():
    subprocess.run(["target/release/trajscope", "analyze", "--json", path],
                   stdout=subprocess.DEVNULL, check=True)

def best(fn):
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times), times

# Warm the page cache so both read from memory.
with open(path, "rb") as f:
    while f.read(1 << 24):
        pass
t_rs, all_rs = best(analyze)
rss_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
t_py, all_py = best(orjson_loop)
print(f"file: {path} ({mb:.1f} MB, {orjson_loop()} lines)")
print(f"trajscope analyze --json : {mb / t_rs:7.1f} MB/s  (best of {runs}: {t_rs:.3f} s; all {', '.join(f'{t:.3f}' for t in all_rs)}); peak RSS {rss_kb / 1024:.0f} MiB")
print(f"python orjson.loads loop : {mb / t_py:7.1f} MB/s  (best of {runs}: {t_py:.3f} s; all {', '.join(f'{t:.3f}' for t in all_py)})")
print(f"ratio trajscope / orjson : {t_py / t_rs:.2f}x")
PY
