"""`ssdlab run`: one simulation, a summary table, the JSON report and optional plots."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ssdlab._console import (
    MISSING,
    console_err,
    fmt_duration_ns,
    fmt_duration_us,
    fmt_sig,
    new_table,
    run_with_progress,
)
from ssdlab.cli.common import check_output_file, config_options, console, note_overridden, note_skipped_lines

if TYPE_CHECKING:
    from rich.table import Table

    from ssdlab.report import Report

LATENCY_COLUMNS = {
    "mean": "mean",
    "p50": "p50",
    "p99": "p99",
    "p99.9": "p99_9",
    "p99.99": "p99_99",
    "max": "max",
}


def experiment_table(report: Report) -> Table:
    """What the run was: drive, workload, warm-up, requests folded and trace lines skipped (a
    figure that should be 0 and is not is yellow)."""
    from ssdlab.run_summary import experiment_rows

    table = new_table("experiment", show_header=False)
    table.add_column("figure", no_wrap=True)
    table.add_column("value", overflow="fold")
    for row in experiment_rows(report):
        table.add_row(row.figure, row.value, style="yellow" if row.warn else None)
    return table


def summary_table(report: Report, wall_s: float | None = None) -> Table:
    """Throughput, WAF, GC and wear of one run (the experiment is in `experiment_table`,
    latencies in `latency_table`)."""
    s = report.summary()
    table = new_table("ssdlab run")
    table.add_column("figure", overflow="fold")
    table.add_column("value", justify="right", no_wrap=True)
    w = report["workload"]
    table.add_row("requests (reads / writes)", f"{s['requests']:,} ({w['reads']:,} / {w['writes']:,})")
    table.add_row("IOPS (simulated)", fmt_sig(s["iops"]))
    table.add_row("MB/s (simulated)", fmt_sig(s["mb_per_s"]))
    table.add_row("simulated time", fmt_duration_ns(w["span_ns"]))
    table.add_row("WAF", fmt_sig(s["waf"]))
    table.add_row("GC victims / pages copied", f"{s['gc_victims']:,} / {report['gc']['pages_copied']:,}")
    table.add_row("erases (max per block)", f"{s['erases']:,} ({report['wear']['max_erases_per_block']})")
    by_source = {k: v for k, v in report["waf_by_source"].items() if v}
    if set(by_source) - {"host"}:
        table.add_row("WAF by source", ", ".join(f"{k} {fmt_sig(v)}" for k, v in by_source.items()))
    cache = report["cache"]
    if cache:
        table.add_row(
            "write buffer: read / write hits",
            f"{cache['read_hit_ratio']:.1%} / {cache['write_hit_ratio']:.1%}",
        )
        table.add_row(
            "write buffer: pages evicted (flushes)", f"{cache['evicted_pages']:,} ({cache['flushes']:,})"
        )
    policies = report["policies"]
    if policies["mapping"] != "page":
        m, mr = report["mapping"], policies["mapping_report"]
        hit = f"CMT hits {mr['cmt_hit_ratio']:.1%}, " if "cmt_hit_ratio" in mr else ""
        table.add_row(
            f"mapping ({policies['mapping']})",
            f"{hit}translation reads / writes {m['translation_reads']:,} / {m['translation_writes']:,}",
        )
    ftl = report["ftl"]
    if ftl["unwritten_read_pages"]:
        table.add_row(
            "reads of never-written pages (premapped)",
            f"{ftl['unwritten_read_pages']:,} ({ftl['premapped_pages']:,})",
        )
    idle = report["idle"]
    if idle["periods"]:
        table.add_row("idle periods (total)", f"{idle['periods']:,} ({fmt_duration_ns(idle['total_ns'])})")
    gc = report["gc"]
    if gc["idle_steps"]:
        table.add_row(
            "idle GC: victims / pages copied",
            f"{gc['idle_victims_reclaimed']:,} / {gc['idle_pages_copied']:,}",
        )
    if cache and cache["idle_flushes"]:
        table.add_row(
            "write buffer: idle flushes (pages)",
            f"{cache['idle_flushes']:,} ({cache['idle_flush_pages']:,})",
        )
    if report["verify"]["enabled"]:
        table.add_row("verify", f"passed, {report['verify']['reads_checked']:,} reads checked")
    if wall_s is not None and wall_s > 0:
        table.add_row(
            "wall time / simulated req/s",
            f"{fmt_duration_us(wall_s * 1e6)} / {fmt_sig(s['requests'] / wall_s)}",
        )
    return table


def latency_table(report: Report) -> Table:
    """Latency percentiles of reads and writes; an operation the run never issued shows dashes."""
    lat = report.latency
    table = new_table("latency")
    table.add_column("op", no_wrap=True)
    table.add_column("requests", justify="right", no_wrap=True)
    for header in LATENCY_COLUMNS:
        table.add_column(header, justify="right", no_wrap=True)
    for op in ("read", "write"):
        row = lat.loc[op]
        count = int(row["count"])
        cells = [fmt_duration_us(row[c]) if count else MISSING for c in LATENCY_COLUMNS.values()]
        table.add_row(op, f"{count:,}", *cells)
    return table


@click.command()
@config_options
@click.option("--seed", type=int, default=None, help="Seed (same config + seed = same report).")
@click.option("--verify/--no-verify", default=None, help="Check every read against the latest write.")
@click.option(
    "--out", "-o", type=click.Path(dir_okay=False), default=None, help="Write the JSON report here."
)
@click.option(
    "--requests-parquet",
    type=click.Path(dir_okay=False),
    default=None,
    help="Write one row per host request (arrival, latency, op, offset, size) as Parquet.",
)
@click.option(
    "--plots",
    type=click.Path(file_okay=False),
    default=None,
    help="Write latency tail plots and time series (free blocks, IOPS, p99 write latency, WAF) as PNGs here.",
)
@click.option("--quiet", "-q", is_flag=True, help="No progress bar or summary table.")
def run(
    preset: str,
    workload: str | None,
    trace: str | None,
    trace_with_workload: bool,
    trace_format: str | None,
    config_files: tuple[str, ...],
    overrides: tuple[str, ...],
    seed: int | None,
    verify: bool | None,
    out: str | None,
    requests_parquet: str | None,
    plots: str | None,
    quiet: bool,
) -> None:
    """Run one simulation and report latency percentiles, throughput, WAF, GC and wear."""
    from ssdlab.api import Simulation

    extra = list(overrides)
    if seed is not None:
        extra.append(f"seed={seed}")
    if verify is not None:
        extra.append(f"verify={'true' if verify else 'false'}")
    if out:
        check_output_file(out, "--out")  # now, not after the run
    # The core streams the log to the file as the run goes (memory stays flat).
    sim = Simulation(
        preset, workload, trace, extra, config_files, trace_format, requests_parquet, trace_with_workload
    )
    note_overridden(sim.overridden)
    start = time.perf_counter()
    report = run_with_progress(sim, quiet)
    wall = time.perf_counter() - start
    note_skipped_lines(str(trace or "the trace"), report["workload"].get("trace"))
    if out:
        report.save(out)  # first: the plots and tables that follow cannot lose it
    if plots:
        from ssdlab import plots as p

        d = Path(plots)
        d.mkdir(parents=True, exist_ok=True)
        for which in ("read", "write"):
            if report.histograms.get(which):
                p.latency_cdf({preset: report}, which, tail=True, path=d / f"{which}_latency_tail.png")
        for name in ("free_blocks", "iops", "write_latency_p99_us", "waf"):
            p.time_series({preset: report}, name, path=d / f"{name}.png")
    if not quiet:
        console.print(experiment_table(report))
        console.print(summary_table(report, wall))
        console.print(latency_table(report))
        if out:
            console.print(f"report: {out}", highlight=False)
    from rich.markup import escape

    from ssdlab.run_summary import warnings

    # On stderr, after the tables, with --quiet too: a result computed on folded addresses or a
    # partly read trace should never pass unnoticed.
    for text in warnings(report, sim.drive_fit):
        console_err.print(f"[yellow]warning:[/] {escape(text)}", highlight=False)
