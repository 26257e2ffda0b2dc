#!/usr/bin/env bash
# App benchmark (not in the CI gate): builds the release web bundle and the benchmark files
# (bench/shapes.sh), then in headless Chromium measures for every shape, in the same run, the
# pick-to-ready time of the app against a plain JavaScript reader (File slices, TextDecoder,
# JSON.parse per line) of the same file, the DOM node count once ready and once every
# trajectory is analysed, queue scroll frames, the renderer's peak RSS against the file size,
# and the DOM node count / scroll frame times with a 100,000-step trace (bench/app/run.mjs).
# Prints the bundle's wasm size first.
#   bench/app.sh    BENCH_MB (size of `long`, default 50), BENCH_SCALE (divides the gen-awtl
#   shapes' run/step counts, default 1), BENCH_SHAPES (default: long short one-step huge-run
#   py-interleaved fixtures swe-doc openhands-doc inspect-doc tau2-doc), BENCH_1GB=1 adds the 1 GB
#   file, BENCH_RUNS (default 1),
#   BENCH_ANALYSE_S (how long to wait for the background analysis, default 600),
#   SKIP_BUILD=1 reuses dist-test/.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib.sh"
cd "$ROOT"
SIZE_MB="${BENCH_MB:-50}"
SCALE="${BENCH_SCALE:-1}"
SHAPES="${BENCH_SHAPES:-long short one-step huge-run py-interleaved fixtures swe-doc openhands-doc inspect-doc tau2-doc}"
[ "${BENCH_1GB:-0}" = 1 ] && SHAPES="$SHAPES 1gb"
[ -d node_modules/playwright-core ] || npm ci
[ "${SKIP_BUILD:-0}" = 1 ] || scripts/build-web.sh --dist dist-test --public-url /trajscope/
cargo build --release -q -p trajscope-bench-web --bin gen-awtl
# shellcheck source=shapes.sh
source bench/shapes.sh
for w in dist-test/*.wasm; do
  log "bundle: $(basename "$w") $(stat -c %s "$w") bytes raw, $(gzip -9 -c "$w" | wc -c) bytes gzip -9"
done
ARGS=()
for s in $SHAPES; do make_shape "$s"; ARGS+=("$s=$ROOT/$(shape_file "$s")"); done
node bench/app/run.mjs "${ARGS[@]}"
