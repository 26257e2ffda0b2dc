#!/usr/bin/env bash
# The one test gate, the same locally and in CI (.ci/run calls it): sets up if needed, then
# fmt, clippy (native and wasm32), native tests, core purity and its wasm32 build,
# the Python package (pytest in a throwaway virtualenv), wasm-bindgen-test in headless Chromium,
# the release web build, and Playwright end to end.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"
"$ROOT/scripts/setup.sh"

step() { log "$*"; }
t0=$(date +%s)

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

step "wasm-bindgen-test in headless Chromium (core and app)"
# Browser tests: crates/core/tests/web*.rs and every test of the app (the core's other test
# files are native-only: fixtures on disk, proptest).
wasm cargo test -p trajscope-core --target wasm32-unknown-unknown --locked --test 'web*'
wasm cargo test -p trajscope-app --target wasm32-unknown-unknown --locked --tests

step "release web build (trunk, served from a sub-path)"
scripts/build-web.sh --public-url /trajscope/

step "end-to-end tests (Playwright + Chromium against dist/)"
node --test --test-concurrency=1 tests/e2e/

log "all checks passed in $(( $(date +%s) - t0 ))s (plus setup)"
