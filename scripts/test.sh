#!/usr/bin/env bash
# The one test gate, the same locally and in CI (.ci/run calls it): sets up if needed, then
# fmt, clippy (native and wasm32), native tests, core purity and its wasm32 build,
# the Python package (pytest in a throwaway virtualenv), wasm-bindgen-test in headless Chromium,
# the release web build (into dist-test/, beside a running serve.sh that must keep serving), and
# Playwright end to end (with axe-core).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"
"$ROOT/scripts/setup.sh" --test

step() { log "$*"; }
t0=$(date +%s)

# Free disk, said first: a full disk fails a test far from its cause (a trace generator's
# ENOSPC). A clean gate used 3.8 GB at its peak, plus about 2 GB of tools on a cold machine
# (docs/build.md, "Disk").
free_mb=$(df -Pm "$ROOT" | awk 'NR==2 {print $4}')
log "disk: ${free_mb} MB free where target/ is; $(df -Pm "${TMPDIR:-/tmp}" | awk 'NR==2 {print $4}') MB in ${TMPDIR:-/tmp}"
if [ "${free_mb:-0}" -lt 6000 ]; then
  log "warning: under 6000 MB free; the build or the end-to-end tests may run out of disk"
fi

step "fmt"
cargo fmt --all --check

step "clippy (native)"
cargo clippy --workspace --all-targets --locked -- -D warnings

step "clippy (wasm32: core and app)"
wasm cargo clippy -p trajscope-core -p trajscope-app --target wasm32-unknown-unknown --locked -- -D warnings

step "native tests"
cargo test --workspace --locked

step "python package: pip install ./crates/py into a throwaway virtualenv, then pytest"
scripts/test-py.sh

step "core purity: no forbidden dependency; builds for wasm32"
scripts/check-core-purity.sh
wasm cargo build -p trajscope-core --target wasm32-unknown-unknown --release --locked

# The browser steps' temp files (Chromium's profiles, which the WebDriver runner leaves behind,
# and the end-to-end tests' generated traces) go to a folder of target/, emptied first and
# removed at the end, so no run leaves anything in /tmp and a failed one nothing for the next.
gate_tmp="$ROOT/target/gate-tmp"
rm -rf "$gate_tmp" && mkdir -p "$gate_tmp"

step "wasm-bindgen-test in headless Chromium (core and app)"
# Browser tests: crates/core/tests/web*.rs and every test of the app (the core's other test
# files are native-only: fixtures on disk, proptest).
TMPDIR="$gate_tmp" wasm cargo test -p trajscope-core --target wasm32-unknown-unknown --locked --test 'web*'
TMPDIR="$gate_tmp" wasm cargo test -p trajscope-app --target wasm32-unknown-unknown --locked --tests

step "release web build into dist-test/ (served from a sub-path) beside a running serve.sh"
# Builds the test bundle while scripts/serve.sh serves dist/, and checks that page keeps working.
scripts/check-serve-beside-test.sh

step "end-to-end tests (Playwright + Chromium against dist-test/; axe-core in light and dark)"
# A test that hangs fails after 5 minutes instead of holding the gate (each takes seconds), and
# the whole step after 40 (it takes 3 to 5).
TMPDIR="$gate_tmp" timeout 40m node --test --test-concurrency=1 --test-timeout=300000 tests/e2e/
rm -rf "$gate_tmp"

log "all checks passed in $(( $(date +%s) - t0 ))s (plus setup)"
