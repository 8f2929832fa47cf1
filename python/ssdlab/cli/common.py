"""Options and output helpers shared by the CLI commands (the consoles themselves live in
`ssdlab._console`, which the library uses too)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import click

from ssdlab._console import console, console_err

__all__ = [
    "check_output_file",
    "config_options",
    "console",
    "console_err",
    "note_overridden",
    "note_skipped_lines",
]


def check_output_file(path: str, option: str) -> None:
    """Make sure the file `option` names can be written, before the run that writes it: create
    its directories and create and remove a probe file beside it, so a run is never lost at its
    end for want of a directory. The file itself is left as it was."""
    import os
    from pathlib import Path

    target = Path(path)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        probe = target.parent / f".{target.name}.ssdlab-write-check-{os.getpid()}"
        probe.touch(exist_ok=False)
        probe.unlink()
    except OSError as e:
        # mkdir says "File exists" when a part of the path is a file.
        exists = isinstance(e, FileExistsError | NotADirectoryError)
        reason = "is a file, not a directory" if exists else (e.strerror or str(e))
        where = e.filename or target.parent
        raise click.BadParameter(f"cannot write {path}: {where}: {reason}", param_hint=option) from None


def _bundled_trace(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """A bundled trace's name becomes its path; an existing file of that name wins."""
    if value is None:
        return None
    from ssdlab.data import resolve_trace

    return resolve_trace(value)


def note_skipped_lines(trace: str, info: dict[str, Any] | None) -> None:
    """The lines a trace reader skipped as unreadable (`on_bad_line = "skip"`), on stderr: how
    many, by problem, and the first few with their line numbers, so nothing is dropped unseen.
    `info` is a report's `workload.trace` (or `trace stats`' `trace`)."""
    if not info or not info.get("skipped_lines"):
        return
    by_problem = ", ".join(f"{problem} {count:,}" for problem, count in info["skipped_by_problem"].items())
    console_err.print(
        f"warning: {trace}: {info['skipped_lines']:,} unreadable lines skipped ({by_problem})",
        markup=False,
        highlight=False,
        soft_wrap=True,
    )
    for skipped in info["first_skipped"]:
        console_err.print(
            f"  {trace}:{skipped['line']}: {skipped['reason']}", markup=False, highlight=False, soft_wrap=True
        )


def note_overridden(overridden: Iterable[object]) -> None:
    """Each key a later layer overrode, once, on stderr: `note: workload.count: 200000 (from
    workload:randwrite:6) -> 30000 (from my.toml:2)`."""
    for item in overridden:
        console_err.print(f"note: {item}", markup=False, highlight=False, soft_wrap=True)


def config_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """--preset, --workload, --trace, --trace-with-workload, --format, --config, --set. The
    layers merge in that order of precedence, lowest first: preset, built-in workload pattern or
    trace, config files, --set."""
    options = [
        click.option(
            "--preset", "-p", default="tiny", show_default=True, help="Device preset (see `ssdlab presets`)."
        ),
        click.option(
            "--workload",
            "-w",
            default=None,
            help="Built-in pattern (see `ssdlab presets`: randwrite, fio-64-randread, ...) or a TOML file. "
            "--config files and --set go over a built-in's keys (each key they change is printed).",
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
            "--trace-with-workload",
            is_flag=True,
            default=False,
            help="Allow --trace with a built-in --workload pattern or spec: the trace replaces its requests, "
            "its other keys (warm-up, request count) stay. Refused without this flag.",
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
            help="TOML config file(s), merged in order, over the preset and --workload/--trace.",
        ),
        click.option(
            "--set",
            "-s",
            "overrides",
            multiple=True,
            metavar="KEY=VALUE",
            help="Override any dotted key, over everything else, e.g. --set gc.victim=fifo "
            "--set device.utilization=0.85.",
        ),
    ]
    for option in reversed(options):
        f = option(f)
    return f
