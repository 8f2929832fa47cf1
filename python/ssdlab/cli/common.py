"""Options and output helpers shared by the CLI commands (the consoles themselves live in
`ssdlab._console`, which the library uses too)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from ssdlab._console import console, console_err

__all__ = ["config_options", "console", "console_err"]


def _bundled_trace(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """A bundled trace's name becomes its path; an existing file of that name wins."""
    if value is None:
        return None
    from ssdlab.data import resolve_trace

    return resolve_trace(value)


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
            help="Built-in pattern (see `ssdlab presets`: randwrite, fio-64-randread, ...) or a TOML file.",
        ),
        click.option(
            "--trace",
            "-t",
            type=click.Path(dir_okay=False),
            default=None,
            callback=_bundled_trace,
            help="Replay this trace file, or a bundled real trace by name (see `ssdlab presets`).",
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
