#!/usr/bin/env bash
# The Python package's part of the gate: builds `crates/py` (pyo3 + maturin, abi3) into a
# throwaway virtualenv with `pip install ./crates/py`, then runs its pytest suite, which compares
# every answer with the CLI (TRAJSCOPE_BIN, default target/debug/trajscope) and runs the Dask
# corpus example with the local scheduler. Cargo's build of the extension stays warm in
# crates/py/target between runs.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"
export TRAJSCOPE_BIN="${TRAJSCOPE_BIN:-$ROOT/target/debug/trajscope}"
[ -x "$TRAJSCOPE_BIN" ] || cargo build --locked -p trajscope-cli
venv=$(mktemp -d "${TMPDIR:-/tmp}/trajscope-py.XXXXXX")
trap 'rm -rf "$venv"' EXIT
python3 -m venv "$venv"
"$venv/bin/pip" install --no-input -q --disable-pip-version-check "./crates/py[test,corpus]"
cd crates/py
"$venv/bin/python" -m pytest -q -p no:cacheprovider tests
