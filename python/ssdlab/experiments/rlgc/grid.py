"""Layer: Python, experiments. One job: the RLGC reproduction's grid: one probe pass of each
workload on the empty drive (its load, and is it sustainable?), the plan sized from it, the runs
of every preset, workload, scheduler and seed, and the rows of the runs that stand for every
seed."""

from __future__ import annotations

import math
import tomllib
from typing import Any

import pandas as pd

from ssdlab import config
from ssdlab import trace as ssdlab_trace
from ssdlab.experiments.common import Job, Measured, Runner, run_jobs
from ssdlab.experiments.rlgc.results import SERIES
from ssdlab.experiments.rlgc.settings import (
    MAX_REQUESTS,
    PAGE_TRIGGER_SHARE,
    SEED_FREE,
    SUSTAINABLE_P99_99_US,
    UTILIZATION,
    Settings,
    Workload,
    _device,
    _drive,
    _thresholds,
)
from ssdlab.setup import Setup


def plan(preset: str, workload: Workload, settings: Settings, probe: dict[str, Any]) -> dict[str, Any]:
    """The documented size of one workload's runs on one preset: how many passes (traces) or
    writes (synthetic) make `settings.drive_writes` drives of page programs, counted from the
    probe's one pass (sub-page writes program a whole page, so bytes would undercount)."""
    physical, addressable, _ = _drive(preset, settings)
    target = settings.drive_writes * physical
    if workload.trace is not None:
        per_pass = max(1, probe["host_programs"])
        repeat = max(1, min(math.ceil(target / per_pass), MAX_REQUESTS // max(probe["requests"], 1)))
        requests = probe["requests"] * repeat
        written = per_pass * repeat
        footprint = probe["write_footprint_pages"]
        sizing = (f"workload.repeat={repeat}", "workload.fold=compact")
    else:
        per_request = probe["host_programs"] / max(probe["requests"], 1)
        repeat = 1
        requests = min(MAX_REQUESTS, math.ceil(target / max(per_request, 1e-9)))
        written = requests * per_request
        footprint = (
            addressable
            if workload.spec is None
            else min(addressable, _spec_footprint_pages(workload.spec, preset))
        )
        sizing = (f"workload.count={requests}",)
    return {
        "preset": preset,
        "workload": workload.name,
        "blocks_per_plane": settings.blocks_per_plane,
        "physical_pages": physical,
        "addressable_pages": addressable,
        "write_footprint_pages": footprint,
        "footprint_share": round(footprint / physical, 4),
        "repeat": repeat,
        "requests": requests,
        "drive_writes": round(written / physical, 2),
        "start": "empty",
        **_thresholds(preset, settings.blocks_per_plane),
        "_overrides": sizing,
    }


def _spec_footprint_pages(spec: str, preset: str) -> int:
    """A built-in spec's write footprint in the preset's pages (its address space if unset)."""
    table = tomllib.loads(config.workload_spec_toml(spec))
    footprint = (table.get("write") or {}).get("footprint") or table["address_space"]
    page = _device(preset)["device"]["page_bytes"]
    return math.ceil(_bytes(footprint) / page)


def _bytes(size: str | int) -> int:
    """A spec's size ("1280MiB", "2GiB" or bytes) in bytes."""
    if isinstance(size, int):
        return size
    units = {"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}
    for unit, factor in units.items():
        if size.endswith(unit):
            return int(float(size.removesuffix(unit)) * factor)
    return int(size)


def _base_overrides(settings: Settings, workload: Workload) -> tuple[str, ...]:
    """Every run's drive and workload, before sizing: the empty drive, the workload's reader
    options or generator settings (a spec's addresses packed as a trace's)."""
    if workload.spec is not None:
        reader = ("workload.fold=compact",)
    elif workload.trace is not None:
        reader = ("workload.fold=compact", *(f"workload.trace.{o}" for o in workload.overrides))
    else:
        reader = workload.overrides
    return (
        f"device.blocks_per_plane={settings.blocks_per_plane}",
        f"device.utilization={UTILIZATION}",
        "gc.rlgc.policy=stochastic",
        *reader,
    )


def _scheduler_overrides(
    name: str, sched: tuple[str, ...], preset: str, settings: Settings
) -> tuple[str, ...]:
    if name == "Page":
        physical, _, pages_per_block = _drive(preset, settings)
        blocks = physical // pages_per_block
        return (*sched, f"gc.trigger_free_blocks={math.ceil(PAGE_TRIGGER_SHARE * blocks)}")
    return sched


def _trace_arg(w: Workload) -> str | None:
    return str(w.trace) if w.trace else None


def probe_jobs(loads: list[Workload], presets, settings: Settings) -> list[Job]:
    """One pass of every workload (a quarter of the addressable space for the synthetic ones)
    on the empty drive, before any GC: what a pass programs, and is the load sustainable?"""
    jobs = []
    for preset in presets:
        _, addressable, _ = _drive(preset, settings)
        for w in loads:
            base = _base_overrides(settings, w)
            if w.trace is None:
                base = (*base, f"workload.count={addressable // 4}")
            labels = {"preset": preset, "workload": w.name}
            jobs.append(
                Job(labels, Setup(preset, w.spec, _trace_arg(w), overrides=(*base, "gc.scheduler=greedy")))
            )
    return jobs


def _probe_worker(job: Job, run: Measured) -> dict[str, Any]:
    report, figures = run.report, run.figures
    return {
        **job.labels,
        "requests": figures["requests"],
        "host_programs": report["ftl"]["host_programs"],
        "write_footprint_pages": _write_footprint(job),
        "no_gc_write_p99_99_us": figures["write_p99_99_us"],
        "probe_erases": figures["erases"],
    }


# A kept run's id is salted with its worker's qualified name (`run_jobs`): the worker keeps the
# name it had before rlgc.py became a package, so that runs kept before still resume.
_probe_worker.__module__ = "ssdlab.experiments.rlgc"


def _write_footprint(job: Job) -> int:
    setup = job.setup
    if setup.trace is None:
        return 0
    page = _device(setup.preset)["device"]["page_bytes"]
    options = [o.removeprefix("workload.trace.") for o in setup.overrides if o.startswith("workload.trace.")]
    return ssdlab_trace.stats(setup.trace, options, page)["write_footprint_pages"]


def probe(loads: list[Workload], presets, settings: Settings, runner: Runner | None = None) -> pd.DataFrame:
    """The probes' results, one row per (preset, workload), with the sustainability verdict."""
    rows = pd.DataFrame(run_jobs(probe_jobs(loads, presets, settings), _probe_worker, runner))
    rows["sustainable"] = rows["no_gc_write_p99_99_us"] <= SUSTAINABLE_P99_99_US
    return rows


def build_jobs(
    loads: list[Workload], presets, schedulers, settings: Settings, probes: pd.DataFrame
) -> tuple[list[Job], list[dict]]:
    jobs, plans = [], []
    for preset in presets:
        for w in loads:
            row = probes[(probes["preset"] == preset) & (probes["workload"] == w.name)].iloc[0]
            p = plan(preset, w, settings, row.to_dict())
            plans.append(p)
            base = (*_base_overrides(settings, w), *p["_overrides"])
            for name, sched in schedulers.items():
                for seed in range(1 if _seed_free(w, name) else settings.seeds):
                    labels = {"preset": preset, "workload": w.name, "scheduler": name, "seed": seed}
                    extra = _scheduler_overrides(name, sched, preset, settings)
                    jobs.append(
                        Job(
                            labels,
                            Setup(preset, w.spec, _trace_arg(w), overrides=(*base, *extra, f"seed={seed}")),
                        )
                    )
    return jobs, plans


def _seed_free(w: Workload, scheduler: str) -> bool:
    """Whether a run's outcome is the same for every seed (`SEED_FREE`)."""
    return w.trace is not None and scheduler in SEED_FREE


def _fan_out(results: list[dict[str, Any]], loads: list[Workload], seeds: int) -> list[dict[str, Any]]:
    """`results` with each seed-free run's row repeated for seeds 1 .. `seeds` - 1, right after
    its seed 0 (the order a run per seed gives); plot series stay with seed 0, as `_worker`
    keeps them."""
    by_name = {w.name: w for w in loads}
    out = []
    for r in results:
        out.append(r)
        if _seed_free(by_name[r["workload"]], r["scheduler"]):
            out += [{**r, "seed": s, **dict.fromkeys(SERIES)} for s in range(1, seeds)]
    return out
