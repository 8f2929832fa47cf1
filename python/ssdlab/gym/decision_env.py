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

**The default setup.** `gym.make(id)` with none of `preset`, `trace`, `workload` and
`config_files` runs the environment's `DEFAULT_SETUP`: a preset, the overrides that cut it to a
drive that resets fast and bring it to where the policy decides, a workload drawn from the seed,
and an episode length (`requests`); your `overrides` and `requests` go on top of it. Give any of
those four and you describe the run yourself: the default preset stands in for a missing
`preset`, nothing else of the default setup applies, and `requests=None` is the whole trace or
workload.

**Seeds.** `reset(seed=s)` builds the run with `seed = s`; without a seed, the environment's own
generator draws one. By default every episode warms its drive up itself (`[warmup]`), so the
seed draws everything: the warm-up's random writes, the workload, the policies' random streams.
With a shared warm-up (`warmup_seed=w` at construction, or `reset(options={"warmup_seed": w})`,
which holds for later episodes too; `None` ends it), the drive is warmed up once with
`warmup.seed = w`, kept (`Simulation.warm_drive`, in Rust) and each reset starts from a copy of
it (`Simulation.start_from`): the episode is byte for byte the one that warms up itself with
`seed = s` and `warmup.seed = w`, but every episode starts from the same drive; `s` still draws
the workload and the policies' random streams of the measured run. On a drive that is
preconditioned, a reset then costs a copy of the drive instead of its warm-up.

Stepping a finished episode raises `gymnasium.error.ResetNeeded`."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from ssdlab.api import Simulation, WarmDrive
from ssdlab.config import Overrides, RawConfig, override_strings
from ssdlab.errors import ActionError, ConfigError
from ssdlab.report import Report
from ssdlab.setup import Setup, setup_of

#: The largest seed drawn when `reset` is given none (the config's seed is a u64).
_SEED_BOUND = 2**31

#: Warm drives an environment keeps (by warm-up seed): the latest ones.
_DRIVES_KEPT = 4

#: What `reset(options=...)` takes.
_OPTIONS = ("warmup_seed",)


@dataclass(frozen=True)
class DefaultSetup:
    """An environment's default setup: what `gym.make(id)` runs (see the module)."""

    preset: str
    #: A built-in workload pattern or spec (`ssdlab presets`), or None: the overrides' workload.
    workload: str | None
    overrides: tuple[str, ...]
    #: Requests per episode.
    requests: int


def _check_seed(value: Any, what: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 0:
        raise ConfigError(f"{what} must be a non-negative integer or None, got {value!r}")
    return int(value)


class DecisionEnv(gym.Env):
    """A decision point of `KIND` as a Gymnasium environment (see the module)."""

    KIND: ClassVar[str] = ""
    #: The policy of `KIND` the environment chooses unless the overrides choose one.
    POLICY: ClassVar[str] = ""
    DEFAULT_SETUP: ClassVar[DefaultSetup]
    metadata: ClassVar[dict[str, Any]] = {"render_modes": []}

    def __init__(
        self,
        preset: str | None = None,
        trace: str | Path | None = None,
        workload: str | Path | None = None,
        overrides: Overrides = (),
        requests: int | None = None,
        config_files: Iterable[str | Path] = (),
        trace_format: str | None = None,
        warmup_seed: int | None = None,
        *,
        setup: Setup | None = None,
    ) -> None:
        """`workload` is a built-in pattern, a workload file or a workload spec; `requests` cuts
        the episode to that many requests (default: the default setup's episode, or the whole
        trace or workload of your own); `warmup_seed`: episodes share a warm-up drawn from it
        (see the module). A config whose policy has no `KIND` decision point is refused here,
        with the reason. `setup`: what to simulate as one value (`ssdlab.Setup`), in place of
        `preset`, `trace`, `workload`, `overrides`, `config_files` and `trace_format`."""
        setup = setup_of(
            setup,
            preset=preset,
            trace=trace,
            workload=workload,
            overrides=overrides,
            config_files=config_files,
            trace_format=trace_format,
        )
        preset, trace, workload, overrides = setup.preset, setup.trace, setup.workload, setup.overrides
        config_files, trace_format = setup.config_files, setup.trace_format
        trace_with_workload = setup.trace_with_workload
        default = self.DEFAULT_SETUP
        #: Whether the run is the default setup (your overrides and requests on top of it).
        self.default_setup = preset is None and trace is None and workload is None and not config_files
        base: list[str] = []
        if self.default_setup:
            workload, base = default.workload, list(default.overrides)
            requests = default.requests if requests is None else requests
        #: What every episode simulates, before the overrides (`_overrides`) and the seeds.
        self._setup = Setup(
            default.preset if preset is None else preset,
            workload,
            trace,
            (),
            config_files,
            trace_format,
            trace_with_workload,
        )
        overrides = override_strings(overrides)
        if not any(o.split("=", 1)[0].strip() == self.KIND for o in overrides):
            base.insert(0, f"{self.KIND}={self.POLICY}")
        self._overrides = [*base, *overrides]
        if requests is not None:
            if requests < 1:
                raise ConfigError(f"{self._name()}: requests must be at least 1, got {requests}")
            self._overrides.append(f"workload.count={requests}")
        self.warmup_seed = _check_seed(warmup_seed, f"{self._name()}: warmup_seed")
        #: Warm drives by warm-up seed (a vector env's slots of one config share theirs).
        self._drives: dict[int, WarmDrive] = {}
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

    def _seeds(self, seed: int | None, warmup_seed: int | None) -> list[str]:
        keys = [] if seed is None else [f"seed={seed}"]
        return keys if warmup_seed is None else [*keys, f"warmup.seed={warmup_seed}"]

    def _simulation(self, seed: int | None) -> Simulation:
        return Simulation(setup=self._episode(seed, self.warmup_seed))

    def _episode(self, seed: int | None, warmup_seed: int | None) -> Setup:
        """What the episode of these seeds simulates."""
        return self._setup.with_overrides(*self._overrides, *self._seeds(seed, warmup_seed))

    def raw_config(self, seed: int) -> RawConfig:
        """The configuration of the episode `reset(seed=seed)` runs, as the core takes it (the
        native vector environment builds its runs from it)."""
        return self._episode(seed, self.warmup_seed).raw()

    def run_seed(self, seed: int | None) -> int:
        """The run seed of `reset(seed=seed)`: `seed` itself, else drawn from the environment's
        generator (seeded by the last `reset` given one)."""
        return seed if seed is not None else int(self.np_random.integers(_SEED_BOUND))

    def warm_drive(self, warmup_seed: int) -> WarmDrive:
        """The drive warmed up with `warmup.seed = warmup_seed` (warmed up now unless kept), that
        every episode of that warm-up seed starts from."""
        drive = self._drives.get(warmup_seed)
        if drive is None:
            drive = Simulation(setup=self._episode(None, warmup_seed)).warm_drive()
            while len(self._drives) >= _DRIVES_KEPT:
                del self._drives[next(iter(self._drives))]
            self._drives[warmup_seed] = drive
        return drive

    def set_options(self, options: dict[str, Any] | None) -> None:
        """Take `reset`'s options: `warmup_seed` (an int: share that warm-up from now on; None:
        each episode warms up itself). Any other key is refused."""
        if not options:
            return
        unknown = sorted(set(options) - set(_OPTIONS))
        if unknown:
            raise ConfigError(f"{self._name()}: unknown reset option(s) {unknown}; known: {list(_OPTIONS)}")
        if "warmup_seed" in options:
            self.warmup_seed = _check_seed(options["warmup_seed"], f"{self._name()}: warmup_seed")

    def _info(self, builtin: int, parts: Sequence[float]) -> dict[str, Any]:
        return {
            "action_mask": self._mask.copy(),
            "builtin_action": builtin,
            "reward_parts": dict(zip(self.reward_parts, parts, strict=True)),
        }

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        self.set_options(options)
        self._sim = self._simulation(self.run_seed(seed))
        if self.warmup_seed is not None:
            self._sim.start_from(self.warm_drive(self.warmup_seed))
        self._sim.attach(self.KIND)
        # Each decision's observation and mask are written into these arrays (no list a step).
        self._sim.bind_decisions(self._obs, self._mask)
        decision = self._sim.advance_into()
        if decision is None:
            raise ConfigError(
                f"{self._name()}: the run ended before its first {self.KIND} decision: "
                f"{self.no_decision_hint(self._sim.report())}"
            )
        self._done = False
        _, builtin, _ = decision
        info = self._info(builtin, [0.0] * len(self.reward_parts))
        info["features"] = self.features
        return self._obs.copy(), info

    def no_decision_hint(self, report: Report) -> str:
        """Why a run (its `report`) ended before its first decision, and what to change."""
        return "a longer trace or more requests"

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


#: The docs' GC drive (docs/lab.md, examples/dqn_gc.py, `make run`): a 3 GiB cut of the 128 Gb
#: die (512 blocks per plane), 60 % of it in use, filled and overwritten once at random, so the
#: free blocks are at RLGC's trigger from the first request; addresses packed.
GC_DRIVE = (
    "device.blocks_per_plane=512",
    "device.utilization=0.6",
    "warmup.fill=true",
    "warmup.random_writes=1.0",
    'workload.fold="compact"',
)

#: The FSP paper's QLC drive cut small: 2 channels of 64 blocks of 256 pages, a 1 MiB buffer.
FSP_DRIVE = (
    "device.channels=2",
    "device.chips_per_channel=1",
    "device.blocks_per_plane=64",
    "device.pages_per_block=256",
    "device.overprovisioning=0.2",
    "gc.trigger_free_blocks=8",
    'cache.capacity="1MiB"',
)

#: The RL-SLC paper's hybrid drive cut small (256 blocks of 256 pages), a step every 2 SLC
#: blocks of writes, the size in steps of 8 blocks.
SLC_DRIVE = (
    "device.blocks_per_plane=256",
    "device.pages_per_block=256",
    "device.overprovisioning=0.2",
    "slc.rl.step_slc_blocks=2",
    "slc.rl.size_step_blocks=8",
)


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
    choose one (`gc.scheduler=...`).

    Default setup: the docs' GC drive (`GC_DRIVE` on `kang-3d-128gb`) under the paper's Table 1
    workload `rlgc-home1` (bursts and idle gaps, drawn from the seed), 10,000 requests: about
    3,200 decisions an episode (3,078-3,277 on seeds 0-4, a random agent). RLGC decides only after an idle gap on a drive at its trigger,
    so a closed-loop workload or a fresh drive gives no decision."""

    KIND: ClassVar[str] = "gc.scheduler"
    POLICY: ClassVar[str] = "rlgc"
    DEFAULT_SETUP: ClassVar[DefaultSetup] = DefaultSetup("kang-3d-128gb", "rlgc-home1", GC_DRIVE, 10_000)

    def no_decision_hint(self, report: Report) -> str:
        gc = report["policies"]["gc_scheduler_report"]
        if not isinstance(gc, dict) or "skipped_zero_interval" not in gc:
            return "the scheduler never decided"
        trigger = gc["trigger_free_blocks"]
        skipped = gc["skipped_zero_interval"]
        intensive = (gc.get("intensive") or {}).get("steps", 0)
        if skipped > 0:
            return (
                f"GC triggered ({skipped:,} writes), but never after an idle gap, and RLGC decides only "
                'after one (gc.rlgc.zero_interval = "no_idle_gap"); a closed-loop workload leaves none. '
                'Use open-loop arrivals with gaps (workload.arrival="onoff", a trace, a spec such as '
                'workload="rlgc-home1"), or decide at every triggered write: '
                'gc.rlgc.zero_interval="same_arrival"'
            )
        if intensive > 0:
            return (
                f"GC ran only as intensive GC ({intensive:,} steps, the host-usable free blocks at or "
                "below gc.rlgc.intensive_enter_free_blocks), where RLGC does not decide: its trigger, "
                f"gc.trigger_free_blocks = {trigger}, leaves no room above that. Raise it (e.g. "
                "gc.trigger_free_blocks=12 on the tiny preset)"
            )
        return (
            f"GC never triggered: the free blocks never fell to gc.trigger_free_blocks = {trigger} in "
            f"{report['workload']['requests']:,} requests. Precondition the drive (warmup.fill=true and "
            "warmup.random_writes=1.0: at the trigger from the first request) or run more requests"
        )


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
    overrides choose one.

    Default setup: `li-qlc-fsp` cut small (`FSP_DRIVE`), random 16 KiB reads and writes half
    and half, 10,000 requests: about 10,000 decisions an episode (9,990-10,078 on seeds 0-4: a
    page type per page written),
    and rewards from the first thousand programmed pages on."""

    KIND: ClassVar[str] = "cache.eviction"
    POLICY: ClassVar[str] = "rl_fsp"
    DEFAULT_SETUP: ClassVar[DefaultSetup] = DefaultSetup(
        "li-qlc-fsp",
        None,
        (*FSP_DRIVE, 'workload.rw="randrw"', "workload.rwmixread=50", "workload.bs=16384"),
        10_000,
    )

    def no_decision_hint(self, report: Report) -> str:
        return 'no host write reached the write buffer: a workload with writes (e.g. workload.rw="randrw")'


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
    environment sets `slc.policy = "rl"` unless the overrides choose one.

    Default setup: `yoo-hybrid-qlc` cut small (`SLC_DRIVE`: a step every 2 SLC blocks of
    writes), random 64 KiB reads and writes (30 % reads), 20,000 requests: about 1,750 decisions
    an episode (1,739-1,761 on seeds 0-4), the drive written over three times (GC and migration
    between steps)."""

    KIND: ClassVar[str] = "slc.policy"
    POLICY: ClassVar[str] = "rl"
    DEFAULT_SETUP: ClassVar[DefaultSetup] = DefaultSetup(
        "yoo-hybrid-qlc",
        None,
        (*SLC_DRIVE, 'workload.rw="randrw"', "workload.rwmixread=30", "workload.bs=65536"),
        20_000,
    )

    def no_decision_hint(self, report: Report) -> str:
        written_mib = report["workload"]["write_bytes"] / 2**20
        return (
            f"fewer host writes ({written_mib:,.1f} MiB) than one step, slc.rl.step_slc_blocks SLC "
            "blocks' worth: more requests, or a smaller step (e.g. slc.rl.step_slc_blocks=1)"
        )
