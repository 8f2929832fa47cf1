"""Reproduction of Kang, Shin, Yoo, "RL-Assisted Garbage Collection to Mitigate Long-Tail
Latency in SSD", ACM TECS 2017 (Tables 5-10, Figs. 7 and 9), plus the Q-table cache follow-up
(Kang & Yoo, DAC 2018).

Schedulers: Page (blocking greedy GC), LazyRTGC, Base (RLGC), Aggr (RLGC aggressive), QTC, and
with `--all` the interval predictors of Tables 11-12. Presets: kang-3d-128gb and kang-3d-512gb,
with the per-device action range and intensive step of their `[gc.rlgc]` tables. Beside them:

* each learned scheduler's random-action control (Base-control, Aggr-control, QTC-control: the
  same triggers, states and masks, the copies drawn uniformly), so that a gain can be told apart
  from what the triggers alone give;
* the QTC slides' like-for-like comparison: Base-2, RLGC with the slides' action set (0..=2
  copies, QTC's own), and QTC-u1, QTC taking one copy in a state its cache does not hold where
  the slides take none. "QTC vs RLGC" compares QTC (and QTC-u1) with Base-2.

Two parts, each with its own tables. First, the paper's workloads: Table 1's nine as the
built-in specs `rlgc-home1` ... `rlgc-oltp` (write ratio, mean interval and mean size from the
table; every other choice in the specs' headers), 3 seeds by default (the paper's ten with
`--seeds 10`), Base-2's control being QTC-control;
its averages over all nine are held to Tables 5-6 and the slides in verdicts.csv, with the
direction checks (Aggr < Base < LazyRTGC, learned below control). Second, the real traces and
synthetic bursts below, the same seeds (issue #33: "10 seeds on both parts"; issue #48: 3 by
default).

The set-up is the paper's Sec. 6.1: the drive starts empty and the latency of every request is
measured. Each workload runs until it has written `DRIVE_WRITES` times the drive's physical
pages, so GC (which starts after about one drive) runs for most of the run. The drive keeps
the preset's page size, timings, planes and thresholds, with `BLOCKS_PER_PLANE` blocks per plane
and `UTILIZATION` of the logical space addressable (so T_GC^A = 100 free blocks is reachable).
Workloads:

* the real traces of ../shared/traces, each replayed back to back from its own timestamps
  (`workload.repeat`), addresses packed (`fold = "compact"`);
* synthetic on/off bursts of 8 KiB writes over the whole addressable space (the paper's set has
  a synthetic workload too, filebench oltp): the only workloads here whose footprint is a large
  share of the drive, so their victims hold valid pages as the paper's traces' did.

A workload is "sustainable" when, on the empty drive without any GC, its write p99.99 stays
within 7.5 ms (the server target the paper cites in Sec. 1 [21]). The averages beside the paper's
are over the sustainable workloads; the others are reported apart (a die their bursts overload
queues for reasons GC scheduling cannot change). Every choice is printed and saved
(`setup.csv`).

Modules, one job each: `settings` (the schedulers, workloads, presets and the paper's figures,
the sizes of a run and the drive), `grid` (the probes, the plans and the runs), `results` (what a
run's worker keeps), `analysis` (the tables, the paper's figures beside ours and verdicts.csv),
`figures` (the plots); each part's run and the reproduction's steps (`PARTS`: `prepare` and `run`, for
`pipeline.reproduce`) here.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pandas as pd

from ssdlab._console import console
from ssdlab.experiments.common import (
    EXPLORATION_TITLE,
    choose_traces,
    exploration_table,
    print_frame,
    verified,
)
from ssdlab.experiments.pipeline import Choice, Context, Outcome, Parts
from ssdlab.experiments.rlgc.analysis import (
    _verdicts,
    control_table,
    paired_ratios,
    paper_control_table,
    paper_summary,
    paper_table,
    qtc_table,
    spread,
    tables,
)
from ssdlab.experiments.rlgc.figures import learning_plots, plots
from ssdlab.experiments.rlgc.grid import _fan_out, build_jobs, plan, probe, probe_jobs
from ssdlab.experiments.rlgc.grid import _probe_worker as _probe_worker
from ssdlab.experiments.rlgc.results import LEARNING, SERIES, _worker
from ssdlab.experiments.rlgc.results import _coarse as _coarse
from ssdlab.experiments.rlgc.settings import (
    BLOCKS_PER_PLANE,
    CONTROLS,
    DEFAULT_SEEDS,
    DEFAULT_TRACES,
    DRIVE_WRITES,
    LEARNED,
    MAX_REQUESTS,
    PAGE_TRIGGER_SHARE,
    PAPER,
    PAPER_AVG,
    PAPER_LEARNED,
    PAPER_PART,
    PAPER_WORKLOADS,
    PREDICTORS,
    PRESETS,
    QTC_VARIANTS,
    QUICK,
    QUICK_SYNTHETIC,
    QUICK_TRACES,
    SCHEDULERS,
    SEED_FREE,
    SUSTAINABLE_P99_99_US,
    SYNTHETIC,
    UTILIZATION,
    Settings,
    Workload,
    paper_schedulers,
    paper_workloads,
    schedulers,
    workloads,
)

__all__ = [
    "BLOCKS_PER_PLANE",
    "CONTROLS",
    "DEFAULT_SEEDS",
    "DEFAULT_TRACES",
    "DRIVE_WRITES",
    "LEARNED",
    "LEARNING",
    "MAX_REQUESTS",
    "PAGE_TRIGGER_SHARE",
    "PAPER",
    "PAPER_AVG",
    "PAPER_LEARNED",
    "PAPER_PART",
    "PAPER_WORKLOADS",
    "PREDICTORS",
    "PRESETS",
    "QTC_VARIANTS",
    "QUICK",
    "QUICK_SYNTHETIC",
    "QUICK_TRACES",
    "SCHEDULERS",
    "SEED_FREE",
    "SERIES",
    "SUSTAINABLE_P99_99_US",
    "SYNTHETIC",
    "UTILIZATION",
    "Settings",
    "Workload",
    "build_jobs",
    "control_table",
    "learning_plots",
    "paired_ratios",
    "paper_control_table",
    "paper_schedulers",
    "paper_summary",
    "paper_table",
    "paper_workloads",
    "plan",
    "plots",
    "probe",
    "probe_jobs",
    "qtc_table",
    "schedulers",
    "spread",
    "tables",
    "workloads",
]


def _part(
    ctx: Context,
    loads: list[Workload],
    presets,
    grid: dict[str, tuple[str, ...]],
    settings: Settings,
    verify: bool,
    title: str,
) -> tuple[pd.DataFrame, list[dict[str, Any]], pd.DataFrame, set[tuple[str, str]]]:
    """Probe, plan and run one part's grid: (set-up, results, runs, sustainable workloads)."""
    console.print(f"{title}: load check, one pass of each workload on the empty drive, no GC")
    probes = probe(loads, presets, settings, ctx.runner)
    jobs, plans = build_jobs(loads, presets, grid, settings, probes)
    if verify:
        jobs = verified(jobs)
    verdicts = probes[["preset", "workload", "no_gc_write_p99_99_us", "probe_erases", "sustainable"]]
    setup = pd.DataFrame(plans).drop(columns=["_overrides"]).merge(verdicts, on=["preset", "workload"])
    sustainable = {(r.preset, r.workload) for r in setup.itertuples() if r.sustainable}
    print_frame(
        f"{title}: set-up per workload (empty start; every request measured)",
        setup.set_index(["preset", "workload"]),
    )
    results = _fan_out(ctx.run(jobs, _worker), loads, settings.seeds)
    runs = pd.DataFrame([{k: v for k, v in r.items() if k not in SERIES} for r in results])
    return setup, results, runs, sustainable


@dataclass(frozen=True)
class Plan:
    """A run of the reproduction, prepared: its settings, presets and the real-trace part's
    workloads."""

    settings: Settings
    presets: tuple[str, ...]
    loads: list[Workload]
    include_predictors: bool
    verify: bool


def prepare(choice: Choice) -> Plan:
    """The settings (`quick`: the CI-sized grid, `QUICK`; else `seeds` seeds on both parts),
    the presets (option `presets`, default `PRESETS`), the real traces and synthetic bursts, and
    whether the second part adds the interval predictors (option `include_predictors`)."""
    if choice.quick:
        settings = QUICK
    else:
        settings = Settings(
            seeds=choice.seeds, paper_workloads=tuple(PAPER_WORKLOADS), paper_seeds=choice.seeds
        )
    traces = list(choice.traces) if choice.traces else None
    synthetic = QUICK_SYNTHETIC if choice.quick else tuple(SYNTHETIC)
    names = QUICK_TRACES if choice.quick else tuple(DEFAULT_TRACES)
    paths = choose_traces(traces, choice.shared_traces, names)
    trace_map = {
        p: () if traces else DEFAULT_TRACES.get(n, ()) for p, n in zip(paths, traces or names, strict=True)
    }
    return Plan(
        settings,
        tuple(choice.options.get("presets") or PRESETS),
        workloads(trace_map, synthetic),
        bool(choice.options.get("include_predictors")),
        choice.verify,
    )


def run(ctx: Context, prepared: Plan) -> Outcome:
    """First the paper part (Table 1's workloads as specs; paper_runs.csv, paper_setup.csv,
    verdicts.csv), then the real traces and synthetic bursts (the same seeds; runs.csv,
    setup.csv)."""
    out, settings, presets = ctx.out, prepared.settings, prepared.presets
    paper_settings = replace(settings, drive_writes=settings.paper_drive_writes, seeds=settings.paper_seeds)
    paper_setup, paper_results, paper_runs, paper_sustainable = _part(
        ctx,
        paper_workloads(settings.paper_workloads),
        presets,
        paper_schedulers(),
        paper_settings,
        prepared.verify,
        PAPER_PART,
    )
    paper_setup.to_csv(out / "paper_setup.csv", index=False)
    paper_runs.to_csv(out / "paper_runs.csv", index=False)
    paper_tables = {f"{PAPER_PART}: {t}": table for t, table in tables(paper_runs, paper_sustainable).items()}
    paper_tables[f"{PAPER_PART}: learned vs random control"] = paper_control_table(
        paper_runs, paper_sustainable
    )
    paper_tables[f"{PAPER_PART}: QTC vs RLGC p99.99"] = qtc_table(paper_runs, paper_sustainable)
    paper_tables[f"{PAPER_PART}: p99.99 ratio to LazyRTGC over seeds (all workloads)"] = spread(
        paper_runs, {(p, w) for p, w in zip(paper_runs["preset"], paper_runs["workload"], strict=True)}
    )
    summary = paper_summary(paper_tables)
    paper_tables[f"{PAPER_PART}: the paper's figures beside ours"] = summary
    explored = exploration_table(paper_runs, ["preset", "scheduler"])
    if explored is not None:
        paper_tables[f"{PAPER_PART}: {EXPLORATION_TITLE}"] = explored

    setup, results, runs, sustainable = _part(
        ctx,
        prepared.loads,
        presets,
        schedulers(prepared.include_predictors),
        settings,
        prepared.verify,
        "Real traces and synthetic bursts",
    )
    setup.to_csv(out / "setup.csv", index=False)
    runs.to_csv(out / "runs.csv", index=False)
    result_tables = tables(runs, sustainable)
    result_tables["learned vs random control: p99.99 learned / control (mean of per-seed ratios)"] = (
        control_table(runs, sustainable)
    )
    result_tables[
        f"QTC vs RLGC p99.99, the slides' action set (mean of per-seed ratios; the slides: "
        f"{PAPER['QTC vs RLGC p99.99']})"
    ] = qtc_table(runs, sustainable)
    if sustainable:
        result_tables["p99.99 ratio to LazyRTGC over seeds (sustainable workloads)"] = spread(
            runs, sustainable
        )
    result_tables["The paper's figures beside ours"] = paper_table(result_tables)
    explored = exploration_table(runs, ["preset", "scheduler"])
    if explored is not None:
        result_tables[EXPLORATION_TITLE] = explored
    everything = {**paper_tables, **{f"Real traces: {t}": table for t, table in result_tables.items()}}

    def figures(out: Path) -> None:
        plots(paper_results + results, out)
        learning_plots(results, sustainable, out)

    return Outcome(
        everything,
        verdicts=lambda path: _verdicts(path, summary),
        figures=figures,
        printed=list(everything.items()),
        files="paper_setup.csv, paper_runs.csv, setup.csv, runs.csv, tables.md, verdicts.csv, "
        "fig7_fig9_*.png, learning_curves_*.png",
    )


#: The reproduction's steps for `pipeline.reproduce`.
PARTS = Parts(prepare, run)
