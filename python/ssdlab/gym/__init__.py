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
>>> env = gym.make("ssdlab/GcScheduling-v0", preset="tiny", requests=2000)

docs/lab.md shows how to plug in an agent. The environments are built on
`ssdlab.Simulation.attach` / `advance` / `act`, which any other agent loop can use directly."""

from __future__ import annotations

from gymnasium.envs.registration import register, registry

from ssdlab.gym.decision_env import DecisionEnv, FspPlacementEnv, GcSchedulingEnv, SlcCacheEnv

#: The environments this module registers, by id.
ENVIRONMENTS = {
    "ssdlab/GcScheduling-v0": "ssdlab.gym.decision_env:GcSchedulingEnv",
    "ssdlab/FspPlacement-v0": "ssdlab.gym.decision_env:FspPlacementEnv",
    "ssdlab/SlcCache-v0": "ssdlab.gym.decision_env:SlcCacheEnv",
}

for _id, _entry in ENVIRONMENTS.items():
    if _id not in registry:
        register(id=_id, entry_point=_entry)

__all__ = ["ENVIRONMENTS", "DecisionEnv", "FspPlacementEnv", "GcSchedulingEnv", "SlcCacheEnv"]
