"""The Gymnasium environments (`ssdlab.gym`): registered on import, Gymnasium's own checker
passes, seeds reproduce, the built-in agent replayed through the environment reproduces its own
run, bad actions and configs are refused with reasons, verify mode works."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import ssdlab
import ssdlab.gym
from ssdlab.errors import ActionError, ConfigError

#: A drive where GC triggers from the first requests: the tiny preset filled, T_GC = 12,
#: open-loop bursts with idle gaps (RLGC decides only after a gap), verify on.
BUSY = (
    "verify=true",
    "warmup.fill=true",
    "warmup.random_writes=0.5",
    "gc.trigger_free_blocks=12",
    'workload.rw="randrw"',
    "workload.rwmixread=30",
    'workload.arrival="onoff"',
    "workload.rate_iops=1000.0",
    "workload.on_ns=20000000",
    "workload.off_ns=30000000",
)


def make(requests: int = 3000, **kwargs) -> gym.Env:
    return gym.make("ssdlab/GcScheduling-v0", preset="tiny", overrides=BUSY, requests=requests, **kwargs)


def test_registered_on_import_and_gymnasiums_checker_passes():
    assert "ssdlab/GcScheduling-v0" in gym.registry
    env = make().unwrapped
    check_env(env, skip_render_check=True)
    assert env.action_space.n == 3  # the tiny preset's [gc.rlgc] max_copies = 2
    assert [f["name"] for f in env.features] == [
        "interval_us",
        "previous_interval_us",
        "previous_action",
        "free_blocks",
    ]


def test_an_episode_runs_to_the_end_with_the_data_intact():
    env = make()
    obs, info = env.reset(seed=3)
    assert env.observation_space.contains(obs) and info["action_mask"].all()
    steps, total = 0, 0.0
    terminated = False
    while not terminated:
        obs, reward, terminated, truncated, info = env.step(env.action_space.sample(info["action_mask"]))
        assert not truncated and env.observation_space.contains(obs)
        total += reward
        steps += 1
    report = env.unwrapped.report()
    assert steps > 50 and report["verify"]["final_scan_passed"] and report["verify"]["reads_checked"] > 0
    assert report["workload"]["requests"] == 3000
    assert -0.5 * steps <= total <= steps
    with pytest.raises(gym.error.ResetNeeded):
        env.step(0)


def trajectory(env: gym.Env, seed: int) -> list[tuple]:
    """An episode of `env` from `reset(seed=seed)` with fixed pseudo-random actions: every
    observation and reward."""
    obs, _ = env.reset(seed=seed)
    out = [tuple(obs)]
    rng = np.random.default_rng(0)
    terminated = False
    while not terminated:
        obs, reward, terminated, _, _ = env.step(int(rng.integers(env.action_space.n)))
        out.append((*obs, reward))
    return out


def test_the_same_seed_gives_the_same_trajectory():
    assert trajectory(make(requests=1500), 7) == trajectory(make(requests=1500), 7)
    assert trajectory(make(requests=1500), 7) != trajectory(make(requests=1500), 8)


def test_replaying_the_builtin_agent_gives_the_run_it_gives_alone():
    env = make(requests=2000)
    _, info = env.reset(seed=5)
    terminated = False
    while not terminated:
        _, _, terminated, _, info = env.step(info["builtin_action"])
    driven = env.unwrapped.report()
    alone = ssdlab.run(preset="tiny", overrides=["gc.scheduler=rlgc", *BUSY, "workload.count=2000", "seed=5"])
    assert driven.raw == alone.raw


def test_bad_actions_and_configs_are_refused_with_reasons():
    env = make()
    env.reset(seed=1)
    with pytest.raises(ActionError, match=r"ssdlab/GcScheduling-v0: action 3 is out of range"):
        env.step(3)
    with pytest.raises(ActionError, match="not an integer"):
        env.step("two")
    # The refused action left the decision waiting: a valid one goes on.
    env.step(1)
    with pytest.raises(ConfigError, match="`greedy` has no decision point"):
        gym.make("ssdlab/GcScheduling-v0", overrides=["gc.scheduler=greedy"])
    with pytest.raises(ConfigError, match="requests must be at least 1"):
        make(requests=0)


def test_decisions_written_into_bound_arrays_are_the_listed_ones():
    overrides = ["gc.scheduler=rlgc", *BUSY, "workload.count=1500", "seed=4"]
    listed, bound = (
        ssdlab.Simulation(preset="tiny", overrides=overrides),
        ssdlab.Simulation(preset="tiny", overrides=overrides),
    )
    space = listed.attach("gc.scheduler")
    bound.attach("gc.scheduler")
    obs = np.zeros(len(space["features"]), dtype=np.float32)
    mask = np.zeros(space["actions"], dtype=np.int8)
    with pytest.raises(RuntimeError, match="bind_decisions"):
        bound.advance_into()
    with pytest.raises(ValueError, match="writable"):
        frozen = obs.copy()
        frozen.flags.writeable = False
        bound.bind_decisions(frozen, mask)
    bound.bind_decisions(obs, mask)
    a, b = listed.advance(), bound.advance_into()
    steps = 0
    while a is not None:
        observation, allowed, reward, builtin, parts = a
        assert b == (reward, builtin, parts)
        np.testing.assert_array_equal(obs, np.array(observation, dtype=np.float32))
        np.testing.assert_array_equal(mask, np.array(allowed, dtype=np.int8))
        a, b = listed.act(builtin), bound.act_into(builtin)
        steps += 1
    assert b is None and steps > 50
