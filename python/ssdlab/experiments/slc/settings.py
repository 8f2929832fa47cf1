"""Layer: Python, experiments. One job: the RL-SLC reproduction's set-up: the policies and the
paper's figures, the stand-in traces and Table 4's workloads, the sizes of a run (`Settings`,
`QUICK`), and the drive the runs use."""

from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import ssdlab
from ssdlab.experiments.fsp import trace_labels

PRESET = "yoo-hybrid-qlc"

#: Sec. 4's techniques and the baseline, in the order of the paper's legends (Static first).
POLICIES: dict[str, tuple[str, ...]] = {
    "QLC-only": ("slc.policy=none",),
    "Static": ("slc.policy=static",),  # slc.blocks is set from the drive (`static_blocks`)
    "DWA": ("slc.policy=dwa",),
    "UST": ("slc.policy=ust",),
    "RL": ("slc.policy=rl",),
    # Not the paper's (see the module docstring).
    "RL-control": ("slc.policy=rl", "slc.rl.random_control=true"),
    "RL-mean": ("slc.policy=rl", "slc.rl.reward_baseline=all_steps"),
}
BASELINE = "QLC-only"
#: The previous techniques the paper's averages compare RL with (Sec. 4).
PREVIOUS = ("DWA", "UST")
#: Static's SLC region: this share of the device's blocks, theta 32 KiB (ours; see above).
STATIC_SHARE = 0.10
STATIC_THRESHOLD_BYTES = 32 * 1024

#: Host writes per run, in logical capacities (the paper's traces: 25.9 to 97.3 GB on 32 GB).
DRIVE_WRITES = 1.5
#: Share of the logical space the host may address. With all of it, the 3 % spare of the
#: paper's drive leaves no room for Static's fixed SLC region (an SLC-mode block holds a quarter
#: of a QLC one's data; config validation counts the loss against the spare); 90 % (29 GiB, about
#: YCSB-A's 30 GB address space) leaves it, and no trace's footprint comes near it.
UTILIZATION = 0.9
#: Requests are replayed closed loop, one outstanding: the write execution time sums flash array
#: time per operation, as the paper's simulator does, and no policy here works in idle time, so
#: the trace's timestamps would change only the queueing (measured on TPC-C: the same
#: components to the nanosecond), while an overloaded open-loop replay queues millions of
#: requests (gigabytes of memory per run).
REPLAY = ("workload.replay=closed", "workload.iodepth=1")
#: Requests per run at most (a run of 10 million small requests takes a few seconds).
MAX_REQUESTS = 10_000_000


@dataclass(frozen=True)
class StandIn:
    """What a real trace stands in for: the paper's workload (Table 4), its role in Fig. 8
    ("train" or "test") and why it was chosen; `options` are its reader options
    (`workload.trace.*`)."""

    paper: str
    role: str
    why: str
    options: tuple[str, ...] = ()


#: The stand-ins, in the order of the paper's Fig. 4. Write sizes and rewrites per pass measured
#: on the files (docs/experiments/slc.md has the table).
STAND_INS: dict[str, StandIn] = {
    "msr/msr_cut10k_rw20_80_105.trace": StandIn(
        "PC",
        "train",
        "80 % writes, small (96 % at most 32 KiB, three quarters of the bytes) over a 23 MiB "
        "write footprint each pass writes about twice: PC's many frequently-updated data on the "
        "smallest address space",
    ),
    "cloudphysics/cloudPhysicsIO.us.csv.gz": StandIn(
        "Phone",
        "train",
        "a VM disk of mixed sizes: half the writes at most 32 KiB, 92 % of the bytes in larger "
        "ones; Phone's bytes are mostly large writes (72 % above 512 KB) beside a quarter of "
        "small ones",
    ),
    "ms_production/tpcc_small.disksim_ns.txt": StandIn(
        "TPC-C",
        "test",
        "a TPC-C trace itself (SQL Server, 8 KiB pages; the paper's is TPCC-MySQL)",
    ),
    "msr/rsrch_1.txt.gz": StandIn(
        "OLTP",
        "test",
        "no OLTP trace is available; a whole write-only server volume whose small writes (90 % "
        "at most 32 KiB) carry half the bytes, larger ones the other half, as OLTP's split "
        "about evenly around 128 KB",
    ),
    "tencent_cbs/cloud_storage_sample_50k.csv.gz": StandIn(
        "LinkBench",
        "train",
        "mean write 33 KiB (LinkBench: 28 KB), most writes small (87 % at most 32 KiB) and the "
        "only writes above 128 KiB of any trace here (5 %)",
        # One-second timestamps over 2,038 volumes: 144 inversions, more than the reorder window.
        ("on_out_of_order=clamp",),
    ),
    "msr/msr_cut10k_thpt_rand_1006.trace": StandIn(
        "YCSB-A",
        "train",
        "the largest writes here (91 % above 32 KiB, 99 % of the bytes): YCSB-A's writes are "
        "almost all large and cold (96 % above 512 KB)",
    ),
}
#: Sec. 4.2: "we first trained an agent with several workloads of PC, Phone, YSCB-A, and
#: LinkBench", in that order.
TRAINING_ORDER = ("PC", "Phone", "YCSB-A", "LinkBench")

#: CI-sized: the PC stand-in trains the agent, the TPC-C one tests it.
QUICK_TRACES = ("msr/msr_cut10k_rw20_80_105.trace", "ms_production/tpcc_small.disksim_ns.txt")

#: Table 4's six workloads, in Fig. 4's order, as the specs built from its published figures
#: (address space, total writes, mean size and the byte shares of its four size classes:
#: docs/workloads.md), with the paper's names: the paper's regime, which the stand-ins above do
#: not reach (their writes are small and rewrite a few hundred MiB over and over).
PAPER_WORKLOADS: dict[str, str] = {
    "slc-pc": "PC",
    "slc-phone": "Phone",
    "slc-tpcc": "TPC-C",
    "slc-oltp": "OLTP",
    "slc-linkbench": "LinkBench",
    "slc-ycsb-a": "YCSB-A",
}
#: Large cold writes (ours, issue #46: not a paper's workload): most bytes in 1 MiB writes at
#: random over 26 GiB, the spec beside this file; run by the readings (`readings.py`).
LARGE_COLD = str(Path(__file__).resolve().parent / "large_cold.toml")
#: ... and over a wider space with more for SLC to take (20 % of the bytes at most 512 KiB, 29 GiB).
LARGE_COLD_WIDE = str(Path(__file__).resolve().parent / "large_cold_wide.toml")
#: The policies of the first table: the paper's four and its baseline, and RL's random control.
PAPER_POLICIES = ("QLC-only", "Static", "DWA", "UST", "RL", "RL-control")
#: Share of the logical space the host addresses on Table 4's workloads: the smallest step of
#: 1 % that holds YCSB-A's 30,241 MiB address space (91.1 % of the 32.4 GiB logical space), so
#: that no workload's address is folded; Static's fixed region still fits in the spare (at 95 %
#: it does not).
PAPER_UTILIZATION = 0.92
#: Seeds of the first table (issue #33: 3), whatever `--seeds` asks for below that.
PAPER_SEEDS = 3
#: CI-sized: PC (the one address space whose UST budget, 6 SLC blocks for each of its 65
#: logical blocks, fits in the SLC region) and YCSB-A (the one whose writes fill the drive past
#: Table 2's bounds), each cut to `QUICK.workload_requests` requests on the paper's drive.
QUICK_WORKLOADS = ("slc-pc", "slc-ycsb-a")

#: The paper's figures (Abstract, Sec. 4.1, 4.2): % change of RL's figure against the others'.
PAPER: dict[str, float] = {
    "RL write throughput vs DWA and UST (%)": 77.6,
    "RL WAF vs DWA and UST (%)": -20.3,
    "RL migration + GC time vs UST (%)": -65.2,
    "Pre-trained vs untrained RL write throughput, best test trace (%)": 12.8,
}

#: Fig. 7's components: runs.csv column, legend.
COMPONENTS: dict[str, str] = {
    "slc_write_ns": "SLC write",
    "qlc_write_ns": "QLC write",
    "slc_to_qlc_ns": "SLC-to-QLC",
    "qlc_to_qlc_ns": "QLC-to-QLC",
    "slc_to_slc_ns": "SLC-to-SLC",
}
RECLAIM = ("slc_to_qlc_ns", "qlc_to_qlc_ns", "slc_to_slc_ns")


@dataclass(frozen=True)
class Settings:
    """One size of the experiment: the full reproduction or the CI-sized `--quick` one."""

    #: Blocks of the one plane (None: the preset's 2,138).
    blocks_per_plane: int | None = None
    #: Share of the logical space the host addresses (see `UTILIZATION`).
    utilization: float = UTILIZATION
    #: Not the paper's set-up (a sensitivity check, docs/experiments/slc.md): write this share of
    #: the logical space once before the trace (`warmup.fill`, into QLC), so that the space
    #: utilisation the policies see is that of a drive holding data, not of the excerpt alone.
    fill: float | None = None
    drive_writes: float = DRIVE_WRITES
    max_requests: int = MAX_REQUESTS
    seeds: int = 1
    #: Table 4's workloads (specs) of the first table, the requests of each at most (a spec
    #: absent: its own length, the paper's total writes) and the seeds. They run on the paper's
    #: drive whatever `blocks_per_plane` says: their address spaces (1-30 GB) need it.
    workloads: tuple[str, ...] = tuple(PAPER_WORKLOADS)
    workload_requests: tuple[tuple[str, int], ...] = ()
    paper_seeds: int = PAPER_SEEDS

    def requests_of(self, spec: str) -> int | None:
        return dict(self.workload_requests).get(spec)


#: CI-sized: 192 blocks (a 3 GiB drive), `QUICK_TRACES`, every mapping verified; the first
#: table on `QUICK_WORKLOADS`, one seed, PC cut to 60,000 requests (4 GiB, four times its
#: address space: UST's region reaches its budget) and YCSB-A to 12,000 (10 GiB: a quarter of
#: the logical space holds data, past Table 2's 20 % bound); the readings' two large cold
#: workloads to 12,000 (10 GiB) as well.
QUICK = Settings(
    blocks_per_plane=192,
    max_requests=2_000_000,
    workloads=QUICK_WORKLOADS,
    workload_requests=(
        ("slc-pc", 60_000),
        ("slc-ycsb-a", 12_000),
        (LARGE_COLD, 12_000),
        (LARGE_COLD_WIDE, 12_000),
    ),
    paper_seeds=1,
)
#: The drive of the first table: the paper's (whatever blocks per plane the stand-ins use),
#: empty, `PAPER_UTILIZATION` of the logical space addressed.
PAPER_DRIVE = Settings(utilization=PAPER_UTILIZATION)


@dataclass(frozen=True)
class Trace:
    path: Path
    label: str
    stand_in: StandIn | None

    @property
    def paper(self) -> str:
        return self.stand_in.paper if self.stand_in else "-"

    @property
    def role(self) -> str | None:
        return self.stand_in.role if self.stand_in else None

    @property
    def options(self) -> tuple[str, ...]:
        """Reader options as overrides."""
        return tuple(f"workload.trace.{o}" for o in (self.stand_in.options if self.stand_in else ()))


def traces_of(paths: list[Path]) -> list[Trace]:
    """The traces with their short labels and, matched by file name, their stand-in roles."""
    labels = trace_labels(paths)
    by_name = {Path(rel).name: s for rel, s in STAND_INS.items()}
    return [Trace(p, labels[p], by_name.get(p.name)) for p in paths]


def _drive_overrides(settings: Settings) -> tuple[str, ...]:
    out = (f"device.blocks_per_plane={settings.blocks_per_plane}",) if settings.blocks_per_plane else ()
    if settings.fill:
        return (*out, f"device.utilization={settings.fill}", "warmup.fill=true")
    return (*out, f"device.utilization={settings.utilization}")


def drive(settings: Settings) -> dict[str, Any]:
    """The drive the runs use: blocks, page size, logical capacity (physical x (1 -
    over-provisioning), as the core's validation counts it: the paper's 32 GB) and the share of
    it the host addresses (x utilisation)."""
    resolved = tomllib.loads(ssdlab.resolve(PRESET, overrides=list(_drive_overrides(settings))))
    dev = resolved["device"]
    planes = dev["channels"] * dev["chips_per_channel"] * dev["dies_per_chip"] * dev["planes_per_die"]
    blocks = planes * dev["blocks_per_plane"]
    physical = blocks * dev["pages_per_block"]
    logical = math.floor(physical * (1 - dev["overprovisioning"]))
    return {
        "blocks": blocks,
        "page_bytes": dev["page_bytes"],
        "physical_bytes": physical * dev["page_bytes"],
        "logical_bytes": logical * dev["page_bytes"],
        "addressable_bytes": math.floor(logical * dev["utilization"]) * dev["page_bytes"],
        "static_blocks": max(1, round(STATIC_SHARE * blocks)),
        # The most blocks any SLC region may take (`slc.max_fraction`: Table 2's 56 %).
        "slc_max_blocks": math.floor(resolved["slc"]["max_fraction"] * blocks),
        # Table 2 (`[slc.dwa]`): DWA's share of the blocks per utilisation bin.
        "dwa_edges": list(resolved["slc"]["dwa"]["utilization_edges"]),
        "dwa_fractions": list(resolved["slc"]["dwa"]["block_fractions"]),
        # A page written in SLC mode against one in QLC (Table 1: 3102 / 160 us per 16 KB page).
        "slc_speedup": dev["timing"]["program_ns"][0] / dev["timing"]["slc_program_ns"],
    }


def _workload(trace: Trace, settings: Settings) -> tuple[str, ...]:
    """The drive and the trace's reader options, before sizing."""
    return (*_drive_overrides(settings), *REPLAY, "workload.fold=compact", *trace.options)
