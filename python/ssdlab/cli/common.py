"""Options and output helpers shared by the CLI commands."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from ssdlab.api import Simulation
from ssdlab.report import Report

console = Console()
console_err = Console(stderr=True)


def config_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """--preset, --workload, --trace, --format, --config, --set."""
    options = [
        click.option(
            "--preset", "-p", default="tiny", show_default=True, help="Device preset (see `ssdlab presets`)."
        ),
        click.option(
            "--workload",
            "-w",
            default=None,
            help="Built-in pattern (randwrite, randread, seqwrite, seqread, randrw, onoff) or a TOML file.",
        ),
        click.option(
            "--trace", "-t", type=click.Path(dir_okay=False), default=None, help="Replay this trace file."
        ),
        click.option(
            "--format", "trace_format", default=None, help="Trace format (default: detected from content)."
        ),
        click.option(
            "--config",
            "-c",
            "config_files",
            multiple=True,
            type=click.Path(dir_okay=False),
            help="Extra TOML config file(s), merged in order.",
        ),
        click.option(
            "--set",
            "-s",
            "overrides",
            multiple=True,
            metavar="KEY=VALUE",
            help="Override any dotted key, e.g. --set gc.victim=fifo --set device.utilization=0.85.",
        ),
    ]
    for option in reversed(options):
        f = option(f)
    return f


def run_with_progress(sim: Simulation, quiet: bool = False) -> Report:
    """Run, showing a progress bar only if the run lasts longer than a second."""
    start = time.perf_counter()
    progress: Progress | None = None
    task = None
    try:
        while not sim.step():
            if quiet or time.perf_counter() - start < 1.0:
                continue
            done, total = sim.progress()
            if progress is None:
                progress = Progress(
                    TextColumn("simulating"),
                    BarColumn(),
                    MofNCompleteColumn(),
                    TimeElapsedColumn(),
                    console=console_err,
                    transient=True,
                )
                progress.start()
                task = progress.add_task("run", total=total)
            assert task is not None
            progress.update(task, completed=done)
    finally:
        if progress is not None:
            progress.stop()
    return sim.report()
