"""The native vector environment (`ssdlab.gym.vector`): the same trajectories as Gymnasium's
`SyncVectorEnv` over the single environment for the same seed (autoresets included), per-env
configs, actions checked per environment, and the stable-baselines3 adapter's contract."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode, SyncVectorEnv
from test_gym import BUSY
from test_gym_fsp_slc import ENVS

import ssdlab.gym  # noqa: F401  (registers the environments)
from ssdlab.errors import ActionError
from ssdlab.gym.vector import NativeVectorEnv, Sb3VecEnv

KWARGS = {"preset": "tiny", "overrides": BUSY, "requests": 300}


def actions_for(step: int, n: int, masks: np.ndarray) -> np.ndarray:
    """A fixed pseudo-random action per (step, env), within each env's mask."""
    rng = np.random.default_rng(step)
    return np.array([rng.choice(np.flatnonzero(masks[i])) for i in range(n)])


def rollout(venv, steps: int) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    obs, info = venv.reset(seed=11)
    out = [(obs.copy(), np.zeros(venv.num_envs), np.zeros(venv.num_envs, dtype=bool))]
    for step in range(steps):
        obs, reward, terminated, truncated, info = venv.step(
            actions_for(step, venv.num_envs, info["action_mask"])
        )
        assert not truncated.any()
        out.append((obs.copy(), np.asarray(reward, dtype=np.float64), terminated.copy()))
    return out


def test_same_seed_same_trajectories_as_sync_vector_env_autoresets_included():
    n = 3
    native = NativeVectorEnv(num_envs=n, **KWARGS)
    assert native.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    sync = SyncVectorEnv([lambda: gym.make("ssdlab/GcScheduling-v0", **KWARGS) for _ in range(n)])
    ours, theirs = rollout(native, 300), rollout(sync, 300)
    assert sum(t.sum() for _, _, t in ours) >= n, "every env should end an episode and autoreset"
    for k, ((o1, r1, t1), (o2, r2, t2)) in enumerate(zip(ours, theirs, strict=True)):
        np.testing.assert_array_equal(o1, o2, err_msg=f"observations, step {k}")
        np.testing.assert_allclose(r1, r2, err_msg=f"rewards, step {k}")
        np.testing.assert_array_equal(t1, t2, err_msg=f"terminations, step {k}")


@pytest.mark.parametrize(
    ("env_id", "requests"), [("ssdlab/FspPlacement-v0", 150), ("ssdlab/SlcCache-v0", 300)]
)
def test_the_page_type_and_slc_environments_step_as_their_sync_vector_envs(env_id, requests):
    kwargs = {"overrides": ENVS[env_id], "requests": requests}
    native = NativeVectorEnv(env_id, num_envs=2, **kwargs)
    sync = SyncVectorEnv([lambda: gym.make(env_id, **kwargs) for _ in range(2)])
    ours, theirs = rollout(native, 300), rollout(sync, 300)
    assert sum(t.sum() for _, _, t in ours) >= 2, "every env should end an episode and autoreset"
    for k, ((o1, r1, t1), (o2, r2, t2)) in enumerate(zip(ours, theirs, strict=True)):
        np.testing.assert_array_equal(o1, o2, err_msg=f"observations, step {k}")
        np.testing.assert_allclose(r1, r2, err_msg=f"rewards, step {k}")
        np.testing.assert_array_equal(t1, t2, err_msg=f"terminations, step {k}")


def test_per_env_configs_and_bad_actions():
    venv = NativeVectorEnv(
        num_envs=2, configs=[{"requests": 300}, {"requests": 900}], preset="tiny", overrides=BUSY
    )
    _, info = venv.reset(seed=1)
    ended_at = {}
    for step in range(400):
        _, _, terminated, _, info = venv.step(actions_for(step, 2, info["action_mask"]))
        for i in np.flatnonzero(terminated):
            ended_at.setdefault(int(i), step)
    assert ended_at[0] < ended_at.get(1, 10**9), ended_at
    with pytest.raises(ActionError, match=r"environment 1\): action 7 is out of range"):
        venv.step(np.array([0, 7]))
    # The native step checks against the masks in the buffers it shares with the env (a mask
    # set here stands for one the policy gave): nothing is stepped when one action is refused.
    before = venv._obs.copy()
    venv._mask[1, 2] = 0
    with pytest.raises(ActionError, match=r"environment 1\): action 2 is masked now: allowed 0, 1"):
        venv.step(np.array([0, 2]))
    np.testing.assert_array_equal(venv._obs, before)
    with pytest.raises(gym.error.ResetNeeded):
        NativeVectorEnv(num_envs=1, **KWARGS).step(np.array([0]))


def test_the_sb3_adapter_resets_in_the_same_step_with_the_terminal_observation():
    venv = Sb3VecEnv(NativeVectorEnv(num_envs=2, **KWARGS))
    obs = venv.reset()
    assert obs.shape == (2, 4)
    seen_terminal = False
    for _ in range(400):
        obs, rewards, dones, infos = venv.step(np.zeros(2, dtype=np.int64))
        assert obs.shape == (2, 4) and rewards.dtype == np.float32 and len(infos) == 2
        for i in np.flatnonzero(dones):
            assert infos[i]["terminal_observation"].shape == (4,)
            seen_terminal = True
    assert seen_terminal
