"""Layer: Python, gym. One Gymnasium environment per decision kind, all the same shape: a
simulation built from a preset, a trace or workload and `--set`-style overrides, run to each
decision of its kind (`Simulation.attach` / `advance` / `act`); an episode is one run (the
trace's end, or `requests` requests).

- observation: the decision point's features (`Box`, float32; names, ranges and meanings in
  `info["features"]` at reset and in the `features` attribute);
- action: `Discrete(n)`; the actions allowed now are `info["action_mask"]` (int8, 1 = allowed,
  as `Discrete.sample(mask=...)` takes it; a masked or
  out-of-range action raises `ActionError`, naming the environment and the action: never
  clamped);
- reward: the policy's paper's, earned since the previous decision (components in
  `info["reward_parts"]`); `info["builtin_action"]` is what the built-in agent would do.

`reset(seed=s)` builds the run with `seed = s`, from which every random stream of the simulation
derives (workload, policies, eviction); without a seed, the environment's own generator draws
one. Stepping a finished episode raises `gymnasium.error.ResetNeeded`."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from ssdlab.api import Simulation
from ssdlab.config import Overrides, RawConfig, override_strings, raw_config
from ssdlab.errors import ActionError, ConfigError

#: The largest seed drawn when `reset` is given none (the config's seed is a u64).
_SEED_BOUND = 2**31


class DecisionEnv(gym.Env):
    """A decision point of `KIND` as a Gymnasium environment (see the module)."""

    KIND: ClassVar[str] = ""
    #: What to change when a run ends before its first decision.
    NO_DECISION_HINT: ClassVar[str] = "a longer trace or more requests"
    metadata: ClassVar[dict[str, Any]] = {"render_modes": []}

    def __init__(
        self,
        preset: str | None = "tiny",
        trace: str | Path | None = None,
        workload: str | Path | None = None,
        overrides: Overrides = (),
        requests: int | None = None,
        config_files: Iterable[str | Path] = (),
        trace_format: str | None = None,
    ) -> None:
        """`workload` is a built-in pattern, a workload file or a workload spec; `requests` cuts
        the episode to that many requests (default: the whole trace or workload). A config
        whose policy has no `KIND` decision point is refused here, with the reason."""
        self._build = {
            "preset": preset,
            "trace": trace,
            "workload": workload,
            "config_files": tuple(config_files),
            "trace_format": trace_format,
        }
        self._overrides = override_strings(overrides)
        if requests is not None:
            if requests < 1:
                raise ConfigError(f"{self._name()}: requests must be at least 1, got {requests}")
            self._overrides.append(f"workload.count={requests}")
        # The space comes from the policy itself: build once, attach, keep what it says.
        space = self._simulation(None).attach(self.KIND)
        self.features: list[dict[str, Any]] = space["features"]
        self.reward_parts: list[str] = [name for name, _ in space["reward_parts"]]
        low = np.array([f["low"] for f in self.features], dtype=np.float32)
        high = np.array([f["high"] for f in self.features], dtype=np.float32)
        self.observation_space = spaces.Box(low, high, dtype=np.float32)
        self.action_space = spaces.Discrete(space["actions"])
        self._sim: Simulation | None = None
        self._obs = np.zeros(len(self.features), dtype=np.float32)
        self._mask = np.ones(space["actions"], dtype=np.int8)
        self._done = True

    def _name(self) -> str:
        spec = getattr(self, "spec", None)
        return spec.id if spec is not None else type(self).__name__

    def _simulation(self, seed: int | None) -> Simulation:
        overrides = self._overrides if seed is None else [*self._overrides, f"seed={seed}"]
        return Simulation(overrides=overrides, **self._build)

    def raw_config(self, seed: int) -> RawConfig:
        """The configuration of the episode `reset(seed=seed)` runs, as the core takes it (the
        native vector environment builds its runs from it)."""
        return raw_config(overrides=[*self._overrides, f"seed={seed}"], **self._build)

    def run_seed(self, seed: int | None) -> int:
        """The run seed of `reset(seed=seed)`: `seed` itself, else drawn from the environment's
        generator (seeded by the last `reset` given one)."""
        return seed if seed is not None else int(self.np_random.integers(_SEED_BOUND))

    def _info(self, builtin: int, parts: Sequence[float]) -> dict[str, Any]:
        return {
            "action_mask": self._mask.copy(),
            "builtin_action": builtin,
            "reward_parts": dict(zip(self.reward_parts, parts, strict=True)),
        }

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        self._sim = self._simulation(self.run_seed(seed))
        self._sim.attach(self.KIND)
        # Each decision's observation and mask are written into these arrays (no list a step).
        self._sim.bind_decisions(self._obs, self._mask)
        decision = self._sim.advance_into()
        if decision is None:
            raise ConfigError(
                f"{self._name()}: the run ended before its first {self.KIND} decision ({self.NO_DECISION_HINT})"
            )
        self._done = False
        _, builtin, _ = decision
        info = self._info(builtin, [0.0] * len(self.reward_parts))
        info["features"] = self.features
        return self._obs.copy(), info

    def step(self, action):
        if self._done or self._sim is None:
            raise gym.error.ResetNeeded(f"{self._name()}: the episode has ended; call reset() before step()")
        try:
            a = int(action)
        except (TypeError, ValueError) as e:
            raise ActionError(f"{self._name()}: action {action!r} is not an integer") from e
        try:
            decision = self._sim.act_into(a)
        except ActionError as e:
            raise ActionError(f"{self._name()}: {e}") from None
        if decision is None:
            # The run ended: rewards after the last decision belong to no decision.
            self._done = True
            return self._obs.copy(), 0.0, True, False, self._info(-1, [0.0] * len(self.reward_parts))
        reward, builtin, parts = decision
        return self._obs.copy(), reward, False, False, self._info(builtin, parts)

    def report(self):
        """The finished episode's report (`ssdlab.Report`): every figure of the run."""
        if self._sim is None:
            raise gym.error.ResetNeeded(f"{self._name()}: no episode has run")
        return self._sim.report()


def _choose(overrides: Overrides, key: str, default: str) -> list[str]:
    """`overrides` with `key=default` first, unless they set `key` themselves."""
    overrides = override_strings(overrides)
    if not any(o.split("=", 1)[0].strip() == key for o in overrides):
        overrides.insert(0, f"{key}={default}")
    return overrides


class GcSchedulingEnv(DecisionEnv):
    """`ssdlab/GcScheduling-v0`: RLGC's decision (Kang et al., ACM TECS 2017, Alg. 1): after a
    request that triggers GC (free blocks at or below `gc.trigger_free_blocks`, an idle gap
    before it), how many valid pages to copy (action a: a copies; 0 does nothing; the
    aggressive variant masks actions above its cap between T_GC and T_GC^A).

    Observation (Table 3's state, raw, plus the free blocks): the inter-request interval before
    this request and before the previous one (us, capped at 1 s), the copies asked after the
    previous request, the free blocks. Reward (Fig. 6): each response ranked against the
    percentile thresholds of its operation type, 1 / 0.5 / 0 / -0.5, credited to the decision
    before it. The scheduler must be one of RLGC's framework (`rlgc`, `rlgc_aggressive`,
    `rlgc_qtc`, `predictor`); the environment sets `gc.scheduler = "rlgc"` unless the overrides
    choose one (`gc.scheduler=...`)."""

    KIND: ClassVar[str] = "gc.scheduler"
    NO_DECISION_HINT: ClassVar[str] = (
        "GC never triggered: a longer trace, more requests, or a fuller drive, e.g. warmup.fill = true"
    )

    def __init__(self, preset: str | None = "tiny", overrides: Overrides = (), **kwargs: Any) -> None:
        super().__init__(preset=preset, overrides=_choose(overrides, "gc.scheduler", "rlgc"), **kwargs)


class FspPlacementEnv(DecisionEnv):
    """`ssdlab/FspPlacement-v0`: RL-FSP's decision (Li et al., IEEE TCAD 2024, Sec. III-A): the
    page type a buffered dirty page takes in its full-sequence-program unit (action t: LSB 0,
    CLSB 1, CMSB 2, MSB 3 on QLC). The group module then forms each unit of one page per type
    from the LRU tail's candidates by these classes, as it does with the Q-table's.

    A class is needed in the middle of an eviction, where a run cannot stop, so it is asked
    before the event that may evict the page: every dirty page written or read since the last
    event is one decision, and keeps its class until it is written or read again (the report's
    `cache.eviction.outside_agent` counts the classes asked, those used stale and those the
    Q-table gave in the agent's place; see `crates/ssdlab-core/src/ftl/cache/rl_fsp.rs`).

    Observation (Sec. III-B's state): the long-term read count bin, the short-term read bit,
    whether the request that wrote the page was large and whether the write covered the whole
    page, the type the LPN was last programmed to. Reward (Sec. III-B): per programmed page, one
    episode later, the page-type part (+-1 / +-0.5 / -+0.5 / -+1 for LSB / CLSB / CMSB / MSB by
    whether it was read since) and, if read, the latency part (1 / 0.5 / 0 / -1 by its last
    read's band), summed over the pages settled since the previous decision. The eviction
    policy must be `rl_fsp`; the environment sets `cache.eviction = "rl_fsp"` unless the
    overrides choose one."""

    KIND: ClassVar[str] = "cache.eviction"
    NO_DECISION_HINT: ClassVar[str] = "no host write reached the write buffer: a workload with writes"

    def __init__(self, preset: str | None = "li-qlc-fsp", overrides: Overrides = (), **kwargs: Any) -> None:
        super().__init__(preset=preset, overrides=_choose(overrides, "cache.eviction", "rl_fsp"), **kwargs)


class SlcCacheEnv(DecisionEnv):
    """`ssdlab/SlcCache-v0`: RL-SLC's decision (Yoo & Shin, HotStorage 2020, Algorithm 1): every
    `slc.rl.step_slc_blocks` SLC blocks' worth of host writes, change the SLC region's size by
    one `slc.rl.size_step_blocks` step (down, keep, up) and the hot/cold threshold by one level
    (down, keep, up): action 3 x size + threshold, 4 keeps both.

    Observation (Table 3's state, raw): the SLC region's blocks, the space utilisation, the
    previous action, the share of the step's host pages written to SLC and the SLC pages they
    overwrote per SLC page written. Reward (Algorithm 2): the step just ended, its weighted write
    cost against the average of the steps before, 1 if not above it, else -1 (0 at the first
    step). The step is taken when the write that crosses the step boundary arrives, before
    anything is done for it, as the built-in agent takes it. The SLC policy must be `rl`; the
    environment sets `slc.policy = "rl"` unless the overrides choose one."""

    KIND: ClassVar[str] = "slc.policy"
    NO_DECISION_HINT: ClassVar[str] = (
        "fewer host writes than one step, slc.rl.step_slc_blocks SLC blocks' worth: more requests or a smaller step"
    )

    def __init__(
        self, preset: str | None = "yoo-hybrid-qlc", overrides: Overrides = (), **kwargs: Any
    ) -> None:
        super().__init__(preset=preset, overrides=_choose(overrides, "slc.policy", "rl"), **kwargs)
