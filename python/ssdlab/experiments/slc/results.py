"""Layer: Python, experiments. One job: what the RL-SLC runs yield: a run's figures (`measure`,
kept by the grids' worker `_worker`), the frames of Figs. 5-6's series and RL's rewards, and
Fig. 4's normalisation to QLC-only."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

import ssdlab
from ssdlab.experiments.common import Job, Measured, exploration_columns
from ssdlab.experiments.slc.settings import BASELINE, RECLAIM


def measure(report: Any) -> dict[str, Any]:
    """One run's figures (the spec of `report["regions"]` and `region_report`): the paper's write
    throughput and its components, WAF, SLC size and threshold, RL's steps and rewards, and the
    series (kept apart for series.csv and rewards.csv)."""
    regions = report["regions"]
    native = regions[0]
    slc = next((r for r in regions[1:] if r["name"] == "slc"), None)

    def of_slc(key: str) -> int:
        return slc[key] if slc else 0

    parts = {
        "slc_write_ns": of_slc("host_write_ns"),
        "qlc_write_ns": native["host_write_ns"],
        "slc_to_qlc_ns": of_slc("migration_out_ns"),
        "qlc_to_qlc_ns": native["gc_ns"],
        "slc_to_slc_ns": of_slc("gc_ns"),
    }
    exec_ns = sum(parts.values())
    host_bytes = report["workload"]["write_bytes"]
    rr = report["policies"]["region_report"] or {}
    series = rr.get("series") or {}
    rewards = rr.get("rewards") or {}
    # The first step has no reward yet (null).
    reward = [v for v in rewards.get("reward") or [] if v is not None]
    lat = report.latency.loc["write"]
    slc_series = series.get("slc_blocks") or []
    slc_end = slc["blocks"] if slc else 0
    # Pages holding data at the end: every host page mapped, less those a later host write
    # replaced (no trims here). Without a warm-up the utilisation DWA reads only rises, so this
    # is its highest too.
    warm = report["warmup"]["pages_written"]
    valid_end = (
        report["ftl"]["host_programs"] - sum(r["overwritten_pages"] for r in regions) if not warm else None
    )
    return {
        "requests": report["workload"]["requests"],
        "host_write_bytes": host_bytes,
        "write_exec_ns": exec_ns,
        # MB/s: bytes / 1e6 over seconds.
        "write_throughput_mb_s": host_bytes * 1e3 / exec_ns if exec_ns else math.nan,
        "sim_write_mb_s": report["throughput"]["write_mb_per_s"],
        "write_mean_us": lat["mean"],
        "write_p99_us": lat["p99"],
        "waf": report.waf,
        **parts,
        "reclaim_ns": sum(parts[k] for k in RECLAIM),
        "slc_host_pages": of_slc("host_pages"),
        "qlc_host_pages": native["host_pages"],
        "slc_blocks_end": slc_end,
        # The series samples every 128 MiB of host pages: a peak between samples can be missed.
        "slc_blocks_max": max([*slc_series, slc_end]),
        "valid_pages_end": valid_end,
        "folded_requests": report["workload"]["host"]["folded_requests"],
        "slc_blocks_mean": rr.get("mean_slc_blocks")
        or (sum(slc_series) / len(slc_series) if slc_series else float(slc_end)),
        "theta_end_bytes": rr.get("threshold_bytes", math.nan) if rr else math.nan,
        "migrated_pages": sum(r.get("migrated_out_pages", 0) for r in regions),
        "erases": report["wear"]["erases"],
        "rl_steps": rr.get("steps", math.nan) if rr else math.nan,
        "rl_mean_reward": rr.get("mean_reward", sum(reward) / len(reward) if reward else math.nan),
        "rl_states_visited": (rr.get("agent") or {}).get("states_visited", math.nan),
        "rl_explorations": (rr.get("agent") or {}).get("explorations", math.nan),
        "rl_loaded_qtable": rr.get("loaded_qtable"),
        "verified": report["verify"]["final_scan_passed"] if report["verify"]["enabled"] else None,
        "_series": {
            k: list(series.get(k) or []) for k in ("host_write_bytes", "slc_blocks", "threshold_bytes")
        },
        "_rewards": {k: list(rewards.get(k) or []) for k in ("host_write_bytes", "reward", "total_cost")},
    }


def _learning(report: ssdlab.Report) -> dict[str, Any]:
    """The SLC agent's diagnostics (`Report.learning`; None for a policy that does not learn)
    beside `measure`'s steps and mean reward: is it the random-action control, how far apart its
    Q-values are, and how much it explored (`exploration_columns`)."""
    learning = report.learning
    explored = exploration_columns(report)
    if "region" not in learning.index:
        return {"rl_control": None, "rl_q_spread_mean": None, **explored}
    row = learning.loc["region"]
    return {"rl_control": row["control"], "rl_q_spread_mean": row["q_spread_mean"], **explored}


def _worker(job: Job, run: Measured) -> dict[str, Any]:
    return {
        **job.labels,
        **measure(run.report),
        **_learning(run.report),
        "wall_s": run.wall_s,
    }


# A kept run's id is salted with its worker's qualified name (`run_jobs`): the worker keeps the
# name it had before slc.py became a package, so that runs kept before still resume.
_worker.__module__ = "ssdlab.experiments.slc"


def series_frame(results: list[dict[str, Any]]) -> pd.DataFrame:
    """Figs. 5-6: one row per sample of every run (SLC blocks and theta every 128 MB)."""
    cols = [
        "experiment",
        "trace",
        "policy",
        "seed",
        "stage",
        "host_write_bytes",
        "slc_blocks",
        "threshold_bytes",
    ]
    rows = [
        {k: r[k] for k in cols[:5]} | {"host_write_bytes": b, "slc_blocks": s, "threshold_bytes": th}
        for r in results
        for b, s, th in zip(
            r["_series"]["host_write_bytes"],
            r["_series"]["slc_blocks"],
            r["_series"]["threshold_bytes"],
            strict=False,
        )
    ]
    return pd.DataFrame(rows, columns=cols)


def rewards_frame(results: list[dict[str, Any]]) -> pd.DataFrame:
    """The RL agent's reward per step (Algorithm 2) of every RL run."""
    cols = [
        "experiment",
        "trace",
        "policy",
        "seed",
        "stage",
        "step",
        "host_write_bytes",
        "reward",
        "total_cost",
    ]
    rows = []
    for r in results:
        rw = r["_rewards"]
        costs = rw["total_cost"] or [math.nan] * len(rw["reward"])
        for i, (b, v, c) in enumerate(zip(rw["host_write_bytes"], rw["reward"], costs, strict=False)):
            rows.append(
                {k: r[k] for k in cols[:5]} | {"step": i, "host_write_bytes": b, "reward": v, "total_cost": c}
            )
    return pd.DataFrame(rows, columns=cols)


def normalise(runs: pd.DataFrame) -> pd.DataFrame:
    """Adds `throughput_norm`: each run's write throughput over QLC-only's on the same trace and
    seed (Fig. 4's normalisation)."""
    base = runs[(runs["experiment"] == "fig4") & (runs["policy"] == BASELINE)]
    base = base.set_index(["trace", "seed"])["write_throughput_mb_s"]
    keys = pd.MultiIndex.from_frame(runs[["trace", "seed"]])
    runs = runs.copy()
    runs["throughput_norm"] = runs["write_throughput_mb_s"].to_numpy() / base.reindex(keys).to_numpy()
    return runs
