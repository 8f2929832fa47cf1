"""The Python API: build a simulation from a preset, workload and overrides, run it, get a
`Report`."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from ssdlab import _core
from ssdlab.config import build_layers
from ssdlab.report import Report

#: Events processed per native call: large enough that Python overhead vanishes, small enough
#: for a responsive progress display.
STEP_EVENTS = 200_000

ProgressCallback = Callable[[int, int | None], None]


class Simulation:
    """One simulation run.

    >>> sim = Simulation(preset="tiny", workload="randwrite", overrides=["workload.count=2000"])
    >>> report = sim.run()
    >>> report["workload"]["requests"]
    2000
    """

    def __init__(
        self,
        preset: str | None = "tiny",
        workload: str | Path | None = None,
        trace: str | Path | None = None,
        overrides: Sequence[str] = (),
        config_files: Iterable[str | Path] = (),
        trace_format: str | None = None,
    ) -> None:
        layers = build_layers(workload, trace, trace_format, config_files)
        self._native = _core.Simulation(preset, layers, list(overrides))

    @property
    def config_toml(self) -> str:
        """The resolved configuration as TOML."""
        return self._native.config_toml()

    def step(self, max_events: int = STEP_EVENTS) -> bool:
        """Advance by up to `max_events` events; True when the run is finished."""
        return self._native.step(max_events)

    def progress(self) -> tuple[int, int | None]:
        return self._native.progress()

    def run(self, progress: ProgressCallback | None = None) -> Report:
        """Run to the end, calling `progress(done, total)` between native steps."""
        while not self._native.step(STEP_EVENTS):
            if progress is not None:
                done, total = self._native.progress()
                progress(done, total)
        return self.report()

    def report(self) -> Report:
        hist = {k: self._native.latency_histogram(k) for k in ("read", "write", "all")}
        log = self._native.request_log()
        requests = None
        if log is not None:
            arrival, latency, op, offset, size = log
            requests = pd.DataFrame(
                {
                    "arrival_ns": pd.array(arrival, dtype="uint64"),
                    "latency_ns": pd.array(latency, dtype="uint64"),
                    "op": pd.Categorical.from_codes(
                        np.frombuffer(bytes(op), dtype=np.uint8).astype(np.int8),
                        categories=["read", "write", "trim"],
                    ),
                    "offset_bytes": pd.array(offset, dtype="uint64"),
                    "size_bytes": pd.array(size, dtype="uint64"),
                }
            )
        return Report.from_json(self._native.report_json(), histograms=hist, requests=requests)


def run(
    preset: str | None = "tiny",
    workload: str | Path | None = None,
    trace: str | Path | None = None,
    overrides: Sequence[str] = (),
    config_files: Iterable[str | Path] = (),
    trace_format: str | None = None,
    progress: ProgressCallback | None = None,
) -> Report:
    """Build and run one simulation; returns its Report."""
    sim = Simulation(preset, workload, trace, overrides, config_files, trace_format)
    return sim.run(progress)
