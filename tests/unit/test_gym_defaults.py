"""The environments as a Gymnasium user meets them: each runs with its registered defaults (no
argument) and through `gym.make_vec` (its `vector_entry_point`, the native vector env); a shared
warm-up gives every episode the same drive, the episode seed still drawing the workload, and
an episode from the kept drive is the one that warms up itself; a run that ends before its first
decision says why, and what it suggests works."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from gymnasium.vector import AutoresetMode
from test_gym import BUSY

import ssdlab.gym
from ssdlab.errors import ConfigError
from ssdlab.gym.vector import NativeVectorEnv

IDS = list(ssdlab.gym.ENVIRONMENTS)
GC = "ssdlab/GcScheduling-v0"


@pytest.mark.parametrize("env_id", IDS)
def test_each_environment_runs_with_its_registered_defaults(env_id):
    env = gym.make(env_id)
    assert env.unwrapped.default_setup
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs) and info["action_mask"].any()
    for _ in range(300):
        obs, _, terminated, truncated, info = env.step(env.action_space.sample(info["action_mask"]))
        assert env.observation_space.contains(obs) and not truncated
        # The default episodes are thousands of decisions long: 300 steps stay inside one.
        assert not terminated


@pytest.mark.parametrize("env_id", IDS)
def test_gymnasiums_checker_passes_on_the_defaults(env_id):
    check_env(gym.make(env_id, requests=2000).unwrapped, skip_render_check=True)


@pytest.mark.parametrize("env_id", IDS)
def test_make_vec_builds_the_native_vector_env_from_the_registered_entry_point(env_id):
    venv = gym.make_vec(env_id, num_envs=2, vectorization_mode="vector_entry_point", requests=300)
    assert isinstance(venv, NativeVectorEnv) and venv.num_envs == 2 and venv.spec.id == env_id
    assert venv.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    single = gym.make(env_id, requests=300)
    assert venv.single_observation_space == single.observation_space
    assert venv.single_action_space == single.action_space
    obs, info = venv.reset(seed=0)
    assert venv.observation_space.contains(obs) and info["action_mask"].shape == (2, single.action_space.n)
    ended = np.zeros(2, dtype=bool)
    for _ in range(2000):
        obs, reward, terminated, _, info = venv.step(
            np.array([np.flatnonzero(m)[0] for m in info["action_mask"]])
        )
        assert obs.shape == (2, *single.observation_space.shape) and reward.shape == (2,)
        ended |= terminated
        if ended.all():
            break
    # The kwargs reached the environments: episodes of 300 requests end.
    assert ended.all()
    venv.close()
    # Without a mode, make_vec takes the vector entry point too.
    assert isinstance(gym.make_vec(env_id, num_envs=2, requests=300), NativeVectorEnv)


def episode(env: gym.Env, seed: int, options: dict | None = None) -> tuple[list, dict]:
    """`env`'s episode from `reset(seed=seed)`, taking the built-in agent's actions: every
    observation and reward, and the report."""
    obs, info = env.reset(seed=seed, options=options)
    steps = [tuple(obs)]
    terminated = False
    while not terminated:
        obs, reward, terminated, _, info = env.step(info["builtin_action"])
        steps.append((*obs, reward))
    return steps, env.unwrapped.report().raw


def test_a_shared_warm_up_gives_every_episode_the_same_drive_and_its_own_workload():
    shared = gym.make(GC, requests=1500, warmup_seed=3)
    (first_a, a), (first_b, b) = episode(shared, 1), episode(shared, 2)
    # The same drive: the warm-up's figures and the free blocks at the first decision.
    assert a["warmup"] == b["warmup"] and first_a[0][3] == first_b[0][3]
    # Another workload: the seed draws it.
    assert a["workload"] != b["workload"]
    # Each episode warming up itself: the warm-up seed is the episode's, the drives differ.
    own = gym.make(GC, requests=1500)
    assert episode(own, 1)[1]["warmup"] != episode(own, 2)[1]["warmup"]


def test_an_episode_from_the_kept_drive_is_the_one_that_warms_up_itself():
    kept = gym.make(GC, requests=1500, warmup_seed=3)
    episode(kept, 9)  # the drive is warmed up and kept here
    from_kept = episode(kept, 5)
    # Warming up itself with the same seeds: `warmup.seed` set, no drive kept.
    itself = episode(gym.make(GC, requests=1500, overrides=["warmup.seed=3"]), 5)
    assert from_kept == itself
    # The reset option sets the warm-up seed for this episode and the next ones; None ends it.
    by_option = gym.make(GC, requests=1500)
    assert episode(by_option, 5, {"warmup_seed": 3}) == itself
    assert episode(by_option, 5) == itself
    assert episode(by_option, 5, {"warmup_seed": None})[1]["warmup"] != itself[1]["warmup"]
    with pytest.raises(ConfigError, match="unknown reset option"):
        by_option.reset(options={"warmup": 3})
    with pytest.raises(ConfigError, match="warmup_seed must be a non-negative integer"):
        gym.make(GC, warmup_seed=-1)


def zero_actions_rollout(venv, steps: int) -> tuple[list[np.ndarray], int]:
    """Observations, rewards and terminations of `steps` steps of action 0, and episodes ended."""
    obs, _ = venv.reset(seed=11)
    out, ended = [obs.copy()], 0
    for _ in range(steps):
        obs, reward, terminated, _, _ = venv.step(np.zeros(venv.num_envs, dtype=np.int64))
        out.append(np.concatenate([obs.ravel(), reward, terminated]))
        ended += int(terminated.sum())
    return out, ended


def test_the_native_vector_env_restarts_from_the_kept_drive_as_sync_vector_env_does():
    kwargs = {"preset": "tiny", "overrides": BUSY, "requests": 300, "warmup_seed": 4}
    native = NativeVectorEnv(num_envs=3, **kwargs)
    ours, ended = zero_actions_rollout(native, 300)
    theirs, _ = zero_actions_rollout(gym.vector.SyncVectorEnv([lambda: gym.make(GC, **kwargs)] * 3), 300)
    assert ended >= 3, "every env should end an episode and restart from the kept drive"
    for k, (a, b) in enumerate(zip(ours, theirs, strict=True)):
        np.testing.assert_allclose(a, b, err_msg=f"step {k}")
    # One drive for the three slots of one config.
    assert native.templates[0]._drives is native.templates[2]._drives
    assert list(native.templates[0]._drives) == [4]


def refusal(env_id: str, **kwargs) -> str:
    with pytest.raises(ConfigError, match="ended before its first") as e:
        gym.make(env_id, **kwargs).reset(seed=0)
    return str(e.value)


def reaches_a_decision(env_id: str, **kwargs) -> bool:
    _, info = gym.make(env_id, **kwargs).reset(seed=0)
    return bool(info["action_mask"].any())


#: On/off arrivals: idle gaps between bursts.
GAPS = [
    'workload.arrival="onoff"',
    "workload.rate_iops=1000.0",
    "workload.on_ns=20000000",
    "workload.off_ns=30000000",
]
#: Filled and aged: at the trigger from the first request.
AGED = ["warmup.fill=true", "warmup.random_writes=1.0"]
#: A trigger above the tiny preset's intensive GC band (its own, 4 free blocks, is inside it).
ROOM = ["gc.trigger_free_blocks=12"]


def gc_refusal(overrides: list[str]) -> str:
    return refusal(GC, preset="tiny", overrides=overrides, requests=2000)


def gc_decides(overrides: list[str]) -> bool:
    return reaches_a_decision(GC, preset="tiny", overrides=overrides, requests=2000)


def test_the_gc_hints_say_what_is_missing_and_what_they_suggest_works():
    # A fresh drive: GC never triggers; preconditioning, as the hint says, makes RLGC decide.
    hint = gc_refusal([*GAPS, *ROOM])
    assert "GC never triggered" in hint and "warmup.fill=true and warmup.random_writes=1.0" in hint
    assert gc_decides([*GAPS, *ROOM, *AGED])
    # No idle gap (closed loop): open-loop arrivals or the literal zero interval.
    closed = [*AGED, *ROOM, 'workload.rw="randwrite"']
    hint = gc_refusal(closed)
    assert "never after an idle gap" in hint
    assert 'gc.rlgc.zero_interval="same_arrival"' in hint and 'workload.arrival="onoff"' in hint
    for fix in ('gc.rlgc.zero_interval="same_arrival"', 'workload.arrival="onoff"'):
        assert gc_decides([*closed, fix]), fix
    # The trigger inside intensive GC's band: a trigger above it.
    hint = gc_refusal([*GAPS, *AGED])
    assert "only as intensive GC" in hint and "gc.trigger_free_blocks=12" in hint
    assert gc_decides([*GAPS, *AGED, *ROOM])
    # The run: the old hint's fix (a fuller drive) on the tiny preset's closed loop. The
    # hint now names the first thing missing, and its fix leads to the next one's hint.
    assert "only as intensive GC" in refusal(GC, preset="tiny", overrides=["warmup.fill=true"])
    assert "never after an idle gap" in refusal(GC, preset="tiny", overrides=["warmup.fill=true", *ROOM])


def test_the_page_type_and_slc_hints_suggest_what_works():
    fsp = "ssdlab/FspPlacement-v0"
    hint = refusal(fsp, overrides=['workload.rw="randread"'], requests=500)
    assert 'workload.rw="randrw"' in hint
    assert reaches_a_decision(fsp, overrides=['workload.rw="randrw"'], requests=500)
    slc = "ssdlab/SlcCache-v0"
    hint = refusal(slc, preset="yoo-hybrid-qlc", requests=2000)
    assert "slc.rl.step_slc_blocks=1" in hint and "7.8 MiB" in hint
    assert reaches_a_decision(
        slc, preset="yoo-hybrid-qlc", overrides=["slc.rl.step_slc_blocks=1"], requests=2000
    )
