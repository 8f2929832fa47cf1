"""Layer: Python, experiments. One job: the RLGC reproduction's set-up: the schedulers and their
controls, the presets, the traces, the synthetic bursts and Table 1's workloads, the paper's
figures, the sizes of a run (`Settings`, `QUICK`), and the drive and thresholds of a preset."""

from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import ssdlab
from ssdlab import config

SCHEDULERS: dict[str, tuple[str, ...]] = {
    # Page-level GC triggers when free blocks fall below "5% of the total number of blocks"
    # (Sec. 2's example; the threshold is set per drive in `_scheduler_overrides`).
    "Page": ("gc.scheduler=greedy",),
    # Lazy-RTGC reclaims blocks during idle time (its Sec. 4); ssdlab's `gc.background = "idle"`.
    "LazyRTGC": ("gc.scheduler=lazy_rtgc", "gc.background=idle"),
    "Base": ("gc.scheduler=rlgc",),
    "Aggr": ("gc.scheduler=rlgc_aggressive",),
    "QTC": ("gc.scheduler=rlgc_qtc",),
}
#: The QTC slides' comparison, like for like: RLGC with the slides' action set (0..=2 copies,
#: as QTC's `gc.rlgc_qtc.max_copies`), and QTC with one copy, not the slides' none, in an unseen state.
QTC_VARIANTS: dict[str, tuple[str, ...]] = {
    "Base-2": ("gc.scheduler=rlgc", "gc.rlgc.max_copies=2"),
    "QTC-u1": ("gc.scheduler=rlgc_qtc", "gc.rlgc_qtc.unseen_copies=1"),
}
#: The learned schedulers compared with their random-action controls.
LEARNED = ("Base", "Aggr", "QTC")
CONTROLS: dict[str, tuple[str, ...]] = {
    f"{name}-control": (*SCHEDULERS[name], "gc.rlgc.random_control=true") for name in LEARNED
}
#: Schedulers that draw no random number: greedy GC and LazyRTGC's fixed steps. On a trace, whose
#: requests no seed changes either, each of their runs is the same for every seed
#: (`test_seed_free_runs_are_the_same_for_every_seed`), so it runs once and its row stands for
#: every seed (`_fan_out`); that is 16 % of the real-trace part's requests at ten seeds.
SEED_FREE = frozenset({"Page", "LazyRTGC"})
PREDICTORS: dict[str, tuple[str, ...]] = {
    "MA10": ("gc.scheduler=predictor", "gc.predictor.method=moving_average", "gc.predictor.window=10"),
    "MA100": ("gc.scheduler=predictor", "gc.predictor.method=moving_average", "gc.predictor.window=100"),
    "ES0.1": (
        "gc.scheduler=predictor",
        "gc.predictor.method=exponential_smoothing",
        "gc.predictor.smoothing=0.1",
    ),
    "ES0.3": (
        "gc.scheduler=predictor",
        "gc.predictor.method=exponential_smoothing",
        "gc.predictor.smoothing=0.3",
    ),
}
PRESETS = ("kang-3d-128gb", "kang-3d-512gb")

#: Real traces of ../shared/traces with GC-relevant writes (reader options, if any). The paper's
#: FIU and MS production traces are represented by the samples present here (FIU mail, MSNFS).
DEFAULT_TRACES: dict[str, tuple[str, ...]] = {
    "msr/wdev_1.csv": (),
    "msr/wdev_3.csv": (),
    "msr/rsrch_1.txt.gz": (),
    "msr/msr_cut10k_rw20_80_105.trace": (),
    "fiu/fiu_mail_cheetah_day1_first10k.blkparse.gz": (),
    "ms_production/msnfs_150k.disksim_ms.txt.gz": (),
}

#: Synthetic workloads: open-loop Poisson 8 KiB writes at 1000 IOPS in bursts, over the whole
#: addressable space (`workload.count` is set from the drive size).
_BURSTS = ("workload.kind=synthetic", "workload.rw=randwrite", "workload.bs=8k", "workload.arrival=onoff")
SYNTHETIC: dict[str, tuple[str, ...]] = {
    # 20 ms bursts, 80 ms idle; 80 % of writes to 20 % of the space.
    "bursts_20_80_hotcold": (
        *_BURSTS,
        "workload.rate_iops=1000",
        "workload.on_ns=20000000",
        "workload.off_ns=80000000",
        "workload.random_distribution=hotcold",
        "workload.hot_fraction=0.2",
        "workload.hot_share=0.8",
    ),
    # 50 ms bursts, 50 ms idle, uniform over the space (victims hold more valid pages).
    "bursts_50_50_uniform": (
        *_BURSTS,
        "workload.rate_iops=1000",
        "workload.on_ns=50000000",
        "workload.off_ns=50000000",
        "workload.random_distribution=uniform",
    ),
}

#: Paper's figures for the comparison in docs/experiments/rlgc.md (p99.99 vs LazyRTGC, averages).
PAPER = {"Aggr 512Gb p99.99": 0.71, "Aggr 128Gb p99.99": 0.64, "QTC vs RLGC p99.99": 0.88}

BLOCKS_PER_PLANE = 512
#: Addressable share of the logical space: leaves the drive enough spare blocks that T_GC^A = 100
#: can be exceeded (validation rejects the aggressive variant otherwise).
UTILIZATION = 0.6
DRIVE_WRITES = 3.0
MAX_REQUESTS = 10_000_000
#: Sec. 1: "the server storage typically needs to provide a minimum 7.5 ms of write latency for
#: 99.99% of the storage accesses".
SUSTAINABLE_P99_99_US = 7_500.0
#: Seeds per configuration by default: three, about 19 minutes of 2 cores for both parts; the
#: paper's ten (`--seeds 10`, Tables 9-10) take about 62 (docs/experiments/rlgc.md, "Budget").
DEFAULT_SEEDS = 3

#: Sec. 2: page-level GC "is typically triggered if the number of free blocks is less than a
#: certain threshold, e.g., 5% of the total number of blocks".
PAGE_TRIGGER_SHARE = 0.05


@dataclass(frozen=True)
class Settings:
    """One size of the experiment: the full reproduction or the CI-sized `--quick` one."""

    blocks_per_plane: int = BLOCKS_PER_PLANE
    drive_writes: float = DRIVE_WRITES
    seeds: int = 10
    #: The paper part: Table 1's workloads (specs), their drive writes and seeds.
    paper_workloads: tuple[str, ...] = ()
    paper_drive_writes: float = DRIVE_WRITES
    paper_seeds: int = 10


#: CI-sized: two workloads, half the blocks, two drives written, two seeds; on the paper part
#: home1 (the workload of the paper's Fig. 9) at 1.5 drives, two seeds.
QUICK = Settings(
    blocks_per_plane=256,
    drive_writes=2.0,
    seeds=2,
    paper_workloads=("rlgc-home1",),
    paper_drive_writes=1.5,
    paper_seeds=2,
)
QUICK_TRACES = ("msr/wdev_3.csv",)
QUICK_SYNTHETIC = ("bursts_20_80_hotcold",)

#: Table 1's nine workloads, in its order, as the specs built from its published statistics
#: (write ratio, mean inter-request interval, mean request size; every other choice is in each
#: spec's header): the first table. Labels are Table 1's names.
PAPER_WORKLOADS: dict[str, str] = {
    "rlgc-home1": "home1",
    "rlgc-home2": "home2",
    "rlgc-home3": "home3",
    "rlgc-home4": "home4",
    "rlgc-webmail": "webmail",
    "rlgc-webmail-online": "webmail+online",
    "rlgc-rbesql": "RBESQL",
    "rlgc-msnfs": "MSNFS",
    "rlgc-oltp": "oltp",
}
PAPER_PART = "Table 1 workloads (from the paper's statistics)"
#: The paper part's grid: the paper's schedulers, the slides' like-for-like pair (Base-2, QTC and
#: QTC-u1, all 0..=2 copies) and a random-action control per learned scheduler. QTC-u1 has no
#: control of its own: a QTC control draws every action at random, seen state or not, so
#: `unseen_copies` does not reach it and QTC-control is QTC-u1's control too. Nor has Base-2: a
#: control with Base-2's settings has the same triggers and draws the same 0..=2 copies from the
#: same stream as QTC-control, so it runs the drive identically (only the tables its agent keeps
#: but never uses differ; `test_base_2s_control_is_qtc_control` runs both). Running it anyway
#: cost 9 % of the paper part's time.
PAPER_LEARNED: dict[str, str] = {
    "Base": "Base-control",
    "Aggr": "Aggr-control",
    "Base-2": "QTC-control",
    "QTC": "QTC-control",
    "QTC-u1": "QTC-control",
}
#: The paper's averages over its nine workloads (Tables 5-6, "AVG") and the slides' QTC figure:
#: p99.99 normalised to LazyRTGC, QTC over RLGC.
PAPER_AVG: dict[str, float] = {
    "Base 512Gb p99.99 / LazyRTGC": 0.94,
    "Aggr 512Gb p99.99 / LazyRTGC": 0.71,
    "Base 128Gb p99.99 / LazyRTGC": 0.79,
    "Aggr 128Gb p99.99 / LazyRTGC": 0.64,
    "QTC / RLGC p99.99 (Base-2)": 0.88,
}


@dataclass(frozen=True)
class Workload:
    name: str
    trace: Path | None
    overrides: tuple[str, ...]
    #: A built-in workload spec (the paper part), drawn instead of a trace or the generator.
    spec: str | None = None


def _device(preset: str) -> dict[str, Any]:
    return tomllib.loads(config.preset_toml(preset))


def _thresholds(preset: str, blocks_per_plane: int) -> dict[str, Any]:
    resolved = tomllib.loads(
        ssdlab.resolve(preset, overrides=[f"device.blocks_per_plane={blocks_per_plane}"])
    )
    gc = resolved["gc"]
    r = gc["rlgc"]
    return {
        "T_GC": gc["trigger_free_blocks"],
        "T_GC_A": r["aggressive_trigger_free_blocks"],
        "T_IGC": r["intensive_stop_free_blocks"],
        "max_copies": r["max_copies"],
        "aggressive_max_copies": r["aggressive_max_copies"],
        "intensive_copies": r["intensive_copies"],
        "policy": "stochastic",
    }


def _drive(preset: str, settings: Settings) -> tuple[int, int, int]:
    """(physical pages, addressable pages, pages per block) of the drive the runs use."""
    dev = _device(preset)["device"]
    planes = (
        dev["channels"]
        * dev["chips_per_channel"]
        * dev.get("dies_per_chip", 1)
        * dev.get("planes_per_die", 1)
    )
    physical = planes * settings.blocks_per_plane * dev["pages_per_block"]
    addressable = math.floor(physical / (1 + dev["overprovisioning"]) * UTILIZATION)
    return physical, addressable, dev["pages_per_block"]


def workloads(traces: dict[Path, tuple[str, ...]], synthetic: tuple[str, ...]) -> list[Workload]:
    out = [Workload(t.name, t, opts) for t, opts in traces.items()]
    out += [Workload(name, None, SYNTHETIC[name]) for name in synthetic]
    return out


def paper_workloads(specs: tuple[str, ...]) -> list[Workload]:
    """The paper part's workloads: built-in specs, labelled with Table 1's names."""
    return [Workload(PAPER_WORKLOADS[s], None, (), s) for s in specs]


def schedulers(include_predictors: bool) -> dict[str, tuple[str, ...]]:
    """The grid's schedulers: the paper's, the QTC comparison's, the random-action controls and
    with `include_predictors` the interval predictors."""
    return {**SCHEDULERS, **QTC_VARIANTS, **CONTROLS, **(PREDICTORS if include_predictors else {})}


def paper_schedulers() -> dict[str, tuple[str, ...]]:
    """The paper part's grid: `schedulers(False)` (Base-2's control is QTC-control: `PAPER_LEARNED`)."""
    return schedulers(False)
