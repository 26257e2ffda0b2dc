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
]

Source = Union[str, "os.PathLike[str]", bytes, bytearray]


def analyze(source: Source, format: Optional[str] = None) -> Dict[str, Any]:
    """The analysis report of one trace: exactly ``trajscope analyze FILE --json``.

    ``source`` is a path (``str`` or ``os.PathLike``) or the file's bytes (gzip included).
    ``format`` overrides content detection (a name ``--format`` accepts, e.g. ``"awtl"``).
    Corrupt lines never raise: they are in ``report["quarantine"]``. Raises
    :class:`TrajscopeError` when the file cannot be read or the format name is unknown.
    """
    return json.loads(_trajscope.analyze_json(source, format))


def trajectories(source: Source, format: Optional[str] = None) -> Iterator[Dict[str, Any]]:
    """One record per trajectory: exactly the lines of ``trajscope analyze FILE --jsonl``.

    Each record is the trajectory's overview (``id``, ``steps``, ``outcome``, ``critical``,
    ``candidates``, ``classification``, ...) with ``file`` and ``format``; a trace with a
    document error also yields a record holding ``error``.
    """
    for line in _trajscope.trajectories_jsonl(source, format):
        yield json.loads(line)


def cases(source: Source, format: Optional[str] = None) -> List[Dict[str, Any]]:
    """The failed turn cases of a trace, valid or not: ``trajscope cases FILE --json``'s
    ``cases`` list (each with ``valid`` and ``errors``)."""
    return json.loads(_trajscope.cases_json(source, format))["cases"]


def brief(
    source: Source,
    format: Optional[str] = None,
    phase: Optional[str] = None,
    scope: Sequence[str] = (),
    max_lines: int = 5,
) -> Dict[str, Any]:
    """The Failure Prevention Brief from the trace's own cases: ``trajscope brief FILE --json``
    (``status`` is ``"ok"`` or ``"no-op"``; ``section`` is the Markdown)."""
    return json.loads(_trajscope.brief_json(source, format, phase, list(scope), max_lines))


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
