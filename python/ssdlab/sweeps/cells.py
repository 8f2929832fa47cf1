"""Layer: Python, sweeps. One job: cells and their stable ids.

A cell is one run of a sweep: its labels (the table's columns: axis values and seed), the `Job`
that runs it and its id. The id is a hash of the cell's *resolved* configuration (every key, as
the core validated it, seed included) with each file the run reads (a trace, a workload spec)
replaced by the SHA-256 of its content: the same grid gives the same ids on another machine, in
another directory, or after a trace is copied elsewhere, and two spellings of one configuration
(`workload.bs = "4k"` and `4096`) share an id. A results directory is keyed by these ids, which
is what makes a sweep resumable.
"""

from __future__ import annotations

import hashlib
import json
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ssdlab.errors import SsdlabError
from ssdlab.sweeps.job import Job

#: Bumped if what an id covers changes (then every old id is another cell: nothing is misread).
ID_SCHEME = "ssdlab-cell/1"
ID_HEX_DIGITS = 16


@dataclass(frozen=True)
class Cell:
    """One cell: its id, labels (column -> value) and job. `invalid` holds the reason when the
    cell's configuration failed validation: such a cell is recorded as failed, never run."""

    id: str
    labels: dict[str, Any]
    job: Job
    invalid: str | None = None


class FileDigests:
    """SHA-256 digests of the files cells read, each file hashed once per sweep (a trace may be
    gigabytes, and every cell of a grid may name it)."""

    def __init__(self) -> None:
        self._by_path: dict[Path, str] = {}

    def of(self, path: str | Path) -> str:
        resolved = Path(path).resolve()
        digest = self._by_path.get(resolved)
        if digest is None:
            sha = hashlib.sha256()
            with open(resolved, "rb") as f:
                while chunk := f.read(1 << 20):
                    sha.update(chunk)
            digest = self._by_path[resolved] = sha.hexdigest()
        return digest


def _hash(payload: Any) -> str:
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), allow_nan=True)
    return hashlib.sha256(f"{ID_SCHEME}\n{text}".encode()).hexdigest()[:ID_HEX_DIGITS]


def content_config(resolved_toml: str, digests: FileDigests) -> dict[str, Any]:
    """The resolved configuration with the files it names replaced by their content digests."""
    config = tomllib.loads(resolved_toml)
    workload = config.get("workload", {})
    if workload.get("path"):
        workload["path"] = "sha256:" + digests.of(workload["path"])
    spec = workload.get("spec")
    if spec and Path(spec).is_file():
        workload["spec"] = "sha256:" + digests.of(spec)
    return config


def cell_id(resolved_toml: str, digests: FileDigests) -> str:
    """The id of a cell from its resolved configuration (TOML, as `ssdlab.resolve` returns it,
    seed included): 16 hex digits of a SHA-256."""
    return _hash({"config": content_config(resolved_toml, digests)})


def invalid_cell_id(job: Job, digests: FileDigests) -> str:
    """The id of a cell whose configuration does not resolve: a hash of its inputs instead
    (files by content), so that it too is stable, and never equal to a valid cell's id."""
    setup = job.setup
    trace = digests.of(setup.trace) if setup.trace and Path(setup.trace).is_file() else setup.trace
    config_files = [digests.of(f) if Path(f).is_file() else f for f in setup.config_files]
    workload = setup.workload
    if workload and Path(workload).is_file():
        workload = "sha256:" + digests.of(workload)
    # These keys are the id's: a new one (trace_with_workload) would change every invalid cell's id.
    inputs = {
        "preset": setup.preset,
        "trace": trace,
        "trace_format": setup.trace_format,
        "workload": workload,
        "config_files": config_files,
        "overrides": list(setup.overrides),
    }
    return _hash({"unresolved": inputs})


def resolve_job(job: Job) -> str:
    """The job's resolved configuration (TOML); raises ConfigError if it is invalid."""
    return job.setup.resolve()


def error_text(error: BaseException) -> str:
    """One message for an error: an ssdlab error's own text, else its type and text."""
    if isinstance(error, SsdlabError):
        return error.message
    return f"{type(error).__name__}: {error}"


def cell_of(job: Job, digests: FileDigests, labels: dict[str, Any] | None = None) -> Cell:
    """A job as a cell: its id from its resolved configuration, or, if that does not
    validate, an invalid cell carrying the reason."""
    labels = dict(job.labels if labels is None else labels)
    try:
        resolved = resolve_job(job)
    except SsdlabError as e:
        return Cell(invalid_cell_id(job, digests), labels, job, invalid=error_text(e))
    return Cell(cell_id(resolved, digests), labels, job)


def cells_from_jobs(jobs: Iterable[Job], digests: FileDigests | None = None) -> list[Cell]:
    """Cells for a list of Jobs (labels from each job), ids from their resolved
    configurations. Every configuration is resolved here, before anything runs; a job whose
    configuration is invalid becomes a cell that `run_cells` records as failed with the reason.
    Jobs that resolve to one configuration share an id (`run_cells` runs it once)."""
    digests = digests or FileDigests()
    return [cell_of(job, digests) for job in jobs]
