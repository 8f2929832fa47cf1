"""Layer: Python, sweeps. Grids of simulations on local cores or Ray, resumable, into one
results table (docs/sweeps.md).

Two entry points:

- `sweep(grid, out=...)` runs a grid file (`ssdlab sweep GRID.toml -o DIR` is its command line)
  and returns the results table, one row per cell;
- `run_cells(cells, worker, out=...)` is the engine under it, for callers with their own worker
  (the paper reproductions): cells from `cells_from_jobs(jobs)`, outcomes back in cell order.

Modules, one job each: `grid` (the grid file), `locate` (line numbers in it), `keys` (which config
keys exist), `job` (one simulation to run), `cells` (cells and their stable ids), `plan` (grid -> cells), `outcome` (running one
worker call), `backends` (local and Ray), `lifetime` (SIGTERM, and workers that end with the
sweep), `store` (the results directory), `record` (a cell's record and its check), `lock` (one
sweep per directory), `errors` (DirectoryRefused, SweepWarning), `runner` (`run_cells`),
`worker` (the grid sweep's worker), `table` (the results table).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ssdlab import __version__
from ssdlab.sweeps import lock
from ssdlab.sweeps.cells import Cell, FileDigests, cell_id, cells_from_jobs
from ssdlab.sweeps.errors import DirectoryRefused, SweepWarning
from ssdlab.sweeps.grid import Grid, load_grid
from ssdlab.sweeps.lifetime import Terminated
from ssdlab.sweeps.outcome import FILES_KEY, CellOutcome
from ssdlab.sweeps.plan import plan
from ssdlab.sweeps.runner import RunSettings, run_cells, run_cells_in
from ssdlab.sweeps.store import (
    GRID_FILE,
    TABLE_FILE,
    CellRecords,
    claim_directory,
    read_table,
    write_atomic,
    write_table,
)

if TYPE_CHECKING:
    import pandas as pd


@dataclass(frozen=True)
class SweepResult:
    """A finished sweep: its grid, its cells and their outcomes (grid order), the table, and
    where the table was written (None without a results directory)."""

    grid: Grid
    cells: list[Cell]
    outcomes: list[CellOutcome]
    frame: pd.DataFrame
    table_path: Path | None


def run_sweep(
    grid: str | Path | Grid,
    out: str | Path | None = None,
    backend: str = "local",
    processes: int | None = None,
    address: str | None = None,
    resume: bool = True,
    ship_traces: bool = False,
    retry_failed: bool = False,
    wait: bool = False,
    replace_grid: bool = False,
) -> SweepResult:
    """`sweep`, returning the cells and outcomes beside the table (the CLI's summary uses them)."""
    grid = grid if isinstance(grid, Grid) else load_grid(grid)
    cells = plan(grid)
    from ssdlab.sweeps.table import results_frame
    from ssdlab.sweeps.worker import check_result, run_cell

    settings = RunSettings(
        backend, processes, address, resume, retry_failed, ship_traces, check_result, label="simulating"
    )
    if out is None:
        outcomes = run_cells_in(None, cells, run_cell, settings)
        return SweepResult(grid, cells, outcomes, results_frame(grid.axis_keys, cells, outcomes), None)
    out_dir = Path(out)
    # The lock is held from before the directory is read until its table is written: another
    # sweep never sees it half way, nor runs its cells a second time.
    with lock.hold(out_dir, wait):
        claim_directory(out_dir, grid.text, grid.path, replace_grid)
        write_atomic(out_dir / GRID_FILE, grid.text.encode())
        outcomes = run_cells_in(CellRecords(out_dir), cells, run_cell, settings)
        frame = results_frame(grid.axis_keys, cells, outcomes)
        write_table(frame, out_dir / TABLE_FILE, __version__)
    return SweepResult(grid, cells, outcomes, frame, out_dir / TABLE_FILE)


def sweep(
    grid: str | Path | Grid,
    out: str | Path | None = None,
    backend: str = "local",
    processes: int | None = None,
    address: str | None = None,
    resume: bool = True,
    ship_traces: bool = False,
    retry_failed: bool = False,
    wait: bool = False,
    replace_grid: bool = False,
) -> pd.DataFrame:
    """Run every cell of a grid file and return the results table (one row per cell, grid
    order). With `out`, the directory gets the table (results.parquet), each cell's report and
    record, and a copy of the grid, and a rerun skips the cells already done (`resume`; failed
    ones too, unless `retry_failed`). Without `out` nothing is written (and nothing resumes).
    The grid's problems raise ConfigError before anything runs; a cell whose configuration is
    invalid, or whose run fails, is a row with status "failed" and its error.

    The directory is refused (DirectoryRefused, before anything runs) while another sweep writes
    into it (unless `wait`: then this one waits for it), when it holds another grid's results
    (unless `replace_grid`), or a table or record of another schema or tool. A record that is
    not its cell's whole, consistent record is set aside (`cells/<id>.json.bad`, a SweepWarning)
    and its cell runs again."""
    return run_sweep(
        grid, out, backend, processes, address, resume, ship_traces, retry_failed, wait, replace_grid
    ).frame


def outcomes_by_status(outcomes: Sequence[CellOutcome]) -> dict[str, int]:
    """How many outcomes are ok, failed, and were resumed rather than run."""
    return {
        "ok": sum(o.ok for o in outcomes),
        "failed": sum(not o.ok for o in outcomes),
        "resumed": sum(o.resumed for o in outcomes),
    }


__all__ = [
    "FILES_KEY",
    "Cell",
    "CellOutcome",
    "DirectoryRefused",
    "FileDigests",
    "Grid",
    "SweepResult",
    "SweepWarning",
    "Terminated",
    "cell_id",
    "cells_from_jobs",
    "load_grid",
    "outcomes_by_status",
    "plan",
    "read_table",
    "run_cells",
    "run_sweep",
    "sweep",
]
