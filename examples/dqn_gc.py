"""A small DQN, numpy only, takes RLGC's GC decision (`ssdlab/GcScheduling-v0`: how many valid
pages to copy after a request that triggers GC) on a real trace, and is compared on write p99.99
with the built-in schedulers: blocking greedy, Lazy-RTGC and the tabular RLGC agent (Kang et al.,
ACM TECS 2017), with the built-in agent replayed through the environment (it must give rlgc's run)
and a random agent (the control).

Any agent plugs in the same way: the environment is a plain Gymnasium one (docs/lab.md).

    env = gym.make("ssdlab/GcScheduling-v0", preset="kang-3d-128gb", trace=path, overrides=DRIVE)
    obs, info = env.reset(seed=0)           # obs: interval, previous interval, previous copies, free blocks
    done = False
    while not done:                         # your_agent: (obs, allowed actions) -> copies
        obs, reward, done, _, info = env.step(your_agent(obs, info["action_mask"]))
    env.unwrapped.report().summary()["write_p99_99_us"]

Run it (a few minutes at the default budget; CI runs it on a tiny one, tests/unit/test_example_dqn.py):

    PYTHONPATH=python python examples/dqn_gc.py --episodes 20 --out results/dqn_gc.md

Every agent is measured on the evaluation seeds `--seed` ... `--seed + --eval-seeds - 1` (the
table gives the means); the DQN trains on the seeds after them, one per episode, so none of its
evaluation runs was seen in training. The trace is replayed as it is: a seed draws the drive's
warm-up and every policy's random stream. The output is deterministic given the arguments.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from pathlib import Path

import gymnasium as gym
import numpy as np
import pandas as pd

import ssdlab
import ssdlab.gym  # registers ssdlab/GcScheduling-v0
from ssdlab.data import resolve_trace

PRESET = "kang-3d-128gb"
#: `make run`'s drive: a 3 GiB cut of the 128 Gb die, 60 % of it in use, filled and overwritten
#: once at random (GC at steady state from the first request), the trace replayed 60 times.
DRIVE = (
    "device.blocks_per_plane=512",
    "device.utilization=0.6",
    "warmup.fill=true",
    "warmup.random_writes=1.0",
    'workload.fold="compact"',
    "workload.repeat=60",
)
BASELINES = ("greedy", "lazy_rtgc", "rlgc")
FIGURES = ("write_p99_99_us", "write_p99_us", "waf")


class MLP:
    """q = relu(x W1 + b1) W2 + b2: one hidden layer, forward and backward written out."""

    def __init__(self, n_in: int, n_hidden: int, n_out: int, rng: np.random.Generator) -> None:
        self.p = {
            "w1": rng.normal(0.0, np.sqrt(2.0 / n_in), (n_in, n_hidden)),  # He init for the ReLU
            "b1": np.zeros(n_hidden),
            "w2": rng.normal(0.0, np.sqrt(1.0 / n_hidden), (n_hidden, n_out)),
            "b2": np.zeros(n_out),
        }

    def forward(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        h = np.maximum(x @ self.p["w1"] + self.p["b1"], 0.0)
        return h @ self.p["w2"] + self.p["b2"], h

    def backward(self, x: np.ndarray, h: np.ndarray, dq: np.ndarray) -> dict[str, np.ndarray]:
        """Gradients of the loss given dq = dloss/dq, the forward pass's x and h."""
        dh = (dq @ self.p["w2"].T) * (h > 0.0)
        return {"w1": x.T @ dh, "b1": dh.sum(0), "w2": h.T @ dq, "b2": dq.sum(0)}

    def copy_from(self, other: MLP) -> None:
        self.p = {k: v.copy() for k, v in other.p.items()}


class Adam:
    """Adam (Kingma & Ba 2015) over a dict of parameter arrays."""

    def __init__(self, params: dict[str, np.ndarray], lr: float, b1=0.9, b2=0.999, eps=1e-8) -> None:
        self.lr, self.b1, self.b2, self.eps, self.t = lr, b1, b2, eps, 0
        self.m = {k: np.zeros_like(v) for k, v in params.items()}
        self.v = {k: np.zeros_like(v) for k, v in params.items()}

    def step(self, params: dict[str, np.ndarray], grads: dict[str, np.ndarray]) -> None:
        self.t += 1
        for k, g in grads.items():
            self.m[k] = self.b1 * self.m[k] + (1 - self.b1) * g
            self.v[k] = self.b2 * self.v[k] + (1 - self.b2) * g * g
            m_hat, v_hat = self.m[k] / (1 - self.b1**self.t), self.v[k] / (1 - self.b2**self.t)
            params[k] -= self.lr * m_hat / (np.sqrt(v_hat) + self.eps)


class DQN:
    """DQN (Mnih et al. 2015): experience replay, a target network, Huber loss, epsilon-greedy
    over the allowed actions only; the max of the target also runs over the next state's mask."""

    def __init__(
        self,
        env: gym.Env,
        seed: int,
        hidden=64,
        lr=1e-3,
        gamma=0.8,
        batch=64,
        capacity=50_000,
        sync_every=500,
        learn_every=2,
    ) -> None:
        space = env.observation_space
        self.rng = np.random.default_rng(seed)
        self.n = int(env.action_space.n)
        self.gamma, self.batch, self.sync_every, self.learn_every = gamma, batch, sync_every, learn_every
        # Every feature to [0, 1] by its Box bounds; intervals (us, up to 1 s) and the free blocks
        # (bounded only by u32) on a log scale, where their useful range is.
        names = [f["name"] for f in env.unwrapped.features]
        self.log = np.array([n.endswith("interval_us") or n == "free_blocks" for n in names])
        self.low, self.high = space.low.astype(np.float64), space.high.astype(np.float64)
        dim = len(names)
        self.online, self.target = (MLP(dim, hidden, self.n, self.rng) for _ in range(2))
        self.target.copy_from(self.online)
        self.adam = Adam(self.online.p, lr)
        self.obs, self.next_obs = np.zeros((capacity, dim)), np.zeros((capacity, dim))
        self.action, self.reward = np.zeros(capacity, dtype=np.int64), np.zeros(capacity)
        self.next_mask, self.done = np.zeros((capacity, self.n), dtype=bool), np.zeros(capacity)
        self.size, self.head, self.steps, self.updates = 0, 0, 0, 0

    def normalise(self, obs: np.ndarray) -> np.ndarray:
        x = np.clip(np.asarray(obs, dtype=np.float64), self.low, self.high) - self.low
        span = self.high - self.low
        return np.where(self.log, np.log1p(x) / np.log1p(span), x / span)

    def act(self, obs: np.ndarray, mask: np.ndarray, epsilon: float = 0.0) -> int:
        allowed = np.flatnonzero(mask)
        if self.rng.random() < epsilon:
            return int(self.rng.choice(allowed))
        q, _ = self.online.forward(self.normalise(obs)[None])
        return int(allowed[np.argmax(q[0, allowed])])

    def remember(self, obs, action, reward, next_obs, next_mask, done) -> None:
        i = self.head
        self.obs[i], self.action[i], self.reward[i] = self.normalise(obs), action, reward
        self.next_obs[i], self.next_mask[i], self.done[i] = self.normalise(next_obs), next_mask, done
        self.head, self.size = (i + 1) % len(self.obs), min(self.size + 1, len(self.obs))
        self.steps += 1
        if self.size >= self.batch and self.steps % self.learn_every == 0:
            self.learn()

    def learn(self) -> None:
        i = self.rng.integers(self.size, size=self.batch)
        q_next, _ = self.target.forward(self.next_obs[i])
        best_next = np.where(self.next_mask[i], q_next, -np.inf).max(1)
        target = self.reward[i] + self.gamma * np.where(self.done[i] > 0, 0.0, best_next)
        q, h = self.online.forward(self.obs[i])
        rows = np.arange(self.batch)
        dq = np.zeros_like(q)
        dq[rows, self.action[i]] = np.clip(q[rows, self.action[i]] - target, -1.0, 1.0) / self.batch
        self.adam.step(self.online.p, self.online.backward(self.obs[i], h, dq))
        self.updates += 1
        if self.updates % self.sync_every == 0:
            self.target.copy_from(self.online)


def make_env(trace: str, requests: int, overrides: Sequence[str]) -> gym.Env:
    return gym.make(
        "ssdlab/GcScheduling-v0", preset=PRESET, trace=trace, overrides=overrides, requests=requests
    )


def train(env: gym.Env, agent: DQN, episodes: int, first_seed: int) -> None:
    """Episodes on seeds first_seed, first_seed + 1, ...; epsilon falls linearly from 1 to 0.05
    over the first half."""
    for episode in range(episodes):
        epsilon = max(0.05, 1.0 - episode / max(1.0, episodes / 2))
        obs, info = env.reset(seed=first_seed + episode)
        done, total, decisions = False, 0.0, 0
        while not done:
            action = agent.act(obs, info["action_mask"], epsilon)
            next_obs, reward, done, _, info = env.step(action)
            next_mask = info["action_mask"] if not done else np.ones(agent.n, dtype=np.int8)
            agent.remember(obs, action, reward, next_obs, next_mask.astype(bool), done)
            obs, total, decisions = next_obs, total + reward, decisions + 1
        p9999 = env.unwrapped.report().summary()["write_p99_99_us"]
        print(
            f"episode {episode + 1}/{episodes}: epsilon {epsilon:.2f}, {decisions} decisions, "
            f"mean reward {total / decisions:.3f}, write p99.99 {p9999:.0f} us"
        )


def play(env: gym.Env, seed: int, choose: Callable[[np.ndarray, dict], int]) -> ssdlab.Report:
    """One episode with `choose(obs, info) -> action`; the run's report."""
    obs, info = env.reset(seed=seed)
    done = False
    while not done:
        obs, _, done, _, info = env.step(choose(obs, info))
    return env.unwrapped.report()


def figures(report: ssdlab.Report) -> list[float]:
    summary = report.summary()
    return [summary[name] for name in FIGURES]


def main(argv: Sequence[str] | None = None) -> pd.DataFrame:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--episodes", type=int, default=20, help="training episodes (default 20)")
    parser.add_argument("--requests", type=int, default=100_000, help="requests per episode (default 100000)")
    parser.add_argument(
        "--trace", default="msr_cut10k_rw20_80_105", help="a trace file or bundled trace name"
    )
    parser.add_argument("--seed", type=int, default=0, help="the first evaluation seed (default 0)")
    parser.add_argument("--eval-seeds", type=int, default=3, help="evaluation seeds, averaged (default 3)")
    parser.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a config override for every agent, after the drive's (repeatable)",
    )
    parser.add_argument("--out", type=Path, help="write the table: .md as markdown, else CSV")
    args = parser.parse_args(argv)
    trace, overrides = resolve_trace(args.trace), [*DRIVE, *args.overrides]
    env = make_env(trace, args.requests, overrides)
    eval_seeds = range(args.seed, args.seed + args.eval_seeds)

    dqn = DQN(env.unwrapped, seed=args.seed)
    train(env, dqn, args.episodes, first_seed=eval_seeds.stop)
    rng = np.random.default_rng(args.seed)

    def builtin(scheduler: str) -> Callable[[int], ssdlab.Report]:
        extra = [f"gc.scheduler={scheduler}", f"workload.count={args.requests}"]
        return lambda seed: ssdlab.run(
            preset=PRESET, trace=trace, overrides=[*overrides, *extra, f"seed={seed}"]
        )

    def random_agent(obs: np.ndarray, info: dict) -> int:
        return int(rng.choice(np.flatnonzero(info["action_mask"])))

    def dqn_agent(obs: np.ndarray, info: dict) -> int:
        return dqn.act(obs, info["action_mask"])  # greedy: epsilon 0

    agents: dict[str, Callable[[int], ssdlab.Report]] = {
        **{scheduler: builtin(scheduler) for scheduler in BASELINES},
        "builtin replay": lambda seed: play(env, seed, lambda obs, info: info["builtin_action"]),
        "random": lambda seed: play(env, seed, random_agent),
        "dqn (numpy)": lambda seed: play(env, seed, dqn_agent),
    }
    rows = []
    for name, run in agents.items():
        means = np.mean([figures(run(seed)) for seed in eval_seeds], axis=0)
        rows.append({"agent": name, **dict(zip(FIGURES, means.tolist(), strict=True))})
    table = pd.DataFrame(rows)
    markdown = table.to_markdown(index=False, floatfmt=("", ",.0f", ",.0f", ".3f"))
    print(f"means over evaluation seeds {list(eval_seeds)}, {args.requests} requests each:\n{markdown}")
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        if args.out.suffix == ".md":
            args.out.write_text(markdown + "\n")
        else:
            table.to_csv(args.out, index=False)
    return table


if __name__ == "__main__":
    main()
