"""The corpus example (examples/corpus_dask.py) on generated folders, with Dask's local
scheduler: every file becomes rows, and the rows add up."""

import importlib.util
import json
import pathlib

import pytest

import trajscope
from conftest import FIXTURES, REPO

spec = importlib.util.spec_from_file_location("corpus_dask", REPO / "examples" / "corpus_dask.py")
corpus = importlib.util.module_from_spec(spec)
spec.loader.exec_module(corpus)


def awtl_run(i: int, failed: bool) -> str:
    lines = [
        {"type": "run_start", "run_id": f"run-{i}", "task": f"make test {i} pass"},
        {"type": "action", "run_id": f"run-{i}", "action_id": f"a{i}", "span_id": f"s{i}", "tool": "shell", "command": "npm test"},
        {"type": "observation", "run_id": f"run-{i}", "span_id": f"s{i}", "exit_code": 1 if failed else 0, "summary": "1 failing" if failed else "ok"},
        {"type": "judge_result", "run_id": f"run-{i}", "judge_name": "tests", "status": "failed" if failed else "passed", "source_action_id": f"a{i}", "reason": "test failed" if failed else ""},
        {"type": "run_end", "run_id": f"run-{i}", "status": "failed" if failed else "passed"},
    ]
    return "".join(json.dumps(l) + "\n" for l in lines)


def read_rows(written):
    return [json.loads(line) for p in written for line in open(p)]


def test_ten_thousand_generated_traces_become_a_table(tmp_path):
    src = tmp_path / "traces"
    for i in range(10_000):
        sub = src / f"shard-{i % 10}"
        sub.mkdir(parents=True, exist_ok=True)
        (sub / f"run-{i:05}.jsonl").write_text(awtl_run(i, failed=i % 3 == 0))
    written = corpus.run(str(src), str(tmp_path / "out"), scheduler="threads")
    rows = read_rows(written)
    assert len(rows) == 10_000
    assert len({r["file"] for r in rows}) == 10_000
    failed = [r for r in rows if r["outcome"] == "failed"]
    assert len(failed) == len(range(0, 10_000, 3))
    assert all(r["format"] == "awtl" and r["lines_quarantined"] == 0 for r in rows)
    # Each row is what the core says of that file.
    sample = rows[1234]
    report = trajscope.analyze(sample["file"])
    t = report["trajectories"][0]
    assert sample["outcome"] == t["outcome"]
    assert sample["critical_step"] == ((t.get("critical") or {}).get("step"))


@pytest.mark.parametrize("scheduler", ["sync", "processes"])
def test_the_fixture_folder_with_other_schedulers(tmp_path, scheduler):
    written = corpus.run(str(FIXTURES / "corrupt"), str(tmp_path / scheduler), scheduler=scheduler, partitions=3)
    rows = read_rows(written)
    files = {r["file"] for r in rows}
    expected = {str(p) for p in (FIXTURES / "corrupt").iterdir() if p.is_file() and not p.name.startswith(".")}
    assert files == expected, "every file yields at least one row (an error row if nothing else)"
    assert any(r.get("lines_quarantined") for r in rows)
