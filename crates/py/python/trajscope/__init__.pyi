import os
from typing import Any, Dict, Iterator, List, Optional, Sequence, Union

__version__: str

class TrajscopeError(Exception):
    """A trace that cannot be read, or an argument the CLI would refuse."""

Source = Union[str, os.PathLike[str], bytes, bytearray]

def analyze(
    source: Source,
    format: Optional[str] = ...,
    outcome: Optional[str] = ...,
    trajectory: Optional[str] = ...,
) -> Dict[str, Any]: ...
def trajectories(
    source: Source,
    format: Optional[str] = ...,
    outcome: Optional[str] = ...,
    trajectory: Optional[str] = ...,
) -> Iterator[Dict[str, Any]]: ...
def cases(
    source: Source,
    format: Optional[str] = ...,
    outcome: Optional[str] = ...,
    trajectory: Optional[str] = ...,
) -> List[Dict[str, Any]]: ...
def brief(
    source: Source,
    format: Optional[str] = ...,
    phase: Optional[str] = ...,
    scope: Sequence[str] = ...,
    max_lines: int = ...,
    outcome: Optional[str] = ...,
    trajectory: Optional[str] = ...,
) -> Dict[str, Any]: ...
def eval(
    paths: Union[str, os.PathLike[str], Sequence[Union[str, os.PathLike[str]]]],
    format: Optional[str] = ...,
) -> Dict[str, Any]: ...
def redact(source: Source, output: Optional[Union[str, os.PathLike[str]]] = ...) -> Dict[str, Any]: ...
