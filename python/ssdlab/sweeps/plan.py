"""Layer: Python, sweeps. One job: expand a checked `Grid` into its cells: the product of the
axes (first axis slowest) times the seeds, minus the excluded combinations, each cell's
configuration resolved (validated) up front and its id computed."""

from __future__ import annotations

import itertools
from dataclasses import replace
from typing import Any

from ssdlab.errors import ConfigError
from ssdlab.sweeps.cells import Cell, FileDigests, cell_of
from ssdlab.sweeps.grid import SPECIAL_AXES, Axis, Grid, same_value
from ssdlab.sweeps.job import Job
from ssdlab.sweeps.locate import key_lines, line_of


def _excluded(values: dict[str, Any], excludes: tuple[dict[str, Any], ...]) -> bool:
    """Whether a combination matches every key of one exclude entry."""
    return any(
        all(same_value(values[key], value) for key, value in entry.items()) for entry in excludes if entry
    )


def _job(grid: Grid, combination: tuple[tuple[Axis, int], ...], seed: int, labels: dict[str, Any]) -> Job:
    """The job of one cell: the base, each axis's argument for its value, then the seed."""
    base = grid.base
    arguments: dict[str, Any] = {}
    overrides = list(base.overrides)
    for axis, index in combination:
        if axis.key in SPECIAL_AXES:
            arguments[axis.key] = axis.arguments[index]
        else:
            overrides.append(axis.arguments[index])
    overrides.append(f"seed={seed}")
    return Job(labels, replace(base, **arguments, overrides=tuple(overrides)))


def plan(grid: Grid, digests: FileDigests | None = None) -> list[Cell]:
    """Every cell of the grid in order: axes product, first axis slowest, then seeds. Each
    cell's configuration is resolved here, so an invalid one is known (and recorded as failed)
    before any cell runs. A grid whose every combination is excluded is a ConfigError (on the
    line of its first [[exclude]]): a sweep of nothing is a mistake, not a success."""
    digests = digests or FileDigests()
    cells = []
    indices = [range(len(axis.values)) for axis in grid.axes]
    for combo in itertools.product(*indices):
        combination = tuple(zip(grid.axes, combo, strict=True))
        values = {axis.key: axis.values[i] for axis, i in combination}
        if _excluded(values, grid.excludes):
            continue
        for seed in grid.seeds:
            labels = {**values, "seed": seed}
            cells.append(cell_of(_job(grid, combination, seed, labels), digests))
    if not cells:
        line = line_of(key_lines(grid.text), "exclude#1")
        where = f"{grid.path}:{line}" if line else str(grid.path)
        raise ConfigError(
            f"{where}: [[exclude]]: every combination of the axes is excluded: the grid has no cell to run",
            path=str(grid.path),
            line=line,
            problems=[("exclude", "every combination is excluded")],
        )
    return cells
