"""Cells: the grid's expansion (order, seeds, excludes), stable ids and invalid cells
(`ssdlab.sweeps.plan`, `ssdlab.sweeps.cells`)."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest

import ssdlab
from ssdlab.data import trace_path
from ssdlab.experiments.common import Job
from ssdlab.setup import Setup
from ssdlab.sweeps import cells_from_jobs, load_grid, plan

BUNDLED = "msr_cut10k_rw20_80_105"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip())
    return path


def test_cells_are_the_axes_product_first_axis_slowest_then_seeds_minus_excludes(tmp_path):
    grid = load_grid(
        write(
            tmp_path / "g.toml",
            """
            seeds = 2
            [base]
            workload = "randwrite"
            [axes]
            "gc.scheduler" = ["greedy", "lazy_rtgc", "rlgc"]
            "device.utilization" = [0.5, 0.7]
            [[exclude]]
            "gc.scheduler" = "greedy"
            "device.utilization" = 0.5
            [[exclude]]
            "gc.scheduler" = "rlgc"
            """,
        )
    )
    cells = plan(grid)
    assert [(c.labels["gc.scheduler"], c.labels["device.utilization"], c.labels["seed"]) for c in cells] == [
        ("greedy", 0.7, 0), ("greedy", 0.7, 1),
        ("lazy_rtgc", 0.5, 0), ("lazy_rtgc", 0.5, 1), ("lazy_rtgc", 0.7, 0), ("lazy_rtgc", 0.7, 1),
    ]  # fmt: skip
    job = cells[2].job
    assert job.setup.preset == "tiny" and job.setup.workload == "randwrite"
    assert job.setup.overrides == ('gc.scheduler="lazy_rtgc"', "device.utilization=0.5", "seed=0")
    assert len({c.id for c in cells}) == len(cells)
    assert all(len(c.id) == 16 and int(c.id, 16) >= 0 for c in cells)
    assert all(c.invalid is None for c in cells)


def _trace_grid(directory: Path, trace_name: str) -> list:
    directory.mkdir(parents=True)
    shutil.copy(trace_path(BUNDLED), directory / trace_name)
    grid = write(
        directory / "grid.toml",
        f"""
        seeds = 2
        [base]
        trace = "{trace_name}"
        set = ["workload.trace.max_requests=100"]
        [axes]
        "gc.victim" = ["greedy", "fifo"]
        """,
    )
    return plan(load_grid(grid))


def test_ids_do_not_depend_on_where_the_grid_and_its_trace_are(tmp_path):
    here = _trace_grid(tmp_path / "a", "trace.gz")
    elsewhere = _trace_grid(tmp_path / "b" / "deeper", "renamed.gz")
    assert here[0].job.setup.trace != elsewhere[0].job.setup.trace
    assert [c.id for c in here] == [c.id for c in elsewhere]
    # The trace's content is what counts: one byte more is another cell.
    with open(tmp_path / "a" / "trace.gz", "ab") as f:
        f.write(b"\0")
    changed = plan(load_grid(tmp_path / "a" / "grid.toml"))
    assert not {c.id for c in changed} & {c.id for c in here}


def test_one_configuration_spelled_two_ways_is_one_id_and_the_seed_is_part_of_it():
    jobs = [
        Job({"n": 1}, Setup("tiny", "randwrite", overrides=('workload.bs="4k"', "seed=1"))),
        Job({"n": 2}, Setup("tiny", "randwrite", overrides=("workload.bs=4096", "seed=1"))),
        Job({"n": 3}, Setup("tiny", "randwrite", overrides=("workload.bs=4096", "seed=2"))),
    ]
    a, b, c = cells_from_jobs(jobs)
    assert a.id == b.id != c.id
    assert [cell.labels for cell in (a, b, c)] == [{"n": 1}, {"n": 2}, {"n": 3}]


def test_a_job_whose_config_is_invalid_is_an_invalid_cell_with_the_reason_and_a_stable_id(tmp_path):
    job = Job({"u": 7}, Setup("tiny", "randwrite", overrides=("device.utilization=7",)))
    cell, again = cells_from_jobs([job, job])
    assert cell.invalid is not None and "device.utilization: 7 is outside (0, 1]" in cell.invalid
    assert cell.id == again.id and len(cell.id) == 16
    (valid,) = cells_from_jobs([Job({}, Setup("tiny", "randwrite", overrides=("device.utilization=0.7",)))])
    assert valid.invalid is None and valid.id != cell.id


def test_grid_cells_and_job_cells_of_one_configuration_share_their_id(tmp_path):
    grid = write(tmp_path / "g.toml", "[base]\nworkload = 'randwrite'\n[axes]\n'gc.victim' = ['fifo']\n")
    (from_grid,) = plan(load_grid(grid))
    (from_job,) = cells_from_jobs(
        [Job({}, Setup("tiny", "randwrite", overrides=("gc.victim=fifo", "seed=0")))]
    )
    assert from_grid.id == from_job.id


def test_ids_are_the_ones_existing_results_directories_hold(tmp_path):
    """Ids computed before `Job` held a `Setup` (main at c025d95): a results directory written
    then resumes only while a job of the same inputs keeps its id. Valid cells hash the resolved
    configuration (a new config key changes them all: that is why ID_SCHEME exists), invalid ones
    their inputs, files by content: the trace, the config files, a workload file."""
    bundled = str(trace_path(BUNDLED))
    extra = write(tmp_path / "extra.toml", '[gc]\nvictim = "fifo"\n')
    workload_file = write(tmp_path / "wl.toml", '[workload]\npattern = "randwrite"\ncount = 500\n')
    jobs = [
        Job({}, Setup("tiny", "randwrite", overrides=("workload.count=1000", "seed=3"))),
        Job(
            {},
            Setup(
                "tiny", trace=bundled, overrides=("workload.trace.max_requests=100",), config_files=(extra,)
            ),
        ),
        Job({}, Setup("tiny", "randwrite", bundled, ("workload.count=100",), trace_with_workload=True)),
        Job(
            {},
            Setup(
                "tiny",
                trace=bundled,
                overrides=("device.utilization=7",),
                config_files=(extra,),
                trace_format="msr",
            ),
        ),
        Job({}, Setup("tiny", workload_file, overrides=("device.utilization=7",))),
        Job({}, Setup(None, overrides=("seed=2",))),
    ]
    cells = cells_from_jobs(jobs)
    assert [c.invalid is None for c in cells] == [True, True, True, False, False, False]
    assert [c.id for c in cells] == [
        "2071de389de0b0fc", "dc5c9a8d400bc3d5", "27ddd1fe09ebe889",
        "760a89687db59197", "670f80fbcb2e6ab5", "537803ee5f1139bd",
    ]  # fmt: skip


def test_a_grid_whose_every_combination_is_excluded_is_an_error_on_its_first_exclude(tmp_path):
    path = write(
        tmp_path / "g.toml",
        """
        [base]
        workload = "randwrite"
        [axes]
        "gc.scheduler" = ["greedy", "rlgc"]
        [[exclude]]
        "gc.scheduler" = "greedy"
        [[exclude]]
        "gc.scheduler" = "rlgc"
        """,
    )
    with pytest.raises(ssdlab.ConfigError) as info:
        plan(load_grid(path))
    assert info.value.line == 5
    assert info.value.message == (
        f"{path}:5: [[exclude]]: every combination of the axes is excluded: the grid has no cell to run"
    )
