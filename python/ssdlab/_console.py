"""Layer: Python, terminal output shared by the CLI and the experiments. One job: the two
consoles (results on stdout, progress and errors on stderr), progress displays and the cell
formats of result tables, so that library code (experiments/) never imports the CLI.

Kept light on purpose: `ssdlab --help` imports this module, so rich.progress is imported only when
a progress display is shown, and nothing here touches pandas, numpy or matplotlib.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from rich.console import Console

if TYPE_CHECKING:
    from rich.progress import Progress
    from rich.table import Table

    from ssdlab.api import Simulation
    from ssdlab.report import Report

#: Results (tables, paths): stdout, so that they can be piped or redirected on their own.
console = Console()
#: Progress bars, errors and hints: stderr.
console_err = Console(stderr=True)

#: What a table shows for a figure that does not exist (a latency row without requests, the WAF
#: of a run without writes): a dash, never a zero that reads as a measurement.
MISSING = "-"


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


class _CellCounts:
    """What a sweep's progress bar counts: cells finished, of which failed."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.done = 0
        self.failed = 0

    def fields(self) -> dict[str, str]:
        failed = f"[red]{self.failed} failed[/]" if self.failed else "0 failed"
        return {"failed": failed, "remaining": f"{self.total - self.done} left"}


@contextmanager
def cells_progress(description: str, total: int) -> Iterator[Callable[[bool], None]]:
    """A progress bar on stderr for a sweep of `total` cells: done of total, failed, remaining,
    elapsed time and an ETA. Yields `advance(failed)`, to call once per finished cell."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    counts = _CellCounts(total)
    progress = Progress(
        TextColumn("{task.description}"),
        BarColumn(bar_width=24),
        MofNCompleteColumn(),
        TextColumn("{task.fields[failed]}"),
        TextColumn("{task.fields[remaining]}"),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        console=console_err,
    )
    with progress:
        task = progress.add_task(description, total=total, **counts.fields())

        def advance(failed: bool = False) -> None:
            counts.done += 1
            counts.failed += failed
            progress.update(task, advance=1, **counts.fields())

        yield advance


#: Warm-up pages written per native call while a warm-up bar shows: about a tenth of a second.
WARMUP_SLICE = 200_000


def run_with_progress(sim: Simulation, quiet: bool = False) -> Report:
    """Run `sim` to the end: the warm-up in slices, then the measured run. Progress bars appear
    only if the run lasts longer than a second (short runs print nothing but their result):
    "warming up" (pages written of pages to write; simulated time of the timed random writes),
    then "simulating" (requests completed)."""
    start = time.perf_counter()
    progress: Progress | None = None
    tasks: dict[str, Any] = {}

    def show(description: str, completed: float, total: float | None) -> None:
        nonlocal progress
        if quiet or time.perf_counter() - start < 1.0:
            return
        if progress is None:
            progress = _new_progress(transient=True)
            progress.start()
        if description not in tasks:
            tasks[description] = progress.add_task(description, total=total)
        progress.update(tasks[description], completed=completed, total=total)

    try:
        while not sim.warm_up_step(WARMUP_SLICE):
            state = sim.warmup_progress()
            if state is None:
                break
            written, to_write, timed_ns, timed_total_ns = state
            if written < to_write or not timed_total_ns:
                show("warming up (pages)", written, to_write)
            else:
                show("warming up (simulated ms)", timed_ns // 1_000_000, timed_total_ns // 1_000_000)
        while not sim.step():
            done, total = sim.progress()
            show("simulating", done, total)
    finally:
        if progress is not None:
            progress.stop()
    return sim.report()


def is_missing(value: float | None) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


#: (from, divisor, unit) in microseconds, largest first: minutes from 2 min on, hours from 2 h, days
#: from 2 days, so that a value never reads as "1.2 h" where "72 min" is clearer.
_DURATION_UNITS = (
    (2 * 86_400e6, 86_400e6, "d"),
    (2 * 3_600e6, 3_600e6, "h"),
    (120e6, 60e6, "min"),
    (1e6, 1e6, "s"),
    (1e3, 1e3, "ms"),
)


def fmt_duration_us(value_us: float | None) -> str:
    """A duration with its unit chosen by its range (ns, us, ms, s, min, h, d) and three
    significant figures (`512 ns`, `81.2 us`, `2.01 ms`, `1.57 s`, `6.89 d`): narrow enough for a
    table column, and readable from nanosecond hits to second-long tails and week-long traces."""
    if is_missing(value_us):
        return MISSING
    assert value_us is not None
    value_us = float(f"{value_us:.3g}")  # round first, so that 999.6 us prints as 1.00 ms
    v, unit = value_us, "us"
    for limit, scale, name in _DURATION_UNITS:
        if value_us >= limit:
            v, unit = value_us / scale, name
            break
    else:
        if 0 < value_us < 1:
            v, unit = value_us * 1e3, "ns"
    return f"{v:,.0f} {unit}" if v >= 100 else f"{v:#.3g} {unit}"


def fmt_duration_ns(value_ns: float | None) -> str:
    """`fmt_duration_us` of a duration in nanoseconds (the report's unit)."""
    return MISSING if is_missing(value_ns) else fmt_duration_us(float(value_ns) / 1e3)  # type: ignore[arg-type]


def fmt_sig(value: float | None, digits: int = 3) -> str:
    """A figure with `digits` significant figures, never rounded to a zero that reads as a
    measurement: 0.053 prints as `0.053`, 12.345 as `12.3`, 1.0 as `1`, and a figure with as many
    digits before the point as `digits` or more whole, with thousands separators
    (`1,234,567`). The dash for a missing figure; `0` only for an exact zero. Every result table
    prints its rates and ratios through it."""
    if is_missing(value):
        return MISSING
    assert value is not None
    v = float(value)
    if v == 0:
        return "0"
    if not math.isfinite(v):
        return str(v)
    # Rounded first, so that 99.96 prints as 100 and 99.94 as 99.9.
    if abs(float(f"{v:.{digits}g}")) >= 10 ** (digits - 1):
        return f"{v:,.0f}"
    return f"{v:.{digits}g}"


def fmt_number(value: float | None, spec: str = ",.0f") -> str:
    """`format(value, spec)`, or the dash for a missing figure."""
    return MISSING if is_missing(value) else format(value, spec)


def fmt_bytes(n: float) -> str:
    """A size with a binary unit and three significant figures (`96.0 MiB`, `16.0 GiB`)."""
    value = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if abs(value) < 999.5 or unit == "PiB":
            return f"{value:.0f} {unit}" if unit == "B" or value >= 99.5 else f"{value:#.3g} {unit}"
        value /= 1024
    raise AssertionError("unreachable")


def new_table(title: str | None = None, **kw: Any) -> Table:
    """A result table laid out to fit an 80-column terminal or log: a rule under the header, no
    vertical rules, two spaces between columns. Callers mark number columns `no_wrap=True`
    (a number is never cut) and text columns `overflow="fold"` (text wraps, never ends in an
    ellipsis that hides what it said)."""
    from rich import box
    from rich.table import Table

    return Table(title=title, box=box.SIMPLE_HEAD, show_edge=False, padding=(0, 1, 0, 0), **kw)
