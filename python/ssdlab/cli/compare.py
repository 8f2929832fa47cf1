"""`ssdlab compare`: variants of one configuration side by side (the work is in
`ssdlab.experiments.compare`; this module parses options and prints)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import click

from ssdlab._console import MISSING, fmt_duration_us, fmt_number, fmt_sig, new_table
from ssdlab.cli.common import config_options, console, note_overridden


def _cell(mean: float, sd: float, fmt) -> str:
    """`mean ±sd%`: the spread over seeds as a share of the mean, narrow enough for 80 columns."""
    if math.isnan(mean):
        return MISSING
    text = fmt(mean)
    if not math.isnan(sd) and mean != 0:
        text += f" ±{sd / abs(mean):.0%}"
    return text


#: The mark of a variant whose agent was still exploring when its runs ended (a footnote says why).
EXPLORING_MARK = "†"


def _label_cells(row: dict[str, Any], keys: list[str]) -> list[str]:
    """The variant's key values (a control's last one with ` (random control)`), the last
    marked when its agent was still exploring."""
    cells = [str(row[k]) for k in keys]
    if row["control"]:
        cells[-1] += " (random control)"
    if row.get("exploring"):
        cells[-1] += f" {EXPLORING_MARK}"
    return cells


def comparison_table(rows: list[dict[str, Any]], keys: list[str], seeds: int):
    table = new_table(
        f"write latency, WAF and erases per variant (mean of {seeds} seeds)" if seeds > 1 else None
    )
    for key in keys:
        table.add_column(key, overflow="fold")
    for header in ("write p99", "write p99.99", "WAF", "erases"):
        table.add_column(header, justify="right", no_wrap=True)
    for row in rows:
        table.add_row(
            *_label_cells(row, keys),
            _cell(row["write_p99_us"], row["write_p99_us_sd"], fmt_duration_us),
            _cell(row["write_p99_99_us"], row["write_p99_99_us_sd"], fmt_duration_us),
            _cell(row["waf"], row["waf_sd"], fmt_sig),
            _cell(row["erases"], row["erases_sd"], lambda v: fmt_number(v, ",.0f")),
        )
    return table


@click.command()
@config_options
@click.option(
    "--vary",
    "-V",
    "varies",
    multiple=True,
    required=True,
    metavar="KEY=V1,V2,...",
    help="A config key and the values to compare; several --vary give every combination.",
)
@click.option(
    "--seeds", "-n", default=1, show_default=True, help="Runs per variant, seeds S..S+N-1 (S: the set seed)."
)
@click.option(
    "--with-controls",
    is_flag=True,
    help="Beside every variant whose policy learns, its random-action control (same seeds).",
)
@click.option("--jobs", "-j", type=int, default=None, help="Parallel processes (default: one per core).")
@click.option(
    "--out",
    "-o",
    type=click.Path(file_okay=False),
    default="results/compare",
    show_default=True,
    help="Directory for runs.csv, the tail plot and the reports.",
)
def compare(
    preset: str,
    workload: str | None,
    trace: str | None,
    trace_with_workload: bool,
    trace_format: str | None,
    config_files: tuple[str, ...],
    overrides: tuple[str, ...],
    varies: tuple[str, ...],
    seeds: int,
    with_controls: bool,
    jobs: int | None,
    out: str,
) -> None:
    """Compare variants of one configuration: write-latency tails, WAF and erases.

    Every variant is the configuration (--preset, --workload or --trace, --config, --set) plus one
    value of each --vary key; each runs --seeds times, in parallel processes. Prints p99 and
    p99.99 write latency, WAF and erases per variant (mean over seeds, and the standard deviation
    as a share of the mean), and writes to --out: runs.csv (every figure of every run),
    write_latency_tail.png (1-CDF on log-log axes, seeds pooled) and reports/*.json (full
    reports).

    A variant whose learning agent was still exploring when its runs ended (its epsilon
    schedule's initial phase not over, or more than 10 % of its decisions random) is marked †,
    with a footnote giving its share of random decisions and its schedule; runs.csv has the
    columns exploration_share and exploring. --with-controls runs, beside each variant whose
    policy learns, its random-action control ("rlgc (random control)": every learned decision
    drawn at random), so that what learning adds can be read off.

    \b
    `make run` compares the GC schedulers on the bundled real MSR trace excerpt
    (`ssdlab presets` lists it; provenance in ssdlab/data/traces/README.md):
      ssdlab compare --preset kang-3d-128gb --trace msr_cut10k_rw20_80_105 \\
        --set device.blocks_per_plane=512 --set warmup.fill=true \\
        --set warmup.random_writes=1.0 --set workload.fold=compact \\
        --set workload.repeat=60 --seeds 3 --out results/demo \\
        --vary gc.scheduler=greedy,lazy_rtgc,rlgc,rlgc_aggressive,rlgc_qtc

    \b
    Why these settings: the RLGC paper's 3D TLC die (Table 2) keeps its pages, timings and
    GC thresholds but has 512 blocks per plane (3 GiB), so that 60 back-to-back passes of the
    243 s excerpt (600,000 requests) write about one drive. The drive is filled and overwritten
    once at random before measuring, so GC runs at steady state from the first request, and the
    trace's 29 MiB footprint is packed into it (fold = compact). It sustains the load: planes
    are busy 3-4.5% of the time and mean latency does not grow from pass to pass; the tails
    come from the trace's bursts (half the gaps under 2 us) meeting GC.
    """
    from ssdlab.experiments import compare as experiment

    setup = experiment.Setup(
        preset=preset,
        workload=workload,
        trace=trace,
        overrides=overrides,
        config_files=config_files,
        trace_format=trace_format,
        trace_with_workload=trace_with_workload,
    )
    note_overridden(experiment.overridden(setup))
    parsed = [experiment.Vary.parse(spec) for spec in varies]
    comparison = experiment.compare(setup, parsed, seeds=seeds, processes=jobs, controls=with_controls)
    source = f"trace {Path(trace).name}" if trace else f"workload {workload or 'from the configuration'}"
    written = experiment.write_outputs(comparison, Path(out), title=f"{preset}, {source}")
    rows = comparison.table()
    console.print(comparison_table(rows, comparison.keys, seeds))
    for row in rows:
        if row["exploring"]:
            console.print(f"{EXPLORING_MARK} {row['variant']}: {row['exploring']}", highlight=False)
    if any(row["exploring"] for row in rows):
        from ssdlab.exploration import MEANING

        console.print(f"{EXPLORING_MARK}: {MEANING}", highlight=False)
    if seeds > 1:
        console.print(
            f"±: standard deviation over the {seeds} seeds, as a share of the mean", highlight=False
        )
    console.print("lower is better; -: no such figure (e.g. the writes of a read-only run)", highlight=False)
    console.print(f"{preset}, {source}; written:", highlight=False)
    for path in written.values():
        # soft_wrap: a long path stays on one line (copyable), not folded at the terminal width.
        console.print(f"  {path}", highlight=False, soft_wrap=True)
