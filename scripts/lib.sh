#!/usr/bin/env bash
# Shared helpers for the project's scripts: tool versions, PATH, and the wasm32 build environment.
# Sourced, never run. Everything here is idempotent and cheap.

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export ROOT

# Pinned tool versions. WASM_BINDGEN_VERSION must equal the `wasm-bindgen` pin in Cargo.toml.
WASM_BINDGEN_VERSION="0.2.130"
TRUNK_VERSION="0.22.1"
WASM_OPT_VERSION="version_132"

export PATH="$ROOT/node_modules/.bin:$HOME/.cargo/bin:$PATH"
export CHROME_BIN="${CHROME_BIN:-/usr/bin/chromium}"
export CHROMEDRIVER="${CHROMEDRIVER:-/usr/bin/chromedriver}"

# Trunk: never download a tool; use the pinned ones found on PATH.
export TRUNK_OFFLINE=true
export TRUNK_TOOLS_WASM_BINDGEN="$WASM_BINDGEN_VERSION"
export TRUNK_TOOLS_WASM_OPT="$WASM_OPT_VERSION"

log() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }

# Which route provides the wasm32 standard library: "rustup" or "debian" (see scripts/setup.sh).
wasm_route() {
  # TRAJSCOPE_WASM_ROUTE=debian forces the fallback (to test it on a machine that has both).
  if [ -n "${TRAJSCOPE_WASM_ROUTE:-}" ]; then echo "$TRAJSCOPE_WASM_ROUTE"; return; fi
  local libdir
  libdir="$(rustc --print target-libdir --target wasm32-unknown-unknown 2>/dev/null || true)"
  if [ -n "$libdir" ] && compgen -G "$libdir/libstd-*.rlib" >/dev/null; then
    echo rustup
  elif [ -x /usr/bin/rustc ] && [ -d "$(/usr/bin/rustc --print sysroot 2>/dev/null)/lib/rustlib/src/rust/library" ]; then
    echo debian
  else
    echo none
  fi
}

# The standard library's source (its Cargo workspace) that -Zbuild-std builds on this route: the
# rustup route's `rust-src` component or Debian's rust-web-src.
std_source() {
  local rustc=rustc
  [ "$(wasm_route)" = debian ] && rustc=/usr/bin/rustc
  echo "$("$rustc" --print sysroot)/lib/rustlib/src/rust/library"
}

# The web bundle's size settings (docs/performance.md, Bundle), exported by build-web.sh only:
# the standard library built again with the bundle (-Zbuild-std, the rustup route's `rust-src`
# or Debian's rust-web-src) with its size-optimised code paths (`optimize_for_size`), a panic that
# traps at once without formatting its message (nothing shows that message: a panic in wasm ends
# in a trap either way), and no source paths of panic locations. Unstable flags of the stable
# toolchain, hence RUSTC_BOOTSTRAP=1, as the Debian route already sets for every wasm build.
# Each setting only where this rustc and its library source have it (probed: rustc 1.85 has the
# `panic_immediate_abort` library feature, later ones the `immediate-abort` panic strategy).
web_size_env() {
  local rustc=rustc
  [ "$(wasm_route)" = debian ] && rustc=/usr/bin/rustc
  local std_toml
  std_toml="$(std_source)/std/Cargo.toml"
  if [ ! -f "$std_toml" ]; then
    echo "no standard library source for the web build ($std_toml): run scripts/setup.sh" >&2
    return 1
  fi
  local features="" flags="-Zlocation-detail=none"
  grep -q '^optimize_for_size *=' "$std_toml" && features=optimize_for_size
  if RUSTC_BOOTSTRAP=1 "$rustc" -Zunstable-options -Cpanic=immediate-abort --print cfg \
      --target wasm32-unknown-unknown >/dev/null 2>&1; then
    flags="$flags -Zunstable-options -Cpanic=immediate-abort"
  elif grep -q '^panic_immediate_abort *=' "$std_toml"; then
    features="${features:+$features,}panic_immediate_abort"
  fi
  # Derived `Debug` impls print the type's name only: nothing the page shows is formatted
  # with one (docs/performance.md, Bundle), and it saves about 0.8 KB gzip.
  if RUSTC_BOOTSTRAP=1 "$rustc" -Zfmt-debug=shallow --print cfg \
      --target wasm32-unknown-unknown >/dev/null 2>&1; then
    flags="$flags -Zfmt-debug=shallow"
  fi
  # SHA-256 (a file's identity, which restores its labels) by sha2's compact rounds instead of
  # its unrolled ones: 2.2 KB gzip smaller, hashing about 1.4 times slower (docs/performance.md,
  # Bundle). A file of 2 MiB or more is hashed beside the parse, off the way to `ready`; a
  # smaller one as it is read (2 MiB: about 12 ms instead of 9).
  flags="$flags --cfg sha2_backend_soft=\"compact\""
  # A stack 1 KiB larger than Rust's default 1 MiB: the stack sits at the bottom of memory, so a
  # run that fits the default stack never touches the lowest 1 KiB, which `wasm-opt
  # --low-memory-unused` (index.html) may then assume unused (docs/performance.md, Bundle).
  flags="$flags -Clink-arg=-zstack-size=1049600"
  export RUSTC_BOOTSTRAP=1 CARGO_UNSTABLE_BUILD_STD=std,panic_abort
  if [ -n "$features" ]; then export CARGO_UNSTABLE_BUILD_STD_FEATURES="$features"; fi
  export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="$flags"
}

# Run a command in the wasm32 build environment. On the Debian route this uses Debian's
# rustc-web with -Zbuild-std; the variables are set only for this command so native builds
# keep their own cache.
wasm() {
  case "$(wasm_route)" in
    rustup) "$@" ;;
    debian)
      PATH="/usr/bin:$PATH" RUSTC=/usr/bin/rustc RUSTDOC=/usr/bin/rustdoc RUSTC_BOOTSTRAP=1 \
        CARGO_UNSTABLE_BUILD_STD=std,panic_abort "$@" ;;
    *) echo "no wasm32 standard library: run scripts/setup.sh" >&2; return 1 ;;
  esac
}
