"""Layer: Python, gym. `ssdlab bench --env`: decisions per wall second of an environment with a
random agent, resets included, for one environment (each episode warming its drive up itself,
and sharing one warm-up), Gymnasium's SyncVectorEnv and AsyncVectorEnv of N, and the native
vector environment of N.

Two setups (`SETUPS`):
- `default`: what `gym.make(id)` runs (the environment's `DEFAULT_SETUP`: its drive, workload
  and episode length), so episodes end and reset as they do in training. One env's rows also
  give its rate over the steps alone (resets left out) and the mean reset.
- `light`: the lightest simulation between decisions, episodes of a million requests (resets
  rare): what remains is the cost of the environment around the simulation. For the GC
  environment, the tiny preset, filled and aged, random 4 KiB writes in closed loop, RLGC's
  "zero interval" read literally (`same_arrival`), so that every write while GC is triggered is a
  decision; for the page-type and SLC environments, their default setups (a page type per page
  written: light; an SLC step per 128 pages of 64 KiB writes: heavy, GC and migration between
  steps).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import gymnasium as gym
import numpy as np

import ssdlab.gym  # noqa: F401  (registers the environments)
from ssdlab.gym.decision_env import FspPlacementEnv, SlcCacheEnv
from ssdlab.gym.vector import NativeVectorEnv

ENV_ID = "ssdlab/GcScheduling-v0"

#: The light workload of the GC environment (see the module).
LIGHT = (
    "gc.scheduler=rlgc",
    "gc.rlgc.zero_interval=same_arrival",
    "gc.trigger_free_blocks=12",
    "warmup.fill=true",
    "warmup.random_writes=1.0",
    'workload.rw="randwrite"',
)

#: Each environment's light setup (see the module).
WORKLOADS: dict[str, dict[str, Any]] = {
    ENV_ID: {"preset": "tiny", "overrides": LIGHT},
    "ssdlab/FspPlacement-v0": {"overrides": FspPlacementEnv.DEFAULT_SETUP.overrides},
    "ssdlab/SlcCache-v0": {"overrides": SlcCacheEnv.DEFAULT_SETUP.overrides},
}

#: Requests per episode of the light setup.
LIGHT_REQUESTS = 1_000_000

#: The setups `env_bench` times (see the module).
SETUPS = ("default", "light")

#: The warm-up seed of the rows that share one.
WARMUP_SEED = 0


@dataclass(frozen=True)
class EnvBenchRow:
    name: str
    envs: int
    decisions: int
    #: Episodes begun (the first included).
    episodes: int
    wall_s: float
    #: Wall time in resets (one env only; None where resets happen inside a vector step).
    reset_s: float | None = None

    @property
    def per_s(self) -> float:
        """Decisions per second, resets included."""
        return self.decisions / self.wall_s

    @property
    def per_s_without_resets(self) -> float | None:
        """Decisions per second over the steps alone (one env only)."""
        return None if self.reset_s is None else self.decisions / (self.wall_s - self.reset_s)

    @property
    def mean_reset_s(self) -> float | None:
        return None if self.reset_s is None else self.reset_s / self.episodes


def _kwargs(env_id: str, setup: str) -> dict:
    if setup == "default":
        return {}
    return {**WORKLOADS[env_id], "requests": LIGHT_REQUESTS}


def _single(name: str, env: gym.Env, decisions: int) -> EnvBenchRow:
    rng = np.random.default_rng(0)
    n = env.action_space.n
    start = time.perf_counter()
    env.reset(seed=1)
    reset_s = time.perf_counter() - start
    done, episodes = 0, 1
    while done < decisions:
        _, _, terminated, truncated, _ = env.step(int(rng.integers(n)))
        done += 1
        if terminated or truncated:
            began = time.perf_counter()
            env.reset()
            reset_s += time.perf_counter() - began
            episodes += 1
    return EnvBenchRow(name, 1, done, episodes, time.perf_counter() - start, reset_s)


def _vector(name: str, venv, decisions: int) -> EnvBenchRow:
    rng = np.random.default_rng(0)
    n = venv.single_action_space.n
    start = time.perf_counter()
    venv.reset(seed=1)
    done, episodes = 0, venv.num_envs
    while done < decisions:
        _, _, terminated, truncated, _ = venv.step(rng.integers(n, size=venv.num_envs))
        done += venv.num_envs
        # NEXT_STEP autoreset: an ended environment restarts at the next step (its action
        # ignored; counted here with the decisions of the step, as a SyncVectorEnv counts it).
        episodes += int(np.count_nonzero(terminated | truncated))
    wall = time.perf_counter() - start
    venv.close()
    return EnvBenchRow(name, venv.num_envs, done, episodes, wall)


def env_bench(
    decisions: int = 200_000, envs: int = 8, env_id: str = ENV_ID, setup: str = "default"
) -> list[EnvBenchRow]:
    """Time each way of stepping `env_id` on `setup` (`SETUPS`) for about `decisions`
    decisions, resets included."""
    kwargs = _kwargs(env_id, setup)
    shared = {**kwargs, "warmup_seed": WARMUP_SEED}
    make: Callable[[], gym.Env] = lambda: gym.make(env_id, **shared)  # noqa: E731
    cores = os.cpu_count() or 1
    return [
        _single("one env (gym.make)", gym.make(env_id, **kwargs), decisions),
        _single("one env, shared warm-up", gym.make(env_id, **shared), decisions),
        _vector(
            f"SyncVectorEnv of {envs}, shared warm-up", gym.vector.SyncVectorEnv([make] * envs), decisions
        ),
        _vector(
            f"AsyncVectorEnv of {envs}, shared warm-up", gym.vector.AsyncVectorEnv([make] * envs), decisions
        ),
        _vector(
            f"native vector env of {envs}",
            NativeVectorEnv(env_id, envs, threads=max(1, cores - 1), **kwargs),
            decisions,
        ),
        *(
            _vector(
                f"native vector env of {envs}, shared warm-up, {threads} worker{'s' if threads > 1 else ''}",
                NativeVectorEnv(env_id, envs, threads=threads, **shared),
                decisions,
            )
            # The default (the calling thread and a worker per other core) and one more.
            for threads in sorted({max(1, cores - 1), cores})
        ),
    ]
