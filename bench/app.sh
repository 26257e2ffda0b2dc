#!/usr/bin/env bash
# App benchmark (not in the CI gate): builds the release web bundle, then measures in headless
# Chromium the load-to-ready time of a generated 200 MB trace against a plain JSON.parse-per-line
# reader in the same run, and the DOM node count / scroll frame times with a 100,000-step trace.
# BENCH_MB (default 200) and BENCH_RUNS (default 2) adjust it; SKIP_BUILD=1 reuses dist-test/.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib.sh"
cd "$ROOT"
[ -d node_modules/playwright-core ] || npm ci
[ "${SKIP_BUILD:-0}" = 1 ] || scripts/build-web.sh --dist dist-test --public-url /trajscope/
node bench/app/run.mjs
