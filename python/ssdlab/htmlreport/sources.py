"""Layer: Python, HTML report. One job: say what a path given to `ssdlab report` holds and read
it: a run report (JSON), a `compare` directory, a `sweep` directory or a reproduction. Problems
(nothing to report on, a missing or unreadable report, a results table of another schema) raise
`SsdlabIOError` naming the file, before any HTML is written.

What tells the kinds apart, checked in this order:
- a file: a run report (`schema` `ssdlab-report/...`);
- a reproduction: `tables.md` or `verdicts.csv` (it may also hold a sweep's `results.parquet`,
  once the reproductions run on the sweep engine, or a `runs.csv`);
- a sweep: `results.parquet` (its `ssdlab.sweep_schema` metadata must be one this reads);
- a compare: `runs.csv` with a `report` column naming each run's report.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ssdlab.errors import SsdlabIOError
from ssdlab.report import Report

if TYPE_CHECKING:
    import pandas as pd

#: The sweep results schema this module reads (Parquet metadata `ssdlab.sweep_schema`).
SWEEP_SCHEMA_KEY = b"ssdlab.sweep_schema"
SWEEP_SCHEMA = b"1"

#: Columns of a sweep's results table that are not axes (besides the run figures).
SWEEP_COLUMNS = ("cell_id", "seed", "status", "error", "wall_s", "ssdlab_version", "verify", "report")


@dataclass
class RunInput:
    """One run report."""

    path: Path
    report: Report


@dataclass
class CompareInput:
    """A `compare` directory: runs.csv (a row per run: variant, the varied keys, seed, figures,
    report) and each run's report, in the order of the rows."""

    path: Path
    runs: pd.DataFrame
    keys: list[str]
    reports: list[Report]


@dataclass
class SweepInput:
    """A sweep directory: results.parquet (a row per cell), the axes (the columns that are
    neither bookkeeping nor figures), the grid file's text and the report of every cell that
    ran (by cell id)."""

    path: Path
    results: pd.DataFrame
    axes: list[str]
    grid_text: str | None
    reports: dict[str, Report]


@dataclass
class ReproductionInput:
    """A reproduction directory: its verdicts (paper vs ours), tables.md, PNG figures, runs.csv,
    per-run reports under cells/ and, on the sweep engine, its sweep results."""

    path: Path
    verdicts: pd.DataFrame | None
    tables_md: str | None
    figures: list[Path]
    runs: pd.DataFrame | None
    cells: dict[str, Report] = field(default_factory=dict)
    sweep: SweepInput | None = None
    #: The ssdlab versions of the sweep engine's run records under cells/ (reproductions keep
    #: those, not full reports).
    record_versions: list[str] = field(default_factory=list)


Input = RunInput | CompareInput | SweepInput | ReproductionInput


def load(path: str | Path) -> Input:
    """Read whatever `path` holds (see the module docstring for how the kind is told)."""
    path = Path(path)
    if not path.exists():
        raise SsdlabIOError(f"{path}: no such file or directory", path=str(path))
    if path.is_file():
        return RunInput(path, load_report(path))
    if (path / "tables.md").is_file() or (path / "verdicts.csv").is_file():
        return _reproduction(path)
    if (path / "results.parquet").is_file():
        return _sweep(path)
    if (path / "runs.csv").is_file():
        return _compare(path)
    raise SsdlabIOError(
        f"{path}: no results to report on: expected a run report (.json), a compare directory "
        "(runs.csv and reports/), a sweep directory (results.parquet) or a reproduction "
        "(tables.md, verdicts.csv)",
        path=str(path),
    )


def load_report(path: Path) -> Report:
    """A run report, or an error saying why the file is not one."""
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as e:
        raise SsdlabIOError(f"{path}: cannot read it: {e}", path=str(path)) from e
    try:
        report = Report.from_json(text)
    except json.JSONDecodeError as e:
        raise SsdlabIOError(
            f"{path}: not a run report (invalid JSON: {e}); to report on a directory of results, "
            "give the directory",
            path=str(path),
        ) from e
    schema = report.raw.get("schema") if isinstance(report.raw, dict) else None
    if not isinstance(schema, str) or not schema.startswith("ssdlab-report/"):
        raise SsdlabIOError(
            f"{path}: not a run report (no `schema: ssdlab-report/...` key); to report on a "
            "directory of results, give the directory",
            path=str(path),
        )
    if schema != "ssdlab-report/1":
        raise SsdlabIOError(
            f"{path}: report schema {schema}; this ssdlab reads ssdlab-report/1", path=str(path)
        )
    return report


def _read_csv(path: Path) -> pd.DataFrame:
    import pandas as pd

    try:
        return pd.read_csv(path)
    except (OSError, ValueError) as e:  # pandas' parser errors are ValueErrors
        raise SsdlabIOError(f"{path}: cannot read it as CSV: {e}", path=str(path)) from e


def _compare(path: Path) -> CompareInput:
    runs = _read_csv(path / "runs.csv")
    if runs.empty or "report" not in runs.columns:
        raise SsdlabIOError(
            f"{path / 'runs.csv'}: no runs to report on"
            + ("" if runs.empty else " (no `report` column naming each run's report)"),
            path=str(path / "runs.csv"),
        )
    columns = list(runs.columns)
    keys = columns[1 : columns.index("seed")] if "variant" in columns and "seed" in columns else []
    reports = [load_report(_inside(path, name, path / "runs.csv")) for name in runs["report"]]
    return CompareInput(path, runs, keys, reports)


def _inside(root: Path, name: object, listed_in: Path) -> Path:
    """A report named by a results table, which must exist under the directory."""
    target = root / str(name)
    if not target.is_file():
        raise SsdlabIOError(f"{listed_in} names {name}, which is missing", path=str(target))
    return target


def _sweep(path: Path) -> SweepInput:
    import numpy as np
    import pyarrow.parquet as pq

    table_path = path / "results.parquet"
    try:
        table = pq.read_table(table_path)
    except (OSError, ValueError) as e:
        raise SsdlabIOError(f"{table_path}: cannot read it as Parquet: {e}", path=str(table_path)) from e
    schema = (table.schema.metadata or {}).get(SWEEP_SCHEMA_KEY)
    if schema != SWEEP_SCHEMA:
        found = "none" if schema is None else schema.decode(errors="replace")
        raise SsdlabIOError(
            f"{table_path}: sweep results schema {found}; this ssdlab reads schema "
            f"{SWEEP_SCHEMA.decode()} (re-run the sweep, or report on it with the ssdlab that wrote it)",
            path=str(table_path),
        )
    results = table.to_pandas()
    if results.empty:
        raise SsdlabIOError(f"{table_path}: no cells to report on", path=str(table_path))
    missing = [c for c in ("cell_id", "status", "report") if c not in results.columns]
    if missing:
        raise SsdlabIOError(f"{table_path}: no {', '.join(missing)} column", path=str(table_path))
    grid = path / "grid.toml"
    reports = {
        str(row["cell_id"]): load_report(_inside(path, row["report"], table_path))
        for row in results.to_dict(orient="records")
        if row["status"] == "ok" and isinstance(row["report"], str)
    }
    axes = _axes(results, reports)
    for axis in axes:  # a list or table value (an axis of arrays) groups by its JSON text
        if any(isinstance(v, (list, dict, np.ndarray)) for v in results[axis]):
            results[axis] = [
                json.dumps(v.tolist() if isinstance(v, np.ndarray) else v) for v in results[axis]
            ]
    return SweepInput(path, results, axes, grid.read_text() if grid.is_file() else None, reports)


def _axes(results: pd.DataFrame, reports: dict[str, Report]) -> list[str]:
    """The axis columns: neither bookkeeping nor a run figure. The figures' names are the keys of
    `run_figures` on a cell's report; a sweep whose every cell failed has no report, and its
    figure columns (if written at all) hold nothing, so there the axes are the columns with a
    value."""
    from ssdlab.report import run_figures

    others = [c for c in results.columns if c not in SWEEP_COLUMNS]
    if reports:
        figures = set(run_figures(next(iter(reports.values()))))
        return [c for c in others if c not in figures]
    return [c for c in others if results[c].notna().any()]


def _reproduction(path: Path) -> ReproductionInput:
    verdicts = _read_csv(path / "verdicts.csv") if (path / "verdicts.csv").is_file() else None
    tables_md = (path / "tables.md").read_text() if (path / "tables.md").is_file() else None
    runs = _read_csv(path / "runs.csv") if (path / "runs.csv").is_file() else None
    cells, versions = {}, set()
    for p in sorted((path / "cells").glob("*.json")):
        record = _cell_record(p)
        if record is None:
            cells[p.stem] = load_report(p)
        else:
            versions.add(str(record.get("ssdlab_version")))
    sweep = _sweep(path) if (path / "results.parquet").is_file() else None
    figures = sorted(path.glob("*.png"))
    return ReproductionInput(path, verdicts, tables_md, figures, runs, cells, sweep, sorted(versions))


def _cell_record(path: Path) -> dict | None:
    """The sweep engine's record of a run (a reproduction keeps one per run in cells/: the figures
    its worker returned, not a run report), or None if the file is something else."""
    from ssdlab.sweeps.store import CELL_SCHEMA

    try:
        record = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None
    return record if isinstance(record, dict) and record.get("schema") == CELL_SCHEMA else None
