"""Layer: Python, experiments. One job: what the RLGC runs yield: the grids' worker `_worker`,
a run's latency percentiles, wear and GC report, the GC agent's diagnostics, and for seed 0 the
plot series (a coarse latency histogram, free blocks, the learning curve)."""

from __future__ import annotations

import json
from typing import Any

import ssdlab
from ssdlab.experiments.common import Job, Measured, exploration_columns

#: The GC agent's diagnostics kept per run (`Report.learning`), as `rl_<name>` columns.
LEARNING = (
    "control",
    "mean_reward",
    "q_spread_mean",
    "exploitations",
    "explorations",
    "unseen_state_decisions",
)


def _learning(report: ssdlab.Report, seed: int) -> dict[str, Any]:
    """The GC agent's diagnostics (None for a scheduler that does not learn), its exploration
    (`exploration_columns`) and, for seed 0, its learning curve (for `learning_plots`)."""
    learning = report.learning
    explored = exploration_columns(report)
    if "gc" not in learning.index:
        return {**{f"rl_{c}": None for c in LEARNING}, **explored, "learning_curve": None}
    row = learning.loc["gc"]
    curve = report.learning_curve("gc").to_dict("list") if seed == 0 else None
    return {**{f"rl_{c}": row[c] for c in LEARNING}, **explored, "learning_curve": curve}


def _coarse(pairs: list[tuple[int, int]], digits: int = 3) -> list[tuple[int, int]]:
    """An exact latency histogram's (value_ns, count) pairs merged to `digits` significant digits
    of the value (each merged count at the bin's largest value): a tail plot's resolution, about a
    hundred times smaller than the exact one (some 300,000 distinct values over three drives)."""
    merged: dict[int, int] = {}
    for value, count in pairs:
        scale = 10 ** max(0, len(str(value)) - digits)
        top = -(-value // scale) * scale
        merged[top] = merged.get(top, 0) + count
    return sorted(merged.items())


#: A run's plot series (`_worker`), kept for seed 0 only and left out of the runs tables.
SERIES = ("write_histogram", "free_blocks", "learning_curve")


def _worker(job: Job, run: Measured) -> dict[str, Any]:
    report, figures = run.report, run.figures
    w = report.latency.loc["write"]  # NaN, not 0, if a run had no writes
    ts = report.time_series("free_blocks")
    gc = report["policies"]["gc_scheduler_report"] or {}
    # The series feed only seed 0's figures (`plots`); kept for every seed they took 12 MB a run
    # and, over the ten-seed grid, more memory than the machine has.
    first_seed = job.labels["seed"] == 0
    return {
        **job.labels,
        "write_p99_us": figures["write_p99_us"],
        "write_p99_99_us": figures["write_p99_99_us"],
        "write_p99_9999_us": w["p99_9999"],
        "write_mean_us": figures["write_mean_us"],
        "erases": figures["erases"],
        "waf": report.waf,
        "requests": figures["requests"],
        "emergency_reclaims": figures["gc_emergency_reclaims"],
        "intensive_entries": (gc.get("intensive") or {}).get("entries"),
        "verified": report["verify"]["final_scan_passed"] if report["verify"]["enabled"] else None,
        "gc_report": json.dumps(gc),
        "write_histogram": _coarse(report.histograms.get("write", [])) if first_seed else None,
        "free_blocks": (
            {"time_s": ts["time_s"].tolist(), "values": ts["free_blocks"].tolist()} if first_seed else None
        ),
        **_learning(report, job.labels["seed"]),
    }


# A kept run's id is salted with its worker's qualified name (`run_jobs`): the worker keeps the
# name it had before rlgc.py became a package, so that runs kept before still resume.
_worker.__module__ = "ssdlab.experiments.rlgc"
