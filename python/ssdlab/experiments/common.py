"""Layer: Python, experiments. Helpers shared by the reproductions: a grid of simulation jobs run
in parallel processes with a progress display."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from typing import Any

from ssdlab._console import progress_bar


@dataclass(frozen=True)
class Job:
    """One simulation of an experiment grid: labels for the tables, arguments for ssdlab.run."""

    labels: dict[str, Any]
    preset: str
    trace: str | None = None
    workload: str | None = None
    overrides: tuple[str, ...] = field(default_factory=tuple)


def run_jobs(jobs: Sequence[Job], worker: Callable[[Job], dict[str, Any]], processes: int | None = None):
    """Run `worker(job)` for every job in parallel processes (one per core by default) with a
    progress bar; returns the results in job order. `worker` must be a module-level function
    (it is pickled to the worker processes)."""
    processes = max(1, min(processes or os.cpu_count() or 1, len(jobs)))
    results: list[dict[str, Any] | None] = [None] * len(jobs)
    with progress_bar("simulating", total=len(jobs)) as advance:
        if processes == 1:
            for i, job in enumerate(jobs):
                results[i] = worker(job)
                advance()
        else:
            with ProcessPoolExecutor(max_workers=processes) as pool:
                futures = {pool.submit(worker, job): i for i, job in enumerate(jobs)}
                for future in as_completed(futures):
                    results[futures[future]] = future.result()
                    advance()
    return [r for r in results if r is not None]
