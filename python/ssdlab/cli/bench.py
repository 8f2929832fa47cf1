"""`ssdlab bench`: simulated host requests per wall-clock second on this machine, for the
scenarios docs/performance.md records."""

from __future__ import annotations

import platform
import resource
import time

import click

from ssdlab._console import fmt_sig, new_table
from ssdlab.cli.common import console

_RANDWRITE_GC = ["workload.rw=randwrite", "warmup.fill=true", "warmup.random_writes=1.0"]
_RANDREAD = ["workload.rw=randread", "workload.iodepth=32", "warmup.fill=true"]
_DFTL = ["ftl.mapping=dftl", "ftl.dftl.cmt_bytes=2m"]
# LearnedFTL's group allocation and group GC (Sec. 3.3) at half the logical space: a group
# holds a full line and writes an open one, so the drive needs about two lines per group. At the
# 90 % of the other scenarios bench-16gib has 1,024 lines for 860 groups, and after a fill each
# group collection frees a handful of pages (WAF in the thousands, the page mapping alike):
# docs/performance.md, issue #31.
_GROUP = ["device.utilization=0.5", "ftl.placement=group", "gc.victim=group"]
_LEARNED = ["ftl.mapping=learned", "ftl.learned.cmt_bytes=2m"]
# MQSim's 512 GiB device (128 planes of 4096 blocks): its warm-up fill is timed, not requests.
_FILL_512GIB = [
    "device.channels=8",
    "device.chips_per_channel=4",
    "device.dies_per_chip=2",
    "device.planes_per_die=2",
    "device.blocks_per_plane=4096",
    "gc.trigger_free_blocks=8",
    "warmup.fill=true",
    "workload.rw=randread",
]
_FSP = [
    "workload.rw=randrw",
    "workload.rwmixread=50",
    "workload.bs=8192",
    "workload.iodepth=8",
    "workload.random_distribution=zipf",
    "workload.zipf_theta=0.9",
]

# The same scenarios as crates/ssdlab-core/examples/run_scenario.rs (Rust-only timings).
SCENARIOS = {
    "randwrite_gc": _RANDWRITE_GC,
    "randread": _RANDREAD,
    # A 64 MiB write buffer in front of the same random overwrites.
    "randwrite_buffer": [*_RANDWRITE_GC, "cache.capacity=64m"],
    # DFTL with a 2 MiB CMT: nearly every random access misses it.
    "randread_dftl": [*_RANDREAD, *_DFTL],
    "randwrite_dftl": [*_RANDWRITE_GC, *_DFTL],
    "randwrite_tpftl": [*_RANDWRITE_GC, "ftl.mapping=tpftl", "ftl.tpftl.cmt_bytes=2m"],
    # LearnedFTL as its paper builds it, beside the page mapping on the same placement.
    "randwrite_learned": [*_RANDWRITE_GC, *_GROUP, *_LEARNED],
    "randwrite_group": [*_RANDWRITE_GC, *_GROUP],
    "seqwrite_learned": [*_RANDWRITE_GC, *_GROUP, *_LEARNED, "workload.rw=write"],
    # RLGC deciding after every write (closed loop: the literal zero interval, else no request
    # would get a decision): the agent, its learning diagnostics and partial GC per request.
    "randwrite_rlgc": [*_RANDWRITE_GC, "gc.scheduler=rlgc", "gc.rlgc.zero_interval=same_arrival"],
    # Random reads of an aged drive (filled, then one drive of random writes: GC has run), the
    # page mapping against TPFTL and LearnedFTL with a 2 MiB cache each.
    "randread_aged": [*_RANDREAD, "warmup.random_writes=1.0"],
    "randread_tpftl": [*_RANDREAD, "warmup.random_writes=1.0", "ftl.mapping=tpftl", "ftl.tpftl.cmt_bytes=2m"],
    "randread_learned": [
        *_RANDREAD,
        "warmup.random_writes=1.0",
        "ftl.mapping=learned",
        "ftl.learned.cmt_bytes=2m",
    ],
    # The FSP paper's QLC drive (preset li-qlc-fsp, fresh): zipf reads and writes through its
    # 2 MiB buffer of one-shot wordlines, Baseline (LRU) against the RL scheduler.
    "fsp_lru": _FSP,
    "fsp_rl": [*_FSP, "cache.eviction=rl_fsp"],
    # Pages written by the warm-up fill per wall second (requests: the pages).
    "fill_512gib": _FILL_512GIB,
}

#: Scenarios timed on their warm-up (the pages it writes), not on the measured requests.
WARMUP_TIMED = {"fill_512gib"}

#: The preset of each scenario: the foundation issue's 16 GiB device at 90 % utilisation unless
#: named here.
PRESETS = {"fsp_lru": "li-qlc-fsp", "fsp_rl": "li-qlc-fsp"}


@click.command()
@click.option(
    "--requests", "-n", default=2_000_000, show_default=True, help="Measured requests per scenario."
)
@click.option(
    "--scenario", "-s", multiple=True, type=click.Choice(sorted(SCENARIOS)), help="Only these scenarios."
)
@click.option(
    "--env",
    "env",
    is_flag=True,
    help="Instead: decisions per second of a Gymnasium environment with a random agent, resets "
    "included (one env, SyncVectorEnv, AsyncVectorEnv and the native vector env; needs the gym extra).",
)
@click.option(
    "--env-id",
    default="ssdlab/GcScheduling-v0",
    show_default=True,
    type=click.Choice(["ssdlab/GcScheduling-v0", "ssdlab/FspPlacement-v0", "ssdlab/SlcCache-v0"]),
    help="With --env: the environment.",
)
@click.option(
    "--env-setup",
    default="default",
    show_default=True,
    type=click.Choice(["default", "light"]),
    help="With --env: the environment's default setup (what gym.make(id) runs, its episodes and "
    "resets), or the lightest simulation between decisions in episodes of a million requests.",
)
@click.option("--envs", default=8, show_default=True, help="With --env: environments per vector env.")
@click.option("--decisions", default=200_000, show_default=True, help="With --env: decisions per row.")
def bench(
    requests: int,
    scenario: tuple[str, ...],
    env: bool,
    env_id: str,
    env_setup: str,
    envs: int,
    decisions: int,
) -> None:
    """Measure simulated host requests per wall second (warm-up excluded) and peak memory; with
    --env, the decisions per second of the Gymnasium environments, resets included."""
    if env:
        _env_bench(env_id, env_setup, decisions, envs)
        return
    from ssdlab.api import Simulation

    table = new_table(f"ssdlab bench on {platform.processor() or platform.machine()} ({platform.system()})")
    table.add_column("scenario", no_wrap=True)
    for col in ("requests", "wall s", "req/s", "WAF", "peak RSS MiB"):
        table.add_column(col, justify="right", no_wrap=True)
    for name in scenario or sorted(SCENARIOS):
        count = 1 if name in WARMUP_TIMED else requests
        overrides = [*SCENARIOS[name], f"workload.count={count}"]
        sim = Simulation(PRESETS.get(name, "bench-16gib"), overrides=overrides)
        start = time.perf_counter()
        sim.step(1)  # warm-up happens on the first step; kept out of the timing but where timed
        warm_wall = time.perf_counter() - start
        start = time.perf_counter()
        while not sim.step(1 << 20):
            pass
        wall = time.perf_counter() - start
        report = sim.report()
        summary = report.summary()
        done = summary["requests"]
        if name in WARMUP_TIMED:
            done, wall = report.raw["warmup"]["pages_written"], warm_wall
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        table.add_row(
            name,
            f"{done:,}",
            f"{wall:.2f}",
            f"{done / wall:,.0f}",
            fmt_sig(summary["waf"]),
            f"{rss:,.0f}",
        )
    console.print(table)
    console.print("peak RSS: whole process incl. Python; WAF: - for a scenario without writes")


def _env_bench(env_id: str, setup: str, decisions: int, envs: int) -> None:
    from ssdlab.gym.bench import WARMUP_SEED, env_bench

    rows = env_bench(decisions=decisions, envs=envs, env_id=env_id, setup=setup)
    table = new_table(
        f"ssdlab bench --env on {platform.processor() or platform.machine()} ({platform.system()})"
    )
    table.add_column("stepping", overflow="fold")
    for col in ("episodes", "decisions/s", "x one env", "no resets", "with/no", "reset ms"):
        table.add_column(col, justify="right", no_wrap=True)
    single = rows[0].per_s
    for row in rows:
        alone = row.per_s_without_resets
        table.add_row(
            row.name,
            f"{row.episodes:,}",
            f"{row.per_s:,.0f}",
            f"{row.per_s / single:.2f}",
            "-" if alone is None else f"{alone:,.0f}",
            "-" if alone is None else f"{row.per_s / alone:.2f}",
            "-" if row.mean_reset_s is None else f"{row.mean_reset_s * 1e3:.1f}",
        )
    console.print(table)
    console.print(
        f"random agent; {env_id}, {setup} setup (ssdlab.gym.bench), about {decisions:,} decisions a "
        "row; decisions/s: resets included (episodes: begun); no resets: the steps alone (one env); "
        f"with/no: their ratio; reset ms: the mean reset; shared warm-up: warmup_seed={WARMUP_SEED}"
    )
