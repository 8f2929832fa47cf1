"""Layer: Python, sweeps. One job: the files of a results directory, each written so that a
sweep killed at any instant (even SIGKILL) leaves only whole files behind, and each read back
only if it is what a sweep of this version wrote:

    DIR/cells/<cell_id>.json     one record per finished cell (the source of truth for resuming)
    DIR/reports/<cell_id>.json   each ok cell's report (files a worker returns, written here)
    DIR/results.parquet          the table, rebuilt from the records when a sweep ends
    DIR/grid.toml                a copy of the grid file
    DIR/sweep.lock               held by the sweep running into DIR (`lock`)

Every file is written to a temporary name and renamed into place; the temporary files of a
sweep that was killed are removed by the next. A cell's files are written before its record, so
a record always has its files. A record is checked before it is used (`record`): one that is
not its cell's whole and consistent record is set aside (`.bad`) and its cell runs again.
Records and the table carry a schema version, and anything written by another schema or tool is
refused (DirectoryRefused), never misread nor overwritten.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ssdlab.errors import SsdlabIOError
from ssdlab.sweeps.errors import DirectoryRefused, SweepWarning
from ssdlab.sweeps.outcome import CellOutcome
from ssdlab.sweeps.record import (
    CELL_SCHEMA,
    ResultCheck,
    other_schema,
    outcome_of,
    record_problem,
    record_text,
)

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["CELL_SCHEMA", "CellRecords", "check_table", "read_table", "write_atomic", "write_table"]

#: The results table's schema version and writer, in its Parquet file metadata.
TABLE_SCHEMA = "1"
TABLE_WRITER = "ssdlab sweep"
SCHEMA_KEY = b"ssdlab.sweep_schema"
WRITER_KEY = b"ssdlab.writer"
VERSION_KEY = b"ssdlab.version"
TABLE_FILE = "results.parquet"
GRID_FILE = "grid.toml"
#: `write_atomic`'s temporary names: `.NAME.PID.partial`.
PARTIAL = re.compile(r"\..+\.[0-9]+\.partial")
#: What becomes of a cell whose record is set aside.
RERUN = "and the cell runs again"


def write_atomic(path: Path, data: bytes) -> None:
    """Write `data` to `path` whole or not at all (a temporary file, flushed, then renamed)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    with open(partial, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(partial, path)


def set_aside(path: Path, reason: str, then: str) -> Path:
    """Rename a file that cannot be used to `<name>.bad` (or `.bad.2`, ...: evidence is kept,
    never deleted) and warn, naming it, why, and what happens `then`."""
    aside = path.with_name(path.name + ".bad")
    number = 1
    while aside.exists():
        number += 1
        aside = path.with_name(f"{path.name}.bad.{number}")
    try:
        os.replace(path, aside)
    except OSError as e:
        raise DirectoryRefused(
            f"{path}: {reason}; and it cannot be moved aside ({e.strerror or e}): move or remove it",
            path=str(path),
        ) from None
    warnings.warn(f"{path}: {reason}; moved to {aside.name}, {then}", SweepWarning, stacklevel=3)
    return aside


class CellRecords:
    """The per-cell records and files under one directory (`run_cells`' `out`)."""

    def __init__(self, out: str | Path) -> None:
        self.out = Path(out)
        self.cells = self.out / "cells"

    def record_path(self, cell_id: str) -> Path:
        return self.cells / f"{cell_id}.json"

    def load(self, cell_id: str, check_result: ResultCheck | None = None) -> CellOutcome | None:
        """The recorded outcome of `cell_id`, or None if it has none that can be used. A record
        that is not that cell's whole, consistent record (`record_problem`: unreadable, cut
        short, another cell's, a key missing or of the wrong type, a file missing, ...) is set
        aside as `<id>.json.bad` with a SweepWarning naming it and why, and counts as none: the
        cell runs again. A record of another schema version is refused (DirectoryRefused): the
        directory was written by another version, and is not this one's to rewrite."""
        path = self.record_path(cell_id)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as e:
            set_aside(path, f"cannot be read ({e.strerror or e})", RERUN)
            return None
        try:
            record = json.loads(data)
        except (ValueError, UnicodeDecodeError, RecursionError) as e:
            set_aside(path, f"not JSON ({e})" if isinstance(e, ValueError) else "not JSON", RERUN)
            return None
        schema = other_schema(record)
        if schema is not None:
            raise DirectoryRefused(
                f"{path}: a cell record of schema {schema!r}, not {CELL_SCHEMA!r} (written by another "
                f"version or tool); refusing to read it: use another directory, or --no-resume to overwrite",
                path=str(path),
            )
        problem = record_problem(record, cell_id, self.out, check_result)
        if problem is not None:
            set_aside(path, problem, RERUN)
            return None
        return outcome_of(record)

    def remove_partials(self) -> int:
        """Remove the temporary files of writes a killed sweep never finished (`.NAME.PID.partial`:
        never read by anything). Only while holding the directory's lock: then no writer is at work."""
        removed = 0
        for partial in self.out.rglob(".*.partial"):
            if PARTIAL.fullmatch(partial.name) and partial.is_file():
                partial.unlink(missing_ok=True)
                removed += 1
        return removed

    def write_files(self, cell_id: str, files: dict[str, str]) -> dict[str, str]:
        """Write a worker's files under the directory (`{id}` in a name becomes the cell's id);
        returns {relative path: SHA-256 of what was written}. A path that leaves the directory is
        refused."""
        written = {}
        root = self.out.resolve()
        for template, text in files.items():
            relative = template.replace("{id}", cell_id)
            target = (self.out / relative).resolve()
            if root not in target.parents:
                raise SsdlabIOError(f"a worker's file {relative!r} is outside {self.out}", path=relative)
            data = text.encode()
            write_atomic(target, data)
            written[relative] = hashlib.sha256(data).hexdigest()
        return written

    def save(
        self,
        outcome: CellOutcome,
        labels: dict[str, Any],
        ssdlab_version: str,
        files_sha256: dict[str, str] | None = None,
    ) -> None:
        """Record one finished cell (after its files, whose digests `files_sha256` gives)."""
        text = record_text(outcome, labels, ssdlab_version, files_sha256 or {})
        write_atomic(self.record_path(outcome.id), text.encode())


def _table_metadata(path: Path) -> dict[bytes, bytes] | None:
    """The Parquet metadata of a table, or None if the file is not readable Parquet."""
    import pyarrow.parquet as pq

    try:
        return pq.read_schema(path).metadata or {}
    except (OSError, ValueError):
        return None


def _check_metadata(path: Path, metadata: dict[bytes, bytes]) -> None:
    if metadata.get(WRITER_KEY, b"").decode(errors="replace") != TABLE_WRITER or SCHEMA_KEY not in metadata:
        raise DirectoryRefused(
            f"{path}: not a results table of `{TABLE_WRITER}` (no {SCHEMA_KEY.decode()} in its metadata); "
            "refusing to read or overwrite it: use another directory",
            path=str(path),
        )
    schema = metadata[SCHEMA_KEY].decode(errors="replace")
    if schema != TABLE_SCHEMA:
        version = metadata.get(VERSION_KEY, b"?").decode(errors="replace")
        raise DirectoryRefused(
            f"{path}: a results table of schema {schema} (ssdlab {version}); this ssdlab reads schema "
            f"{TABLE_SCHEMA}: rerun the sweep into another directory",
            path=str(path),
        )


def check_table(path: Path) -> None:
    """Refuse a results table this version cannot read: not Parquet (SsdlabIOError), another
    schema, or not from a sweep (DirectoryRefused)."""
    metadata = _table_metadata(path)
    if metadata is None:
        raise SsdlabIOError(f"{path}: not a readable Parquet file; refusing to use it", path=str(path))
    _check_metadata(path, metadata)


def _first_difference(a: bytes, b: bytes) -> int:
    """The 1-based line of `a` where it first differs from `b`."""
    for number, (line_a, line_b) in enumerate(zip(a.split(b"\n"), b.split(b"\n"), strict=False), start=1):
        if line_a != line_b:
            return number
    return min(a.count(b"\n"), b.count(b"\n")) + 1


def claim_directory(out: Path, grid_text: str, grid_path: Path, replace_grid: bool) -> None:
    """Check that the sweep of a grid (`grid_text`, from `grid_path`) may write its grid.toml and
    results.parquet into `out` (whose lock the caller holds). Refused (DirectoryRefused): a
    table another tool or schema wrote; a directory that holds another grid's results (its
    grid.toml differs, or a table without a grid.toml) unless `replace_grid`, which replaces its
    grid.toml and table (a SweepWarning says so; the cells' records and reports stay, and a cell
    of both grids is not run again). A table that is not readable Parquet is set aside."""
    table, copy = out / TABLE_FILE, out / GRID_FILE
    if table.exists():
        metadata = _table_metadata(table)
        if metadata is None:
            set_aside(table, "not a readable Parquet file", "and the table is made again from the records")
        else:
            _check_metadata(table, metadata)
    new = grid_text.encode()
    if copy.exists() and not copy.is_file():
        raise DirectoryRefused(f"{copy}: not a file; refusing to replace it", path=str(copy))
    if copy.is_file():
        old = copy.read_bytes()
        if old == new:
            return
        why = f"its {GRID_FILE} differs from {grid_path} from line {_first_difference(old, new)}"
    elif table.exists():
        why = f"it holds a {TABLE_FILE} without the {GRID_FILE} it was made from"
    else:
        return
    what = (
        f"its {GRID_FILE} and {TABLE_FILE} (the other grid's table; the records in cells/ and the reports "
        "stay, and the cells the two grids share are not run again)"
    )
    if not replace_grid:
        raise DirectoryRefused(
            f"{out}: holds the results of another grid: {why}; refusing to replace them: use another "
            f"directory, or --replace-grid to replace {what}",
            path=str(copy),
        )
    warnings.warn(f"{out}: {why}; replacing {what}", SweepWarning, stacklevel=2)


def write_table(frame: pd.DataFrame, path: Path, ssdlab_version: str) -> None:
    """Write the results table with its schema version, writer and ssdlab version."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pandas(frame, preserve_index=False)
    metadata = dict(table.schema.metadata or {})
    metadata.update(
        {
            SCHEMA_KEY: TABLE_SCHEMA.encode(),
            WRITER_KEY: TABLE_WRITER.encode(),
            VERSION_KEY: ssdlab_version.encode(),
        }
    )
    sink = pa.BufferOutputStream()
    pq.write_table(table.replace_schema_metadata(metadata), sink)
    write_atomic(path, sink.getvalue().to_pybytes())


def read_table(path: str | Path) -> pd.DataFrame:
    """A results table (`DIR/results.parquet` or its directory) as a DataFrame, after checking
    its schema."""
    import pyarrow.parquet as pq

    path = Path(path)
    if path.is_dir():
        path = path / TABLE_FILE
    if not path.is_file():
        raise SsdlabIOError(f"{path}: no such results table (has the sweep finished?)", path=str(path))
    check_table(path)
    return pq.read_table(path).to_pandas()
