#!/usr/bin/env bash
# Runs the ingest fuzz target for SECONDS (default 300), seeded with the corrupt-input corpus.
# cargo-fuzz needs nightly features; RUSTC_BOOTSTRAP=1 lets the stable toolchain provide them.
# Any crash lands in fuzz/artifacts/ingest/: turn it into a fixture + regression test.
set -euo pipefail
cd "$(dirname "$0")"
export PATH="$HOME/.cargo/bin:$PATH"
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked
mkdir -p corpus/ingest
cp ../tests/fixtures/corrupt/*[!d] corpus/ingest/ 2>/dev/null || true
RUSTC_BOOTSTRAP=1 cargo fuzz run ingest corpus/ingest -- \
  -max_total_time="${1:-300}" -max_len=65536 -timeout=10 -rss_limit_mb=2048
