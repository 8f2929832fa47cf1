"""`ssdlab bench`: simulated host requests per wall-clock second on this machine, for the
scenarios docs/performance.md records."""

from __future__ import annotations

import platform
import resource
import time

import click
from rich.table import Table

from ssdlab.api import Simulation
from ssdlab.cli.common import console

# 16 GiB device (4 channels x 2 chips x 2 planes x 1024 blocks x 256 pages x 4 KiB) at 90%
# utilisation: the foundation issue's benchmark device.
BENCH_DEVICE = [
    "device.channels=4",
    "device.chips_per_channel=2",
    "device.planes_per_die=2",
    "device.blocks_per_plane=1024",
    "device.pages_per_block=256",
    "device.page_bytes=4096",
    "device.cell=slc",
    "device.timing.read_ns=[50000]",
    "device.timing.program_ns=[500000]",
    "device.overprovisioning=0.07",
    "device.utilization=0.9",
    "gc.trigger_free_blocks=32",
]

SCENARIOS = {
    "randwrite_gc": ["workload.rw=randwrite", "warmup.fill=true", "warmup.random_writes=1.0"],
    "randread": ["workload.rw=randread", "workload.iodepth=32", "warmup.fill=true"],
}


@click.command()
@click.option(
    "--requests", "-n", default=2_000_000, show_default=True, help="Measured requests per scenario."
)
@click.option(
    "--scenario", "-s", multiple=True, type=click.Choice(sorted(SCENARIOS)), help="Only these scenarios."
)
def bench(requests: int, scenario: tuple[str, ...]) -> None:
    """Measure simulated host requests per wall second (warm-up excluded) and peak memory."""
    table = Table(title=f"ssdlab bench on {platform.processor() or platform.machine()} ({platform.system()})")
    for col in ("scenario", "requests", "wall s", "req/s", "WAF", "peak RSS MiB"):
        table.add_column(col, justify="right")
    for name in scenario or sorted(SCENARIOS):
        overrides = [*BENCH_DEVICE, *SCENARIOS[name], f"workload.count={requests}"]
        sim = Simulation("tiny", overrides=overrides)
        sim.step(1)  # warm-up happens on the first step; keep it out of the timing
        start = time.perf_counter()
        while not sim.step(1 << 20):
            pass
        wall = time.perf_counter() - start
        report = sim.report()
        done = report["workload"]["requests"]
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        table.add_row(
            name, f"{done:,}", f"{wall:.2f}", f"{done / wall:,.0f}", f"{report.waf:.2f}", f"{rss:,.0f}"
        )
    console.print(table)
