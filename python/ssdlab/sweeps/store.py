"""Layer: Python, sweeps. One job: the files of a results directory, each written so that a
sweep killed at any instant (even SIGKILL) leaves only whole files behind:

    DIR/cells/<cell_id>.json     one record per finished cell (the source of truth for resuming)
    DIR/reports/<cell_id>.json   each ok cell's report (files a worker returns, written here)
    DIR/results.parquet          the table, rebuilt from the records when a sweep ends
    DIR/grid.toml                a copy of the grid file

Every file is written to a temporary name and renamed into place. A cell's files are written
before its record, so a record always has its files. Records and the table carry a schema
version, and anything written by another schema or tool is refused, never misread.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ssdlab.errors import SsdlabIOError
from ssdlab.sweeps.outcome import CellOutcome

if TYPE_CHECKING:
    import pandas as pd

CELL_SCHEMA = "ssdlab-sweep-cell/1"
#: The results table's schema version and writer, in its Parquet file metadata.
TABLE_SCHEMA = "1"
TABLE_WRITER = "ssdlab sweep"
SCHEMA_KEY = b"ssdlab.sweep_schema"
WRITER_KEY = b"ssdlab.writer"
VERSION_KEY = b"ssdlab.version"
TABLE_FILE = "results.parquet"
GRID_FILE = "grid.toml"


def write_atomic(path: Path, data: bytes) -> None:
    """Write `data` to `path` whole or not at all (a temporary file, flushed, then renamed)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    with open(partial, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(partial, path)


class CellRecords:
    """The per-cell records and files under one directory (`run_cells`' `out`)."""

    def __init__(self, out: str | Path) -> None:
        self.out = Path(out)
        self.cells = self.out / "cells"

    def record_path(self, cell_id: str) -> Path:
        return self.cells / f"{cell_id}.json"

    def load(self, cell_id: str) -> CellOutcome | None:
        """The recorded outcome of `cell_id`, or None if it has none. A record of another
        schema is refused (SsdlabIOError naming the file); an unreadable one (a file cut short
        by a power loss) counts as none, so the cell runs again."""
        path = self.record_path(cell_id)
        try:
            record = json.loads(path.read_text())
        except FileNotFoundError:
            return None
        except (ValueError, UnicodeDecodeError):
            return None
        schema = record.get("schema") if isinstance(record, dict) else None
        if schema != CELL_SCHEMA:
            raise SsdlabIOError(
                f"{path}: a cell record of schema {schema!r}, not {CELL_SCHEMA!r} (written by another "
                f"version or tool); refusing to read it: use another directory, or --no-resume to overwrite",
                path=str(path),
            )
        return CellOutcome(
            id=record["id"],
            status=record["status"],
            error=record["error"],
            wall_s=record["wall_s"],
            result=record["result"],
            files=tuple(record["files"]),
            resumed=True,
        )

    def write_files(self, cell_id: str, files: dict[str, str]) -> tuple[str, ...]:
        """Write a worker's files under the directory (`{id}` in a name becomes the cell's id);
        returns their relative paths. A path that leaves the directory is refused."""
        written = []
        root = self.out.resolve()
        for template, text in files.items():
            relative = template.replace("{id}", cell_id)
            target = (self.out / relative).resolve()
            if root not in target.parents:
                raise SsdlabIOError(f"a worker's file {relative!r} is outside {self.out}", path=relative)
            write_atomic(target, text.encode())
            written.append(relative)
        return tuple(written)

    def save(self, outcome: CellOutcome, labels: dict[str, Any], ssdlab_version: str) -> None:
        """Record one finished cell (after its files)."""
        record = {
            "schema": CELL_SCHEMA,
            "id": outcome.id,
            "labels": labels,
            "status": outcome.status,
            "error": outcome.error,
            "wall_s": outcome.wall_s,
            "ssdlab_version": ssdlab_version,
            "files": list(outcome.files),
            "result": outcome.result,
        }
        text = json.dumps(record, indent=1, allow_nan=True, default=str)
        write_atomic(self.record_path(outcome.id), text.encode())


def check_table(path: Path) -> None:
    """Refuse a results table this version cannot read: another schema, or not from a sweep."""
    import pyarrow.parquet as pq

    try:
        metadata = pq.read_schema(path).metadata or {}
    except (OSError, ValueError) as e:
        raise SsdlabIOError(
            f"{path}: not a readable Parquet file ({e}); refusing to use it", path=str(path)
        ) from None
    if metadata.get(WRITER_KEY, b"").decode() != TABLE_WRITER or SCHEMA_KEY not in metadata:
        raise SsdlabIOError(
            f"{path}: not a results table of `{TABLE_WRITER}` (no {SCHEMA_KEY.decode()} in its metadata); "
            "refusing to read or overwrite it: use another directory",
            path=str(path),
        )
    schema = metadata[SCHEMA_KEY].decode()
    if schema != TABLE_SCHEMA:
        version = metadata.get(VERSION_KEY, b"?").decode()
        raise SsdlabIOError(
            f"{path}: a results table of schema {schema} (ssdlab {version}); this ssdlab reads schema "
            f"{TABLE_SCHEMA}: rerun the sweep into another directory",
            path=str(path),
        )


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
