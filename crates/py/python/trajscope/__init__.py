"""trajscope: offline analysis of AI-agent traces, from Python.

The same Rust core as the ``trajscope`` CLI and the web app, with the same results: each
function returns what the matching CLI command prints as JSON.

    >>> import trajscope
    >>> report = trajscope.analyze("run.jsonl")          # trajscope analyze run.jsonl --json
    >>> for rec in trajscope.trajectories("run.jsonl"):  # trajscope analyze run.jsonl --jsonl
    ...     print(rec["id"], rec["outcome"], rec["critical"])

Nothing is sent anywhere and no model is called. The work runs with the GIL released, so
threads (and Dask's threaded scheduler) analyse several files at once.
"""

from __future__ import annotations

import json
import os
from typing import Any, Dict, Iterator, List, Optional, Sequence, Union

from . import _trajscope
from ._trajscope import TrajscopeError, __version__

__all__ = [
    "TrajscopeError",
    "__version__",
    "analyze",
    "trajectories",
    "cases",
    "brief",
    "eval",
    "redact",
]

Source = Union[str, "os.PathLike[str]", bytes, bytearray]


def analyze(
    source: Source,
    format: Optional[str] = None,
    outcome: Optional[str] = None,
    trajectory: Optional[str] = None,
) -> Dict[str, Any]:
    """The analysis report of one trace: exactly ``trajscope analyze FILE --json``.

    ``source`` is a path (``str`` or ``os.PathLike``) or the file's bytes (gzip included).
    ``format`` overrides content detection (a name ``--format`` accepts, e.g. ``"awtl"``).
    Corrupt lines never raise: they are in ``report["quarantine"]``. Raises
    :class:`TrajscopeError` when the file cannot be read or the format name is unknown.
    ``outcome="failed"`` or ``"passed"`` is the reviewer's word (``--outcome``), for every
    trajectory or, with ``trajectory=ID``, for one (``--trajectory``).
    """
    return json.loads(_trajscope.analyze_json(source, format, outcome, trajectory))


def trajectories(
    source: Source,
    format: Optional[str] = None,
    outcome: Optional[str] = None,
    trajectory: Optional[str] = None,
) -> Iterator[Dict[str, Any]]:
    """One record per trajectory: exactly the lines of ``trajscope analyze FILE --jsonl``.

    Each record is the trajectory's overview (``id``, ``steps``, ``outcome``, ``critical``,
    ``candidates``, ``classification``, ...) with ``file`` and ``format``; a trace with a
    document error also yields a record holding ``error``.
    """
    for line in _trajscope.trajectories_jsonl(source, format, outcome, trajectory):
        yield json.loads(line)


def cases(
    source: Source,
    format: Optional[str] = None,
    outcome: Optional[str] = None,
    trajectory: Optional[str] = None,
) -> List[Dict[str, Any]]:
    """The failed turn cases of a trace, valid or not: ``trajscope cases FILE --json``'s
    ``cases`` list (each with ``valid`` and ``errors``)."""
    return json.loads(_trajscope.cases_json(source, format, outcome, trajectory))["cases"]


def brief(
    source: Source,
    format: Optional[str] = None,
    phase: Optional[str] = None,
    scope: Sequence[str] = (),
    max_lines: int = 5,
    outcome: Optional[str] = None,
    trajectory: Optional[str] = None,
) -> Dict[str, Any]:
    """The Failure Prevention Brief from the trace's own cases: ``trajscope brief FILE --json``
    (``status`` is ``"ok"`` or ``"no-op"``; ``section`` is the Markdown)."""
    return json.loads(
        _trajscope.brief_json(source, format, phase, list(scope), max_lines, outcome, trajectory)
    )


def eval(  # noqa: A001 - the CLI's name
    paths: Union[str, "os.PathLike[str]", Sequence[Union[str, "os.PathLike[str]"]]],
    format: Optional[str] = None,
) -> Dict[str, Any]:
    """The detector scored on labelled files or folders (Who&When items, TRAJERRBENCH
    records): ``trajscope eval PATH... --json`` (``subsets`` and ``items``). Files that cannot
    be read are skipped and listed in ``skipped``."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    report, skipped = _trajscope.eval_json([os.fspath(p) for p in paths], format)
    out = json.loads(report)
    out["skipped"] = skipped
    return out


def redact(source: Source, output: Optional[Union[str, "os.PathLike[str]"]] = None) -> Dict[str, Any]:
    """A copy of the trace with secrets masked, as ``trajscope redact FILE -o OUT --json``: same
    line count, every JSON line still JSON. Returns ``secrets`` (how many), ``findings``
    (``line``, ``column``, ``kind`` each) and ``data`` (the copy's bytes); with ``output`` the
    copy is also written there."""
    data, findings = _trajscope.redact_json(source)
    if output is not None:
        with open(output, "wb") as f:
            f.write(data)
    found = json.loads(findings)
    return {"secrets": len(found), "findings": found, "data": data}
