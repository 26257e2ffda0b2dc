#!/usr/bin/env bash
# Runs a fuzz target for SECONDS (default 300): `ingest` (the default) or `session` (the
# parse-ahead feed, the analysis, the streamed report against serde_json's, the reviewer's
# reads). The corpus is seeded with the corrupt-input fixtures (and, for `session`, the small
# fixtures of every format), each behind a first byte that asks for 4 KiB chunks and no format.
# cargo-fuzz needs nightly features; RUSTC_BOOTSTRAP=1 lets the stable toolchain provide them.
# Any crash lands in fuzz/artifacts/TARGET/: turn it into a fixture + regression test.
#   fuzz/run.sh [SECONDS] [TARGET]
set -euo pipefail
cd "$(dirname "$0")"
export PATH="$HOME/.cargo/bin:$PATH"
target="${2:-ingest}"
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked
mkdir -p "corpus/$target"
seed() { { printf '\x08'; cat "$1"; } > "corpus/$target/$2"; }
for f in ../tests/fixtures/corrupt/*; do
  case "$f" in *.expected|*.md) ;; *) seed "$f" "corrupt-$(basename "$f")" ;; esac
done
if [ "$target" = session ]; then
  for f in ../tests/fixtures/*/*; do
    case "$f" in *.expected|*.md) continue ;; esac
    [ "$(stat -c %s "$f")" -lt 60000 ] && seed "$f" "$(basename "$(dirname "$f")")-$(basename "$f")"
  done
fi
RUSTC_BOOTSTRAP=1 cargo fuzz run "$target" "corpus/$target" -- \
  -max_total_time="${1:-300}" -max_len=65536 -timeout=20 -rss_limit_mb=3072
