"""Layer: Python, terminal output shared by the CLI and the experiments. One job: the two
consoles (results on stdout, progress and errors on stderr) and progress displays, so that
library code (experiments/) never imports the CLI.

Kept light on purpose: `ssdlab --help` imports this module, so rich.progress is imported only when
a progress display is shown, and nothing here touches pandas, numpy or matplotlib.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from rich.console import Console

if TYPE_CHECKING:
    from rich.progress import Progress

    from ssdlab.api import Simulation
    from ssdlab.report import Report

#: Results (tables, paths): stdout, so that they can be piped or redirected on their own.
console = Console()
#: Progress bars, errors and hints: stderr.
console_err = Console(stderr=True)


def _new_progress(transient: bool) -> Progress:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console_err,
        transient=transient,
    )


@contextmanager
def progress_bar(description: str, total: int, transient: bool = False) -> Iterator[Any]:
    """A progress bar on stderr for `total` steps; yields `advance()`, to call once per step."""
    with _new_progress(transient) as progress:
        task = progress.add_task(description, total=total)
        yield lambda: progress.advance(task)


def run_with_progress(sim: Simulation, quiet: bool = False) -> Report:
    """Run `sim` to the end; a progress bar appears only if the run lasts longer than a second
    (short runs print nothing but their result)."""
    start = time.perf_counter()
    progress: Progress | None = None
    task = None
    try:
        while not sim.step():
            if quiet or time.perf_counter() - start < 1.0:
                continue
            done, total = sim.progress()
            if progress is None:
                progress = _new_progress(transient=True)
                progress.start()
                task = progress.add_task("simulating", total=total)
            assert task is not None
            progress.update(task, completed=done)
    finally:
        if progress is not None:
            progress.stop()
    return sim.report()
