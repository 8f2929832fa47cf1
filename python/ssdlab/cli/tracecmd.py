"""`ssdlab trace stats|convert|detect`: inspect and convert block traces."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from ssdlab import trace as ssdlab_trace
from ssdlab._console import MISSING, fmt_bytes, fmt_duration_us, new_table
from ssdlab.cli.common import console, note_skipped_lines


def _options_toml(trace_format: str | None, options: tuple[str, ...]) -> str:
    for opt in options:
        if "=" not in opt:
            raise click.BadParameter(f"'{opt}' is not KEY=VALUE", param_hint="--option")
    return ssdlab_trace.options_toml(options, trace_format)


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
    """Request mix, sizes, footprints, timing, popularity, re-reads; files side by side.

    Beside the usual figures (requests, read ratio, footprint, idle share, hot read set), those a
    workload fit compares: popularity curves (the share of an op's footprint that takes N % of its
    accesses), re-reads of written pages, sequential shares, per-op size histograms by count and
    bytes, inter-arrival quantiles (all of them with --json).

    FILES are trace files or names of bundled traces (see `ssdlab presets`). Two or more FILES
    print one column each, e.g. a trace and the workload fitted to it."""
    from ssdlab.data import resolve_trace

    _options_toml(trace_format, options)  # a malformed option is the CLI's error
    results = {f: ssdlab_trace.stats(resolve_trace(f), options, page_bytes, trace_format) for f in files}
    for f, result in results.items():
        note_skipped_lines(f, result.get("trace"))
    if as_json:
        console.print_json(json.dumps(results))
        return
    if len(results) == 1:
        console.print(_summary_table(results))
        tables = _side_by_side(results, _FIGURE_ROWS, "workload figures")
    else:
        tables = _side_by_side(results, _SUMMARY_ROWS + _FIGURE_ROWS, "trace statistics side by side")
    for table in tables:
        console.print(table)
    console.print(_FIGURES_NOTE, highlight=False)


def _summary_table(results: dict[str, dict[str, Any]]):
    """One row per file: the headline figures."""
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
    return table


# The side-by-side table: one row per figure, (label, cell from one file's statistics). A cell is a
# dash where the figure does not exist (the popularity of writes in a read-only trace).
Row = tuple[str, Callable[[dict[str, Any]], str]]

_FIGURES_NOTE = (
    "hot N% of reads: share of the read footprint that takes N% of the read page-accesses (likewise "
    "writes). re-read: reads of pages the trace wrote before; distance in requests. sequential: "
    "starts where the previous request of its op ended. read bytes < 8 KiB: share of the read bytes "
    "in requests of that size."
)


def _pct(value: float) -> str:
    return f"{value:.1%}"


def _if_op(op: str, cell: Callable[[dict[str, Any]], str]) -> Callable[[dict[str, Any]], str]:
    """`cell`, or a dash when the trace has no request of `op`."""
    return lambda s: cell(s) if s["reads" if op == "read" else "writes"] else MISSING


def _hot(op: str, share: float) -> Row:
    def cell(s: dict[str, Any]) -> str:
        point = next(p for p in s["popularity"][op]["curve"] if math.isclose(p["access_share"], share))
        return _pct(point["footprint_share"])

    return f"hot {share:.0%} of {op}s", _if_op(op, cell)


def _bytes_in(op: str, label: str, low: int, high: float) -> Row:
    """Share of the op's bytes in requests of `low` to `high` bytes (bucket minimums)."""

    def cell(s: dict[str, Any]) -> str:
        buckets = s["sizes"][op]["buckets"]
        return _pct(sum(b["byte_share"] for b in buckets if low <= b["min_bytes"] < high))

    return f"{op} bytes {label}", _if_op(op, cell)


def _reread_distance(q: str) -> Row:
    def cell(s: dict[str, Any]) -> str:
        reread = s["reread"]
        return f"{reread['distance_requests'][q]:,}" if reread["page_accesses"] else MISSING

    return f"re-read distance {q}", cell


def _gap(key: str) -> Row:
    def cell(s: dict[str, Any]) -> str:
        return fmt_duration_us(s["inter_arrival"][key] / 1e3)

    return f"inter-arrival {key.removesuffix('_ns')}", cell


_SUMMARY_ROWS: list[Row] = [
    ("requests", lambda s: f"{s['requests']:,}"),
    ("read ratio", lambda s: f"{s['read_ratio']:.3f}"),
    ("time span", lambda s: fmt_duration_us(s["time_span_ns"] / 1e3)),
    ("idle share", lambda s: _pct(s["idle_share"])),
    ("footprint", lambda s: fmt_bytes(s["footprint_bytes"])),
]
_FIGURE_ROWS: list[Row] = [
    ("mean read size", _if_op("read", lambda s: fmt_bytes(s["mean_read_bytes"]))),
    ("mean write size", _if_op("write", lambda s: fmt_bytes(s["mean_write_bytes"]))),
    ("read footprint", lambda s: fmt_bytes(s["read_footprint_pages"] * s["page_bytes"])),
    ("write footprint", lambda s: fmt_bytes(s["write_footprint_pages"] * s["page_bytes"])),
    ("address space", lambda s: fmt_bytes(s["address_space_bytes"])),
    *(_hot("read", share) for share in (0.5, 0.8, 0.9, 0.99)),
    *(_hot("write", share) for share in (0.5, 0.8, 0.9, 0.99)),
    ("re-read share", _if_op("read", lambda s: _pct(s["reread"]["share"]))),
    _reread_distance("p50"),
    _reread_distance("p90"),
    ("sequential reads", _if_op("read", lambda s: _pct(s["sequential"]["read_share"]))),
    ("sequential writes", _if_op("write", lambda s: _pct(s["sequential"]["write_share"]))),
    _gap("mean_ns"),
    _gap("p50_ns"),
    _gap("p99_ns"),
    *(
        _bytes_in(op, label, low, high)
        for op in ("read", "write")
        for label, low, high in (
            ("< 8 KiB", 0, 8192),
            ("8-64 KiB", 8192, 65536),
            (">= 64 KiB", 65536, math.inf),
        )
    ),
]

#: A file's column is at least this wide (or as wide as its name), so that the name folds onto few
#: lines; the console's spare width widens it further.
_NAME_WIDTH = 14


def _side_by_side(results: dict[str, dict[str, Any]], rows: list[Row], title: str):
    """Tables with one row per figure and one column per file, as many files per table as fit
    the console. Every column is exactly as wide as its widest cell (file names are folded to
    that width by hand), so Rich never has to cut a number to fit."""
    names = [Path(f).name for f in results]
    if len(set(names)) < len(names):  # the same name in two folders: tell them apart
        names = list(results)
    columns = [[cell(s) for _, cell in rows] for s in results.values()]
    widths = [
        max(*map(len, cells), min(len(name), _NAME_WIDTH)) for name, cells in zip(names, columns, strict=True)
    ]
    label_width = max(len(label) for label, _ in rows)
    chunks: list[list[int]] = [[]]
    # new_table puts two spaces before each column after the label's (padding and the box's
    # invisible rule) and one after the last.
    used = label_width + 1
    for i, width in enumerate(widths):
        if chunks[-1] and used + width + 2 > console.width:
            chunks.append([])
            used = label_width + 1
        chunks[-1].append(i)
        used += width + 2
    for chunk in chunks:  # room left over unfolds the names, leftmost first
        spare = console.width - 1 - label_width - sum(widths[i] + 2 for i in chunk)
        for i in chunk:
            extra = max(0, min(len(names[i]) - widths[i], spare))
            widths[i] += extra
            spare -= extra
    for n, chunk in enumerate(chunks):
        table = new_table(title if n == 0 else None)
        table.add_column("figure", no_wrap=True)
        for i in chunk:
            folded = "\n".join(names[i][k : k + widths[i]] for k in range(0, len(names[i]), widths[i]))
            table.add_column(folded, justify="right", no_wrap=True)
        for r, (label, _) in enumerate(rows):
            table.add_row(label, *(columns[i][r] for i in chunk))
        yield table


@trace.command()
@click.argument("source", type=click.Path(dir_okay=False))
@click.argument("out", type=click.Path(dir_okay=False))
@trace_format_option
@trace_options_option
def convert(source: str, out: str, trace_format: str | None, options: tuple[str, ...]) -> None:
    """Convert a trace to ssdlab's compact binary format (replays faster)."""
    _options_toml(trace_format, options)
    n = ssdlab_trace.convert(source, out, options, trace_format)
    console.print(f"{n:,} records written to {out}")


@trace.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False))
def detect(files: tuple[str, ...]) -> None:
    """Print the format detected from each file's content."""
    for f in files:
        console.print(f"{f}: {ssdlab_trace.detect(f)}", highlight=False)


@trace.command()
@click.argument("source", type=click.Path(dir_okay=False))
@click.option(
    "--out", "-o", required=True, type=click.Path(dir_okay=False), help="The workload spec to write."
)
@trace_format_option
@trace_options_option
@click.option("--page-bytes", default=4096, show_default=True, help="Page size: figures and alignment.")
@click.option(
    "--requests", type=click.IntRange(min=1), default=None, help="Length of the spec (default: the trace's)."
)
@click.option(
    "--address-space",
    default=None,
    metavar="SIZE",
    help="Scale the address space (and the footprints with it) to SIZE, e.g. 64g (default: the trace's).",
)
def fit(
    source: str,
    out: str,
    trace_format: str | None,
    options: tuple[str, ...],
    page_bytes: int,
    requests: int | None,
    address_space: str | None,
) -> None:
    """Fit a workload spec to a real trace, to replay it at any length or address space.

    The spec keeps the trace's read ratio, sizes, popularity, re-reads, sequential runs and
    arrivals (docs/workloads.md); compare with `ssdlab trace synth` and `ssdlab trace stats A B`."""
    from ssdlab.data import resolve_trace

    space = _size_bytes(address_space) if address_space else None
    _options_toml(trace_format, options)
    fitted = ssdlab_trace.fit(resolve_trace(source), options, page_bytes, requests, space, trace_format)
    Path(out).write_text(fitted.spec_toml)
    for w in fitted.warnings:
        console.print(f"[yellow]not fitted:[/] {w}", highlight=False)
    console.print(f"workload spec written to {out}", highlight=False)


@trace.command()
@click.argument("spec")
@click.option("--out", "-o", required=True, type=click.Path(dir_okay=False), help="Binary trace to write.")
@click.option(
    "--requests", type=click.IntRange(min=1), default=None, help="Requests (default: the spec's length)."
)
@click.option("--seed", default=1, show_default=True, help="Random seed.")
def synth(spec: str, out: str, requests: int | None, seed: int) -> None:
    """Draw a workload spec (a file or a built-in spec) into a binary trace."""
    n = ssdlab_trace.synth(spec, out, requests, seed)
    console.print(f"{n:,} records written to {out}")


def _size_bytes(text: str) -> int:
    """A fio-style size (4096, 4k, 64g) in bytes."""
    units = {"": 1, "b": 1, "k": 1 << 10, "kb": 1 << 10, "kib": 1 << 10, "m": 1 << 20, "mb": 1 << 20}
    units |= {"mib": 1 << 20, "g": 1 << 30, "gb": 1 << 30, "gib": 1 << 30, "t": 1 << 40, "tb": 1 << 40}
    units |= {"tib": 1 << 40}
    digits = text.strip().rstrip("bBiIkKmMgGtT")
    suffix = text.strip()[len(digits) :].lower()
    if not digits.isdigit() or suffix not in units:
        raise click.BadParameter(f"'{text}' is not a size (e.g. 4096, 4k, 64g)", param_hint="--address-space")
    return int(digits) * units[suffix]
