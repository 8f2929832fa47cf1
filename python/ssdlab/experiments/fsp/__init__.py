"""Reproduction of Li, Cai, Gerofi, Ishikawa, Liao, "Page Type-Aware Full-Sequence Program
Scheduling via Reinforcement Learning in High Density SSDs", IEEE TCAD 2024, Sec. IV: Fig. 9
(read latency), Fig. 10 (I/O latency), Fig. 11 (reads served by LSB pages), Fig. 12 (RL reward
per episode), Fig. 13 (cache hit ratios) and Fig. 14 (erases), with the averages Sec. IV-B and
IV-D quote.

The five FSP schedulers of Sec. IV-A, each a `cache.eviction` policy on the preset
`li-qlc-fsp` (Table I's QLC drive; every evicted unit is one full-sequence program of a
wordline's four pages, slot i taking page type i, LSB first):

* Baseline: the four LRU-tail pages (`lru`);
* Baseline-RW: the same, pages read from flash kept in the cache too (`cache.insert_reads`);
* Frequency (Lv et al. [44]): as the paper describes it, one bit of recent reads per page
  matching the tail pages to page types, with its immediate rewrites of hot read data;
* Distance (Wu et al. [35]): tail pages far apart in address, the threshold half the cache's pages;
* RL: the paper's Q-learning classifier, group module and rewrite module (Sec. III).

Beside them, not the paper's: Frequency-count (`frequency_count`), Frequency matching page types
by RL's own 4-bin read count, a stronger baseline than the paper's; and RL-control, RL with every
class drawn at random (`cache.page_type_eviction.random_control`), so that what RL gains by learning can be told
apart from what its group and rewrite modules give alone.

Each runs with the write cache at 2, 8 and 32 MiB (Table I's 2/8/32 MB).

The set-up and where it differs from the paper's:

* Traces: the paper replays four MSR Cambridge volumes and four Alibaba traces of 1-18 million
  requests (Table II); those are not available here. We replay every real trace of
  ../shared/traces with both reads and writes (small excerpts: 1,000 to 150,000 requests), each
  once from its own timestamps, addresses packed at the front of the drive (`fold = "compact"`).
  Tencent's one-second timestamps go backwards across volumes, so its late requests take the
  last delivered time (`on_out_of_order = "clamp"`).
* The drive holds data before the trace (`DRIVE`): half its logical space (30 GiB) is filled,
  page by page, so data the trace reads but never writes lies on every page type alike, as data
  written by earlier full-sequence programs would. (On an empty drive such data would be placed
  at its first read, one page at a time, on whatever page type the write point is at, which
  favours LSB pages.) The paper describes no warm-up; its 1 TiB drive, like our 64 GiB one, is
  far larger than its traces (Table II: footprints of a few GB). With half the drive free GC
  never runs, so Fig. 14's erase counts are 0 here; tables.md gives the flash programs beside
  them, the writes that erases follow once the drive is full.
* An RL episode is 1000 decisions (Sec. III-B), one per evicted page. The short traces evict a
  few thousand pages, so the agent sees a handful of episodes (Algorithm 1 explores at random,
  epsilon = 80 %, through the first four), where the paper's traces give it thousands.
* The paper's "on average" is read here as the arithmetic mean, over every trace and cache size,
  of the per-run ratio to the other scheduler (seeds averaged first); it does not say how.
* Baseline-RW keeps read and write data in one LRU order, and programs read data again when it
  leaves (`cache.room_order = "lru"`, `cache.write_back_reads`): the paper builds on SSDsim,
  whose buffer keeps no clean state and writes back everything it evicts, and reports that
  Baseline-RW "brings about more flush operations on the flash array and more erase
  operations" (Sec. IV-B1, 2.2x erases in Sec. IV-D2). Before issue #33 read data was clean and
  dropped first, which cost Baseline-RW neither write hits nor programs.
* The paper's workloads are cut to their first `PAPER_REQUESTS` (2 M) requests: all of Table
  II's 35 M requests would take most of an hour on 2 cores (ali121 alone is 18.6 M).

Modules, one job each: `settings` (the schedulers, cache sizes, traces, Table II's workloads,
the paper's figures and the sizes of a run), `grid` (the runs, checked before any starts),
`results` (what a run's pick keeps, and the frames of them), `analysis` (the tables and the
summary beside the paper's), `figures` (the plots); the reproduction's steps (`PARTS`:
`prepare` and `run`, for `pipeline.reproduce`) here.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from ssdlab._console import console
from ssdlab.experiments.common import (
    EXPLORATION_TITLE,
    Job,
    choose_traces,
    exploration_table,
    verified,
    write_verdicts,
)
from ssdlab.experiments.fsp.analysis import (
    SUMMARY,
    control_table,
    lsb_share_table,
    placement_table,
    summary,
    tables,
)
from ssdlab.experiments.fsp.figures import learning_plots, plots
from ssdlab.experiments.fsp.grid import check, jobs, spec_requests, trace_labels, workload_jobs
from ssdlab.experiments.fsp.results import _runs_frame, _worker, rewards
from ssdlab.experiments.fsp.settings import (
    CACHE_MIB,
    DEFAULT_TRACES,
    DRIVE,
    PAGE_TYPES,
    PAPER,
    PAPER_PART,
    PAPER_REQUESTS,
    PAPER_WORKLOADS,
    POLICIES,
    PRESET,
    QUICK,
    QUICK_TRACES,
    QUICK_WORKLOADS,
    READ_US,
    Settings,
)
from ssdlab.experiments.pipeline import Choice, Context, Outcome, Parts

__all__ = [
    "CACHE_MIB",
    "DEFAULT_TRACES",
    "DRIVE",
    "PAGE_TYPES",
    "PAPER",
    "PAPER_PART",
    "PAPER_REQUESTS",
    "PAPER_WORKLOADS",
    "PARTS",
    "POLICIES",
    "PRESET",
    "QUICK",
    "QUICK_TRACES",
    "QUICK_WORKLOADS",
    "READ_US",
    "SUMMARY",
    "Plan",
    "Settings",
    "check",
    "control_table",
    "jobs",
    "learning_plots",
    "lsb_share_table",
    "placement_table",
    "plots",
    "prepare",
    "rewards",
    "run",
    "spec_requests",
    "summary",
    "tables",
    "trace_labels",
    "workload_jobs",
]


@dataclass(frozen=True)
class Plan:
    """A run of the reproduction, prepared: its settings, traces and both grids (checked)."""

    settings: Settings
    paths: list[Path]
    paper_grid: list[Job]
    grid: list[Job]


def prepare(choice: Choice) -> Plan:
    """The settings (`quick`: the CI-sized grid, `QUICK`), the traces and both grids: Table II's
    workloads from the paper's statistics (`PAPER_WORKLOADS`: the first tables, their summary is
    verdicts.csv; rows in paper_runs.csv) and the real traces (runs.csv, the tables under their
    figures' names). Every run's configuration, traces included, is checked before the first
    starts."""
    settings = replace(QUICK if choice.quick else Settings(), seeds=choice.seeds)
    paths = choose_traces(
        choice.traces, choice.shared_traces, QUICK_TRACES if choice.quick else tuple(DEFAULT_TRACES)
    )
    paper_grid, grid = workload_jobs(settings), jobs(paths, settings)
    if choice.verify:
        paper_grid, grid = verified(paper_grid), verified(grid)
    check([*paper_grid, *grid])
    return Plan(settings, paths, paper_grid, grid)


def run(ctx: Context, prepared: Plan) -> Outcome:
    """Both grids, as one (one grid keeps both cores busy to its end), then their tables."""
    settings, paths, paper_grid, grid = prepared.settings, prepared.paths, prepared.paper_grid, prepared.grid
    out = ctx.out
    console.print(
        f"{len(paper_grid) + len(grid)} runs on {PRESET}: {len(settings.workloads)} Table II workloads and "
        f"{len(paths)} traces x {len(settings.cache_mib)} cache sizes x {len(POLICIES)} schedulers x "
        f"{settings.seeds} seed(s), each on the half-filled drive"
    )
    results = ctx.run([*paper_grid, *grid], _worker)
    paper_results, trace_results = results[: len(paper_grid)], results[len(paper_grid) :]
    paper_runs, runs = _runs_frame(paper_results, paper_grid), _runs_frame(trace_results, grid)
    paper_runs.to_csv(out / "paper_runs.csv", index=False)
    runs.to_csv(out / "runs.csv", index=False)
    reward_rows = rewards(trace_results)
    reward_rows.to_csv(out / "rewards.csv", index=False)
    rewards(paper_results).to_csv(out / "paper_rewards.csv", index=False)
    paper = {f"{PAPER_PART}: {title}": table for title, table in tables(paper_runs).items()}
    paper[f"{PAPER_PART}: what placement alone allows"] = placement_table(paper_runs)
    result = {**paper, **tables(runs)}
    result["Real traces: what placement alone allows"] = placement_table(runs)
    for title, frame in (
        (f"{PAPER_PART}: {EXPLORATION_TITLE}", paper_runs),
        (f"Real traces: {EXPLORATION_TITLE}", runs),
    ):
        explored = exploration_table(frame, ["trace", "policy"])
        if explored is not None:
            result[title] = explored
    headline = f"{PAPER_PART}: {SUMMARY}"

    def figures(out: Path) -> None:
        plots(runs, reward_rows, out)
        learning_plots(trace_results, out)

    placement = f"{PAPER_PART}: what placement alone allows"
    return Outcome(
        result,
        preamble=f"Preset {PRESET}, half its logical space filled before. First Table II's eight workloads, "
        "built from the paper's published statistics (docs/workloads.md), then the real traces of "
        f"../shared/traces, each replayed once; {settings.trace_requests or 'all'} requests per "
        f"workload or trace at most, {settings.seeds} seed(s). "
        "Averages are arithmetic means over every workload (or trace) and cache size of the per-run "
        "ratio; a ratio to a figure of 0 (erases: GC never runs on the half-free drive) is left out, "
        "NaN if all are.",
        verdicts=lambda path: write_verdicts(path, result[headline]),
        figures=figures,
        printed=[
            (headline, result[headline]),
            (placement, result[placement]),
            (f"Real traces: {SUMMARY}", result[SUMMARY]),
        ],
        files="paper_runs.csv, runs.csv, rewards.csv, tables.md, verdicts.csv, "
        "fig9_fig10_latency.png, fig11_lsb_reads.png, fig12_rewards.png, fig13_hit_ratio.png, "
        "learning_curves_*.png",
    )


#: The reproduction's steps for `pipeline.reproduce`.
PARTS = Parts(prepare, run)
