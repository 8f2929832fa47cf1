"""Layer: Python, experiments. Helpers shared by the experiments and by `ssdlab compare`: a grid
of simulation jobs run in parallel processes with a progress display."""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ssdlab._console import console, progress_bar

if TYPE_CHECKING:
    import pandas as pd

    from ssdlab.report import Report


@dataclass(frozen=True)
class Job:
    """One simulation of an experiment grid: labels for the tables, arguments for ssdlab.run."""

    labels: dict[str, Any]
    preset: str | None
    trace: str | None = None
    workload: str | None = None
    overrides: tuple[str, ...] = field(default_factory=tuple)
    config_files: tuple[str, ...] = field(default_factory=tuple)
    trace_format: str | None = None

    def run(self) -> Report:
        """Run this job in the calling process (the API is imported here, in the worker)."""
        from ssdlab.api import run

        return run(
            preset=self.preset,
            workload=self.workload,
            trace=self.trace,
            overrides=self.overrides,
            config_files=self.config_files,
            trace_format=self.trace_format,
        )


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
            # forkserver, not fork: the progress display runs a thread, and forking a process
            # with threads can copy a held lock into the child.
            context = multiprocessing.get_context("forkserver")
            with ProcessPoolExecutor(max_workers=processes, mp_context=context) as pool:
                futures = {pool.submit(worker, job): i for i, job in enumerate(jobs)}
                try:
                    for future in as_completed(futures):
                        results[futures[future]] = future.result()
                        advance()
                except BaseException:
                    # One failed run (or ^C) fails the grid: do not start the runs still queued.
                    for future in futures:
                        future.cancel()
                    raise
    return [r for r in results if r is not None]


def verified(jobs: Sequence[Job]) -> list[Job]:
    """The jobs with verify mode on: every mapping checked at the end of each run, which fails
    on a lost page."""
    return [Job(j.labels, j.preset, j.trace, j.workload, (*j.overrides, "verify=true")) for j in jobs]


def print_frame(title: str, frame: pd.DataFrame) -> None:
    """A result table on the console, rounded to 3 places."""
    console.print(f"\n[bold]{title}[/]")
    # soft_wrap: a wide frame is printed whole, not folded at the terminal's (or a log's) 80 columns.
    console.print(frame.round(3).to_string(), highlight=False, markup=False, soft_wrap=True)
