"""Layer: Python, sweeps. One simulation to run: a `Job` (labels for the tables, the
arguments of `ssdlab.run`) and a `WarmGroup` (jobs that share one warm-up). The sweep engine
runs them; the experiments and `ssdlab compare` make them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ssdlab.api import WarmDrive
    from ssdlab.report import Report
    from ssdlab.setup import Setup


@dataclass(frozen=True)
class Job:
    """One simulation of an experiment grid: labels for the tables, arguments for ssdlab.run."""

    labels: dict[str, Any]
    preset: str | None
    trace: str | None = None
    workload: str | None = None
    overrides: tuple[str, ...] = field(default_factory=tuple)
    config_files: tuple[str, ...] = field(default_factory=tuple)
    trace_format: str | None = None
    #: Replay `trace` with a built-in `workload` pattern's other keys (`ssdlab.run`'s).
    trace_with_workload: bool = False
    #: A drive warmed up by another job of the same configuration but `[workload]` (set in the
    #: worker by `run_jobs(share_warmups=True)`; never part of the job's identity).
    warm_drive: WarmDrive | None = field(default=None, compare=False, repr=False)

    @property
    def setup(self) -> Setup:
        """What this job simulates."""
        from ssdlab.setup import Setup

        return Setup(
            self.preset,
            self.workload,
            self.trace,
            self.overrides,
            self.config_files,
            self.trace_format,
            self.trace_with_workload,
        )

    def arguments(self) -> dict[str, Any]:
        """The keyword arguments of `ssdlab.run` and `ssdlab.resolve` for this job."""
        return self.setup.arguments()

    def run(self) -> Report:
        """Run this job in the calling process (the API is imported here, in the worker)."""
        from ssdlab.api import run

        return run(setup=self.setup, warm_drive=self.warm_drive)


@dataclass(frozen=True)
class WarmGroup(Job):
    """Jobs that differ only in `[workload]` and have a warm-up: run in one process, one warm-up
    made by the first and shared by all (`Simulation.warm_drive`), each job's report byte for
    byte the one it gives alone. A Job itself (the first member's fields), so that a backend can
    handle it as one; its result is `{"runs": [each member's result]}`."""

    members: tuple[Job, ...] = ()
