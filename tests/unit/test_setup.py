"""`ssdlab.Setup`, what to simulate as one value: the API's keyword arguments build the same run,
and the gym, the sweeps' jobs and grids and `ssdlab compare` take it."""

from __future__ import annotations

import pytest

import ssdlab
from ssdlab.config import raw_config
from ssdlab.experiments import compare
from ssdlab.sweeps.grid import load_grid
from ssdlab.sweeps.job import Job

SETUP = ssdlab.Setup("tiny", "randwrite", overrides=("workload.count=1500", "seed=3"))


def test_a_run_of_a_setup_is_the_run_of_its_keyword_arguments():
    by_setup = ssdlab.run(setup=SETUP)
    by_arguments = ssdlab.run(
        preset="tiny", workload="randwrite", overrides=["workload.count=1500", "seed=3"]
    )
    assert by_setup.raw == by_arguments.raw and by_setup["workload"]["requests"] == 1500
    assert SETUP.raw() == raw_config("tiny", "randwrite", None, ["workload.count=1500", "seed=3"])


def test_a_setup_and_its_keyword_arguments_together_are_refused():
    with pytest.raises(ssdlab.ConfigError, match="preset, workload beside setup="):
        ssdlab.Simulation("kang-3d-128gb", "randread", setup=SETUP)


def test_more_overrides_go_after_the_setups_own():
    more = SETUP.with_overrides("seed=4")
    assert more.overrides == ("workload.count=1500", "seed=3", "seed=4")
    assert "seed = 4" in more.resolve() and SETUP.overrides == ("workload.count=1500", "seed=3")
    mapping = ssdlab.Setup("tiny", overrides={"seed": 7}).with_overrides("workload.count=10")
    assert mapping.overrides == ("seed=7", "workload.count=10")


def test_a_job_simulates_its_setup():
    job = Job({"n": 1}, SETUP)
    assert job.setup is SETUP
    assert job.run().raw == ssdlab.run(setup=SETUP).raw


def test_a_sweeps_base_and_compares_shared_arguments_are_setups(tmp_path):
    grid_file = tmp_path / "grid.toml"
    grid_file.write_text(
        '[base]\npreset = "tiny"\nworkload = "randwrite"\nset = ["workload.count=100"]\n\n'
        '[axes]\n"gc.victim" = ["greedy", "fifo"]\n'
    )
    base = load_grid(grid_file).base
    assert isinstance(base, ssdlab.Setup) and base.preset == "tiny" and base.workload == "randwrite"
    assert compare.Setup is ssdlab.Setup


def test_an_environment_takes_a_setup_in_place_of_its_arguments():
    pytest.importorskip("gymnasium")
    from ssdlab.gym.decision_env import SlcCacheEnv

    overrides = (*SlcCacheEnv.DEFAULT_SETUP.overrides, "workload.count=4000")
    setup = ssdlab.Setup("yoo-hybrid-qlc", overrides=overrides)
    by_setup = SlcCacheEnv(setup=setup)
    by_arguments = SlcCacheEnv(preset="yoo-hybrid-qlc", overrides=overrides)
    assert by_setup.raw_config(5) == by_arguments.raw_config(5)
    with pytest.raises(ssdlab.ConfigError, match="preset beside setup="):
        SlcCacheEnv(preset="kang-3d-128gb", setup=setup)
