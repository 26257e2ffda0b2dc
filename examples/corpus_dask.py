"""Analyse a folder of traces with Dask and write one JSONL table, a row per trajectory.

    python examples/corpus_dask.py TRACES_DIR OUT_DIR [--scheduler threads|processes|sync]
                                   [--address tcp://scheduler:8786] [--partitions N]

Every file under TRACES_DIR (hidden ones skipped) is read by `trajscope.analyze`, the same core
as the CLI, in a `dask.bag` map; rows go to OUT_DIR/part-*.jsonl, which DuckDB or pandas query:

    duckdb -c "SELECT classification, count(*) FROM read_json_auto('OUT_DIR/*.jsonl')
               WHERE outcome = 'failed' GROUP BY 1 ORDER BY 2 DESC"
    pandas.concat(pandas.read_json(p, lines=True) for p in glob.glob('OUT_DIR/*.jsonl'))

Without --address the local scheduler runs it (threads by default: the core releases the GIL).
With --address it runs on a `dask.distributed` cluster instead, unchanged: the workers need
`pip install trajscope dask distributed` and to see TRACES_DIR (a shared file system), or pass
the files' bytes instead of their paths (see `rows_of`).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any, Dict, List

import dask.bag as db

import trajscope


def trace_files(root: str) -> List[str]:
    """Every file under `root`, in name order, hidden files and folders skipped."""
    out = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        out.extend(os.path.join(folder, f) for f in sorted(files) if not f.startswith("."))
    return out


def rows_of(path: str) -> List[Dict[str, Any]]:
    """The table rows of one file: a row per trajectory, or one row with the error."""
    try:
        report = trajscope.analyze(path)
    except trajscope.TrajscopeError as e:
        return [{"file": path, "error": str(e)}]
    stats = report["stats"]
    file_part = {
        "file": path,
        "format": report["format"],
        "lines_total": stats["lines_total"],
        "lines_quarantined": stats["lines_quarantined"],
        "quarantine_rate": stats["lines_quarantined"] / stats["lines_total"] if stats["lines_total"] else 0.0,
    }
    if report.get("error"):
        return [{**file_part, "error": report["error"]}]
    if not report["trajectories"]:
        return [{**file_part, "trajectory": None}]  # the file still counts (its quarantine)
    rows = []
    for t in report["trajectories"]:
        critical = t.get("critical") or {}
        steps = t["steps"]
        rows.append(
            {
                **file_part,
                "trajectory": t["id"],
                "steps": steps,
                "outcome": t["outcome"],
                "critical_step": critical.get("step"),
                "critical_agent": critical.get("agent"),
                # Where in the run the critical step sits, 0 (first step) to 1 (last).
                "critical_position": critical["step"] / max(steps - 1, 1) if critical else None,
                "classification": t.get("classification"),
                "failure_mode": t.get("failure_mode"),
                "candidates": len(t.get("candidates") or []),
            }
        )
    return rows


def run(traces_dir: str, out_dir: str, scheduler: str = "threads", address: str | None = None,
        partitions: int | None = None) -> List[str]:
    """Analyses every file under `traces_dir`; returns the JSONL files written."""
    files = trace_files(traces_dir)
    if not files:
        raise SystemExit(f"no files under {traces_dir}")
    os.makedirs(out_dir, exist_ok=True)
    n = partitions or max(1, min(len(files), 4 * (os.cpu_count() or 1)))
    bag = db.from_sequence(files, npartitions=n).map(rows_of).flatten().map(json.dumps)
    target = os.path.join(out_dir, "part-*.jsonl")
    if address:
        from dask.distributed import Client  # only needed on a cluster

        with Client(address):
            return bag.to_textfiles(target, last_endline=True)
    # to_textfiles passes its extra keywords to compute().
    return bag.to_textfiles(target, last_endline=True, scheduler=scheduler)


def main(argv: List[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("traces_dir")
    ap.add_argument("out_dir")
    ap.add_argument("--scheduler", default="threads", choices=["threads", "processes", "sync"])
    ap.add_argument("--address", help="a dask.distributed scheduler to run on instead")
    ap.add_argument("--partitions", type=int)
    a = ap.parse_args(argv)
    written = run(a.traces_dir, a.out_dir, a.scheduler, a.address, a.partitions)
    rows = sum(1 for p in written for _ in open(p))
    print(f"{rows} rows in {len(written)} files under {a.out_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
