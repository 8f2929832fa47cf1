"""The RLGC reproduction's documented device-sizing choice (fast; the full reproduction is marked
`reproduce` and deselected by default)."""

from __future__ import annotations

import pytest

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


@pytest.mark.reproduce
def test_full_reproduction(traces, tmp_path):
    result = rlgc.reproduce(None, tmp_path, seeds=1, shared_traces=traces, presets=("kang-3d-128gb",))
    assert result
