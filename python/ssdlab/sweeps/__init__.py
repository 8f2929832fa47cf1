"""Layer: Python, sweeps. Grids of simulations (docs/sweeps.md): so far the grid file.

Modules, one job each: `grid` (the grid file), `locate` (line numbers in it), `keys` (which config
keys exist).
"""

from __future__ import annotations

from ssdlab.sweeps.grid import Grid, load_grid

__all__ = ["Grid", "load_grid"]
