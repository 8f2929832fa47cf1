"""The FSP reproduction's settings: the schedulers, cache sizes, traces and Table II's workloads,
the paper's figures, and the sizes of a run (`Settings`, `QUICK`)."""

from __future__ import annotations

from dataclasses import dataclass

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


#: The prefix of the first tables' titles: the runs on Table II's workloads.
PAPER_PART = "Table II workloads (from the paper's statistics)"
