"""Traces over the native core: statistics, format detection, conversion (to the compact binary
format, MSR, DiskSim or blkparse text), reading a trace into a DataFrame, fitting a workload
spec to a trace and drawing a spec into a trace.

Reader options are `key=value` strings, as `--option` and the `workload.trace.*` overrides take
them (`format=msr`, `time_unit="us"`); `options_toml` is the one place they become the TOML the
core reads. Errors are `ssdlab.errors` exceptions naming the file, line and reason.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ssdlab import _core
from ssdlab.config import toml_string
from ssdlab.errors import ConfigError

if TYPE_CHECKING:
    import pandas as pd


def options_toml(options: Iterable[str] = (), trace_format: str | None = None) -> str:
    """Reader options (`key=value`) as the TOML lines of a `[workload.trace]` table: a value
    TOML reads (a number, a boolean, a quoted string) stays as it is, any other is a string, as
    in an override. `trace_format` forces the format (`format = ...`)."""
    lines = [f"format = {toml_string(trace_format)}"] if trace_format else []
    for option in options:
        key, sep, value = option.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"reader option '{option}' is not KEY=VALUE", problems=[("--option", option)])
        value = value.strip()
        try:
            tomllib.loads(f"v = {value}")
        except tomllib.TOMLDecodeError:
            value = toml_string(value)
        lines.append(f"{key.strip()} = {value}")
    return "\n".join(lines) + "\n" if lines else ""


def stats(
    path: str | Path, options: Iterable[str] = (), page_bytes: int = 4096, trace_format: str | None = None
) -> dict[str, Any]:
    """A trace's statistics (requests, reads and writes, sizes, footprints, inter-arrival
    times, ...; `ssdlab trace stats --json` prints the same), pages of `page_bytes`."""
    return json.loads(_core.trace_stats(str(path), options_toml(options, trace_format), page_bytes))


def detect(path: str | Path) -> str:
    """The format detected from the file's content."""
    return _core.trace_detect(str(path))


#: The formats `convert` writes, by id (each id reads the result back as `--format`), and the
#: other names each is known by.
WRITE_FORMATS = {
    "binary": ("sstr",),
    "msr": (),
    "disksim_ms": ("disksim",),
    "disksim_ns": (),
    "blkparse": ("blkparse-text",),
}


@dataclass(frozen=True)
class Converted:
    """What `convert` wrote: records, trims left out (the format has none: MSR, DiskSim), and
    records widened to whole 512-byte sectors (a format addressed in sectors: DiskSim,
    blkparse)."""

    records: int
    skipped_trims: int
    widened_to_sectors: int


def is_spec(source: str | Path) -> bool:
    """Whether `source` is a workload spec (a TOML file with a spec's top-level keys, or a
    built-in spec's name) rather than a trace."""
    from ssdlab.config import workload_specs

    path = Path(source)
    if path.is_file():
        if path.suffix != ".toml":
            return False
        try:
            spec = _core.is_spec_toml(path.read_text())
        except UnicodeDecodeError:
            return True  # a TOML file that does not decode: the spec loader names the line
        return spec is not False  # not TOML either: the spec loader names the line
    return str(source) in workload_specs()


def convert(
    path: str | Path,
    out: str | Path,
    options: Iterable[str] = (),
    trace_format: str | None = None,
    to: str = "binary",
    requests: int | None = None,
    seed: int = 1,
    spec: bool | None = None,
) -> Converted:
    """Write a trace, or a workload spec (a file or a built-in name, drawn for `requests` with
    `seed`), in the format `to` (`WRITE_FORMATS`: binary, msr, disksim_ms, disksim_ns,
    blkparse, or an alias), streamed. Reader options and `trace_format` apply to a trace;
    `requests` and `seed` to a spec. `spec` says which `path` is (default: `is_spec`)."""
    spec = is_spec(path) if spec is None else spec
    options = tuple(options)
    if spec and (options or trace_format):
        raise ConfigError(
            f"{path} is a workload spec: reader options and --format apply to traces",
            path=str(path),
            problems=[("--option", " ".join(options) or str(trace_format))],
        )
    if not spec and requests is not None:
        raise ConfigError(
            f"{path} is a trace: --requests applies to a workload spec (-O max_requests=N takes a trace's first N)",
            path=str(path),
            problems=[("--requests", str(requests))],
        )
    records, trims, widened = _core.trace_convert(
        str(path), str(out), options_toml(options, trace_format), to, spec, requests, seed
    )
    return Converted(records, trims, widened)


def read(
    path: str | Path, format: str | None = None, limit: int | None = None, **options: Any
) -> pd.DataFrame:
    """A trace's records (a file, or a bundled trace's name) as a DataFrame, read by the core's
    reader of its format (detected, or `format`), at most `limit` of them; `options` are the reader's (docs/traces.md), e.g.
    `read(p, device=3)`, `read(p, devices="merge")`, `read(p, on_bad_line="skip")`.

    Columns: `arrival_ns` (uint64, in the trace's own time base, as `trace stats` reads it),
    `op` (categorical: read, write, trim), `offset_bytes`, `size_bytes` (uint64), and `device`
    (uint32) when the format has a device column. Offsets are those the simulator replays: a
    trace's devices are laid out apart by default (`devices="merge"` keeps each device's own).
    The records are read in chunks straight into numpy arrays, never parsed in Python."""
    import numpy as np
    import pandas as pd

    from ssdlab.data import resolve_trace

    if limit is not None and limit < 0:
        raise ConfigError(f"limit = {limit} must be at least 0", problems=[("limit", str(limit))])
    pairs = [f"{key}={_option_value(value)}" for key, value in options.items()]
    reader = _core.TraceRecords(resolve_trace(str(path)), options_toml(pairs, format), limit)
    names = ("arrival_ns", "op", "offset_bytes", "size_bytes", "device")
    types = (np.uint64, np.uint8, np.uint64, np.uint64, np.uint32)
    chunks: list[list[np.ndarray]] = []
    size = _READ_CHUNK if limit is None else max(1, min(limit, _READ_CHUNK))
    while True:
        arrays = [np.empty(size, dtype=t) for t in types]
        n = reader.fill(*arrays)
        chunks.append([a[:n] for a in arrays])
        if n < size:
            break
    columns = {name: np.concatenate([c[i] for c in chunks]) for i, name in enumerate(names)}
    columns["op"] = pd.Categorical.from_codes(columns["op"].astype(np.int8), categories=_OPS)
    if not reader.has_device:
        del columns["device"]
    frame = pd.DataFrame(columns, copy=False)  # the arrays are ours: no second copy
    frame.attrs["format"] = reader.format
    frame.attrs["skipped_lines"] = reader.skipped_lines
    return frame


#: Records per chunk `read` fills: 29 MiB of arrays, so that a long trace grows in few steps.
_READ_CHUNK = 1 << 20

#: `op` codes of the core's arrays, in order.
_OPS = ["read", "write", "trim"]


def _option_value(value: Any) -> str:
    """A Python value as the TOML of a reader option."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    return toml_string(str(value))


@dataclass(frozen=True)
class Fit:
    """A workload spec fitted to a trace: the spec's TOML, what could not be fitted, the trace's
    statistics it was fitted to, and the comparison of the key figures: the spec drawn at the
    trace's length (its first million requests when longer) beside the trace, each figure
    judged against the tolerance (`comparison["rows"]`, or `comparison_frame()`)."""

    spec_toml: str
    warnings: list[str]
    stats: dict[str, Any]
    comparison: dict[str, Any]

    def comparison_frame(self) -> pd.DataFrame:
        """One row per key figure: figure, kind (share, bytes, requests, nanoseconds), original,
        fitted, samples (the trace's), within (True, False, or None when the trace has too few
        samples to judge it)."""
        import pandas as pd

        columns = ["figure", "kind", "original", "fitted", "samples", "within"]
        return pd.DataFrame(self.comparison["rows"], columns=columns)

    @property
    def misses(self) -> list[str]:
        """The figures outside the tolerance."""
        return [row["figure"] for row in self.comparison["rows"] if row["within"] is False]


def fit(
    path: str | Path,
    options: Iterable[str] = (),
    page_bytes: int = 4096,
    requests: int | None = None,
    address_space_bytes: int | None = None,
    trace_format: str | None = None,
    tolerance: float | None = None,
) -> Fit:
    """Fit a workload spec to a trace (`ssdlab trace fit`); `tolerance` is the comparison's
    relative tolerance (default 0.2: docs/workloads.md)."""
    spec, warnings, trace_stats, comparison = _core.trace_fit(
        str(path), options_toml(options, trace_format), page_bytes, requests, address_space_bytes, tolerance
    )
    return Fit(spec, list(warnings), json.loads(trace_stats) if trace_stats else {}, json.loads(comparison))


def synth(
    spec: str | Path, out: str | Path, requests: int | None = None, seed: int = 1, to: str = "binary"
) -> int:
    """Draw a workload spec (a file or a built-in spec's name) into a trace in the format `to`
    (binary by default); the records written."""
    return _core.trace_convert(str(spec), str(out), "", to, True, requests, seed)[0]


__all__ = [
    "WRITE_FORMATS",
    "Converted",
    "Fit",
    "convert",
    "detect",
    "fit",
    "is_spec",
    "options_toml",
    "read",
    "stats",
    "synth",
]
