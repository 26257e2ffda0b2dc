"""The Python package gives what the CLI prints, on every fixture of the repository."""

import json
import threading

import pytest

import trajscope
from conftest import FIXTURES, REPO, fixture_files

FILES = fixture_files()


def test_there_are_fixtures_to_compare():
    assert len(FILES) > 30


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_analyze_equals_the_cli_json(cli, path):
    code, out, err = cli("analyze", path, "--json")
    assert code == 0, err
    assert trajscope.analyze(str(path)) == json.loads(out)


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_trajectories_equal_the_cli_jsonl(cli, path):
    code, out, err = cli("analyze", path, "--jsonl")
    assert code == 0, err
    expected = [json.loads(line) for line in out.splitlines()]
    assert list(trajscope.trajectories(str(path))) == expected


def test_bytes_and_paths_give_the_same_report():
    for path in FILES:
        assert trajscope.analyze(path.read_bytes()) == trajscope.analyze(path), path
        assert trajscope.analyze(bytearray(path.read_bytes())) == trajscope.analyze(path), path


def test_a_corrupt_file_is_reported_not_raised():
    path = FIXTURES / "corrupt" / "mid-file-garbage.jsonl"
    report = trajscope.analyze(path)
    stats = report["stats"]
    assert report["quarantine"], "the garbage line is quarantined"
    assert stats["lines_total"] == stats["lines_parsed"] + stats["lines_blank"] + stats["lines_quarantined"]
    q = report["quarantine"][0]
    raw = path.read_bytes().split(b"\n")[q["line"] - 1]
    import base64

    assert base64.b64decode(q["raw_base64"]).rstrip(b"\r") == raw.rstrip(b"\r")


def test_a_missing_file_raises_the_cli_message(cli, tmp_path):
    missing = tmp_path / "nope.jsonl"
    code, _, err = cli("analyze", missing, "--json")
    assert code != 0
    with pytest.raises(trajscope.TrajscopeError) as e:
        trajscope.analyze(str(missing))
    assert err.strip() == f"trajscope: {e.value}"


def test_an_unknown_format_raises_the_cli_message():
    with pytest.raises(trajscope.TrajscopeError, match="unknown format `nope`; known: awtl"):
        trajscope.analyze(b"{}\n", format="nope")


def test_a_format_override_is_used():
    path = FIXTURES / "awtl" / "passed_run.awtl.jsonl"
    assert trajscope.analyze(path)["format"] == "awtl"
    assert trajscope.analyze(path, format="generic")["format"] == "generic"


def test_a_wrong_argument_type_raises():
    with pytest.raises(trajscope.TrajscopeError, match="expected a path"):
        trajscope.analyze(42)


CASE_FILES = [
    REPO / "web" / "samples" / "sample.awtl.jsonl",
    FIXTURES / "awtl" / "env_blocker_browser.awtl.jsonl",
    FIXTURES / "awtl" / "passed_run.awtl.jsonl",
    FIXTURES / "tau2" / "airline_3_simulations.json",
]


@pytest.mark.parametrize("path", CASE_FILES, ids=lambda p: p.name)
def test_cases_and_brief_equal_the_cli(cli, path):
    code, out, err = cli("cases", path, "--json")
    assert code == 0, err
    assert trajscope.cases(path) == json.loads(out)["cases"]
    code, out, err = cli("brief", path, "--json")
    assert code == 0, err
    cli_brief = json.loads(out)
    py_brief = trajscope.brief(path)
    for key in ("status", "lines", "section"):
        assert py_brief[key] == cli_brief[key], key


def test_eval_equals_the_cli(cli):
    folder = FIXTURES / "who_and_when"
    code, out, err = cli("eval", folder, "--json")
    assert code == 0, err
    got = trajscope.eval(folder)
    assert got.pop("skipped") == []
    assert got == json.loads(out)
    assert sum(s["n"] for s in got["subsets"].values()) == len(got["items"]) > 0


def test_threads_analyse_at_once_and_agree():
    # The GIL is released while the core works: several threads give the same answers.
    paths = FILES[:12]
    expected = [trajscope.analyze(p) for p in paths]
    got = [None] * len(paths)

    def work(i):
        got[i] = trajscope.analyze(paths[i])

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(paths))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert got == expected


UNKNOWN_OUTCOME = [FIXTURES / "codex" / "rollout-trimmed.jsonl", FIXTURES / "inspect" / "browser.no_events.json"]


@pytest.mark.parametrize("path", UNKNOWN_OUTCOME, ids=lambda p: p.name)
def test_the_reviewers_outcome_equals_the_cli(cli, path):
    for word in ("failed", "passed"):
        code, out, err = cli("analyze", path, "--json", "--outcome", word)
        assert code == 0, err
        got = trajscope.analyze(path, outcome=word)
        assert got == json.loads(out)
        assert {t["outcome"] for t in got["trajectories"]} == {word}
        code, out, err = cli("cases", path, "--json", "--outcome", word)
        assert code == 0, err
        assert trajscope.cases(path, outcome=word) == json.loads(out)["cases"]
    first = trajscope.analyze(path)["trajectories"][0]["id"]
    one = trajscope.analyze(path, outcome="failed", trajectory=first)
    code, out, _ = cli("analyze", path, "--json", "--outcome", "failed", "--trajectory", first)
    assert one == json.loads(out)


def test_a_wrong_outcome_or_trajectory_raises():
    path = FIXTURES / "codex" / "rollout-trimmed.jsonl"
    with pytest.raises(trajscope.TrajscopeError, match="unknown outcome `maybe`"):
        trajscope.analyze(path, outcome="maybe")
    with pytest.raises(trajscope.TrajscopeError, match="no trajectory `nope`"):
        trajscope.analyze(path, outcome="failed", trajectory="nope")
    with pytest.raises(trajscope.TrajscopeError, match="needs outcome"):
        trajscope.analyze(path, trajectory="x")


def test_redact_equals_the_cli(cli, tmp_path):
    path = FIXTURES / "redact" / "planted-secrets.awtl.jsonl"
    out_cli = tmp_path / "cli.jsonl"
    code, out, err = cli("redact", path, "-o", out_cli, "--json")
    assert code == 0, err
    expected = json.loads(out)
    got = trajscope.redact(path, output=tmp_path / "py.jsonl")
    assert got["secrets"] == expected["secrets"] > 0
    assert got["findings"] == expected["findings"]
    assert got["data"] == out_cli.read_bytes() == (tmp_path / "py.jsonl").read_bytes()
    lines = got["data"].decode().splitlines()
    assert len(lines) == len(path.read_bytes().decode().splitlines())
    for line in lines:
        if line.strip():
            json.loads(line)
    assert trajscope.redact(path.read_bytes())["data"] == got["data"]
