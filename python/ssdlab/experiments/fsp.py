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
"""

from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pandas as pd

import ssdlab
from ssdlab._console import console
from ssdlab.config import workload_spec_toml
from ssdlab.experiments.common import (
    EXPLORATION_TITLE,
    Job,
    Runner,
    choose_traces,
    exploration_columns,
    exploration_table,
    print_frame,
    run_jobs,
    verified,
    write_tables,
    write_verdicts,
)

PRESET = "li-qlc-fsp"

#: Data before the trace: half the logical space written once (see the module docstring).
DRIVE: tuple[str, ...] = ("device.utilization=0.5", "warmup.fill=true")

#: Sec. IV-A's schedulers, in the order of the paper's legends.
POLICIES: dict[str, tuple[str, ...]] = {
    "Baseline": ("cache.eviction=lru",),
    # The paper's buffer, SSDsim's: read and write data in one LRU order, read data programmed
    # again when it leaves (`cache.room_order`, `cache.write_back_reads`).
    "Baseline-RW": (
        "cache.eviction=lru",
        "cache.insert_reads=true",
        "cache.room_order=lru",
        "cache.write_back_reads=true",
    ),
    "Frequency": ("cache.eviction=frequency",),
    "Distance": ("cache.eviction=distance",),
    "RL": ("cache.eviction=rl_fsp",),
    # Not the paper's (see the module docstring).
    "Frequency-count": ("cache.eviction=frequency_count",),
    "RL-control": ("cache.eviction=rl_fsp", "cache.page_type_eviction.random_control=true"),
}

#: Table I: "Cache size 2/8/32MB".
CACHE_MIB = (2, 8, 32)

#: QLC page types in program order (`ftl.host_reads_by_page_type`).
PAGE_TYPES = ("lsb", "clsb", "cmsb", "msb")

#: Every real trace of ../shared/traces with both reads and writes, with its reader options
#: (`workload.trace.*`). A trace given with --trace takes the options of the one of the same
#: file name.
DEFAULT_TRACES: dict[str, tuple[str, ...]] = {
    "cloudphysics/cloudPhysicsIO.us.csv.gz": (),
    "ms_production/msnfs_150k.disksim_ms.txt.gz": (),
    "ms_production/tpcc_small.disksim_ns.txt": (),
    # One-second timestamps over 2,038 volumes: 144 inversions, more than the reorder window.
    "tencent_cbs/cloud_storage_sample_50k.csv.gz": ("on_out_of_order=clamp",),
    "systor17/systor17-traces-sample.csv.gz": (),
    "fiu/fiu_mail_cheetah_day1_first10k.blkparse.gz": (),
    "msr/msr_cut10k_rw20_80_105.trace": (),
    "msr/msr_cut10k_thpt_rand_1006.trace": (),
    "msr/hm_0.sample1000.csv": (),
}
#: A mixed trace (cut by `QUICK.trace_requests`) and a read-heavy one: RL gets episodes on both.
QUICK_TRACES = ("cloudphysics/cloudPhysicsIO.us.csv.gz", "msr/msr_cut10k_thpt_rand_1006.trace")

#: Table II's eight workloads, in its order, as the specs built from its published statistics
#: (requests, read ratio, Int. footprint and ratio: docs/workloads.md): the paper's regime, which
#: the real traces above (excerpts of 1,000 to 150,000 requests) do not reach.
PAPER_WORKLOADS = (
    "fsp-stg0",
    "fsp-ts0",
    "fsp-src1_2",
    "fsp-hm0",
    "fsp-ali188",
    "fsp-ali112",
    "fsp-ali735",
    "fsp-ali121",
)
#: Requests of each paper workload at most (`Settings.paper_requests`): the first 2 M requests
#: of each spec. 2 M is at least 1,000 RL episodes of 1,000 evictions on every workload;
#: stg0 (2.03 M) is barely cut, ali121 (18.6 M) to a ninth.
PAPER_REQUESTS = 2_000_000

#: CI-sized: one MSR and one Alibaba workload (cut by `QUICK.trace_requests`).
QUICK_WORKLOADS = ("fsp-hm0", "fsp-ali735")

#: Table I's read time of each page type (LSB, CLSB, CMSB, MSB; the preset's `read_ns`), in us:
#: what placement alone can change in a read (`placement_table`).
READ_US = (90.0, 120.0, 150.0, 180.0)

#: The paper's averages (Sec. IV-B1, IV-B2, IV-D2), for the summary table: % change of the first
#: scheduler's figure against the second's, "x" a ratio, or a share in %.
PAPER: dict[str, float] = {
    "RL read latency vs Baseline (%)": -40.4,
    "RL read latency vs Frequency (%)": -28.3,
    "RL read latency vs Distance (%)": -38.8,
    "RL I/O latency vs Baseline (%)": -27.8,
    "RL I/O latency vs Frequency (%)": -17.4,
    "RL I/O latency vs Distance (%)": -28.2,
    "Frequency read latency vs Baseline (%)": -13.6,
    "Distance read latency vs Baseline (%)": -1.9,
    "RL LSB reads / Baseline (x)": 2.9,
    "Frequency LSB reads / Baseline (x)": 1.7,
    "RL LSB read ratio at 2 MB (%)": 71.2,
    "RL LSB read ratio, mean of the cache sizes (%)": 73.1,
    "Baseline-RW erases / Baseline (x)": 2.2,
    "Frequency erases vs Baseline (%)": 7.6,
    "RL erases vs Baseline (%)": 2.5,
}


@dataclass(frozen=True)
class Settings:
    """One size of the experiment: the full reproduction or the CI-sized `--quick` one."""

    cache_mib: tuple[int, ...] = CACHE_MIB
    #: Requests replayed per trace or paper workload at most (the whole of it if shorter; None:
    #: every request).
    trace_requests: int | None = None
    seeds: int = 1
    #: The paper's workloads (specs) of the first table.
    workloads: tuple[str, ...] = PAPER_WORKLOADS
    #: Requests of each paper workload at most (its spec's own count if smaller; None: all of
    #: them): Table II's 18.6 M requests of ali121 alone would take more than the 15 minutes
    #: the whole reproduction has on 2 cores.
    paper_requests: int | None = PAPER_REQUESTS


#: CI-sized: `QUICK_TRACES`, CloudPhysics cut to its first 20,000 requests (enough evictions for
#: about 70 RL episodes), the paper's drive (a run takes about 0.1 s) and all three cache sizes.
QUICK = Settings(trace_requests=20_000, workloads=QUICK_WORKLOADS)


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
                    out.append(Job(job_labels, PRESET, str(trace), None, overrides))
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
                    out.append(Job(job_labels, PRESET, None, name, overrides))
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
        ssdlab.resolve(job.preset, workload=job.workload, trace=job.trace, overrides=list(job.overrides))


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


def _worker(job: Job) -> dict[str, Any]:
    report = job.run()
    lat = report.latency
    ftl = report["ftl"]
    cache = report["cache"]
    by_type = ftl["host_reads_by_page_type"]
    flash_reads = sum(by_type)
    rl = report["policies"]["eviction_report"] or {}
    return {
        **job.labels,
        "read_mean_us": lat.loc["read", "mean"],
        "io_mean_us": lat.loc["all", "mean"],
        "read_p99_us": lat.loc["read", "p99"],
        "write_mean_us": lat.loc["write", "mean"],
        **{f"{t}_reads": n for t, n in zip(PAGE_TYPES, by_type, strict=True)},
        "lsb_ratio": by_type[0] / flash_reads if flash_reads else math.nan,
        # Host page reads = read hits + reads served by flash (the page-type counts).
        "host_read_pages": ftl["host_read_pages"],
        "read_hits": cache["read_hits"],
        "read_hit_ratio": cache["read_hit_ratio"],
        "write_hit_ratio": cache["write_hit_ratio"],
        "erases": report["wear"]["erases"],
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
        "requests": report["workload"]["requests"],
        "verified": report["verify"]["final_scan_passed"] if report["verify"]["enabled"] else None,
        "episode_mean_rewards": rl.get("episode_mean_rewards") or [],
        **_learning(report, job.labels["seed"]),
    }


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


def _order(runs: pd.DataFrame) -> tuple[list[str], list[str]]:
    """Traces in run order, schedulers in the paper's order."""
    return list(pd.unique(runs["trace"])), [p for p in POLICIES if p in set(runs["policy"])]


def _pivot(runs: pd.DataFrame, col: str, cache: int) -> pd.DataFrame:
    """Trace x scheduler, mean over seeds, at one cache size."""
    traces, policies = _order(runs)
    at = runs[runs["cache_mib"] == cache]
    table = at.pivot_table(index="trace", columns="policy", values=col, aggfunc="mean")
    return table.reindex(index=traces, columns=policies)


def _normalised(table: pd.DataFrame) -> pd.DataFrame:
    """Each scheduler over Baseline on the same trace, and their mean over traces as the last
    row (the paper's bars and its "on average")."""
    norm = table.div(table["Baseline"], axis=0).replace([math.inf, -math.inf], math.nan)
    norm.loc["mean"] = norm.mean()
    return norm


def _ratios(runs: pd.DataFrame, col: str, num: str, den: str) -> pd.Series:
    """`num`'s figure over `den`'s, one per (cache size, trace), seeds averaged first; NaN where
    `den`'s is 0."""
    table = runs.pivot_table(index=["cache_mib", "trace"], columns="policy", values=col, aggfunc="mean")
    if num not in table or den not in table:
        return pd.Series(dtype=float)
    return (table[num] / table[den]).replace([math.inf, -math.inf], math.nan)


def summary(runs: pd.DataFrame) -> pd.DataFrame:
    """Our averages beside the paper's (`PAPER`), plus the flash programs (Fig. 14's erases are 0
    on the half-free drive) and Baseline's LSB read ratio, which the paper does not quote."""

    def change(col: str, num: str, den: str) -> float:
        return 100 * (_ratios(runs, col, num, den).mean() - 1)

    def times(col: str, num: str, den: str) -> float:
        return _ratios(runs, col, num, den).mean()

    def lsb_ratio(policy: str, cache: int | None = None) -> float:
        rows = runs[runs["policy"] == policy]
        if cache is not None:
            rows = rows[rows["cache_mib"] == cache]
        # Mean over seeds, then traces, then cache sizes: each cache size counts once.
        per_cache = rows.groupby(["cache_mib", "trace"])["lsb_ratio"].mean().groupby(level=0).mean()
        return 100 * per_cache.mean()

    ours = {
        "RL read latency vs Baseline (%)": change("read_mean_us", "RL", "Baseline"),
        "RL read latency vs Frequency (%)": change("read_mean_us", "RL", "Frequency"),
        "RL read latency vs Distance (%)": change("read_mean_us", "RL", "Distance"),
        "RL I/O latency vs Baseline (%)": change("io_mean_us", "RL", "Baseline"),
        "RL I/O latency vs Frequency (%)": change("io_mean_us", "RL", "Frequency"),
        "RL I/O latency vs Distance (%)": change("io_mean_us", "RL", "Distance"),
        "Frequency read latency vs Baseline (%)": change("read_mean_us", "Frequency", "Baseline"),
        "Distance read latency vs Baseline (%)": change("read_mean_us", "Distance", "Baseline"),
        "Frequency-count read latency vs Baseline (%)": change("read_mean_us", "Frequency-count", "Baseline"),
        "RL read latency vs RL-control (%)": change("read_mean_us", "RL", "RL-control"),
        "RL LSB reads / Baseline (x)": times("lsb_reads", "RL", "Baseline"),
        "Frequency LSB reads / Baseline (x)": times("lsb_reads", "Frequency", "Baseline"),
        "RL LSB read ratio at 2 MB (%)": lsb_ratio("RL", 2),
        "RL LSB read ratio, mean of the cache sizes (%)": lsb_ratio("RL"),
        "Baseline-RW erases / Baseline (x)": times("erases", "Baseline-RW", "Baseline"),
        "Frequency erases vs Baseline (%)": change("erases", "Frequency", "Baseline"),
        "RL erases vs Baseline (%)": change("erases", "RL", "Baseline"),
        "Baseline LSB read ratio, mean of the cache sizes (%)": lsb_ratio("Baseline"),
        "Baseline-RW flash programs / Baseline (x)": times("programs", "Baseline-RW", "Baseline"),
        "Frequency flash programs vs Baseline (%)": change("programs", "Frequency", "Baseline"),
        "RL flash programs vs Baseline (%)": change("programs", "RL", "Baseline"),
    }
    return pd.DataFrame({"ours": pd.Series(ours), "paper": pd.Series(PAPER)}).reindex(list(ours))


def control_table(runs: pd.DataFrame) -> pd.DataFrame:
    """RL against its random-action control on the paper's figures, per (cache size, trace),
    seeds averaged first: the read latency ratio and each one's LSB share of flash reads and
    mean reward; the mean over the runs last."""
    table = runs.pivot_table(
        index=["cache_mib", "trace"],
        columns="policy",
        values=["read_mean_us", "lsb_ratio", "rl_mean_reward"],
        aggfunc="mean",
    )
    out = pd.DataFrame(
        {
            "read latency RL / RL-control": table["read_mean_us"]["RL"] / table["read_mean_us"]["RL-control"],
            "LSB read share RL": table["lsb_ratio"]["RL"],
            "LSB read share RL-control": table["lsb_ratio"]["RL-control"],
            "mean reward RL": table["rl_mean_reward"]["RL"],
            "mean reward RL-control": table["rl_mean_reward"]["RL-control"],
        }
    )
    out.loc[("mean", ""), :] = out.mean()
    return out


def placement_table(runs: pd.DataFrame) -> pd.DataFrame:
    """How much of each scheduler's read latency change against Baseline placement alone
    explains: the array read time its reads took by page type (`READ_US` weighted by its reads of
    each type) against Baseline's, beside the change in mean read latency it got. Reads spread
    evenly over the four types take their mean, 135 us; all on LSB pages would take 90 us, -33 %;
    the paper's 72 % LSB share (the rest even) -21 %. The read latency also holds the channel
    transfer, waits behind programs and cache hits, so what it moves beyond the placement figure
    comes from queueing under the load the workload applies. Means over (cache size, workload)
    of the per-run ratios, seeds first."""
    _, policies = _order(runs)
    reads = runs[[f"{t}_reads" for t in PAGE_TYPES]].to_numpy(dtype=float)
    totals = reads.sum(axis=1)
    array_us = (reads * READ_US).sum(axis=1) / totals
    frame = runs.assign(array_read_us=array_us)
    table = frame.pivot_table(
        index=["cache_mib", "trace"], columns="policy", values=["array_read_us", "read_mean_us", "lsb_ratio"]
    )
    out = pd.DataFrame(
        {
            "LSB share of flash reads (%)": 100 * table["lsb_ratio"].mean(),
            "array read time, placement alone (us)": table["array_read_us"].mean(),
            "placement alone vs Baseline (%)": 100
            * (table["array_read_us"].div(table["array_read_us"]["Baseline"], axis=0).mean() - 1),
            "read latency vs Baseline (%)": 100
            * (table["read_mean_us"].div(table["read_mean_us"]["Baseline"], axis=0).mean() - 1),
        }
    )
    return out.reindex(policies)


def lsb_share_table(runs: pd.DataFrame) -> pd.DataFrame:
    """Each scheduler's LSB share of flash reads per cache size, mean over traces (seeds
    first), and the mean of the cache sizes (Fig. 11's ratio at a glance)."""
    _, policies = _order(runs)
    per_trace = runs.groupby(["policy", "cache_mib", "trace"])["lsb_ratio"].mean()
    table = per_trace.groupby(level=["policy", "cache_mib"]).mean().unstack("cache_mib")
    table.columns = [f"{c} MiB" for c in table.columns]
    table["mean"] = table.mean(axis=1)
    return table.reindex(policies)


#: The title of the table of our figures beside the paper's (the first of tables.md; verdicts.csv).
SUMMARY = "Summary: mean change against the other scheduler"


def tables(runs: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """The paper's figures as tables, one per cache size (its panels a-c), means over seeds."""
    out: dict[str, pd.DataFrame] = {SUMMARY: summary(runs)}
    caches = sorted(set(runs["cache_mib"]))
    for cache in caches:
        out[f"Fig. 9 ({cache} MiB cache): mean read latency normalised to Baseline"] = _normalised(
            _pivot(runs, "read_mean_us", cache)
        )
    for cache in caches:
        out[f"Fig. 10 ({cache} MiB cache): mean I/O latency normalised to Baseline"] = _normalised(
            _pivot(runs, "io_mean_us", cache)
        )
    for cache in caches:
        out[f"Fig. 11 ({cache} MiB cache): LSB page reads normalised to Baseline"] = _normalised(
            _pivot(runs, "lsb_reads", cache)
        )
        ratio = _pivot(runs, "lsb_ratio", cache)
        ratio.loc["mean"] = ratio.mean()
        out[f"Fig. 11 ({cache} MiB cache): LSB read ratio (LSB reads / flash reads)"] = ratio
    for cache in caches:
        read = _pivot(runs, "read_hit_ratio", cache).round(3).astype(str)
        write = _pivot(runs, "write_hit_ratio", cache).round(3).astype(str)
        out[f"Fig. 13 ({cache} MiB cache): read / write hit ratio"] = read + " / " + write
    for cache in caches:
        out[f"Fig. 14 ({cache} MiB cache): erases (GC)"] = _pivot(runs, "erases", cache)
        out[f"Fig. 14 ({cache} MiB cache): flash programs normalised to Baseline"] = _normalised(
            _pivot(runs, "programs", cache)
        )
        out[f"Rewrites ({cache} MiB cache): pages the rewrite module loaded back"] = _pivot(
            runs, "rewrite_pages", cache
        )
    out["LSB read share (LSB reads / flash reads) per scheduler, mean over traces"] = lsb_share_table(runs)
    if {"RL", "RL-control"} <= set(runs["policy"]):
        out["Learned vs random control: RL against RL-control"] = control_table(runs)
    rl = runs[runs["policy"] == "RL"]
    for cache in caches if not rl.empty else ():
        out[f"RL ({cache} MiB cache): decisions, episodes of 1000, states visited (of 128)"] = (
            rl[rl["cache_mib"] == cache]
            .groupby("trace", sort=False)[["decisions", "episodes", "states_visited", "rewrites_requested"]]
            .mean()
        )
    return out


def plots(runs: pd.DataFrame, reward_rows: pd.DataFrame, out: Path) -> None:
    import matplotlib.pyplot as plt

    from ssdlab.plots import panel_grid, save_figure

    caches = sorted(set(runs["cache_mib"]))

    def bars(specs: list[tuple[str, str, str, bool]], name: str) -> None:
        """A row per (figure, column, y label, normalised to Baseline), a panel per cache size
        (the paper's panels a-c), the legend above them all."""
        fig, axes = plt.subplots(
            len(specs), len(caches), figsize=(6 * len(caches), 3.8 * len(specs) + 0.4), squeeze=False
        )
        for row, (figure, col, ylabel, normalise) in enumerate(specs):
            for ax, cache in zip(axes[row], caches, strict=True):
                table = _pivot(runs, col, cache)
                table = _normalised(table) if normalise else table
                table.plot.bar(ax=ax, legend=False, width=0.8)
                plt.setp(ax.get_xticklabels(), rotation=35, ha="right", rotation_mode="anchor")
                if normalise:
                    ax.axhline(1.0, color="black", linewidth=0.8)
                ax.set(ylabel=ylabel, xlabel="", title=f"{figure}: {cache} MiB cache")
                ax.tick_params(axis="x", labelsize=7)
                ax.grid(True, axis="y", alpha=0.3)
        handles, labels = axes[0][0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="upper center", ncol=len(labels), fontsize=8)
        save_figure(fig, out / name, rect=(0, 0, 1, 1 - 0.4 / fig.get_figheight()))

    bars(
        [
            ("Fig. 9", "read_mean_us", "read latency / Baseline", True),
            ("Fig. 10", "io_mean_us", "I/O latency / Baseline", True),
        ],
        "fig9_fig10_latency.png",
    )
    bars(
        [
            ("Fig. 11", "lsb_reads", "LSB reads / Baseline", True),
            ("Fig. 11", "lsb_ratio", "LSB reads / flash reads", False),
        ],
        "fig11_lsb_reads.png",
    )
    bars(
        [
            ("Fig. 13", "read_hit_ratio", "read hit ratio", False),
            ("Fig. 13", "write_hit_ratio", "write hit ratio", False),
        ],
        "fig13_hit_ratio.png",
    )
    # Fig. 12: one panel per trace, a curve per cache size (the first seed).
    traces = list(pd.unique(runs["trace"]))
    fig, axes = panel_grid(len(traces), width=5, height=3.3)
    first = reward_rows[reward_rows["seed"] == reward_rows["seed"].min()] if len(reward_rows) else reward_rows
    for ax, trace in zip(axes, traces, strict=True):
        for cache in caches:
            curve = first[(first["trace"] == trace) & (first["cache_mib"] == cache)]
            if len(curve):
                ax.plot(curve["episode"], curve["mean_reward"], marker=".", label=f"{cache} MiB")
        ax.set(xlabel="episode (1000 decisions)", ylabel="mean reward", title=f"Fig. 12: {trace}")
        ax.grid(True, alpha=0.3)
        if ax.has_data():
            ax.legend(fontsize=7)
        else:  # fewer than 1000 decisions: Algorithm 1 never finished an episode
            ax.text(0.5, 0.5, "no complete episode", ha="center", va="center", transform=ax.transAxes)
    save_figure(fig, out / "fig12_rewards.png")


def learning_plots(results: list[dict[str, Any]], out: Path) -> None:
    """Per trace, seed 0: RL's and RL-control's mean reward per episode (1000 decisions), a pair
    of curves per cache size."""
    from ssdlab.plots import learning_curves

    curves: dict[str, dict[str, pd.DataFrame]] = {}
    for r in results:
        if r["policy"] in ("RL", "RL-control") and r["learning_curve"] is not None:
            label = f"{r['policy']}, {r['cache_mib']} MiB"
            curves.setdefault(r["trace"], {})[label] = pd.DataFrame(r["learning_curve"])
    for trace, at in curves.items():
        learning_curves(
            at,
            out / f"learning_curves_{trace}.png",
            title=f"{trace}, seed 0: RL vs random control",
        )


#: The prefix of the first tables' titles: the runs on Table II's workloads.
PAPER_PART = "Table II workloads (from the paper's statistics)"


def _runs_frame(results: list[dict[str, Any]], grid: list[Job]) -> pd.DataFrame:
    """runs.csv's rows: the flat figures of each run (series left out), the preset first."""
    series = ("episode_mean_rewards", "learning_curve")
    runs = pd.DataFrame([{k: v for k, v in r.items() if k not in series} for r in results])
    runs.insert(0, "preset", PRESET)
    runs["trace_path"] = [j.trace or j.workload for j in grid]
    return runs


def reproduce(
    traces: list[Path] | None,
    out: Path,
    seeds: int = 1,
    runner: Runner | None = None,
    shared_traces: Path | None = None,
    quick: bool = False,
    verify: bool = False,
) -> dict[str, pd.DataFrame]:
    """Run the reproduction; `quick` is the CI-sized grid (`QUICK`), `verify` checks every mapping
    at the end of every run (and fails the run on a lost page), `runner` says where the grid runs
    (local processes by default; finished runs are kept in `out/cells` and reused). Every run's
    configuration, traces included, is checked before the first starts.

    Two grids: Table II's workloads from the paper's statistics (`PAPER_WORKLOADS`: the first
    tables, their summary is verdicts.csv; rows in paper_runs.csv) and the real traces (runs.csv,
    the tables under their figures' names)."""
    settings = replace(QUICK if quick else Settings(), seeds=seeds)
    paths = choose_traces(traces, shared_traces, QUICK_TRACES if quick else tuple(DEFAULT_TRACES))
    paper_grid, grid = workload_jobs(settings), jobs(paths, settings)
    if verify:
        paper_grid, grid = verified(paper_grid), verified(grid)
    check([*paper_grid, *grid])
    out.mkdir(parents=True, exist_ok=True)
    console.print(
        f"{len(paper_grid) + len(grid)} runs on {PRESET}: {len(settings.workloads)} Table II workloads and "
        f"{len(paths)} traces x {len(settings.cache_mib)} cache sizes x {len(POLICIES)} schedulers x "
        f"{settings.seeds} seed(s), each on the half-filled drive"
    )
    results = run_jobs([*paper_grid, *grid], _worker, (runner or Runner()).under(out))
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
    write_tables(
        out / "tables.md",
        result,
        f"Preset {PRESET}, half its logical space filled before. First Table II's eight workloads, "
        "built from the paper's published statistics (docs/workloads.md), then the real traces of "
        f"../shared/traces, each replayed once; {settings.trace_requests or 'all'} requests per "
        f"workload or trace at most, {settings.seeds} seed(s). "
        "Averages are arithmetic means over every workload (or trace) and cache size of the per-run "
        "ratio; a ratio to a figure of 0 (erases: GC never runs on the half-free drive) is left out, "
        "NaN if all are.",
    )
    headline = f"{PAPER_PART}: {SUMMARY}"
    write_verdicts(out / "verdicts.csv", result[headline])
    plots(runs, reward_rows, out)
    learning_plots(trace_results, out)
    print_frame(headline, result[headline])
    print_frame(
        f"{PAPER_PART}: what placement alone allows", result[f"{PAPER_PART}: what placement alone allows"]
    )
    print_frame(f"Real traces: {SUMMARY}", result[SUMMARY])
    console.print(
        f"\nresults: {out}/ (paper_runs.csv, runs.csv, rewards.csv, tables.md, verdicts.csv, "
        "fig9_fig10_latency.png, fig11_lsb_reads.png, fig12_rewards.png, fig13_hit_ratio.png, "
        "learning_curves_*.png)"
    )
    return result
