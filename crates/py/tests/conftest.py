"""Shared fixtures for the Python package's tests: the repository's trace fixtures and the
CLI binary the results are compared with (TRAJSCOPE_BIN, else the workspace's build)."""

import os
import pathlib
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parents[3]
FIXTURES = REPO / "tests" / "fixtures"


def fixture_files():
    """Every trace input under tests/fixtures (expected outputs and notes left out)."""
    out = []
    for p in sorted(FIXTURES.rglob("*")):
        if not p.is_file() or ".expected" in p.name or p.suffix == ".md":
            continue
        out.append(p)
    return out


@pytest.fixture(scope="session")
def cli():
    """Runs the `trajscope` CLI and returns (exit code, stdout, stderr)."""
    candidates = [os.environ.get("TRAJSCOPE_BIN")] + [
        str(REPO / "target" / kind / "trajscope") for kind in ("debug", "release")
    ]
    binary = next((c for c in candidates if c and os.access(c, os.X_OK)), None)
    if binary is None:
        pytest.fail("no trajscope CLI: build it (cargo build -p trajscope-cli) or set TRAJSCOPE_BIN")

    def run(*args):
        p = subprocess.run([binary, *map(str, args)], capture_output=True, text=True)
        return p.returncode, p.stdout, p.stderr

    return run
