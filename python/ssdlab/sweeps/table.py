"""Layer: Python, sweeps. One job: the results table of a grid sweep as a DataFrame, one row per
cell in grid order: `cell_id`, one column per axis (its value as the grid gives it), `seed`,
`status`, `error`, `wall_s`, `ssdlab_version`, `verify`, every figure of `run_figures` and
`report` (the report's path, relative to the results directory)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ssdlab.sweeps.cells import Cell
from ssdlab.sweeps.grid import toml_literal
from ssdlab.sweeps.outcome import CellOutcome

if TYPE_CHECKING:
    import pandas as pd


def _axis_column(values: list[Any]) -> list[Any]:
    """An axis's values as one Parquet column: kept when they share a scalar type (integers and
    numbers mixed become numbers), else each written as TOML text (lists, tables, mixed types)."""
    kinds = {type(v) for v in values}
    if len(kinds) == 1 and kinds <= {str, bool, int, float}:
        return values
    if kinds == {int, float}:
        return [float(v) for v in values]
    return [toml_literal(v) for v in values]


def _figure_column(values: list[Any]) -> Any:
    """A figure column: nullable integers when every present value is an integer (so a failed
    cell does not turn counts into floats), else floats with NaN where missing."""
    import pandas as pd

    present = [v for v in values if v is not None]
    if present and all(isinstance(v, int) and not isinstance(v, bool) for v in present):
        return pd.array(values, dtype="Int64")
    return [math.nan if v is None else float(v) for v in values]


def results_frame(
    axis_keys: Sequence[str], cells: Sequence[Cell], outcomes: Sequence[CellOutcome]
) -> pd.DataFrame:
    """The table of a grid sweep (cells and outcomes in the same order)."""
    import pandas as pd

    figure_names: list[str] = []
    for outcome in outcomes:
        for name in (outcome.result or {}).get("figures", {}):
            if name not in figure_names:
                figure_names.append(name)
    columns: dict[str, Any] = {"cell_id": [c.id for c in cells]}
    for key in axis_keys:
        columns[key] = _axis_column([c.labels[key] for c in cells])
    results = [o.result or {} for o in outcomes]
    columns["seed"] = [c.labels["seed"] for c in cells]
    columns["status"] = [o.status for o in outcomes]
    columns["error"] = [o.error for o in outcomes]
    columns["wall_s"] = [float(o.wall_s) for o in outcomes]
    columns["ssdlab_version"] = [r.get("ssdlab_version") for r in results]
    columns["verify"] = [r.get("verify") for r in results]
    for name in figure_names:
        columns[name] = _figure_column([r.get("figures", {}).get(name) for r in results])
    columns["report"] = [o.files[0] if o.files else None for o in outcomes]
    return pd.DataFrame(columns)
