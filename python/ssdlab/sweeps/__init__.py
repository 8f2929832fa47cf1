"""Layer: Python, sweeps. Grids of simulations (docs/sweeps.md): the grid file, its cells, and
`run_cells`, the engine that runs cells on local cores or Ray, resumably.

Modules, one job each: `grid` (the grid file), `locate` (line numbers in it), `keys` (which config
keys exist), `cells` (cells and their stable ids), `plan` (grid -> cells), `outcome` (running one
worker call), `backends` (local and Ray), `store` (the results directory), `runner`
(`run_cells`).
"""

from __future__ import annotations

from ssdlab.sweeps.cells import Cell, FileDigests, cell_id, cells_from_jobs
from ssdlab.sweeps.grid import Grid, load_grid
from ssdlab.sweeps.outcome import FILES_KEY, CellOutcome
from ssdlab.sweeps.plan import plan
from ssdlab.sweeps.runner import run_cells

__all__ = [
    "FILES_KEY",
    "Cell",
    "CellOutcome",
    "FileDigests",
    "Grid",
    "cell_id",
    "cells_from_jobs",
    "load_grid",
    "plan",
    "run_cells",
]
