"""Layer: Python, gym. Gymnasium environments over ssdlab's decision points: an outside agent
(DQN, PPO, your own) takes a learned policy's decision in a full simulation, the rest of the
device running its configured policies. Importing this module registers the environments:

- `ssdlab/GcScheduling-v0` (`GcSchedulingEnv`): RLGC's decision, the page copies after a request
  (Kang et al., ACM TECS 2017, Alg. 1), its state features and its reward.

>>> import gymnasium as gym
>>> import ssdlab.gym  # registers the environments
>>> env = gym.make("ssdlab/GcScheduling-v0", preset="tiny", requests=2000)

docs/lab.md shows how to plug in an agent. The environments are built on
`ssdlab.Simulation.attach` / `advance` / `act`, which any other agent loop can use directly."""

from __future__ import annotations

from gymnasium.envs.registration import register, registry

from ssdlab.gym.decision_env import DecisionEnv, GcSchedulingEnv

#: The environments this module registers, by id.
ENVIRONMENTS = {"ssdlab/GcScheduling-v0": "ssdlab.gym.decision_env:GcSchedulingEnv"}

for _id, _entry in ENVIRONMENTS.items():
    if _id not in registry:
        register(id=_id, entry_point=_entry)

__all__ = ["ENVIRONMENTS", "DecisionEnv", "GcSchedulingEnv"]
