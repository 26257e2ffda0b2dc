#!/usr/bin/env bash
# The main job: set up if needed, build the CLI and the web app, and serve the app on
# http://127.0.0.1:8080 (PORT to change) with the bundled sample trace one click away.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"
"$ROOT/scripts/setup.sh"
cargo build --release --locked -p trajscope-cli
log "CLI built: target/release/trajscope (try: target/release/trajscope analyze web/samples/sample.awtl.jsonl)"
scripts/build-web.sh
port="${PORT:-8080}"
log "serving http://127.0.0.1:${port}/ (Ctrl-C to stop); with the bundled sample loaded:"
log "  http://127.0.0.1:${port}/?url=samples/sample.awtl.jsonl"
exec python3 -m http.server "$port" --bind 127.0.0.1 --directory dist
