#!/usr/bin/env bash
# Builds the release bundle into dist/ (no download at build time). Extra args go to trunk,
# e.g. --public-url /trajscope/ for a sub-path deployment.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"
wasm trunk build --release "$@"
wasm_file=$(ls dist/*.wasm | head -1)
raw=$(stat -c %s "$wasm_file")
gz=$(gzip -9 -c "$wasm_file" | wc -c)
log "dist: $(basename "$wasm_file") ${raw} bytes raw, ${gz} bytes gzip"
