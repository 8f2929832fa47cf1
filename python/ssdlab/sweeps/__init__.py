"""Layer: Python, sweeps. Grids of simulations (docs/sweeps.md): the grid file and its cells.

Modules, one job each: `grid` (the grid file), `locate` (line numbers in it), `keys` (which config
keys exist), `cells` (cells and their stable ids), `plan` (grid -> cells).
"""

from __future__ import annotations

from ssdlab.sweeps.cells import Cell, FileDigests, cell_id, cells_from_jobs
from ssdlab.sweeps.grid import Grid, load_grid
from ssdlab.sweeps.plan import plan

__all__ = ["Cell", "FileDigests", "Grid", "cell_id", "cells_from_jobs", "load_grid", "plan"]
