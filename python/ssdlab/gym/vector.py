"""Layer: Python, gym. The native vector environment: N simulations of one decision kind stepped
together in Rust by the calling thread and worker threads that stay awake between steps, the
GIL released, observations, masks, rewards and
terminations written into numpy buffers this object owns; a Gymnasium `VectorEnv`
(`metadata["autoreset_mode"]` is NEXT_STEP, Gymnasium's default: an environment that ended is
reset at the next `step`, its action ignored). Per-environment configs are allowed (different
traces or presets per environment).

Seeding follows `SyncVectorEnv` over the single environment: `reset(seed=s)` runs environment i
with seed s + i, and each later episode's seed comes from environment i's own generator, so the
same seed gives the same trajectories as `SyncVectorEnv` (tests/unit/test_gym_vector.py). A
shared warm-up (`warmup_seed=w`, or `reset(options={"warmup_seed": w})`, as the single
environment takes it) is warmed up once for the environments of one config, and every restart
copies the drive on the worker threads.

`gym.make_vec(id, num_envs=n, vectorization_mode="vector_entry_point", **kwargs)` builds it (each
id is registered with its `vector_entry_point`, the functions at the end of this module).

`Sb3VecEnv` adapts it to stable-baselines3's `VecEnv` contract (same-step reset, the final
observation in `info["terminal_observation"]`) without importing stable-baselines3."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from ssdlab.api import VecSimulation
from ssdlab.errors import ConfigError
from ssdlab.gym.decision_env import DecisionEnv


class NativeVectorEnv(VectorEnv):
    """`num_envs` environments `env_id` (`ssdlab/GcScheduling-v0`), built from `kwargs` (the
    single environment's arguments), each updated by `configs[i]` if given."""

    metadata: ClassVar[dict[str, Any]] = {"autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(
        self,
        env_id: str = "ssdlab/GcScheduling-v0",
        num_envs: int = 8,
        configs: Sequence[dict[str, Any]] | None = None,
        threads: int | None = None,
        **kwargs: Any,
    ) -> None:
        """`threads`: worker threads beside the calling one (default: one per core but one;
        `VecSimulation`, crates/ssdlab-py/src/workers.rs)."""
        if num_envs < 1:
            raise ConfigError(f"{env_id}: num_envs must be at least 1, got {num_envs}")
        if configs is not None and len(configs) != num_envs:
            raise ConfigError(f"{env_id}: {len(configs)} configs for {num_envs} environments")
        self.env_id = env_id
        self.num_envs = num_envs
        #: One environment per slot, never stepped: its spaces, its config and its generator.
        self.templates: list[DecisionEnv] = [
            gym.make(env_id, **{**kwargs, **(configs[i] if configs else {})}).unwrapped
            for i in range(num_envs)
        ]
        # The slots of one config share its warm drives (a drive is warmed up once for them).
        drives: dict[str, dict] = {}
        for i, t in enumerate(self.templates):
            t._drives = drives.setdefault(repr(configs[i]) if configs else "", t._drives)
        first = self.templates[0]
        for i, t in enumerate(self.templates[1:], 1):
            if t.observation_space != first.observation_space or t.action_space != first.action_space:
                raise ConfigError(f"{env_id}: environment {i}'s spaces differ from environment 0's")
        self.single_observation_space = first.observation_space
        self.single_action_space = first.action_space
        self.observation_space = batch_space(first.observation_space, num_envs)
        self.action_space = batch_space(first.action_space, num_envs)
        features, actions = first.observation_space.shape[0], int(first.action_space.n)
        self._native = VecSimulation(first.KIND, num_envs, features, actions, env_id, threads)
        self.threads: int = self._native.threads
        self._obs = np.zeros((num_envs, features), dtype=np.float32)
        self._mask = np.ones((num_envs, actions), dtype=np.int8)
        self._reward = np.zeros(num_envs, dtype=np.float64)
        self._builtin = np.zeros(num_envs, dtype=np.int64)
        self._done = np.zeros(num_envs, dtype=np.uint8)
        # Bound once: a step hands over only its actions (and checks them against the masks).
        self._native.bind(self._obs, self._mask, self._reward, self._builtin, self._done)
        self._restart = np.ones(num_envs, dtype=bool)
        self._true = np.ones(num_envs, dtype=bool)
        self._true.flags.writeable = False
        self._false = np.zeros(num_envs, dtype=bool)
        self._started = False

    def _run(self, actions: np.ndarray, seeds: Sequence[int | None] | None) -> None:
        if not self._restart.any():
            self._native.step(actions)
            return
        restarts, drives = [], []
        for i, t in enumerate(self.templates):
            if not self._restart[i]:
                restarts.append(None)
                drives.append(None)
                continue
            seed = None if seeds is None else seeds[i]
            if seed is not None:
                gym.Env.reset(t, seed=seed)  # seeds the slot's generator, as the env's reset does
            restarts.append(t.raw_config(t.run_seed(seed)))
            drives.append(None if t.warmup_seed is None else t.warm_drive(t.warmup_seed))
        self._native.step(actions, restarts, drives)

    def reset(self, *, seed: int | Sequence[int | None] | None = None, options: dict[str, Any] | None = None):
        """`seed`: environment i runs with seed + i (or a seed per environment); `options`: as
        the single environment's (`warmup_seed`), for every environment."""
        if self.closed:
            raise gym.error.ClosedEnvironmentError(f"{self.env_id}: the vector env is closed")
        super().reset(seed=seed if isinstance(seed, int) else None)
        for t in self.templates:
            t.set_options(options)
        if seed is None or isinstance(seed, int):
            seeds = [None if seed is None else seed + i for i in range(self.num_envs)]
        else:
            seeds = list(seed)
        self._restart[:] = True
        self._run(np.zeros(self.num_envs, dtype=np.int64), seeds)
        self._raise_if_empty()
        self._restart[:] = False
        self._started = True
        return self._obs.copy(), self._infos()

    def step(self, actions):
        if self.closed:
            raise gym.error.ClosedEnvironmentError(f"{self.env_id}: the vector env is closed")
        if not self._started:
            raise gym.error.ResetNeeded(f"{self.env_id}: call reset() before step()")
        actions = np.asarray(actions, dtype=np.int64).reshape(self.num_envs)
        if not self._restart.any():
            # The common step: no environment restarts (fewer array operations: this runs once
            # per N decisions). The native step checks the actions against the masks.
            self._native.step(actions)
            terminated = self._done.view(bool).copy()
            if terminated.any():
                self._restart = terminated.copy()
                reward = np.where(terminated, 0.0, self._reward)
            else:
                reward = self._reward.copy()
            return self._obs.copy(), reward, terminated, self._false.copy(), self._infos()
        restarted = self._restart.copy()
        self._run(actions, None)
        self._raise_if_empty(restarted)
        terminated = self._done.astype(bool) & ~restarted
        self._restart = terminated
        reward = np.where(restarted | terminated, 0.0, self._reward)
        return self._obs.copy(), reward, terminated, self._false.copy(), self._infos()

    def restart_ended(self) -> tuple[np.ndarray, np.ndarray]:
        """Restart the environments whose episode ended at the last step (the others wait, not
        stepped); the observations and masks after it."""
        restarting = self._restart.copy()
        self._run(np.full(self.num_envs, -1, dtype=np.int64), None)
        self._raise_if_empty(restarting)
        self._restart[:] = False
        return self._obs.copy(), self._mask.copy()

    def _raise_if_empty(self, restarted: np.ndarray | None = None) -> None:
        started = self._restart if restarted is None else restarted
        empty = np.flatnonzero(started & self._done.astype(bool))
        if len(empty):
            i = int(empty[0])
            t = self.templates[i]
            raise ConfigError(
                f"{self.env_id}: environment {i}'s run ended before its first {t.KIND} decision: "
                f"{t.no_decision_hint(self._native.report(i))}"
            )

    def close_extras(self, **kwargs: Any) -> None:
        # The worker threads stop with the native vector env (absent if building failed).
        self.__dict__.pop("_native", None)

    def _infos(self) -> dict[str, Any]:
        return {
            "action_mask": self._mask.copy(),
            "_action_mask": self._true,
            "builtin_action": self._builtin.copy(),
            "_builtin_action": self._true,
        }

    def report(self, i: int):
        """Environment `i`'s report (its current episode; final once it ended), as a dict."""
        return self._native.report(i)


class Sb3VecEnv:
    """stable-baselines3's `VecEnv` contract over `NativeVectorEnv`: `reset()` returns the
    observations; `step_async` / `step_wait` (or `step`) return (obs, rewards, dones, infos)
    with an ended environment reset in the same step and its final observation in
    `infos[i]["terminal_observation"]`. Duck-typed: stable-baselines3 is not a dependency."""

    def __init__(self, venv: NativeVectorEnv) -> None:
        self.venv = venv
        self.num_envs = venv.num_envs
        self.observation_space = venv.single_observation_space
        self.action_space = venv.single_action_space
        self._actions: np.ndarray | None = None

    def reset(self) -> np.ndarray:
        obs, _ = self.venv.reset()
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)

    def step_wait(self):
        obs, reward, terminated, truncated, info = self.venv.step(self._actions)
        dones = terminated | truncated
        infos: list[dict[str, Any]] = [{"action_mask": info["action_mask"][i]} for i in range(self.num_envs)]
        if dones.any():
            # Same-step reset: the ended environments restart now, the others wait.
            final = obs.copy()
            obs, masks = self.venv.restart_ended()
            for i in np.flatnonzero(dones):
                infos[i]["terminal_observation"] = final[i]
                infos[i]["action_mask"] = masks[i]
        return obs, reward.astype(np.float32), dones, infos

    def step(self, actions: np.ndarray):
        self.step_async(actions)
        return self.step_wait()

    def close(self) -> None:
        self.venv.close()


def _vector_entry_point(env_id: str):
    def make(num_envs: int = 1, **kwargs: Any) -> NativeVectorEnv:
        return NativeVectorEnv(env_id, num_envs, **kwargs)

    make.__doc__ = f"""`gym.make_vec("{env_id}", vectorization_mode="vector_entry_point")`: the native
    vector environment of `num_envs` environments built from `kwargs`."""
    return make


#: The registered `vector_entry_point` of each environment (`ssdlab.gym.ENVIRONMENTS`).
gc_scheduling = _vector_entry_point("ssdlab/GcScheduling-v0")
fsp_placement = _vector_entry_point("ssdlab/FspPlacement-v0")
slc_cache = _vector_entry_point("ssdlab/SlcCache-v0")
