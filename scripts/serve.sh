#!/usr/bin/env bash
# The main job: install what serving needs if missing (scripts/setup.sh --serve: no browser, no
# test tools), build the web app into dist/ and serve it on http://127.0.0.1:8080 (PORT to
# change) with the bundled sample trace one click away. The CLI's release build starts only once
# the page is served, in the background at low priority (SERVE_CLI=0 skips it); its output goes
# to target/cli-build.log and it stops with the server.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"
"$ROOT/scripts/setup.sh" --serve
scripts/build-web.sh
port="${PORT:-8080}"

python3 -m http.server "$port" --bind 127.0.0.1 --directory dist &
server=$!
cli=
stop() {
  trap - EXIT INT TERM
  [ -z "$cli" ] || kill -- "-$cli" 2>/dev/null || true
  kill "$server" 2>/dev/null || true
}
trap stop EXIT
trap 'stop; exit 130' INT TERM

# Wait (at most 10 s) until the server answers before saying it does.
for _ in $(seq 50); do
  if python3 -c "import urllib.request,sys; urllib.request.urlopen('http://127.0.0.1:${port}/', timeout=1)" 2>/dev/null; then
    break
  fi
  kill -0 "$server" 2>/dev/null || { echo "the server did not start (is port ${port} free?)" >&2; exit 1; }
  sleep 0.2
done
log "serving http://127.0.0.1:${port}/ (Ctrl-C to stop); with the bundled sample loaded:"
log "  http://127.0.0.1:${port}/?url=samples/sample.awtl.jsonl"

if [ "${SERVE_CLI:-1}" != 0 ]; then
  mkdir -p target
  # In its own process group (setsid), so stopping the server stops cargo and rustc with it.
  setsid nice -n 10 bash -c 'if cargo build --release --locked -p trajscope-cli >target/cli-build.log 2>&1; then
      printf "\033[1m==> CLI built: target/release/trajscope (try: target/release/trajscope analyze web/samples/sample.awtl.jsonl)\033[0m\n" >&2
    else
      printf "\033[1m==> the CLI build failed or stopped: see target/cli-build.log\033[0m\n" >&2
    fi' &
  cli=$!
  log "building the CLI in the background at low priority (target/cli-build.log)"
fi
wait "$server"
