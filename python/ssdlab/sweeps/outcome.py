"""Layer: Python, sweeps. One job: what running one cell gives, and running a worker so that
whatever it raises becomes a failed outcome with its reason instead of stopping the sweep.

`execute` runs inside the worker process (a pool process, a Ray worker, or the caller's own with
one process); it returns an `Attempt`, which the runner turns into a `CellOutcome` once the files
the worker returned are written.
"""

from __future__ import annotations

import json
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ssdlab.errors import SsdlabError
from ssdlab.sweeps.cells import error_text
from ssdlab.sweeps.job import Job

#: The key of a worker's result that holds files to write under the results directory:
#: {relative path: text}; `{id}` in a path becomes the cell's id. They are written by the caller
#: (so they reach its disk from a Ray worker on another machine) and are not kept in the result.
FILES_KEY = "files"

Worker = Callable[[Job], dict[str, Any]]


@dataclass(frozen=True)
class Attempt:
    """One execution of a worker: "ok" with its result, or "failed" with the reason."""

    status: str
    error: str | None
    wall_s: float
    result: dict[str, Any] | None


@dataclass(frozen=True)
class CellOutcome:
    """What became of one cell.

    `status` is "ok" or "failed"; `error` the reason of a failure (None when ok); `wall_s` the
    wall time of the worker call (0 for a cell whose configuration was invalid, never run);
    `result` the worker's dict (None when failed); `files` the paths, relative to the results
    directory, of the files the worker returned; `resumed` is True when the outcome was read back
    from the results directory instead of being run this time."""

    id: str
    status: str
    error: str | None
    wall_s: float
    result: dict[str, Any] | None
    files: tuple[str, ...] = field(default=())
    resumed: bool = False

    @property
    def ok(self) -> bool:
        return self.status == "ok"


def _where(error: BaseException) -> str:
    """` (at file.py:12 in function)`: the innermost frame, for errors that are bugs rather than
    input problems, so a failed cell's reason says where to look."""
    frames = traceback.extract_tb(error.__traceback__)
    if not frames:
        return ""
    last = frames[-1]
    return f" (at {last.filename.rsplit('/', 1)[-1]}:{last.lineno} in {last.name})"


def _plain(value: Any) -> Any:
    """A NumPy scalar as the Python number or bool it holds (`np.bool_` and `np.int64` are
    neither `bool` nor `int`); anything else JSON cannot hold is an error."""
    if hasattr(value, "item") and not hasattr(value, "__len__"):
        return value.item()
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def execute(worker: Worker, job: Job) -> Attempt:
    """Run `worker(job)`, timing it; any exception (but ^C) becomes a failed Attempt."""
    start = time.perf_counter()
    try:
        result = worker(job)
        if not isinstance(result, dict):
            raise TypeError(f"the worker returned {type(result).__name__}, not a dict")
        # Through JSON here, with the cell (a value JSON cannot hold fails this cell, not the
        # writer later): a fresh result is then what a resumed one read back from its record
        # is (tuples are lists, NumPy scalars Python numbers), whatever the backend.
        result = json.loads(json.dumps(result, allow_nan=True, default=_plain))
    except Exception as e:
        reason = error_text(e) + ("" if isinstance(e, SsdlabError) else _where(e))
        return Attempt("failed", reason, time.perf_counter() - start, None)
    return Attempt("ok", None, time.perf_counter() - start, result)
