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


def _write_formats() -> list[str]:
    return [name for fmt, aliases in ssdlab_trace.WRITE_FORMATS.items() for name in (fmt, *aliases)]


to_option = click.option(
    "--to",
    "to",
    type=click.Choice(_write_formats()),
    default="binary",
    show_default=True,
    help="The format to write: binary (.sstr, exact), msr (MSR Cambridge CSV), disksim_ms (DiskSim ASCII; "
    "alias disksim), disksim_ns (DiskSim with ns times, as MQSim reads it), blkparse (blkparse text; alias "
    "blkparse-text). Each reads back with --format of the same id (docs/traces.md).",
)


def _converted_line(converted: ssdlab_trace.Converted, out: str, to: str) -> str:
    """What was written, and what the format could not hold."""
    notes = []
    if converted.skipped_trims:
        notes.append(f"{converted.skipped_trims:,} trims skipped ({to} has no trim)")
    if converted.widened_to_sectors:
        notes.append(f"{converted.widened_to_sectors:,} records widened to whole 512-byte sectors")
    return f"{converted.records:,} records written to {out}" + (f"; {'; '.join(notes)}" if notes else "")


@trace.command()
@click.argument("source")
@click.argument("out", type=click.Path(dir_okay=False))
@to_option
@trace_format_option
@trace_options_option
@click.option(
    "--requests",
    type=click.IntRange(min=1),
    default=None,
    help="A workload spec's length (default: the spec's). A trace's first N: -O max_requests=N.",
)
@click.option("--seed", default=1, show_default=True, help="Random seed of a workload spec.")
def convert(
    source: str,
    out: str,
    to: str,
    trace_format: str | None,
    options: tuple[str, ...],
    requests: int | None,
    seed: int,
) -> None:
    """Write a trace, or a workload spec drawn into one, in another format.

    SOURCE is a trace file (any format ssdlab reads, or a bundled trace's name), an ssdlab
    binary trace, or a workload spec (a TOML file or a built-in spec's name), so that a
    synthetic trace can run in another simulator (MQSim reads disksim_ns, DiskSim disksim_ms).
    Streamed: memory does not grow with the trace. Trims are skipped and counted in formats
    without them (msr, disksim); requests off a 512-byte sector are widened to whole sectors in
    the formats addressed in sectors (disksim, blkparse), and counted."""
    from ssdlab.data import resolve_trace

    _options_toml(trace_format, options)
    source = source if ssdlab_trace.is_spec(source) else resolve_trace(source)
    converted = ssdlab_trace.convert(source, out, options, trace_format, to=to, requests=requests, seed=seed)
    console.print(_converted_line(converted, out, to), highlight=False)


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
@click.option(
    "--tolerance",
    type=click.FloatRange(min=0, min_open=True),
    default=0.2,
    show_default=True,
    help="Relative tolerance of the comparison: a figure further than this from the trace's is a miss "
    "(shares: this relatively or a tenth of it absolutely, whichever is wider).",
)
def fit(
    source: str,
    out: str,
    trace_format: str | None,
    options: tuple[str, ...],
    page_bytes: int,
    requests: int | None,
    address_space: str | None,
    tolerance: float,
) -> None:
    """Fit a workload spec to a real trace, to replay it at any length or address space.

    The spec keeps the trace's read ratio, sizes, popularity, re-reads, sequential runs and
    arrivals (docs/workloads.md). The spec is then drawn at the trace's length (its first million
    requests when longer; seed 1, as `trace synth`) and its key figures are printed beside the
    trace's; a figure outside the tolerance is marked and named in a closing warning."""
    from ssdlab.data import resolve_trace

    space = _size_bytes(address_space) if address_space else None
    _options_toml(trace_format, options)
    fitted = ssdlab_trace.fit(
        resolve_trace(source), options, page_bytes, requests, space, trace_format, tolerance=tolerance
    )
    Path(out).write_text(fitted.spec_toml)
    console.print(f"workload spec written to {out}", highlight=False)
    console.print(_comparison_table(fitted.comparison))
    console.print(_comparison_note(fitted.comparison), highlight=False)
    for w in fitted.warnings:
        console.print(f"[yellow]not fitted:[/] {w}", highlight=False)
    misses = fitted.comparison["rows"]
    misses = [row for row in misses if row["within"] is False]
    if misses:
        named = ", ".join(
            f"{row['figure']} ({_value(row, 'original')} vs {_value(row, 'fitted')})" for row in misses
        )
        console.print(
            f"[yellow]warning:[/] {len(misses)} figure{'s' if len(misses) > 1 else ''} outside the "
            f"{tolerance:.0%} tolerance: {named}",
            highlight=False,
        )


def _value(row: dict[str, Any], column: str) -> str:
    """A comparison cell in the figure's unit."""
    value = row[column]
    kind = row["kind"]
    if kind == "share":
        return f"{value:.3f}" if row["figure"] == "read ratio" else _pct(value)
    if kind == "bytes":
        return fmt_bytes(value)
    if kind == "nanoseconds":
        return fmt_duration_us(value / 1e3)
    return f"{value:,.0f}"


def _difference(row: dict[str, Any]) -> str:
    """Fitted minus original: in points for a share shown in percent, relative otherwise."""
    original, fitted = row["original"], row["fitted"]
    if row["kind"] == "share":
        if row["figure"] == "read ratio":
            return f"{fitted - original:+.3f}"
        return f"{100 * (fitted - original):+.1f} pt"
    if original == 0:
        return MISSING if fitted == 0 else "new"
    return f"{fitted / original - 1:+.0%}"


def _comparison_table(comparison: dict[str, Any]):
    """One row per key figure: the trace's value, the fitted spec's, the difference, and
    whether it is within the tolerance."""
    table = new_table("fitted spec against the trace")
    table.add_column("figure", no_wrap=True)
    for column in ("trace", "fitted", "difference"):
        table.add_column(column, justify="right", no_wrap=True)
    table.add_column("", no_wrap=True)
    for row in comparison["rows"]:
        if row["samples"] == 0:
            table.add_row(row["figure"], MISSING, MISSING, MISSING, "")
            continue
        if row["within"] is None:
            mark = f"[dim]{row['samples']} samples[/]"
        else:
            mark = "ok" if row["within"] else "[red]miss[/]"
        table.add_row(row["figure"], _value(row, "original"), _value(row, "fitted"), _difference(row), mark)
    return table


def _comparison_note(comparison: dict[str, Any]) -> str:
    drawn, total = comparison["requests"], comparison["trace_requests"]
    length = (
        f"at the trace's length ({drawn:,} requests)"
        if drawn >= total
        else f"at {drawn:,} requests, against the trace's first {drawn:,} (of {total:,})"
    )
    scale = comparison["address_space_scale"]
    scaled = f"; fitted footprints divided by the address-space scale ({scale:,.3g})" if scale != 1 else ""
    return (
        f"The fitted spec drawn {length} with seed 1 (as `trace synth`){scaled}. miss: further from the "
        f"trace than the tolerance ({comparison['tolerance']:.0%}; shares: or {comparison['tolerance'] / 10:.1%} "
        f"points); N samples: too few in the trace to judge (fewer than 200)."
    )


@trace.command()
@click.argument("spec")
@click.option("--out", "-o", required=True, type=click.Path(dir_okay=False), help="The trace to write.")
@click.option(
    "--requests", type=click.IntRange(min=1), default=None, help="Requests (default: the spec's length)."
)
@click.option("--seed", default=1, show_default=True, help="Random seed.")
@to_option
def synth(spec: str, out: str, requests: int | None, seed: int, to: str) -> None:
    """Draw a workload spec (a file or a built-in spec) into a trace (binary unless --to)."""
    converted = ssdlab_trace.convert(spec, out, to=to, requests=requests, seed=seed, spec=True)
    console.print(_converted_line(converted, out, to), highlight=False)


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
