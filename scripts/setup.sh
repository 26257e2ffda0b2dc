#!/usr/bin/env bash
# Installs what the build (and, unless --serve, the tests) need, idempotently: a second run only
# checks.
#   scripts/setup.sh --serve   what scripts/serve.sh needs to build and serve the page:
#     - the wasm32 standard library (rustup first, with a time limit; Debian's rustc-web as fallback)
#     - wasm-bindgen-cli at exactly the pinned wasm-bindgen version, and trunk
#     - npm `dependencies`: binaryen (wasm-opt), from package-lock.json
#     - the crates, fetched for offline builds
#   scripts/setup.sh [--test]  (the default) all of the above, plus what scripts/test.sh needs:
#     - npm `devDependencies`: playwright-core and axe-core
#     - Debian chromium + chromium-driver for the browser tests (SKIP_BROWSER=1: not those)
# Nothing here downloads a prebuilt binary from outside the package registries.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
start=$(date +%s)
cd "$ROOT"

mode=test
case "${1:-}" in
  --serve) mode=serve ;;
  --test | "") mode=test ;;
  *) echo "usage: scripts/setup.sh [--serve|--test]" >&2; exit 2 ;;
esac

have_apt() { command -v apt-get >/dev/null 2>&1; }
apt_updated=0
apt_install() {
  have_apt || { echo "need $* but apt-get is not available: install them by hand" >&2; return 1; }
  if [ "$apt_updated" = 0 ]; then
    local SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
    $SUDO apt-get update -qq; apt_updated=1
  fi
  local SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$@" >/dev/null
}

# 1. wasm32 standard library.
if [ "$(wasm_route)" = none ]; then
  log "wasm32 std: trying rustup (2 min limit)"
  if command -v rustup >/dev/null && timeout 120 rustup target add wasm32-unknown-unknown \
      && [ "$(wasm_route)" = rustup ]; then
    :
  else
    log "wasm32 std: rustup could not provide it; using Debian rustc-web + rust-web-src"
    apt_install rustc-web cargo-web rust-web-src rust-web-llvm lld-22
  fi
fi
[ "$(wasm_route)" != none ] || { echo "could not install a wasm32 standard library" >&2; exit 1; }
log "wasm32 std: $(wasm_route) route"
# The web bundle builds the standard library again, for size (web_size_env in lib.sh): on the
# rustup route that needs its source (the Debian route's rust-web-src is that source).
if [ "$(wasm_route)" = rustup ] \
   && [ ! -f "$(rustc --print sysroot)/lib/rustlib/src/rust/library/std/Cargo.toml" ]; then
  log "rust-src: rustup component add rust-src"
  rustup component add rust-src
fi

# 2. Cargo tools.
if ! wasm-bindgen --version 2>/dev/null | grep -q " $WASM_BINDGEN_VERSION\$"; then
  log "installing wasm-bindgen-cli $WASM_BINDGEN_VERSION"
  if ! cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" --locked; then
    # Its lock file may name a dependency version the registry mirror lacks: unpack the crate,
    # let cargo pick the nearest available versions of those, and install from the path.
    log "locked install failed; retrying from the unpacked crate with a refreshed lock"
    cargo info "wasm-bindgen-cli@$WASM_BINDGEN_VERSION" >/dev/null
    crate=$(ls "${CARGO_HOME:-$HOME/.cargo}"/registry/cache/*/wasm-bindgen-cli-"$WASM_BINDGEN_VERSION".crate | head -1)
    work=$(mktemp -d)
    tar -xzf "$crate" -C "$work"
    dir="$work/wasm-bindgen-cli-$WASM_BINDGEN_VERSION"
    (cd "$dir" && cargo update -p webpki-roots 2>/dev/null || cargo update -w 2>/dev/null || true)
    (cd "$dir" && cargo generate-lockfile --offline 2>/dev/null || true)
    cargo install --path "$dir" --locked || cargo install --path "$dir"
    rm -rf "$work"
  fi
fi
if ! trunk --version 2>/dev/null | grep -q " $TRUNK_VERSION\$"; then
  log "installing trunk $TRUNK_VERSION (takes ~7 minutes on 2 cores)"
  cargo install trunk --version "$TRUNK_VERSION" --locked --ignore-rust-version
fi

# 3. npm packages from package-lock.json. Never `playwright install` (Debian's Chromium is used).
stale_npm() { [ ! -e node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; }
if [ "$mode" = serve ]; then
  # Only `dependencies` (binaryen's wasm-opt, which trunk runs); the test tools stay out.
  if [ ! -x node_modules/.bin/wasm-opt ] || stale_npm; then
    log "npm ci --omit=dev (build tools only)"
    npm ci --omit=dev --no-audit --no-fund --loglevel=error
  fi
elif [ ! -x node_modules/.bin/wasm-opt ] || [ ! -d node_modules/playwright-core ] \
     || [ ! -d node_modules/axe-core ] || stale_npm; then
  log "npm ci"
  npm ci --no-audit --no-fund --loglevel=error
fi
wasm-opt --version | grep -q "$WASM_OPT_VERSION" || { echo "wasm-opt is not $WASM_OPT_VERSION" >&2; exit 1; }

# 4. Chromium and its driver for wasm-bindgen-test and Playwright (tests only).
if [ "$mode" = test ] && [ -z "${SKIP_BROWSER:-}" ] \
   && { [ ! -x "$CHROME_BIN" ] || [ ! -x "$CHROMEDRIVER" ]; }; then
  log "installing chromium + chromium-driver"
  apt_install chromium chromium-driver
fi

# 4b. Python virtualenvs for the Python package's tests (Debian's python3 needs python3-venv).
if [ -z "${SKIP_BROWSER:-}" ] && ! python3 -c "import venv, ensurepip" >/dev/null 2>&1; then
  log "installing python3-venv"
  apt_install python3-venv
fi

# 5. Crates for offline builds (trunk passes --offline to cargo).
cargo fetch --locked -q 2>/dev/null || cargo fetch -q
# And the standard library's own crates (libc, dlmalloc, ...) at the versions its lock file
# names: the web build builds std again (-Zbuild-std, web_size_env in lib.sh) and trunk runs
# cargo offline, so without them a fresh machine's first web build fails to download them.
wasm env RUSTC_BOOTSTRAP=1 cargo fetch --locked -q --manifest-path "$(std_source)/Cargo.toml"

log "setup (--$mode) done in $(( $(date +%s) - start ))s"
