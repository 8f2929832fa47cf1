"""Layer: Python, experiments. One job: the RL-SLC stand-in part's grid: one probe pass of each
trace, the plan sized from it (with the throughput ceiling its small writes allow), Fig. 4-7's
runs, and every run's configuration checked before any runs."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import pandas as pd

from ssdlab import trace as ssdlab_trace
from ssdlab.experiments.common import Job, Measured, Runner, run_jobs
from ssdlab.experiments.slc.settings import (
    POLICIES,
    PRESET,
    STATIC_THRESHOLD_BYTES,
    Settings,
    Trace,
    _workload,
    drive,
)
from ssdlab.setup import Setup


def _probe_worker(job: Job, run: Measured) -> dict[str, Any]:
    report = run.report
    return {
        **job.labels,
        "requests_per_pass": run.figures["requests"],
        "write_bytes_per_pass": report["workload"]["write_bytes"],
    }


# A kept run's id is salted with its worker's qualified name (`run_jobs`): the worker keeps the
# name it had before slc.py became a package, so that runs kept before still resume.
_probe_worker.__module__ = "ssdlab.experiments.slc"


def probe(traces: list[Trace], settings: Settings, runner: Runner | None = None) -> pd.DataFrame:
    """One pass of every trace on the empty QLC-only drive: its requests and host write bytes,
    what `plan` sizes the runs from; and its write footprint (the reader's statistics)."""
    jobs = [
        Job(
            {"trace": t.label},
            Setup(PRESET, trace=str(t.path), overrides=(*_workload(t, settings), "slc.policy=none")),
        )
        for t in traces
    ]
    rows = pd.DataFrame(run_jobs(jobs, _probe_worker, runner))
    page = drive(settings)["page_bytes"]
    footprints, small_shares = [], []
    for t in traces:
        stats = ssdlab_trace.stats(t.path, t.stand_in.options if t.stand_in else (), page)
        footprints.append(stats["write_footprint_pages"])
        small_shares.append(small_write_byte_share(stats))
    rows["write_footprint_bytes"] = [f * page for f in footprints]
    rows["small_write_byte_share"] = small_shares
    return rows


#: The largest hot/cold threshold the SLC policies choose (Fig. 6 reaches 512 KB; `rl_slc.rs`):
#: writes larger than this never go to SLC.
MAX_THRESHOLD_BYTES = 512 * 1024


def small_write_byte_share(stats: dict[str, Any]) -> float:
    """The share of a trace's written bytes in requests that can go to SLC (at most
    `MAX_THRESHOLD_BYTES`), from its statistics' power-of-two size buckets. The bucket from
    512 KiB up to 1 MiB counts whole, so this is an upper bound (and so is the ceiling drawn
    from it)."""
    buckets = stats["sizes"]["write"]["buckets"]
    return float(sum(b["byte_share"] for b in buckets if b["min_bytes"] <= MAX_THRESHOLD_BYTES))


def throughput_ceiling(small_share: float, speedup: float) -> float:
    """The most an SLC cache can raise write throughput over QLC-only when a share `f` of the
    bytes may go to SLC, `speedup` times faster, and the rest to QLC: 1 / (f / speedup + 1 - f)
    (issue #33). It ignores what migrating SLC data to QLC costs later, so RL must stay under
    it."""
    return 1.0 / (small_share / speedup + 1.0 - small_share)


def plan(trace: Trace, settings: Settings, probe_row: dict[str, Any]) -> dict[str, Any]:
    """How many passes of a trace write `settings.drive_writes` logical capacities, at most
    `settings.max_requests` requests."""
    d = drive(settings)
    per_pass = max(1, probe_row["write_bytes_per_pass"])
    requests = max(1, probe_row["requests_per_pass"])
    wanted = math.ceil(settings.drive_writes * d["logical_bytes"] / per_pass)
    repeat = max(1, min(wanted, settings.max_requests // requests))
    return {
        "trace": trace.label,
        "paper_workload": trace.paper,
        "fig8_role": trace.role or "-",
        "path": str(trace.path),
        "requests_per_pass": requests,
        "write_bytes_per_pass": per_pass,
        "write_footprint_bytes": probe_row["write_footprint_bytes"],
        "small_write_byte_share": round(probe_row["small_write_byte_share"], 5),
        "throughput_ceiling": round(
            throughput_ceiling(probe_row["small_write_byte_share"], d["slc_speedup"]), 4
        ),
        "footprint_share": round(probe_row["write_footprint_bytes"] / d["logical_bytes"], 5),
        "repeat": repeat,
        "requests": requests * repeat,
        "host_write_bytes": per_pass * repeat,
        "drive_writes": round(per_pass * repeat / d["logical_bytes"], 3),
        "capped": repeat < wanted,
        "logical_bytes": d["logical_bytes"],
        "blocks": d["blocks"],
        "start": f"{settings.fill:.0%} filled" if settings.fill else "empty",
    }


def _policy_overrides(name: str, settings: Settings) -> tuple[str, ...]:
    if name == "Static":
        return (
            *POLICIES[name],
            f"slc.blocks={drive(settings)['static_blocks']}",
            f"slc.threshold_bytes={STATIC_THRESHOLD_BYTES}",
        )
    return POLICIES[name]


def _run_overrides(trace: Trace, settings: Settings, repeat: int, seed: int) -> tuple[str, ...]:
    return (*_workload(trace, settings), f"workload.repeat={repeat}", f"seed={seed}")


def jobs(traces: list[Trace], settings: Settings, plans: dict[str, dict[str, Any]]) -> list[Job]:
    """Fig. 4-7: every (trace, policy, seed) run."""
    out = []
    for seed in range(settings.seeds):
        for t in traces:
            base = _run_overrides(t, settings, plans[t.label]["repeat"], seed)
            for name in POLICIES:
                labels = {"experiment": "fig4", "trace": t.label, "policy": name, "seed": seed, "stage": None}
                out.append(
                    Job(
                        labels,
                        Setup(
                            PRESET, trace=str(t.path), overrides=(*base, *_policy_overrides(name, settings))
                        ),
                    )
                )
    return out


def check(grid: list[Job]) -> None:
    """Resolve every run's configuration before any runs (a missing trace or a bad key fails at
    once, naming it). A Q-table to load does not exist yet: that key is left out here."""
    for job in grid:
        overrides = tuple(o for o in job.setup.overrides if not o.startswith("slc.rl.load_qtable="))
        replace(job.setup, overrides=overrides).resolve()
