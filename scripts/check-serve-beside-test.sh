#!/usr/bin/env bash
# The test build must never break a running scripts/serve.sh. This starts serve.sh on a free
# port (SERVE_CLI=0: without its background CLI build), then, once it serves, builds the test
# bundle beside it: dist-test/ with --public-url /trajscope/, the gate's own web build, so it is
# not built twice. While that build runs, the served index.html and every asset it names must
# keep answering (checked every 2 s); after it, Chromium must still open the served page with
# the sample. Bounded: SERVE_UP_S (default 1200) for serve.sh to serve, BUILD_S (default 1200)
# for the test build, 120 s for the page load.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
origin="http://127.0.0.1:${port}"
serve_log=$(mktemp)
# Its own process group (setsid), so the cleanup stops serve.sh and its server together.
SERVE_CLI=0 PORT="$port" setsid scripts/serve.sh >"$serve_log" 2>&1 &
serve=$!
build=
cleanup() {
  [ -z "$build" ] || kill "$build" 2>/dev/null || true
  kill -- "-$serve" 2>/dev/null || true
  rm -f "$serve_log"
}
trap cleanup EXIT
fail() { echo "check-serve-beside-test: $*" >&2; echo "--- serve.sh output:" >&2; cat "$serve_log" >&2; exit 1; }

log "starting scripts/serve.sh on port ${port}"
deadline=$(( $(date +%s) + ${SERVE_UP_S:-1200} ))
until node tests/e2e/served-page.mjs fetch "$origin" 2>/dev/null; do
  kill -0 "$serve" 2>/dev/null || fail "serve.sh exited before serving"
  [ "$(date +%s)" -lt "$deadline" ] || fail "serve.sh did not serve within ${SERVE_UP_S:-1200}s"
  sleep 2
done

log "serve.sh serves ${origin}/; building the test bundle (dist-test/) beside it"
timeout "${BUILD_S:-1200}" scripts/build-web.sh --dist dist-test --public-url /trajscope/ &
build=$!
checks=0
while kill -0 "$build" 2>/dev/null; do
  node tests/e2e/served-page.mjs fetch "$origin" || fail "the served page broke during the test build"
  checks=$((checks + 1))
  sleep 2
done
wait "$build" || fail "the test build failed (or took over ${BUILD_S:-1200}s)"
build=
node tests/e2e/served-page.mjs fetch "$origin" || fail "the served page broke after the test build"
timeout 120 node tests/e2e/served-page.mjs load "$origin" || fail "the served page no longer loads in Chromium"
[ -f dist-test/index.html ] || fail "the test build wrote no dist-test/index.html"
log "serve.sh kept serving during the test build (${checks} checks) and its page loads after it"
