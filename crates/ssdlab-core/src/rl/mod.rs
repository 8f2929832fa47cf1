//! Layer: rl. Generic tabular reinforcement-learning pieces shared by the RL policies.
