"""Layer: Python, sweeps. One simulation to run: a `Job` (labels for the tables, the
`Setup` it simulates) and a `WarmGroup` (jobs that share one warm-up). The sweep engine
runs them; the experiments and `ssdlab compare` make them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ssdlab.setup import Setup

if TYPE_CHECKING:
    from ssdlab.api import WarmDrive
    from ssdlab.report import Report


@dataclass(frozen=True)
class Job:
    """One simulation of an experiment grid: labels for the tables, what it simulates (a
    `Setup`: `ssdlab.run`'s arguments)."""

    labels: dict[str, Any]
    setup: Setup
    #: A drive warmed up by another job of the same configuration but `[workload]` (set in the
    #: worker by `run_jobs(share_warmups=True)`; never part of the job's identity).
    warm_drive: WarmDrive | None = field(default=None, compare=False, repr=False)

    def run(self) -> Report:
        """Run this job in the calling process (the API is imported here, in the worker)."""
        from ssdlab.api import run

        return run(setup=self.setup, warm_drive=self.warm_drive)


@dataclass(frozen=True)
class WarmGroup(Job):
    """Jobs that differ only in `[workload]` and have a warm-up: run in one process, one warm-up
    made by the first and shared by all (`Simulation.warm_drive`), each job's report byte for
    byte the one it gives alone. A Job itself (the first member's labels and setup), so that a
    backend can handle it as one; its result is `{"runs": [each member's result]}`."""

    members: tuple[Job, ...] = ()
