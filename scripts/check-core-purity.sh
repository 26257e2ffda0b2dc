#!/usr/bin/env bash
# Invariant: crates/core is pure (no web, UI, async runtime, network or file-system crates).
# Its clippy.toml bans clocks, files and threads in its own code; this checks its dependencies.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# (libc is allowed: sha2's cpufeatures uses it only to read CPU feature flags on some targets.)
forbidden='^(wasm-bindgen|web-sys|js-sys|yew|gloo|gloo-[a-z-]+|tokio|async-std|mio|reqwest|hyper|ureq|getrandom|rand|chrono|time|walkdir|tempfile)$'
deps=$(cargo tree -p trajscope-core -e normal --prefix none --format '{p}' --target all | awk '{print $1}' | sort -u)
bad=$(echo "$deps" | grep -E "$forbidden" || true)
if [ -n "$bad" ]; then
  echo "crates/core depends on forbidden crates:" >&2
  echo "$bad" >&2
  exit 1
fi
echo "core purity: $(echo "$deps" | wc -l) crates in the core's tree, none forbidden"
