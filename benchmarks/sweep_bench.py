"""The sweep engine's throughput (issue #32's targets; figures in docs/sweeps.md): a grid of 32
cells of about a second each, run

  1. locally on one process (the cell rate of one core),
  2. locally on every core: target >= 90 % of the cores busy,
  3. on a local Ray instance with the same CPUs, started beforehand: target <= 15 % more wall
     time than (2). Ray's start-up is timed apart (a cluster is started once, not per sweep).

Two measures of "busy", because a shared machine lends no core whole:
  - speed-up: the cell rate against the processes times the rate of one process alone (what the
    user sees; lowered by any other load on the machine);
  - slots busy: the summed wall time of the cells against wall time x processes, i.e. how much
    of the time each worker had a cell to run (the engine's own overhead: start-up, hand-over
    between cells, the driver writing results). Other load slows the cells, not this.

Not a test (no timing is): run it by hand, on a machine as quiet as can be, and record the load
it ran under.

    PYTHONPATH=python .venv/bin/python benchmarks/sweep_bench.py [--requests N] [--processes N]
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import tempfile
import time
from pathlib import Path

GRID = """
seeds = 8
[base]
preset = "tiny"
workload = "randwrite"
set = ["workload.count={requests}"]
[axes]
"gc.scheduler" = ["greedy", "lazy_rtgc"]
"device.utilization" = [0.6, 0.8]
"""


def timed_sweep(grid: Path, out: Path, **options) -> tuple[float, list[float]]:
    """Wall time of one sweep into a fresh directory, and each cell's own wall time."""
    from ssdlab.sweeps import run_sweep

    start = time.perf_counter()
    result = run_sweep(grid, out=out, resume=False, **options)
    elapsed = time.perf_counter() - start
    assert all(o.ok for o in result.outcomes), [o.error for o in result.outcomes if not o.ok]
    return elapsed, [o.wall_s for o in result.outcomes]


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} / {five:.2f} / {fifteen:.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=3_000_000, help="requests per cell (~1 s on tiny)")
    parser.add_argument("--processes", type=int, default=os.cpu_count(), help="cores to use")
    args = parser.parse_args()
    cores = args.processes

    import ray

    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores; using {cores}")
    print(f"load average (1/5/15 min) before: {load()}")
    with tempfile.TemporaryDirectory(prefix="sweep-bench-") as scratch:
        root = Path(scratch)
        grid = root / "grid.toml"
        grid.write_text(GRID.format(requests=args.requests))

        serial, serial_cells = timed_sweep(grid, root / "serial", processes=1)
        cells = len(serial_cells)
        local, local_cells = timed_sweep(grid, root / "local", processes=cores)
        start = time.perf_counter()
        ray.init(num_cpus=cores, include_dashboard=False, log_to_driver=False)
        ray_start = time.perf_counter() - start
        try:
            on_ray, ray_cells = timed_sweep(grid, root / "ray", backend="ray")
        finally:
            ray.shutdown()

    rate_one = cells / serial
    print(f"load average after: {load()}")
    print(f"{cells} cells, mean cell {math.fsum(serial_cells) / cells:.2f} s alone")
    print(f"{'run':<22}{'wall s':>8}{'cells/s':>9}{'speed-up':>10}{'slots busy':>12}")
    for name, wall, walls, processes in [
        ("local, 1 process", serial, serial_cells, 1),
        (f"local, {cores} processes", local, local_cells, cores),
        (f"ray, {cores} CPUs", on_ray, ray_cells, cores),
    ]:
        speed_up = (cells / wall) / (processes * rate_one)
        slots = math.fsum(walls) / (wall * processes)
        print(f"{name:<22}{wall:>8.2f}{cells / wall:>9.2f}{speed_up:>10.0%}{slots:>12.0%}")
    print(f"ray over local: {on_ray / local - 1:+.1%} wall time (ray.init apart: {ray_start:.1f} s)")


if __name__ == "__main__":
    main()
