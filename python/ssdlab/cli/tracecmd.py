"""`ssdlab trace stats|convert|detect`: inspect and convert block traces."""

from __future__ import annotations

import json
from pathlib import Path

import click

from ssdlab import _core
from ssdlab._console import fmt_duration_us, new_table
from ssdlab.cli.common import console


def _options_toml(trace_format: str | None, options: tuple[str, ...]) -> str:
    lines = []
    if trace_format:
        lines.append(f'format = "{trace_format}"')
    for opt in options:
        if "=" not in opt:
            raise click.BadParameter(f"'{opt}' is not KEY=VALUE", param_hint="--option")
        key, value = opt.split("=", 1)
        value = value.strip()
        try:
            json.loads(value)
        except ValueError:
            value = json.dumps(value)  # a bare word: quote it
        lines.append(f"{key.strip()} = {value}")
    return "\n".join(lines) + "\n"


trace_format_option = click.option("--format", "trace_format", default=None, help="Force the format.")
trace_options_option = click.option(
    "--option",
    "-O",
    "options",
    multiple=True,
    metavar="KEY=VALUE",
    help="Reader option, e.g. -O on_bad_line=skip -O device=0 -O ops=writes (see docs/traces.md).",
)


@click.group()
def trace() -> None:
    """Inspect and convert block I/O traces."""


@trace.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False))
@trace_format_option
@trace_options_option
@click.option("--page-bytes", default=4096, show_default=True, help="Page size for footprints.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON (one object per file, keyed by path).")
def stats(
    files: tuple[str, ...], trace_format: str | None, options: tuple[str, ...], page_bytes: int, as_json: bool
):
    """Requests, read ratio, footprint, sizes, inter-arrival times, idle share, hot read set.

    FILES are trace files or names of bundled traces (see `ssdlab presets`)."""
    from ssdlab.data import resolve_trace

    opts = _options_toml(trace_format, options)
    results = {f: json.loads(_core.trace_stats(resolve_trace(f), opts, page_bytes)) for f in files}
    if as_json:
        console.print_json(json.dumps(results))
        return
    table = new_table("trace statistics")
    # Sizes in the unit of the header and two-line headers keep the numbers narrow, so that the
    # file name keeps room in 80 columns (it folds onto a second line if longer); numbers never wrap.
    table.add_column("file", overflow="fold", min_width=12)
    for col in (
        "requests",
        "read\nratio",
        "footprint\nMiB",
        "mean\nKiB",
        "span",
        "idle",
        "hot 80% of\nreads MiB",
    ):
        table.add_column(col, justify="right", no_wrap=True)
    for f, s in results.items():
        hot = s["hot_read"]
        table.add_row(
            Path(f).name,
            f"{s['requests']:,}",
            f"{s['read_ratio']:.3f}",
            f"{s['footprint_bytes'] / 2**20:,.1f}",
            f"{s['mean_request_bytes'] / 1024:,.1f}",
            fmt_duration_us(s["time_span_ns"] / 1e3),
            f"{s['idle_share']:.1%}",
            f"{hot['bytes'] / 2**20:,.1f} ({hot['share_of_read_footprint']:.0%})",
        )
    console.print(table)


@trace.command()
@click.argument("source", type=click.Path(dir_okay=False))
@click.argument("out", type=click.Path(dir_okay=False))
@trace_format_option
@trace_options_option
def convert(source: str, out: str, trace_format: str | None, options: tuple[str, ...]) -> None:
    """Convert a trace to ssdlab's compact binary format (replays faster)."""
    n = _core.trace_convert(source, out, _options_toml(trace_format, options))
    console.print(f"{n:,} records written to {out}")


@trace.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False))
def detect(files: tuple[str, ...]) -> None:
    """Print the format detected from each file's content."""
    for f in files:
        console.print(f"{f}: {_core.trace_detect(f)}", highlight=False)
