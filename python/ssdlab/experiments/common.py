"""Helpers shared by the reproductions: parallel runs with a progress display, result tables."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from typing import Any

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from ssdlab.cli.common import console_err


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
    progress bar; returns the results in job order."""
    processes = processes or os.cpu_count() or 1
    results: list[dict[str, Any] | None] = [None] * len(jobs)
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console_err,
    ) as progress:
        task = progress.add_task("simulating", total=len(jobs))
        if processes == 1:
            for i, job in enumerate(jobs):
                results[i] = worker(job)
                progress.advance(task)
        else:
            with ProcessPoolExecutor(max_workers=processes) as pool:
                futures = {pool.submit(worker, job): i for i, job in enumerate(jobs)}
                for future in as_completed(futures):
                    results[futures[future]] = future.result()
                    progress.advance(task)
    return [r for r in results if r is not None]
