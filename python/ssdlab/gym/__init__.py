"""Layer: Python, gym. Gymnasium environments over ssdlab's decision points: an outside agent
(DQN, PPO, your own) takes a learned policy's decision in a full simulation, the rest of the
device running its configured policies. Importing this module registers the environments:

- `ssdlab/GcScheduling-v0` (`GcSchedulingEnv`): RLGC's decision, the page copies after a request
  (Kang et al., ACM TECS 2017, Alg. 1), its state features and its reward;
- `ssdlab/FspPlacement-v0` (`FspPlacementEnv`): RL-FSP's decision, a buffered page's page type in
  its full-sequence-program unit (Li et al., IEEE TCAD 2024, Sec. III), its state and reward;
- `ssdlab/SlcCache-v0` (`SlcCacheEnv`): RL-SLC's decision, the SLC size and hot/cold threshold
  per step (Yoo & Shin, HotStorage 2020, Algorithms 1-2), its state and reward.

>>> import gymnasium as gym
>>> import ssdlab.gym  # registers the environments
>>> env = gym.make("ssdlab/GcScheduling-v0")  # its default setup (`GcSchedulingEnv`)
>>> obs, info = env.reset(seed=0)
>>> venv = gym.make_vec("ssdlab/GcScheduling-v0", num_envs=8, vectorization_mode="vector_entry_point")

Each is registered with a `vector_entry_point`, the native vector environment
(`ssdlab.gym.vector.NativeVectorEnv`), which `gym.make_vec` takes by default.

docs/lab.md shows how to plug in an agent. The environments are built on
`ssdlab.Simulation.attach` / `advance` / `act`, which any other agent loop can use directly."""

from __future__ import annotations

from gymnasium.envs.registration import register, registry

from ssdlab.gym.decision_env import DecisionEnv, FspPlacementEnv, GcSchedulingEnv, SlcCacheEnv

#: The environments this module registers, by id: (entry point, vector entry point).
ENVIRONMENTS = {
    "ssdlab/GcScheduling-v0": ("ssdlab.gym.decision_env:GcSchedulingEnv", "ssdlab.gym.vector:gc_scheduling"),
    "ssdlab/FspPlacement-v0": ("ssdlab.gym.decision_env:FspPlacementEnv", "ssdlab.gym.vector:fsp_placement"),
    "ssdlab/SlcCache-v0": ("ssdlab.gym.decision_env:SlcCacheEnv", "ssdlab.gym.vector:slc_cache"),
}

for _id, (_entry, _vector_entry) in ENVIRONMENTS.items():
    if _id not in registry:
        register(id=_id, entry_point=_entry, vector_entry_point=_vector_entry)

__all__ = ["ENVIRONMENTS", "DecisionEnv", "FspPlacementEnv", "GcSchedulingEnv", "SlcCacheEnv"]
