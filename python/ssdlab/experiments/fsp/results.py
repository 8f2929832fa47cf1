"""What the FSP reproduction keeps of a run (`_worker`, its pick of the run's figures) and the
frames made of the rows: runs.csv's and Fig. 12's rewards."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

import ssdlab
from ssdlab.experiments.common import (
    Job,
    Measured,
    exploration_columns,
)
from ssdlab.experiments.fsp.settings import PAGE_TYPES, PRESET


def _learning(report: ssdlab.Report, seed: int) -> dict[str, Any]:
    """The eviction agent's diagnostics (None for a policy that does not learn), its exploration
    (`exploration_columns`) and, for seed 0, its learning curve (for `learning_plots`)."""
    learning = report.learning
    explored = exploration_columns(report)
    if "eviction" not in learning.index:
        return {
            "rl_control": None,
            "rl_mean_reward": None,
            "rl_q_spread_mean": None,
            **explored,
            "learning_curve": None,
        }
    row = learning.loc["eviction"]
    return {
        "rl_control": row["control"],
        "rl_mean_reward": row["mean_reward"],
        "rl_q_spread_mean": row["q_spread_mean"],
        **explored,
        "learning_curve": report.learning_curve("eviction").to_dict("list") if seed == 0 else None,
    }


def _worker(job: Job, run: Measured) -> dict[str, Any]:
    report, figures = run.report, run.figures
    ftl = report["ftl"]
    cache = report["cache"]
    by_type = ftl["host_reads_by_page_type"]
    flash_reads = sum(by_type)
    rl = report["policies"]["eviction_report"] or {}
    return {
        **job.labels,
        "read_mean_us": figures["read_mean_us"],
        "io_mean_us": report.latency.loc["all", "mean"],
        "read_p99_us": figures["read_p99_us"],
        "write_mean_us": figures["write_mean_us"],
        **{f"{t}_reads": n for t, n in zip(PAGE_TYPES, by_type, strict=True)},
        "lsb_ratio": by_type[0] / flash_reads if flash_reads else math.nan,
        # Host page reads = read hits + reads served by flash (the page-type counts).
        "host_read_pages": ftl["host_read_pages"],
        "read_hits": cache["read_hits"],
        "read_hit_ratio": cache["read_hit_ratio"],
        "write_hit_ratio": cache["write_hit_ratio"],
        "erases": figures["erases"],
        "programs": report["device"]["counters"]["programs"],
        "waf": report.waf,
        "evicted_units": cache["evicted_units"],
        "rewrite_pages": cache["rewrite_pages"],
        "rewrites_skipped_full": cache["rewrites_skipped_full"],
        "rewrites_requested": rl.get("rewrites_requested"),
        "substitutions": rl.get("substitutions"),
        "decisions": rl.get("decisions"),
        "episodes": rl.get("episodes"),
        "states_visited": rl.get("states_visited"),
        "requests": figures["requests"],
        "verified": report["verify"]["final_scan_passed"] if report["verify"]["enabled"] else None,
        "episode_mean_rewards": rl.get("episode_mean_rewards") or [],
        **_learning(report, job.labels["seed"]),
    }


# A kept run's id is salted with its pick's qualified name (`run_jobs`): the pick keeps the name
# it had before fsp.py became a package, so that runs kept before still resume.
_worker.__module__ = "ssdlab.experiments.fsp"


def rewards(results: list[dict[str, Any]]) -> pd.DataFrame:
    """Fig. 12: RL's mean reward in each episode of 1000 decisions (NaN for an episode with none
    rewarded), one row per (trace, cache size, seed, episode)."""
    rows = [
        {
            "trace": r["trace"],
            "cache_mib": r["cache_mib"],
            "seed": r["seed"],
            "episode": i,
            "mean_reward": math.nan if v is None else v,
        }
        for r in results
        if r["policy"] == "RL"
        for i, v in enumerate(r["episode_mean_rewards"])
    ]
    return pd.DataFrame(rows, columns=["trace", "cache_mib", "seed", "episode", "mean_reward"])


def _runs_frame(results: list[dict[str, Any]], grid: list[Job]) -> pd.DataFrame:
    """runs.csv's rows: the flat figures of each run (series left out), the preset first."""
    series = ("episode_mean_rewards", "learning_curve")
    runs = pd.DataFrame([{k: v for k, v in r.items() if k not in series} for r in results])
    runs.insert(0, "preset", PRESET)
    runs["trace_path"] = [j.setup.trace or j.setup.workload for j in grid]
    return runs
