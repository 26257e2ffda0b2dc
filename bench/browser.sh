#!/usr/bin/env bash
# Browser ingest benchmark (not part of the test gate: it takes a minute or more).
# Generates the 200 MB AWTL trace (if missing), builds the wasm core for the page, and in one
# run measures the wasm ingest and a plain JavaScript JSON.parse-per-line reader on the same
# File in headless Chromium: MB/s of both, their ratio, and peak memory.
#   bench/browser.sh [SIZE_MB=200]
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
# shellcheck source=../scripts/lib.sh
source scripts/lib.sh
SIZE_MB="${1:-200}"

cargo build --release -q -p trajscope-bench-web --bin gen-awtl
FILE="target/bench/awtl-${SIZE_MB}mb.jsonl"
mkdir -p target/bench
[ -s "$FILE" ] || target/release/gen-awtl "$FILE" "$SIZE_MB"

log "building the wasm core for the benchmark page"
wasm cargo build -q -p trajscope-bench-web --lib --target wasm32-unknown-unknown --release
PKG="target/bench/web/pkg"
wasm-bindgen --target web --no-typescript --out-dir "$PKG" \
  target/wasm32-unknown-unknown/release/trajscope_bench_web.wasm
[ -d node_modules/playwright-core ] || npm ci --silent

node bench/browser.mjs "$FILE" "$PKG"
