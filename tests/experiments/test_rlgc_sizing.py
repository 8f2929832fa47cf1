"""The RLGC reproduction's documented device-sizing choice (fast; the full reproduction is marked
`reproduce` and deselected by default)."""

from __future__ import annotations

import pytest

import ssdlab
from ssdlab import config
from ssdlab.experiments import rlgc


def test_sizing_keeps_preset_shape_and_writes_the_drive_several_times(traces):
    plan = rlgc.sizing("kang-3d-128gb", traces / "msr" / "rsrch_1.txt.gz", ())
    assert rlgc.MIN_BLOCKS_PER_PLANE <= plan["blocks_per_plane"] <= 2731
    assert plan["physical_pages"] == 2 * plan["blocks_per_plane"] * 384
    assert plan["blocks_per_plane"] * 2 * 384 >= 2 * plan["footprint_pages"]
    assert plan["drive_writes"] >= 0.99 or plan["repeat"] in (rlgc.MAX_REPEAT, rlgc.MAX_REQUESTS // 13780)


def test_jobs_cover_the_grid(traces):
    trace_map = {traces / "msr" / "wdev_1.csv": ()}
    jobs, plans = rlgc.build_jobs(trace_map, ("kang-3d-128gb",), rlgc.SCHEDULERS, seeds=2)
    assert len(plans) == 1
    assert len(jobs) == len(rlgc.SCHEDULERS) * 2
    assert all(
        "workload.fold=compact" in job.overrides and "warmup.fill=true" in job.overrides for job in jobs
    )
    assert all("gc.rlgc.policy=stochastic" in job.overrides for job in jobs)  # footnote 2


def test_every_job_of_both_presets_is_a_valid_config(traces):
    # The aggressive variant's T_GC^A = 100 must fit below the free blocks the sized drive can
    # hold; validation rejects the job otherwise (at 512 blocks per plane and the whole logical
    # space in use it did: 71 spare blocks).
    trace_map = {traces / "msr" / "rsrch_1.txt.gz": (), traces / "msr" / "wdev_1.csv": ()}
    jobs, _ = rlgc.build_jobs(trace_map, rlgc.PRESETS, rlgc.SCHEDULERS, seeds=1)
    for job in jobs:
        config.resolve(job.preset, trace=job.trace, overrides=job.overrides)
    full_drive = [o for o in jobs[0].overrides if not o.startswith("device.utilization")]
    aggressive = [*full_drive, "gc.scheduler=rlgc_aggressive"]
    with pytest.raises(ssdlab.ConfigError, match="aggressive_trigger_free_blocks"):
        config.resolve(jobs[0].preset, trace=jobs[0].trace, overrides=aggressive)


@pytest.mark.reproduce
def test_full_reproduction(traces, tmp_path):
    result = rlgc.reproduce(None, tmp_path, seeds=1, shared_traces=traces, presets=("kang-3d-128gb",))
    assert result
