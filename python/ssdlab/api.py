"""The Python API: build a simulation from what to simulate (a `Setup`, or its keyword
arguments: a preset, workload and overrides, ...), run it, get a `Report`."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from ssdlab import _core
from ssdlab.config import ConfigOverride, Overrides, overrides_of, toml_string, warn_deprecated
from ssdlab.report import HISTOGRAMS, Report
from ssdlab.setup import Setup, setup_of

if TYPE_CHECKING:
    import numpy as np

#: A drive after its warm-up, made by `Simulation.warm_drive` (opaque: it stays in Rust).
WarmDrive = _core.WarmDrive

#: N simulations stepped together across threads, the GIL released (`ssdlab.gym.vector`).
VecSimulation = _core.VecSimulation


#: Events processed per native call: large enough that Python overhead vanishes, small enough
#: for a responsive progress display.
STEP_EVENTS = 200_000

ProgressCallback = Callable[[int, int | None], None]


class Simulation:
    """One simulation run.

    >>> sim = Simulation(preset="tiny", workload="randwrite", overrides={"workload.count": 2000})
    >>> report = sim.run()
    >>> report["workload"]["requests"]
    2000
    >>> [str(o) for o in sim.overridden]
    ['workload.count: 200000 (from workload:randwrite:6) -> 2000 (from --set)']
    """

    def __init__(
        self,
        preset: str | None = "tiny",
        workload: str | Path | None = None,
        trace: str | Path | None = None,
        overrides: Overrides = (),
        config_files: Iterable[str | Path] = (),
        trace_format: str | None = None,
        request_log: str | Path | bool | None = None,
        trace_with_workload: bool = False,
        *,
        setup: Setup | None = None,
    ) -> None:
        """What to simulate: `setup`, or its keyword arguments (`Setup`: the preset, workload,
        trace, overrides, config files, trace format and `trace_with_workload`), not both.
        `overrides`: `{"key": value}` (values as Python, written as TOML) or a list of
        `"key=value"` strings; they go over the config files, which go over the workload
        pattern and the preset (`overridden` lists what a later layer changed). `request_log`: a
        path streams one Parquet row per host request there (`report.request_log`); True keeps
        the log in a temporary file that `report()` loads into `Report.requests` and deletes.
        `trace_with_workload`: allow `trace` with a built-in `workload` pattern or spec, whose
        other keys (warm-up, request count) then shape the replay (refused otherwise)."""
        setup = setup_of(
            setup,
            preset=preset,
            workload=workload,
            trace=trace,
            overrides=overrides,
            config_files=config_files,
            trace_format=trace_format,
            trace_with_workload=trace_with_workload,
        )
        preset, layers, overrides = setup.raw()
        self._temp_log: Path | None = None
        if request_log is True:
            fd, name = tempfile.mkstemp(prefix="ssdlab-requests-", suffix=".parquet")
            os.close(fd)
            self._temp_log = Path(name)
            request_log = name
        if request_log:
            overrides.append(f"report.request_log={toml_string(str(request_log))}")
        self._native = _core.Simulation(preset, layers, overrides)
        warn_deprecated(self._native.config_warnings())
        self._finished = False
        self._requests = None

    def __del__(self) -> None:
        if getattr(self, "_temp_log", None) is not None:
            self._temp_log.unlink(missing_ok=True)

    @property
    def overridden(self) -> list[ConfigOverride]:
        """Every key a later layer set over an earlier one's value (a config file over the
        workload pattern, an override over the preset), each once with every value it took. The
        CLI prints them as notes; the API only hands them over."""
        return overrides_of(self._native.config_overridden())

    @property
    def config_toml(self) -> str:
        """The resolved configuration as TOML."""
        return self._native.config_toml()

    def step(self, max_events: int = STEP_EVENTS) -> bool:
        """Advance by up to `max_events` events; True when the run is finished."""
        self._finished = self._native.step(max_events)
        return self._finished

    def progress(self) -> tuple[int, int | None]:
        """(requests completed, requests expected or None) of the measured run."""
        return self._native.progress()

    def warm_up_step(self, max_work: int = STEP_EVENTS) -> bool:
        """Run the next slice of the warm-up (`[warmup]`): up to `max_work` pages of its untimed
        writes, or events of its timed ones; True once it is over. `step` warms up whole; this is
        for showing the warm-up's progress (`warmup_progress`) as it goes. The drive ends the
        same either way."""
        return self._native.warm_up_step(max_work)

    def warmup_progress(self) -> tuple[int, int, int, int] | None:
        """(pages written, pages to write, simulated ns of timed writes run, of those to run) of
        the warm-up, or None once it is over."""
        return self._native.warmup_progress()

    def drive_fit(self, needed_bytes: int) -> tuple[int, float | None]:
        """What this run's drive, every other key as it is, needs to hold `needed_bytes` of used
        logical space: the smallest `device.blocks_per_plane`, and the lowest
        `device.utilization` in hundredths (None when its logical space is too small)."""
        return self._native.drive_fit(needed_bytes)

    def warm_drive(self) -> WarmDrive:
        """The drive after the warm-up (`[warmup]`; warmed up now if it was not), for runs that
        differ from this one only in `[workload]` to `start_from` instead of each repeating the
        warm-up. This run can still go on to its own workload."""
        return self._native.warm_drive()

    def start_from(self, drive: WarmDrive) -> None:
        """Start from a warm drive instead of warming up: the report is then byte for byte the one
        this run gives after its own warm-up. ConfigError if the drive was made with another
        configuration than this one's (but for `[workload]`) or once this run has begun."""
        self._native.start_from(drive)

    def attach(self, kind: str) -> dict:
        """Drive the decisions of `kind` (a seam's config key, e.g. "gc.scheduler") from Python,
        from the measured run's start: each decision then waits for `act`. Returns the decision
        space: `actions` (discrete, 0..actions), `features` (name, low, high, doc of each observed
        value), `reward_parts`. ConfigError if the chosen policy has no such decision point. The
        Gymnasium environments (`ssdlab.gym`) are built on this."""
        return self._native.attach(kind)

    def advance(self) -> tuple[list[float], list[bool], float, int, list[float]] | None:
        """Run to the next decision of an attached kind: (observation, action mask, reward since
        the previous decision, the built-in agent's action, the reward's parts in the order of
        the space's `reward_parts`), or None once the run has finished."""
        decision = self._native.advance()
        self._finished = decision is None
        return decision

    def act(self, action: int) -> tuple[list[float], list[bool], float, int, list[float]] | None:
        """Take `action` for the waiting decision (ActionError if out of range or masked), then
        `advance`."""
        decision = self._native.act(action)
        self._finished = decision is None
        return decision

    def bind_decisions(self, obs: np.ndarray, mask: np.ndarray) -> None:
        """Arrays (float32 with one value per observed feature, int8 with one per action,
        writable and C-contiguous) that `advance_into` and `act_into` write each decision's
        observation and mask into: an agent loop then builds no Python list per decision."""
        self._native.bind_decisions(obs, mask)

    def advance_into(self) -> tuple[float, int, list[float]] | None:
        """`advance`, with the observation and mask written into the bound arrays: (reward,
        builtin action, reward parts), or None once the run has finished."""
        decision = self._native.advance_into()
        self._finished = decision is None
        return decision

    def act_into(self, action: int) -> tuple[float, int, list[float]] | None:
        """`act`, with the next observation and mask written into the bound arrays."""
        decision = self._native.act_into(action)
        self._finished = decision is None
        return decision

    def run(self, progress: ProgressCallback | None = None) -> Report:
        """Run to the end, calling `progress(done, total)` between native steps."""
        while not self.step(STEP_EVENTS):
            if progress is not None:
                done, total = self._native.progress()
                progress(done, total)
        return self.report()

    def report(self) -> Report:
        """The report so far (final once the run is finished). The per-request log is readable
        only then: its Parquet footer is written when the run ends."""
        histograms = {k: self._native.latency_histogram(k) for k in HISTOGRAMS}
        log_path = self._native.request_log_path() if self._finished else None
        if self._temp_log is not None and log_path is not None:
            if self._requests is None:
                from ssdlab.report import read_requests

                self._requests = read_requests(log_path)
                self._temp_log.unlink(missing_ok=True)
            log_path = None
        return Report(
            self._native.report(), histograms=histograms, request_log=log_path, requests=self._requests
        )


def preset_sizes() -> list[dict]:
    """Every built-in device preset's capacity at its own utilization (`name`, `raw_bytes`,
    `logical_bytes`, `used_logical_bytes`, `utilization`), smallest used logical space first, as
    the core computes it from the preset's geometry."""
    return _core.preset_sizes()


def run(
    preset: str | None = "tiny",
    workload: str | Path | None = None,
    trace: str | Path | None = None,
    overrides: Overrides = (),
    config_files: Iterable[str | Path] = (),
    trace_format: str | None = None,
    progress: ProgressCallback | None = None,
    request_log: str | Path | bool | None = None,
    warm_drive: WarmDrive | None = None,
    trace_with_workload: bool = False,
    *,
    setup: Setup | None = None,
) -> Report:
    """Build and run one simulation; returns its Report. With `warm_drive`, the run starts from
    that drive (`Simulation.warm_drive`) instead of warming up. The arguments are
    `Simulation`'s: what to simulate as a `setup`, or its keyword arguments."""
    sim = Simulation(
        preset,
        workload,
        trace,
        overrides,
        config_files,
        trace_format,
        request_log,
        trace_with_workload,
        setup=setup,
    )
    if warm_drive is not None:
        sim.start_from(warm_drive)
    return sim.run(progress)
