"""Reproduction of Wang et al., "LearnedFTL: A Learning-based Page-level FTL for Improving Random
Reads in Flash-based SSDs", HPCA 2024, Sec. 2.3 and 4: Fig. 14 (FIO throughput, CMT and model hit
ratios, WAF), Fig. 15 (GC count), Fig. 3(c) (TPFTL's CMT hit ratio as the CMT grows) and Fig. 20
(P99 / P99.9 on real traces).

The FTLs, each on the preset `femu-learnedftl` (the paper's FEMU drive):

* DFTL and TPFTL with FEMU's line-by-line allocation (the paper: "FEMU's default greedy dynamic
  allocation strategy"), the ideal page mapping likewise;
* LearnedFTL with group-based allocation and group GC (Sec. 3.3), which trains the models.

The set-up is Sec. 4.2: 4 KiB requests from 64 closed-loop jobs (`psync`, one request each).
Reads follow 10 minutes of simulated random-write warm-up, timed like the measured run; the
paper then reads for 5 minutes, here for `read_requests` requests (the steady state, in far less
wall time). Writes run 10 minutes of simulated time from the empty drive. Sequential jobs run as
fio runs 64 jobs on one file: all from offset 0, each with its own cursor. A host read of a page the
warm-up never wrote costs nothing in every FTL (`ftl.unwritten_reads = "free"`: FEMU returns at
once for an unmapped page). Traces follow the same warm-up, addresses packed (`fold =
"compact"`), WebSearch re-rated 64x as the paper does.

Two accountings (issue #33, column `accounting`): `paper`, every FTL charged alike with the
paper's equal-DRAM rule; `artifact`, what the authors' FEMU code does (`artifact_overrides`:
8,192-entry CMTs, DFTL/TPFTL GC at 12 free lines in the foreground and 64 in the background,
LearnedFTL's translation programs in no time), on the paper's four patterns. The stress case
`seqwrite_split` (64 unaligned streams) is reported per pass (`stress_jobs`, `stress_table`),
with LearnedFTL also under a minimum-gain guard on its group victim. verdicts.csv: the headlines
issue #33 checks, per accounting (`VERDICT_HEADLINES`).

Modules, one job each: `settings` (the FTLs, patterns, traces, the paper's figures and the sizes
of a run and the drive), `grid` (the runs), `results` (what a run's pick keeps), `analysis` (the
tables, the paper's figures beside ours and the verdict rules), `figures` (the plots); the
reproduction's steps (`PARTS`: `prepare` and `run`, for `pipeline.reproduce`) here.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

import pandas as pd

from ssdlab._console import console
from ssdlab.experiments.common import Job, verified
from ssdlab.experiments.learnedftl.analysis import (
    BOUNDS,
    VERDICT_HEADLINES,
    paper_table,
    stress_table,
    tables,
    verdicts,
)
from ssdlab.experiments.learnedftl.figures import plots
from ssdlab.experiments.learnedftl.grid import (
    STRESS_GUARD,
    artifact_overrides,
    cmt_jobs,
    fio_jobs,
    stress_jobs,
    trace_jobs,
)
from ssdlab.experiments.learnedftl.results import _worker
from ssdlab.experiments.learnedftl.settings import (
    ACCOUNTINGS,
    ARTIFACT_FTLS,
    ARTIFACT_PATTERNS,
    CMT_SHARES,
    DEFAULT_TRACES,
    FIO_RW,
    FTLS,
    JOBS,
    PAPER,
    PATTERNS,
    PRESET,
    QUICK,
    QUICK_TRACES,
    SECOND_NS,
    Settings,
    _used_pages,
    logical_pages,
)
from ssdlab.experiments.pipeline import Choice, Context, Outcome, Parts

__all__ = [
    "ACCOUNTINGS",
    "ARTIFACT_FTLS",
    "ARTIFACT_PATTERNS",
    "BOUNDS",
    "CMT_SHARES",
    "DEFAULT_TRACES",
    "FIO_RW",
    "FTLS",
    "JOBS",
    "PAPER",
    "PARTS",
    "PATTERNS",
    "PRESET",
    "QUICK",
    "QUICK_TRACES",
    "SECOND_NS",
    "STRESS_GUARD",
    "VERDICT_HEADLINES",
    "Plan",
    "Settings",
    "_used_pages",
    "artifact_overrides",
    "cmt_jobs",
    "fio_jobs",
    "logical_pages",
    "paper_table",
    "plots",
    "prepare",
    "run",
    "stress_jobs",
    "stress_table",
    "tables",
    "trace_jobs",
    "verdicts",
]


@dataclass(frozen=True)
class Plan:
    """A run of the reproduction, prepared: its settings and grid."""

    settings: Settings
    jobs: list[Job]


def prepare(choice: Choice) -> Plan:
    """The settings (`quick`: the CI-sized drive and durations, `QUICK`), Fig. 20's traces
    (skipped, with a note, where none is given and ../shared/traces is not there) and the grid."""
    settings = replace(QUICK if choice.quick else Settings(), seeds=choice.seeds)
    shared = choice.shared_traces
    if choice.traces:
        trace_map = {Path(t): 1.0 for t in choice.traces}
    elif shared is not None and shared.is_dir():
        names = QUICK_TRACES if choice.quick else tuple(DEFAULT_TRACES)
        trace_map = {shared / rel: DEFAULT_TRACES[rel] for rel in names}
    else:
        console.print("no --trace given and ../shared/traces is not present: Fig. 20 is skipped")
        trace_map = {}
    # The artifact accounting's runs last: the paper's rows keep their order (and the golden).
    jobs = (
        fio_jobs(settings)
        + cmt_jobs(settings)
        + trace_jobs(trace_map, settings)
        + fio_jobs(settings, accounting="artifact")
        + stress_jobs(settings)
    )
    return Plan(settings, verified(jobs) if choice.verify else jobs)


def run(ctx: Context, prepared: Plan) -> Outcome:
    """The grid, then its tables and the paper's figures beside ours."""
    settings, jobs = prepared.settings, prepared.jobs
    console.print(
        f"{len(jobs)} runs on {PRESET} ({logical_pages(settings):,} logical pages; "
        f"warm-up {settings.warmup_ns / SECOND_NS:g} s simulated before reads and traces)"
    )
    # The runs after the warm-up that differ only in their workload (each FTL's random and
    # sequential reads and its Fig. 20 traces) share one warm-up: the same results, a third of
    # the warm-ups (docs/experiments/learnedftl.md, "Wall time").
    runs = pd.DataFrame(ctx.run(jobs, _worker, share_warmups=True))
    runs.insert(0, "preset", PRESET)
    runs.insert(1, "trace", [j.setup.trace or "" for j in jobs])
    runs.to_csv(ctx.out / "runs.csv", index=False)
    result = tables(runs)
    ours_vs_paper = paper_table(result)
    return Outcome(
        {**result, "The paper's figures beside ours": ours_vs_paper},
        preamble=f"Preset {PRESET}, overrides {' '.join(settings.device) or '(none)'}",
        verdicts=lambda path: verdicts(path, ours_vs_paper),
        figures=lambda out: plots(runs, out),
        printed=[*result.items(), ("The paper's figures beside ours", ours_vs_paper)],
        files="runs.csv, tables.md, verdicts.csv, fig14_fig15.png, fig20.png",
        returned=result,
    )


#: The reproduction's steps for `pipeline.reproduce`.
PARTS = Parts(prepare, run)
