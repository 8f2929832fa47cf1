"""Traces over the native core: statistics, format detection, conversion to the compact binary
format, fitting a workload spec to a trace and drawing a spec into a trace.

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
from typing import Any

from ssdlab import _core
from ssdlab.config import toml_string
from ssdlab.errors import ConfigError


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


def convert(
    path: str | Path, out: str | Path, options: Iterable[str] = (), trace_format: str | None = None
) -> int:
    """Write the trace in ssdlab's compact binary format; the records written."""
    return _core.trace_convert(str(path), str(out), options_toml(options, trace_format))


@dataclass(frozen=True)
class Fit:
    """A workload spec fitted to a trace: the spec's TOML, what could not be fitted, and the
    trace's statistics it was fitted to."""

    spec_toml: str
    warnings: list[str]
    stats: dict[str, Any]


def fit(
    path: str | Path,
    options: Iterable[str] = (),
    page_bytes: int = 4096,
    requests: int | None = None,
    address_space_bytes: int | None = None,
    trace_format: str | None = None,
) -> Fit:
    """Fit a workload spec to a trace (`ssdlab trace fit`)."""
    spec, warnings, trace_stats = _core.trace_fit(
        str(path), options_toml(options, trace_format), page_bytes, requests, address_space_bytes
    )
    return Fit(spec, list(warnings), json.loads(trace_stats) if trace_stats else {})


def synth(spec: str | Path, out: str | Path, requests: int | None = None, seed: int = 1) -> int:
    """Draw a workload spec (a file or a built-in spec's name) into a binary trace; the records
    written."""
    return _core.trace_synth(str(spec), str(out), requests, seed)


__all__ = ["Fit", "convert", "detect", "fit", "options_toml", "stats", "synth"]
