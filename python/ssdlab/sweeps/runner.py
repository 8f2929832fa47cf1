"""Layer: Python, sweeps. One job: `run_cells`, the engine under `ssdlab sweep` and the paper
reproductions: run a worker on every cell not already done, on a backend, with a progress bar,
persisting each outcome as it finishes, and return the outcomes in cell order."""

from __future__ import annotations

from collections.abc import Iterable
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ssdlab import __version__
from ssdlab._console import cells_progress
from ssdlab.sweeps import lock
from ssdlab.sweeps.backends import check_backend, session
from ssdlab.sweeps.cells import Cell
from ssdlab.sweeps.lifetime import sigterm_as_interrupt
from ssdlab.sweeps.outcome import FILES_KEY, Attempt, CellOutcome, Worker
from ssdlab.sweeps.record import ResultCheck
from ssdlab.sweeps.store import CellRecords


@dataclass(frozen=True)
class RunSettings:
    """How the cells run and which records are trusted: `run_cells`'s arguments of the same
    names. Checked when made (`check_backend`: one line, before anything runs)."""

    backend: str
    processes: int | None
    address: str | None
    resume: bool
    retry_failed: bool
    ship_traces: bool
    check_result: ResultCheck | None
    label: str

    def __post_init__(self) -> None:
        check_backend(self.backend, self.address, self.ship_traces)


def _outcome(cell: Cell, attempt: Attempt, records: CellRecords | None) -> CellOutcome:
    """The outcome of one attempt; the files its result carries are written under the results
    directory (and leave the result), then the outcome is recorded there."""
    status, error, result = attempt.status, attempt.error, attempt.result
    files: dict[str, str] = {}
    if result is not None and FILES_KEY in result:
        result = dict(result)
        payload: Any = result.pop(FILES_KEY)
        if not isinstance(payload, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in payload.items()
        ):
            status, error, result = "failed", f"the worker's {FILES_KEY!r} is not {{path: text}}", None
        elif records is not None:
            files = records.write_files(cell.id, payload)
    outcome = CellOutcome(cell.id, status, error, attempt.wall_s, result, tuple(files))
    if records is not None:
        records.save(outcome, cell.labels, __version__, files)
    return outcome


def run_cells(
    cells: Iterable[Cell],
    worker: Worker,
    *,
    out: str | Path | None = None,
    backend: str = "local",
    processes: int | None = None,
    address: str | None = None,
    resume: bool = True,
    retry_failed: bool = False,
    ship_traces: bool = False,
    wait: bool = False,
    check_result: ResultCheck | None = None,
    label: str = "simulating",
) -> list[CellOutcome]:
    """Run `worker(cell.job)` for every cell; returns one CellOutcome per cell, in cell order.

    `worker` is a module-level function (it is sent to other processes) returning a
    JSON-serialisable dict; whatever it raises makes that cell "failed" with the reason, and the
    other cells run on. A result may carry files under the key "files" ({relative path: text},
    `{id}` in a path standing for the cell's id): they are written under `out`, where the worker
    could not write itself (a Ray worker on another machine), and the outcome lists their paths.

    With `out`, each outcome is recorded in `out/cells/<id>.json` as it finishes, and with
    `resume` a cell whose id has a record is not run again: its recorded outcome comes back
    (`resumed=True`), unless it failed and `retry_failed` is set. A record is used only if it is
    that cell's whole and consistent record (and `check_result`, the worker's own check of a
    result, accepts its result); else it is set aside as `<id>.json.bad`, with a SweepWarning,
    and the cell runs again. A record of another schema version raises DirectoryRefused. While
    it runs, the sweep holds `out`'s lock: another sweep into `out` raises DirectoryRefused, or
    with `wait`, is waited for. A cell whose configuration was invalid (`cell.invalid`) is
    recorded as failed without running. Cells that share an id (one configuration reached
    twice) run once.

    SIGTERM, like ^C, stops the run (`lifetime.Terminated`, a KeyboardInterrupt): the running
    cells are abandoned and their processes ended, the finished ones stay recorded.

    `backend`: "local" (a process pool of `processes`, default one per core; 1 runs in this
    process) or "ray" (`address` of a cluster, default a local instance of `processes` CPUs;
    `ship_traces` sends trace files through Ray's object store instead of reading them at their
    paths). `label` names the progress bar."""
    settings = RunSettings(
        backend, processes, address, resume, retry_failed, ship_traces, check_result, label
    )
    if out is None:
        return run_cells_in(None, cells, worker, settings)
    with lock.hold(Path(out), wait):
        return run_cells_in(CellRecords(out), cells, worker, settings)


def run_cells_in(
    records: CellRecords | None,
    cells: Iterable[Cell],
    worker: Worker,
    settings: RunSettings,
) -> list[CellOutcome]:
    """`run_cells` into `records`, whose directory's lock the caller holds (`lock.hold`), or
    into none."""
    cells = list(cells)
    unique: dict[str, Cell] = {}
    for cell in cells:
        unique.setdefault(cell.id, cell)
    outcomes: dict[str, CellOutcome] = {}
    with sigterm_as_interrupt():
        if records is not None:
            records.remove_partials()
        for cell_id, cell in unique.items():
            previous = (
                records.load(cell_id, settings.check_result)
                if records is not None and settings.resume
                else None
            )
            if previous is not None and (previous.ok or not settings.retry_failed):
                outcomes[cell_id] = previous
            elif cell.invalid is not None:
                outcomes[cell_id] = _outcome(cell, Attempt("failed", cell.invalid, 0.0, None), records)
        to_run = [cell for cell_id, cell in unique.items() if cell_id not in outcomes]
        if to_run:
            jobs = [cell.job for cell in to_run]
            with (
                session(settings.backend, settings.processes, settings.address, settings.ship_traces) as run,
                # Again inside: ray.init puts its own SIGTERM handler (sys.exit) in place.
                sigterm_as_interrupt(),
                cells_progress(settings.label, len(to_run)) as advance,
                closing(run(worker, jobs)) as finished,
            ):
                for index, attempt in finished:
                    cell = to_run[index]
                    outcomes[cell.id] = _outcome(cell, attempt, records)
                    advance(not outcomes[cell.id].ok)
    return [outcomes[cell.id] for cell in cells]
