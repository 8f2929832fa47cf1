"""Layer: Python, sweeps. One job: read a grid file (TOML) into a checked `Grid`, or one
ConfigError that names the file, the line and the key of every problem, before any cell runs.

A grid (docs/sweeps.md has the whole format):

    seeds = 3                      # or a list [0, 1, 2]; default 1 (seed 0)
    [base]                         # what every cell shares
    preset = "bench-16gib"
    trace = "traces/x.csv"         # relative to the grid file, or a bundled trace's name
    set = ["workload.count=20000"]
    [axes]                         # a config key (or preset, trace, workload) and its values
    "gc.scheduler" = ["greedy", "rlgc"]
    [[exclude]]                    # a cell matching every key of one entry is not run
    "gc.scheduler" = "greedy"

Paths in a grid (trace, config and workload files) are relative to the grid file, so a grid and
its traces can move together. Whether each cell's configuration is valid is not checked here
(that needs the core: see `plan`); what is checked is what would otherwise fail every cell or
silently run the wrong grid: unknown keys, wrong types, empty axes, missing files, excludes that
can never match.
"""

from __future__ import annotations

import math
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ssdlab.config import presets, toml_string, workload_layer
from ssdlab.data import TRACES, trace_path
from ssdlab.errors import ConfigError
from ssdlab.setup import Setup
from ssdlab.sweeps.keys import config_keys, unknown_key_reason
from ssdlab.sweeps.locate import key_lines, line_of

#: Axes that are not config keys: they choose the arguments of `ssdlab.run` itself.
SPECIAL_AXES = ("preset", "trace", "workload")
#: The keys of `[base]`: a preset's name; a trace file (relative to the grid file) or a bundled
#: trace's name; a built-in workload or spec name, or a workload file; the trace format (default:
#: detected); config files (relative to the grid file); "key=value" overrides.
BASE_KEYS = ("preset", "trace", "workload", "format", "config", "set")
TOP_LEVEL_KEYS = ("seeds", "base", "axes", "exclude")
#: TOML's integers are 64-bit signed; Python's TOML reader takes any size, the core's parser
#: does not. A seed is the core's `u64`, given to it as a TOML integer: 0 .. 2^63 - 1.
INT_MIN, INT_MAX = -(2**63), 2**63 - 1
#: `seeds = N` runs every combination N times; beyond this it is a mistake (a typo, an
#: exponent), and expanding it would take the memory of the machine before anything runs.
MAX_SEEDS = 1_000_000
#: Columns of the results table that an axis named like them would collide with.
TABLE_COLUMNS = ("cell_id", "seed", "status", "error", "wall_s", "ssdlab_version", "verify", "report")


@dataclass(frozen=True)
class Axis:
    """One axis: its key, its values as the grid gives them (the table's column), and what each
    value becomes for the run: an absolute path (trace, workload file), a name (preset, built-in
    workload) or a `key=value` override (a config key)."""

    key: str
    values: tuple[Any, ...]
    arguments: tuple[str, ...]


@dataclass(frozen=True)
class Grid:
    """A checked grid file. `text` is the file as written (copied into the results directory)."""

    path: Path
    text: str
    seeds: tuple[int, ...]
    #: What every cell simulates before its axes and seed (paths made absolute).
    base: Setup
    axes: tuple[Axis, ...]
    excludes: tuple[dict[str, Any], ...]

    @property
    def axis_keys(self) -> list[str]:
        return [a.key for a in self.axes]


def toml_literal(value: Any) -> str:
    """`value` as a TOML value (for a `key=value` override): strings quoted, lists and tables
    inline, infinities and NaN as TOML spells them."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return toml_string(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_literal(v) for v in value) + "]"
    if isinstance(value, dict):
        items = ", ".join(f"{toml_string(str(k))} = {toml_literal(v)}" for k, v in value.items())
        return "{ " + items + " }" if items else "{}"
    # tomllib's dates and times print as TOML writes them.
    return value.isoformat()


def same_value(a: Any, b: Any) -> bool:
    """Equality that keeps booleans apart from numbers (Python has True == 1)."""
    return isinstance(a, bool) == isinstance(b, bool) and a == b


class _Problems:
    """The problems found in one grid file, each with its line, raised together as one error."""

    def __init__(self, path: Path, text: str) -> None:
        self.path = path
        self.lines = key_lines(text)
        self.found: list[tuple[int | None, str, str, str]] = []

    def add(self, table: str, key: str, reason: str) -> None:
        if table.startswith("exclude#"):
            where = f"[[exclude]] #{table.split('#')[1]}" + (f" {key}" if key else "")
        elif table:
            where = f"[{table}]" + (f" {key}" if key else "")
        else:
            where = key
        self.found.append((line_of(self.lines, table, key), where, key or table, reason))

    def raise_if_any(self) -> None:
        if not self.found:
            return
        self.found.sort(key=lambda problem: problem[0] or 0)
        texts = [
            f"{self.path}{f':{line}' if line else ''}: {f'{where}: ' if where else ''}{reason}"
            for line, where, _, reason in self.found
        ]
        message = (
            texts[0]
            if len(texts) == 1
            else f"{len(texts)} problems in grid file {self.path}:\n  " + ("\n  ".join(texts))
        )
        raise ConfigError(
            message,
            path=str(self.path),
            line=self.found[0][0],
            problems=[(key, reason) for _, _, key, reason in self.found],
        )


def not_utf8(data: bytes, error: UnicodeDecodeError) -> tuple[int, str]:
    """The line of the first byte that is not UTF-8, and what is wrong there."""
    line = data.count(b"\n", 0, error.start) + 1
    column = error.start - (data.rfind(b"\n", 0, error.start) + 1) + 1
    return line, f"not UTF-8 text (byte 0x{data[error.start]:02x} at column {column}); TOML files are UTF-8"


def _text_file_problem(path: Path) -> str | None:
    """Why a TOML file a grid names (a config or workload file) cannot be read as text, naming
    its line: the core reads them as UTF-8."""
    try:
        data = path.read_bytes()
    except OSError as e:
        return f"cannot read {path}: {e.strerror or e}"
    try:
        data.decode()
    except UnicodeDecodeError as e:
        line, reason = not_utf8(data, e)
        return f"{path}:{line}: {reason}"
    return None


def _unreadable(path: Path) -> str | None:
    """Why a trace file cannot be read (None if it can)."""
    try:
        with open(path, "rb") as f:
            f.read(1)
    except OSError as e:
        return f"cannot read {path}: {e.strerror or e}"
    return None


def _out_of_range(value: Any) -> int | None:
    """The first integer in `value` (lists and tables searched) that a TOML integer (64-bit,
    signed) cannot hold, as the core's parser reads one; None if there is none."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if not INT_MIN <= value <= INT_MAX else None
    children = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
    for child in children:
        found = _out_of_range(child)
        if found is not None:
            return found
    return None


def _type_name(value: Any) -> str:
    return {
        bool: "a boolean",
        int: "an integer",
        float: "a number",
        str: "a string",
        list: "a list",
        dict: "a table",
    }.get(type(value), type(value).__name__)


def load_grid(path: str | Path) -> Grid:
    """Read and check the grid file at `path`; raises ConfigError (file, line, key) listing
    every problem."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such grid file", path=str(path)) from None
    except OSError as e:
        raise ConfigError(f"{path}: cannot read the grid file: {e.strerror or e}", path=str(path)) from None
    try:
        # As `read_text` decodes it (universal newlines): the text copied into the directory.
        text = data.decode().replace("\r\n", "\n").replace("\r", "\n")
    except UnicodeDecodeError as e:
        line, reason = not_utf8(data, e)
        raise ConfigError(f"{path}:{line}: {reason}", path=str(path), line=line) from None
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        where = re.search(r"\(at line (\d+), column (\d+)\)", str(e))
        reason = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(e))
        if where is None:
            raise ConfigError(f"{path}: TOML syntax: {reason}", path=str(path)) from None
        line = int(where.group(1))
        raise ConfigError(
            f"{path}:{line}: TOML syntax: {reason} (column {where.group(2)})", path=str(path), line=line
        ) from None
    return parse_grid(document, path, text)


def parse_grid(document: dict[str, Any], path: Path, text: str) -> Grid:
    """Check a parsed grid file (`text` is its source, for the line numbers)."""
    problems = _Problems(path, text)
    here = path.resolve().parent
    for key in document:
        if key not in TOP_LEVEL_KEYS:
            problems.add("", key, f"unknown key; a grid has {', '.join(TOP_LEVEL_KEYS[:-1])} and [[exclude]]")
    seeds = _seeds(document.get("seeds", 1), problems)
    raw_base = document.get("base", {})
    if not isinstance(raw_base, dict):
        problems.add("", "base", f"expected a table ([base]), got {_type_name(raw_base)}")
        raw_base = {}
    base = _base(raw_base, here, problems)
    raw_axes = document.get("axes", {})
    if not isinstance(raw_axes, dict):
        problems.add("", "axes", f"expected a table ([axes]), got {_type_name(raw_axes)}")
        raw_axes = {}
    axes = _axes(raw_axes, raw_base, here, problems)
    excludes = _excludes(document.get("exclude", []), axes, problems)
    if not problems.found and not document.get("base") and not document.get("axes"):
        problems.add(
            "",
            "",
            "the grid says nothing to run (no [base] key, no [axes]): it would run the defaults "
            '(preset "tiny", its default workload); write what to run, e.g. [base] workload = "randwrite"',
        )
    problems.raise_if_any()
    return Grid(path, text, seeds, base, tuple(axes), tuple(excludes))


def _seeds(value: Any, problems: _Problems) -> tuple[int, ...]:
    if isinstance(value, int) and not isinstance(value, bool):
        if 1 <= value <= MAX_SEEDS:
            return tuple(range(value))
        if value < 1:
            problems.add("", "seeds", f"expected at least 1 seed, got {value}")
        else:
            problems.add("", "seeds", f"{value} seeds: at most {MAX_SEEDS:,} (give a list for chosen seeds)")
    elif isinstance(value, list):
        if not value:
            problems.add("", "seeds", "an empty list of seeds runs nothing")
        elif not all(isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in value):
            problems.add("", "seeds", f"expected seeds that are integers >= 0, got {toml_literal(value)}")
        elif (big := _out_of_range(value)) is not None:
            problems.add("", "seeds", f"seed {big} is out of range: a seed is at most 2^63 - 1 ({INT_MAX})")
        elif len(set(value)) != len(value):
            problems.add("", "seeds", f"repeats a seed: {toml_literal(value)}")
        else:
            return tuple(value)
    else:
        problems.add("", "seeds", f"expected a number of seeds or a list of seeds, got {_type_name(value)}")
    return (0,)


def _trace_file(value: str, here: Path) -> Path | None:
    """A trace named in a grid: a file relative to the grid (a file always wins), else a
    bundled trace's name, else None."""
    candidate = here / Path(value).expanduser()
    if candidate.is_file():
        return candidate.resolve()
    if value in TRACES:
        return trace_path(value)
    return None


def _workload(value: str, here: Path) -> str | None:
    """A workload named in a grid: a file relative to the grid (absolute path), or a built-in
    pattern or spec name (kept); None if it is neither."""
    candidate = here / Path(value).expanduser()
    if candidate.is_file():
        return str(candidate.resolve())
    try:
        workload_layer(value)
    except ConfigError:
        return None
    return value


def _string(table: str, key: str, value: Any, problems: _Problems) -> str | None:
    if isinstance(value, str):
        return value
    problems.add(table, key, f"expected a string, got {_type_name(value)} {toml_literal(value)}")
    return None


def _strings(table: str, key: str, value: Any, problems: _Problems) -> list[str]:
    if isinstance(value, str):
        value = [value]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return value
    problems.add(table, key, f"expected a list of strings, got {toml_literal(value)}")
    return []


def _base(raw: dict[str, Any], here: Path, problems: _Problems) -> Setup:
    known_presets = presets()
    for key in raw:
        if key not in BASE_KEYS:
            problems.add("base", key, f"unknown key; [base] takes {', '.join(BASE_KEYS)} (docs/sweeps.md)")
    preset = _string("base", "preset", raw.get("preset", "tiny"), problems)
    if preset is not None and preset not in known_presets:
        problems.add("base", "preset", f"unknown preset {preset!r}; known: {', '.join(known_presets)}")
    trace = None
    if "trace" in raw and (name := _string("base", "trace", raw["trace"], problems)) is not None:
        found = _trace_file(name, here)
        if found is None:
            problems.add("base", "trace", f"no such trace file: {here / name} (nor a bundled trace's name)")
        elif (reason := _unreadable(found)) is not None:
            problems.add("base", "trace", reason)
        trace = str(found) if found else None
    workload = None
    if "workload" in raw and (name := _string("base", "workload", raw["workload"], problems)) is not None:
        workload = _workload(name, here)
        if workload is None:
            problems.add("base", "workload", f"{name!r} is neither a workload file nor a built-in workload")
        elif Path(workload).is_absolute() and (reason := _text_file_problem(Path(workload))) is not None:
            problems.add("base", "workload", reason)
    trace_format = _string("base", "format", raw["format"], problems) if "format" in raw else None
    config_files = []
    for name in _strings("base", "config", raw.get("config", []), problems):
        candidate = here / Path(name).expanduser()
        if not candidate.is_file():
            problems.add("base", "config", f"no such config file: {candidate}")
        elif (reason := _text_file_problem(candidate)) is not None:
            problems.add("base", "config", reason)
        config_files.append(str(candidate.resolve()))
    overrides = _strings("base", "set", raw.get("set", []), problems)
    for override in overrides:
        key, sep, value = override.partition("=")
        if not sep or not key.strip() or not value.strip():
            problems.add("base", "set", f'{override!r} is not "key=value"')
        elif key.strip() == "seed":
            problems.add("base", "set", "give the seeds with the top-level `seeds`, not seed=")
    return Setup(
        preset=preset,
        workload=workload,
        trace=trace,
        overrides=tuple(overrides),
        config_files=tuple(config_files),
        trace_format=trace_format,
    )


def _flatten(table: dict[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    """Axes written as nested tables (a bare `gc.scheduler = [...]` is one) as dotted keys: a
    list is an axis's values, a table goes one level down."""
    flat = []
    for key, value in table.items():
        dotted = f"{prefix}.{key}" if prefix else key
        if isinstance(value, dict):
            flat.extend(_flatten(value, dotted) or [(dotted, value)])
        else:
            flat.append((dotted, value))
    return flat


def _axes(raw: dict[str, Any], raw_base: dict[str, Any], here: Path, problems: _Problems) -> list[Axis]:
    known = config_keys()
    known_presets = presets()
    axes = []
    for key, values in _flatten(raw):
        if not isinstance(values, list):
            problems.add("axes", key, f"expected a list of values, got {_type_name(values)}")
            continue
        if not values:
            problems.add("axes", key, "an axis needs at least one value")
            continue
        if (big := _out_of_range(values)) is not None:
            problems.add(
                "axes", key, f"{big} is out of range: TOML's integers are 64-bit (-2^63 .. 2^63 - 1)"
            )
            continue
        repeated = [v for i, v in enumerate(values) if any(same_value(v, w) for w in values[:i])]
        if repeated:
            problems.add("axes", key, f"repeats the value {toml_literal(repeated[0])}")
            continue
        if key in SPECIAL_AXES:
            if key in raw_base:
                problems.add("axes", key, f"`{key}` is both in [base] and in [axes]; keep one")
                continue
            if not all(isinstance(v, str) for v in values):
                problems.add("axes", key, f"expected a list of strings, got {toml_literal(values)}")
                continue
            arguments = _special_arguments(key, values, here, known_presets, problems)
        elif key == "seed":
            problems.add("axes", key, "give the seeds with the top-level `seeds`, not an axis")
            continue
        elif key in TABLE_COLUMNS:
            problems.add("axes", key, f"`{key}` is a column of the results table; set it in [base].set")
            continue
        elif (reason := unknown_key_reason(key, known)) is not None:
            problems.add("axes", key, reason)
            continue
        else:
            arguments = [f"{key}={toml_literal(v)}" for v in values]
        axes.append(Axis(key, tuple(values), tuple(arguments)))
    return axes


def _special_arguments(
    key: str, values: list[str], here: Path, known_presets: list[str], problems: _Problems
) -> list[str]:
    arguments = []
    for value in values:
        if key == "preset":
            if value not in known_presets:
                problems.add("axes", key, f"unknown preset {value!r}; known: {', '.join(known_presets)}")
            arguments.append(value)
        elif key == "trace":
            found = _trace_file(value, here)
            if found is None:
                problems.add("axes", key, f"no such trace file: {here / value} (nor a bundled trace's name)")
            elif (reason := _unreadable(found)) is not None:
                problems.add("axes", key, reason)
            arguments.append(str(found) if found else value)
        else:
            workload = _workload(value, here)
            if workload is None:
                problems.add("axes", key, f"{value!r} is neither a workload file nor a built-in workload")
            elif Path(workload).is_absolute() and (reason := _text_file_problem(Path(workload))) is not None:
                problems.add("axes", key, reason)
            arguments.append(workload or value)
    return arguments


def _excludes(raw: Any, axes: list[Axis], problems: _Problems) -> list[dict[str, Any]]:
    if not isinstance(raw, list) or not all(isinstance(e, dict) for e in raw):
        problems.add("", "exclude", "expected [[exclude]] tables (one per combination to leave out)")
        return []
    by_key = {a.key: a for a in axes}
    excludes = []
    for number, entry in enumerate(raw, start=1):
        table = f"exclude#{number}"
        matched: dict[str, Any] = {}
        for key, value in _exclude_items(entry, by_key):
            axis = by_key.get(key)
            if axis is None:
                axes_named = ", ".join(by_key) or "none"
                problems.add(table, key, f"not an axis (the axes: {axes_named})")
            elif not any(same_value(value, v) for v in axis.values):
                problems.add(
                    table,
                    key,
                    f"{toml_literal(value)} is not a value of this axis ({toml_literal(list(axis.values))})",
                )
            else:
                matched[key] = value
        if not entry:
            problems.add(table, "", "an empty [[exclude]] would leave out every cell")
        excludes.append(matched)
    return excludes


def _exclude_items(entry: dict[str, Any], axes: dict[str, Axis], prefix: str = "") -> list[tuple[str, Any]]:
    """An exclude entry's (axis key, value) pairs; a nested table is followed down until its
    dotted path is an axis (so an axis of inline tables still compares whole values)."""
    items = []
    for key, value in entry.items():
        dotted = f"{prefix}.{key}" if prefix else key
        if dotted not in axes and isinstance(value, dict) and value:
            items.extend(_exclude_items(value, axes, dotted))
        else:
            items.append((dotted, value))
    return items
