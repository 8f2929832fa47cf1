"""Layer: Python, gym. `ssdlab bench --env`: decisions per wall second of an environment with a
random agent, for one environment, Gymnasium's SyncVectorEnv and AsyncVectorEnv of N, and the
native vector environment of N, all on the same light workload.

The workloads (`WORKLOADS`): for the GC environment, the tiny preset, filled and aged, random
4 KiB writes in closed loop, RLGC's "zero interval" read literally (`same_arrival`), so that
every write while GC is triggered is a decision: what remains is the cost of the simulation
between decisions and of the environment around them. For the page-type and SLC environments,
their presets cut small (as tests/unit/test_gym_fsp_slc.py has them) with random reads and
writes: a page type per page written (light), and an SLC step per 128 pages written (heavy: 64
KiB writes, GC and migration between steps).
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

#: Each environment's preset and workload (see the module).
WORKLOADS: dict[str, dict[str, Any]] = {
    ENV_ID: {"preset": "tiny", "overrides": LIGHT},
    "ssdlab/FspPlacement-v0": {
        "overrides": (
            "device.channels=2",
            "device.chips_per_channel=1",
            "device.blocks_per_plane=64",
            "device.pages_per_block=256",
            "device.overprovisioning=0.2",
            "gc.trigger_free_blocks=8",
            'cache.capacity="1MiB"',
            'workload.rw="randrw"',
            "workload.rwmixread=50",
            "workload.bs=16384",
        )
    },
    "ssdlab/SlcCache-v0": {
        "overrides": (
            "device.blocks_per_plane=256",
            "device.pages_per_block=256",
            "device.overprovisioning=0.2",
            "slc.rl.step_slc_blocks=2",
            "slc.rl.size_step_blocks=8",
            'workload.rw="randrw"',
            "workload.rwmixread=30",
            "workload.bs=65536",
        )
    },
}


@dataclass(frozen=True)
class EnvBenchRow:
    name: str
    envs: int
    decisions: int
    wall_s: float

    @property
    def per_s(self) -> float:
        return self.decisions / self.wall_s


def _kwargs(env_id: str, requests: int) -> dict:
    return {**WORKLOADS[env_id], "requests": requests}


def _single(env_id: str, decisions: int, requests: int) -> EnvBenchRow:
    env = gym.make(env_id, **_kwargs(env_id, requests))
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


def env_bench(
    decisions: int = 200_000, envs: int = 8, requests: int = 1_000_000, env_id: str = ENV_ID
) -> list[EnvBenchRow]:
    """Time each way of stepping `env_id` for about `decisions` decisions (episodes of
    `requests`)."""
    make: Callable[[], gym.Env] = lambda: gym.make(env_id, **_kwargs(env_id, requests))  # noqa: E731
    return [
        _single(env_id, decisions, requests),
        _vector(f"SyncVectorEnv of {envs}", gym.vector.SyncVectorEnv([make] * envs), decisions),
        _vector(f"AsyncVectorEnv of {envs}", gym.vector.AsyncVectorEnv([make] * envs), decisions),
        *(
            _vector(
                f"native vector env of {envs}, {threads} worker{'s' if threads > 1 else ''}",
                NativeVectorEnv(env_id, envs, threads=threads, **_kwargs(env_id, requests)),
                decisions,
            )
            # The default (the calling thread and a worker per other core) and one more.
            for threads in sorted({max(1, (os.cpu_count() or 1) - 1), (os.cpu_count() or 1)})
        ),
    ]
