"""Layer: Python, sweeps. One job: a cell's record (`DIR/cells/<id>.json`), what it must hold,
and the check that a record read back is whole, consistent and the record of the cell asked for.

A record is the source of truth for resuming, so one that is not exactly what this version wrote
for that cell must never be used: its cell would take another cell's figures (a record copied
over another's), or the sweep would stop on a missing key. `record_problem` says what is wrong
with a record, or None; the store sets a bad record aside and its cell runs again.

A record carries the SHA-256 of its own content (`record_sha256`, over its canonical JSON) and of
each file it lists (`files_sha256`), so that an edit, a file cut short or a report copied over
another's is found too, not only a wrong type. Records written before these two keys existed
are checked without them.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any, NotRequired, TypedDict

from ssdlab.sweeps.outcome import CellOutcome

CELL_SCHEMA = "ssdlab-sweep-cell/1"
#: Every record schema starts so; one of another version is refused, not set aside.
SCHEMA_FAMILY = "ssdlab-sweep-cell/"
STATUSES = ("ok", "failed")

#: A worker's own check of a result read back from a record: None, or why it is not a result
#: that worker returns.
ResultCheck = Callable[[dict[str, Any]], str | None]


class CellRecord(TypedDict):
    """A record as JSON holds it."""

    schema: str
    id: str
    labels: dict[str, Any]
    status: str
    error: str | None
    wall_s: float
    ssdlab_version: str
    files: list[str]
    files_sha256: NotRequired[dict[str, str]]
    result: dict[str, Any] | None
    record_sha256: NotRequired[str]


_NONE = type(None)
#: The JSON types of each key (int is a number too; a bool is never one).
REQUIRED: dict[str, tuple[type, ...]] = {
    "schema": (str,),
    "id": (str,),
    "labels": (dict,),
    "status": (str,),
    "error": (str, _NONE),
    "wall_s": (int, float),
    "ssdlab_version": (str,),
    "files": (list,),
    "result": (dict, _NONE),
}
OPTIONAL: dict[str, tuple[type, ...]] = {"files_sha256": (dict,), "record_sha256": (str,)}
_TYPE_NAMES = {str: "a string", dict: "an object", list: "a list", int: "a number", float: "a number"}


def _canonical(record: dict[str, Any]) -> bytes:
    return json.dumps(record, sort_keys=True, separators=(",", ":"), allow_nan=True).encode()


def content_sha256(record: dict[str, Any]) -> str:
    """The SHA-256 of a record's content: its canonical JSON, without `record_sha256`."""
    return hashlib.sha256(_canonical({k: v for k, v in record.items() if k != "record_sha256"})).hexdigest()


def record_text(
    outcome: CellOutcome, labels: dict[str, Any], ssdlab_version: str, files_sha256: dict[str, str]
) -> str:
    """The text of one cell's record, its digest over what JSON will give back."""
    record: dict[str, Any] = {
        "schema": CELL_SCHEMA,
        "id": outcome.id,
        "labels": labels,
        "status": outcome.status,
        "error": outcome.error,
        "wall_s": outcome.wall_s,
        "ssdlab_version": ssdlab_version,
        "files": list(outcome.files),
        "files_sha256": files_sha256,
        "result": outcome.result,
    }
    # Through JSON first: labels may hold tuples or values written as text (default=str), and
    # the digest must be that of what a reader gets back.
    record = json.loads(json.dumps(record, allow_nan=True, default=str))
    record["record_sha256"] = content_sha256(record)
    return json.dumps(record, indent=1, allow_nan=True)


def other_schema(record: Any) -> str | None:
    """The schema of a record written by another version of the engine, else None."""
    schema = record.get("schema") if isinstance(record, dict) else None
    if isinstance(schema, str) and schema.startswith(SCHEMA_FAMILY) and schema != CELL_SCHEMA:
        return schema
    return None


def _type_problem(record: dict[str, Any]) -> str | None:
    missing = [key for key in REQUIRED if key not in record]
    if missing:
        return f"no {', '.join(repr(k) for k in missing)}"
    unknown = [key for key in record if key not in REQUIRED and key not in OPTIONAL]
    if unknown:
        return f"unknown key {unknown[0]!r}"
    for key, value in record.items():
        types = REQUIRED.get(key) or OPTIONAL[key]
        if isinstance(value, bool) or not isinstance(value, types):
            expected = " or ".join(dict.fromkeys("null" if t is _NONE else _TYPE_NAMES[t] for t in types))
            return f"{key!r} is {json.dumps(value)[:40]}, not {expected}"
    return None


def _file_problem(record: dict[str, Any], out: Path) -> str | None:
    """Each file listed must be a relative path under `out`, present, and (when the record has
    their digests) hold what was written."""
    files, digests = record["files"], record.get("files_sha256")
    if not all(isinstance(f, str) for f in files):
        return "'files' holds something that is not a path"
    root = out.resolve()
    for relative in files:
        if Path(relative).is_absolute() or root not in (out / relative).resolve().parents:
            return f"its file {relative!r} is outside {out}"
    if digests is not None and sorted(digests) != sorted(files):
        return "'files_sha256' does not list the record's files"
    for relative in files:
        path = out / relative
        if not path.is_file():
            return f"its file {relative} does not exist"
        if digests is not None and hashlib.sha256(path.read_bytes()).hexdigest() != digests[relative]:
            return f"its file {relative} is not the one it recorded (another content)"
    return None


def record_problem(
    record: Any, cell_id: str, out: Path, check_result: ResultCheck | None = None
) -> str | None:
    """Why `record`, read from `out/cells/<cell_id>.json`, cannot be that cell's outcome (None
    if it can): not the schema's keys and types, another cell's id, a status its other keys
    contradict, a digest that does not match, a file it lists missing or changed, or a result
    `check_result` refuses."""
    if not isinstance(record, dict):
        return f"not a JSON object but {type(record).__name__}"
    problem = _type_problem(record)
    if problem is not None:
        return problem
    if record["schema"] != CELL_SCHEMA:
        return f"schema {record['schema']!r}, not {CELL_SCHEMA!r}"
    if record["id"] != cell_id:
        return f"the record of cell {record['id'][:40]!r}, not of {cell_id!r} (copied over it?)"
    if "record_sha256" in record and record["record_sha256"] != content_sha256(record):
        return "its content does not match its digest (edited or damaged)"
    status, error, result = record["status"], record["error"], record["result"]
    if status not in STATUSES:
        return f"status {status!r}, not one of {', '.join(STATUSES)}"
    if status == "ok" and (result is None or error is not None):
        return 'status "ok" with ' + ("no result" if result is None else "an error")
    if status == "failed" and (error is None or result is not None or record["files"]):
        return 'status "failed" with ' + ("no error" if error is None else "a result or files")
    if not math.isfinite(record["wall_s"]) or record["wall_s"] < 0:
        return f"'wall_s' is {record['wall_s']}, not a duration"
    problem = _file_problem(record, out)
    if problem is not None:
        return problem
    if result is not None and check_result is not None:
        return check_result(result)
    return None


def outcome_of(record: CellRecord) -> CellOutcome:
    """The outcome a checked record holds (`resumed`)."""
    return CellOutcome(
        id=record["id"],
        status=record["status"],
        error=record["error"],
        wall_s=float(record["wall_s"]),
        result=record["result"],
        files=tuple(record["files"]),
        resumed=True,
    )
