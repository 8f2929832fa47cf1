"""Layer: Python, gym. `ssdlab bench --env`: decisions per wall second of the GC environment with
a random agent, for one environment, Gymnasium's SyncVectorEnv and AsyncVectorEnv of N, and the
native vector environment of N, all on the same light workload.

The workload: the tiny preset, filled and aged, random 4 KiB writes in closed loop, RLGC's
"zero interval" read literally (`same_arrival`), so that every write while GC is triggered is a
decision: what remains is the cost of the simulation between decisions and of the environment
around them."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass

import gymnasium as gym
import numpy as np

import ssdlab.gym  # noqa: F401  (registers the environments)
from ssdlab.gym.vector import NativeVectorEnv

ENV_ID = "ssdlab/GcScheduling-v0"

#: The light workload (see the module).
LIGHT = (
    "gc.scheduler=rlgc",
    "gc.rlgc.zero_interval=same_arrival",
    "gc.trigger_free_blocks=12",
    "warmup.fill=true",
    "warmup.random_writes=1.0",
    'workload.rw="randwrite"',
)


@dataclass(frozen=True)
class EnvBenchRow:
    name: str
    envs: int
    decisions: int
    wall_s: float

    @property
    def per_s(self) -> float:
        return self.decisions / self.wall_s


def _kwargs(requests: int) -> dict:
    return {"preset": "tiny", "overrides": LIGHT, "requests": requests}


def _single(decisions: int, requests: int) -> EnvBenchRow:
    env = gym.make(ENV_ID, **_kwargs(requests))
    env.reset(seed=1)
    rng = np.random.default_rng(0)
    n = env.action_space.n
    done, start = 0, time.perf_counter()
    while done < decisions:
        _, _, terminated, truncated, _ = env.step(int(rng.integers(n)))
        done += 1
        if terminated or truncated:
            env.reset()
    return EnvBenchRow("one env (gym.make)", 1, done, time.perf_counter() - start)


def _vector(name: str, venv, decisions: int) -> EnvBenchRow:
    venv.reset(seed=1)
    rng = np.random.default_rng(0)
    n = venv.single_action_space.n
    done, start = 0, time.perf_counter()
    while done < decisions:
        venv.step(rng.integers(n, size=venv.num_envs))
        done += venv.num_envs
    wall = time.perf_counter() - start
    venv.close()
    return EnvBenchRow(name, venv.num_envs, done, wall)


def env_bench(decisions: int = 200_000, envs: int = 8, requests: int = 1_000_000) -> list[EnvBenchRow]:
    """Time each way of stepping for about `decisions` decisions (episodes of `requests`)."""
    make: Callable[[], gym.Env] = lambda: gym.make(ENV_ID, **_kwargs(requests))  # noqa: E731
    return [
        _single(decisions, requests),
        _vector(f"SyncVectorEnv of {envs}", gym.vector.SyncVectorEnv([make] * envs), decisions),
        _vector(f"AsyncVectorEnv of {envs}", gym.vector.AsyncVectorEnv([make] * envs), decisions),
        *(
            _vector(
                f"native vector env of {envs}, {threads} worker{'s' if threads > 1 else ''}",
                NativeVectorEnv(ENV_ID, envs, threads=threads, **_kwargs(requests)),
                decisions,
            )
            # The default (the calling thread and a worker per other core) and one more.
            for threads in sorted({max(1, (os.cpu_count() or 1) - 1), (os.cpu_count() or 1)})
        ),
    ]
