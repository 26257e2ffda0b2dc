#!/usr/bin/env bash
# Builds the release bundle (no download at build time) into dist/, or into the folder given by
# --dist (the tests build dist-test/, so a running serve.sh keeps serving dist/). Extra args go
# to trunk, e.g. --public-url /trajscope/ for a sub-path deployment.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"
dist=dist
prev=
for a in "$@"; do
  case "$a" in --dist=*) dist="${a#--dist=}" ;; esac
  [ "$prev" = --dist ] && dist="$a"
  prev="$a"
done
# One web build at a time: trunk writes wasm-bindgen's output to one shared folder of the target
# dir (target/wasm-bindgen/release) before copying it into its own staging folder (<dist>/.stage),
# so two builds at once (serve.sh beside test.sh) could copy each other's half-written files.
# cargo and the dist folders are safe side by side; this lock covers the rest.
target_dir="${CARGO_TARGET_DIR:-$ROOT/target}"
mkdir -p "$target_dir"
exec 9>"$target_dir/.web-build.lock"
if ! flock -n 9; then
  log "another web build is running; waiting for it"
  flock 9
fi
web_size_env
wasm trunk build --release "$@"
exec 9>&-
for wasm_file in "$dist"/*.wasm; do
  raw=$(stat -c %s "$wasm_file")
  gz=$(gzip -9 -c "$wasm_file" | wc -c)
  log "$dist: $(basename "$wasm_file") ${raw} bytes raw, ${gz} bytes gzip"
done
