"""Building configuration layers for the native core: presets, built-in workload patterns,
TOML files and `key=value` overrides. The core merges them (later wins) and validates."""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from ssdlab import _core
from ssdlab.errors import ConfigDeprecationWarning, ConfigError

Layer = tuple[str | None, str]


def flatten(table: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """A nested config (TOML tables as dicts) as dotted keys: {"gc.scheduler": "greedy", ...}."""
    out: dict[str, Any] = {}
    for key, value in table.items():
        path = f"{prefix}.{key}" if prefix else key
        if isinstance(value, dict):
            out.update(flatten(value, path))
        else:
            out[path] = value
    return out


def schema_json() -> str:
    """The configuration's JSON Schema (every key, its type, default and documentation; each
    policy key's registered ids as its `enum`), as the core writes it."""
    return _core.config_schema()


def workload_spec_schema_json() -> str:
    """The workload spec format's JSON Schema, as the core writes it."""
    return _core.workload_spec_schema()


def presets() -> list[str]:
    """Names of the built-in device presets."""
    return list(_core.presets())


def _builtin_toml(kind: str, key: str, name: str, text: str | None, known: list[str]) -> str:
    """A built-in's TOML, or a ConfigError naming the known ones."""
    if text is None:
        raise ConfigError(f"unknown {kind} '{name}'; known: {', '.join(known)}", problems=[(key, name)])
    return text


def preset_toml(name: str) -> str:
    """The TOML of a device preset (with the comment citing its source table)."""
    return _builtin_toml("preset", "preset", name, _core.preset_toml(name), presets())


def workload_patterns() -> list[str]:
    """Names of the built-in workload patterns (randwrite, randread, ...)."""
    return list(_core.workload_patterns())


def workload_pattern_toml(name: str) -> str:
    """A built-in workload pattern's TOML (a `[workload]` table)."""
    return _builtin_toml("workload pattern", "workload", name, _core.workload_toml(name), workload_patterns())


def workload_specs() -> list[str]:
    """Names of the built-in workload specs (the papers' traces from their statistics)."""
    return list(_core.spec_names())


def workload_spec_toml(name: str) -> str:
    """The TOML of a built-in workload spec (with the comment citing its source table)."""
    return _builtin_toml("workload spec", "spec", name, _core.spec_toml(name), workload_specs())


def spec_layer(spec: str | Path) -> Layer:
    """A layer that draws requests from a workload spec (a file or a built-in name)."""
    return (f"spec:{spec}", f'[workload]\nkind = "spec"\nspec = {toml_string(str(spec))}\n')


#: Top-level keys only a workload spec has (a config layer's tables are `[workload]`,
#: `[device]`, ...): a file with one of them is read as a spec, whose own check then names
#: whatever is missing.
SPEC_KEYS = {"address_space", "read_ratio", "length", "read", "write", "reread", "arrival", "align_bytes"}


def _is_spec(path: Path) -> bool:
    """Whether a TOML file is a workload spec, not a config layer."""
    import tomllib

    try:
        return bool(SPEC_KEYS & tomllib.loads(path.read_text()).keys())
    except (tomllib.TOMLDecodeError, UnicodeDecodeError):
        return False  # the core reports the file's problem with its line


def workload_layer(workload: str | Path) -> Layer:
    """A built-in pattern or spec name, a config TOML file or a workload spec file, as a layer."""
    text = _core.workload_toml(str(workload))
    if text is not None:
        return (f"workload:{workload}", text)
    path = Path(workload)
    if not path.is_file() and str(workload) in workload_specs():
        return spec_layer(workload)
    if not path.is_file():
        patterns = ", ".join(workload_patterns())
        raise ConfigError(
            f"workload '{workload}' is neither a built-in pattern ({patterns}), a built-in spec "
            f"(`ssdlab presets`) nor a file",
            path=str(path),
            problems=[("workload", str(workload))],
        )
    if _is_spec(path):
        return spec_layer(path)
    return (str(path), path.read_text())


def trace_layer(trace: str | Path, fmt: str | None = None) -> Layer:
    """A layer that replays a trace file."""
    path = Path(trace)
    lines = ["[workload]", 'kind = "trace"', f"path = {toml_string(str(path))}"]
    if fmt is not None:
        lines += ["[workload.trace]", f"format = {toml_string(fmt)}"]
    return (f"trace:{path}", "\n".join(lines) + "\n")


def toml_string(s: str) -> str:
    """A TOML basic string holding `s` (for building overrides and layers)."""
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def build_layers(
    workload: str | Path | None = None,
    trace: str | Path | None = None,
    trace_format: str | None = None,
    config_files: Iterable[str | Path] = (),
) -> list[Layer]:
    layers: list[Layer] = []
    for f in config_files:
        p = Path(f)
        if not p.is_file():
            raise ConfigError(f"{p}: no such config file", path=str(p))
        layers.append((str(p), p.read_text()))
    if workload is not None:
        layers.append(workload_layer(workload))
    if trace is not None:
        layers.append(trace_layer(trace, trace_format))
    return layers


#: A configuration as the core takes it: (preset, layers as (origin, TOML), overrides).
RawConfig = tuple[str | None, list[tuple[str | None, str]], list[str]]


def raw_config(
    preset: str | None = "tiny",
    workload: str | Path | None = None,
    trace: str | Path | None = None,
    overrides: Sequence[str] = (),
    config_files: Iterable[str | Path] = (),
    trace_format: str | None = None,
) -> RawConfig:
    """The arguments of `Simulation` as the core takes them (unvalidated: the core checks)."""
    return preset, build_layers(workload, trace, trace_format, config_files), list(overrides)


def resolve(
    preset: str | None = "tiny",
    workload: str | Path | None = None,
    trace: str | Path | None = None,
    overrides: Sequence[str] = (),
    config_files: Iterable[str | Path] = (),
    trace_format: str | None = None,
) -> str:
    """The fully resolved configuration (every key) as TOML; raises ConfigError listing every
    problem."""
    text, found = _core.resolve_config(
        *raw_config(preset, workload, trace, overrides, config_files, trace_format)
    )
    warn_deprecated(found)
    return text


def renamed_tables() -> dict[str, str]:
    """Every renamed table, old dotted path -> new: the old names still load, with a warning."""
    return dict(_core.config_renames())


def warn_deprecated(found: Iterable[tuple[str, int | None, str, str, str]], stacklevel: int = 2) -> None:
    """Raise each loader warning (origin, line, key, replacement, message) as a
    `ConfigDeprecationWarning`, at the caller's caller by default."""
    for origin, line, key, replacement, message in found:
        warnings.warn(
            ConfigDeprecationWarning(message, origin, line, key, replacement), stacklevel=stacklevel + 1
        )
