"""The Ray backend against the local one: the same 8-cell grid gives the same table, figure for
figure, on local processes and on a Ray instance this test starts (`ray.init(num_cpus=2)`), with
traces read at their path or shipped through the object store. Ray is installed by `make build`
(the `ray` extra): this test never skips."""

from __future__ import annotations

import json
import shutil
import tempfile
import textwrap
from pathlib import Path

import pandas as pd
import pytest

import ssdlab
from ssdlab.data import trace_path

GRID = """
seeds = 2
[base]
preset = "tiny"
trace = "excerpt.trace.gz"
set = [
  "workload.trace.max_requests=3000", "workload.fold=compact",
  "warmup.fill=true", "warmup.random_writes=1.0",
]
[axes]
"gc.scheduler" = ["greedy", "lazy_rtgc"]
"device.utilization" = [0.5, 0.9]
"""


@pytest.fixture(scope="module")
def ray_instance():
    import ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


def test_the_same_grid_gives_the_same_figures_on_local_processes_and_on_ray(tmp_path, ray_instance):
    shutil.copy(trace_path("msr_cut10k_rw20_80_105"), tmp_path / "excerpt.trace.gz")
    grid = tmp_path / "grid.toml"
    grid.write_text(textwrap.dedent(GRID).lstrip())
    local = ssdlab.sweep(grid, out=tmp_path / "local", processes=2)
    on_ray = ssdlab.sweep(grid, out=tmp_path / "ray", backend="ray")
    shipped = ssdlab.sweep(grid, out=tmp_path / "shipped", backend="ray", ship_traces=True)
    assert len(local) == 8 and set(local["status"]) == {"ok"}
    assert local["erases"].min() > 0  # GC at work: figures worth comparing
    for frame in (on_ray, shipped):
        # Everything but the wall time is identical: ids, axes, status, every figure, report paths.
        pd.testing.assert_frame_equal(frame.drop(columns="wall_s"), local.drop(columns="wall_s"))
    # The shipped runs read a copy that Ray delivered, not the file at its path.
    report = json.loads((tmp_path / "shipped" / shipped["report"][0]).read_text())
    delivered = Path(report["config"]["workload"]["path"])
    assert delivered.is_relative_to(Path(tempfile.gettempdir()) / "ssdlab-traces")
    assert delivered.read_bytes() == (tmp_path / "excerpt.trace.gz").read_bytes()
    assert json.loads((tmp_path / "ray" / on_ray["report"][0]).read_text())["config"]["workload"][
        "path"
    ] == str((tmp_path / "excerpt.trace.gz").resolve())
