"""The FSP reproduction's grids: one run per (workload or trace, cache size, scheduler, seed), each
configuration checked before any runs."""

from __future__ import annotations

import tomllib
from pathlib import Path

from ssdlab.config import workload_spec_toml
from ssdlab.experiments.common import (
    Job,
)
from ssdlab.experiments.fsp.settings import DEFAULT_TRACES, DRIVE, POLICIES, PRESET, Settings
from ssdlab.setup import Setup


def trace_labels(paths: list[Path]) -> dict[Path, str]:
    """Short names for the tables (the file name up to its first dot), the whole file name where
    two would collide."""
    short = {p: p.name.split(".")[0] for p in paths}
    if len(set(short.values())) < len(paths):
        return {p: p.name if list(short.values()).count(short[p]) > 1 else short[p] for p in paths}
    return short


def _reader_options(trace: Path) -> tuple[str, ...]:
    for rel, options in DEFAULT_TRACES.items():
        if Path(rel).name == trace.name:
            return tuple(f"workload.trace.{o}" for o in options)
    return ()


def jobs(traces: list[Path], settings: Settings) -> list[Job]:
    """Every (trace, cache size, scheduler, seed) run, on the half-filled drive."""
    labels = trace_labels(traces)
    out = []
    for seed in range(settings.seeds):
        for trace in traces:
            workload = (*DRIVE, "workload.fold=compact", *_reader_options(trace))
            if settings.trace_requests:
                workload = (*workload, f"workload.count={settings.trace_requests}")
            for cache in settings.cache_mib:
                for policy, keys in POLICIES.items():
                    job_labels = {"trace": labels[trace], "cache_mib": cache, "policy": policy, "seed": seed}
                    overrides = (*workload, f"cache.capacity={cache}MiB", *keys, f"seed={seed}")
                    out.append(Job(job_labels, Setup(PRESET, trace=str(trace), overrides=overrides)))
    return out


def workload_jobs(settings: Settings) -> list[Job]:
    """Every (paper workload, cache size, scheduler, seed) run on the half-filled drive: the
    first table's grid. A workload's label is its Table II name (`hm0` for `fsp-hm0`)."""
    out = []
    for seed in range(settings.seeds):
        for name in settings.workloads:
            count = _paper_count(name, settings)
            for cache in settings.cache_mib:
                for policy, keys in POLICIES.items():
                    job_labels = {
                        "trace": name.removeprefix("fsp-"),
                        "cache_mib": cache,
                        "policy": policy,
                        "seed": seed,
                    }
                    overrides = (*DRIVE, *count, f"cache.capacity={cache}MiB", *keys, f"seed={seed}")
                    out.append(Job(job_labels, Setup(PRESET, name, overrides=overrides)))
    return out


def spec_requests(name: str) -> int | None:
    """The requests a built-in workload spec asks for (None when its length is in bytes)."""
    length = tomllib.loads(workload_spec_toml(name)).get("length", {})
    return length.get("requests")


def _paper_count(name: str, settings: Settings) -> tuple[str, ...]:
    """The `workload.count` override that cuts a paper workload to the settings' length; none
    when the spec is shorter (a count replaces the spec's length, so it could lengthen it)."""
    caps = [c for c in (settings.trace_requests, settings.paper_requests) if c]
    if not caps:
        return ()
    own = spec_requests(name)
    cap = min(caps)
    return () if own is not None and own <= cap else (f"workload.count={cap}",)


def check(grid: list[Job]) -> None:
    """Resolve every run's configuration before any runs, so that a missing trace or a bad key
    fails at once (a ConfigError naming it), not in a worker halfway through the grid."""
    for job in grid:
        job.setup.resolve()
