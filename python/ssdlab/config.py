"""Building configuration layers for the native core: presets, built-in workload patterns,
TOML files and `key=value` overrides. The core merges them (later wins) and validates.

The order, lowest first: the preset; a built-in workload pattern or spec and the trace to
replay; the user's config files (a `workload` that is a config file among them, first); the
overrides. What the user wrote thus always wins over a built-in, and every key a later layer
changed is handed back (`ConfigOverride`) for the caller to show: nothing changes silently."""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import Any, NamedTuple

from ssdlab import _core
from ssdlab.errors import ConfigDeprecationWarning, ConfigError

#: A layer as the core takes it: (origin, TOML text, generated). A generated layer is one this
#: module made from an argument (the trace to replay, a spec to draw), not text the user wrote:
#: messages name it without a line.
Layer = tuple[str | None, str, bool]

#: Overrides as the API takes them: `{"workload.count": 30000}` or `["workload.count=30000"]`.
Overrides = Mapping[str, Any] | Sequence[str]


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
    return (f"spec:{spec}", f'[workload]\nkind = "spec"\nspec = {toml_string(str(spec))}\n', True)


def read_toml_text(path: Path) -> str:
    """A TOML file's text (newlines as `read_text` gives them). TOML is UTF-8 only, so a file that
    is not is a `ConfigError` at the line and column of its first bad byte, not a traceback."""
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except UnicodeDecodeError as e:
        data = path.read_bytes()
        line = data.count(b"\n", 0, e.start) + 1
        column = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
        bad = data[e.start : e.end].hex(" ")
        raise ConfigError(
            f"{path}:{line}: not UTF-8 text (byte {bad} at column {column}); TOML files must be "
            "UTF-8: save the file as UTF-8",
            path=str(path),
            line=line,
        ) from None


def _is_spec(path: Path) -> bool:
    """Whether a TOML file is a workload spec, not a config layer: the core tells them apart by
    the keys only a spec has. A file that is not TOML is a layer, whose loader names its line."""
    return bool(_core.is_spec_toml(read_toml_text(path)))


def workload_layer(workload: str | Path) -> Layer:
    """A built-in pattern or spec name, a config TOML file or a workload spec file, as a layer."""
    text = _core.workload_toml(str(workload))
    if text is not None:
        return (f"workload:{workload}", text, False)
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
    return (str(path), read_toml_text(path), False)


def trace_layer(trace: str | Path, fmt: str | None = None) -> Layer:
    """A layer that replays a trace file."""
    path = Path(trace)
    lines = ["[workload]", 'kind = "trace"', f"path = {toml_string(str(path))}"]
    if fmt is not None:
        lines += ["[workload.trace]", f"format = {toml_string(fmt)}"]
    return (f"trace:{path}", "\n".join(lines) + "\n", True)


_ESCAPES = {"\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r", '"': '\\"', "\\": "\\\\"}


def toml_string(s: str) -> str:
    """A TOML basic string holding `s` (for building overrides and layers): quote, backslash
    and every control character escaped, as TOML requires."""
    out = []
    for ch in s:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def toml_value(value: Any, key: str = "value") -> str:
    """A Python value as an inline TOML value: a bool, int, float, string (or path), a list or
    tuple of them, a mapping as an inline table. ConfigError, naming `key`, for what TOML cannot
    hold (None, an object)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        # repr is the shortest text that reads back as the same float; TOML spells inf and nan so.
        return repr(value)
    if isinstance(value, str | PurePath):
        return toml_string(str(value))
    if isinstance(value, Mapping):
        inner = ", ".join(f"{toml_string(str(k))} = {toml_value(v, f'{key}.{k}')}" for k, v in value.items())
        return "{ " + inner + " }" if inner else "{}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(toml_value(v, key) for v in value) + "]"
    reason = f"{type(value).__name__} {value!r} has no TOML form: give a bool, number, string, list or dict"
    raise ConfigError(f"{key}: {reason}", problems=[(key, reason)])


def override_strings(overrides: Overrides | None) -> list[str]:
    """Overrides as the core takes them, `key=value` strings, from a mapping (`{"gc.victim":
    "fifo", "seed": 7}`: each value written as TOML, strings quoted) or a sequence of
    `key=value` strings. A single string is refused (TypeError): iterating it would give one
    override per character."""
    if overrides is None:
        return []
    if isinstance(overrides, str | bytes):
        raise TypeError(
            f"overrides must be a list of 'key=value' strings or a dict {{key: value}}, not a single "
            f"string: write [{overrides!r}]"
        )
    if isinstance(overrides, Mapping):
        return [f"{key}={toml_value(value, str(key))}" for key, value in overrides.items()]
    out = []
    for item in overrides:
        if not isinstance(item, str):
            raise TypeError(
                f"each override must be a 'key=value' string, got {type(item).__name__} {item!r} "
                "(or pass a dict {key: value})"
            )
        out.append(item)
    return out


#: The workload argument's layer goes before the user's config files when it is a built-in (a
#: pattern or spec) or a spec file, among them when it is a config file of the user's.
def _is_builtin(layer: Layer) -> bool:
    origin = layer[0] or ""
    return origin.startswith(("workload:", "spec:"))


def build_layers(
    workload: str | Path | None = None,
    trace: str | Path | None = None,
    trace_format: str | None = None,
    config_files: Iterable[str | Path] = (),
    trace_with_workload: bool = False,
) -> list[Layer]:
    """The layers in merge order (see the module): built-ins first, so the user's files win.
    A trace together with a built-in workload pattern or spec is refused unless
    `trace_with_workload`: the trace replaces the pattern's requests, but the pattern's other
    keys (its warm-up, its request count) would still shape the run."""
    builtin: list[Layer] = []
    files: list[Layer] = []
    if workload is not None:
        layer = workload_layer(workload)
        (builtin if _is_builtin(layer) else files).append(layer)
    if trace is not None:
        if builtin and not trace_with_workload:
            raise _trace_with_workload_error(workload, builtin[0])
        builtin.append(trace_layer(trace, trace_format))
    for f in config_files:
        p = Path(f)
        if not p.is_file():
            raise ConfigError(f"{p}: no such config file", path=str(p))
        files.append((str(p), read_toml_text(p), False))
    return builtin + files


def _trace_with_workload_error(workload: str | Path | None, layer: Layer) -> ConfigError:
    import tomllib

    kept = sorted(k for k in flatten(tomllib.loads(layer[1])) if k not in {"workload.kind", "workload.spec"})
    if kept:
        what = f"the trace replaces its requests, but its other keys would still shape the run ({', '.join(kept)})"
    else:
        what = "the trace would replace it entirely"
    message = (
        f"a trace together with the workload '{workload}': {what}. Drop --workload (Python: workload=) to "
        "replay the trace alone, put the keys you want in a config file, or ask for both with "
        "--trace-with-workload (Python: trace_with_workload=True)"
    )
    return ConfigError(message, problems=[("workload", message)])


#: A configuration as the core takes it: (preset, layers, overrides).
RawConfig = tuple[str | None, list[Layer], list[str]]


def raw_config(
    preset: str | None = "tiny",
    workload: str | Path | None = None,
    trace: str | Path | None = None,
    overrides: Overrides = (),
    config_files: Iterable[str | Path] = (),
    trace_format: str | None = None,
    trace_with_workload: bool = False,
) -> RawConfig:
    """The arguments of `Simulation` as the core takes them (unvalidated: the core checks)."""
    layers = build_layers(workload, trace, trace_format, config_files, trace_with_workload)
    return preset, layers, override_strings(overrides)


@dataclass(frozen=True)
class ConfigOverride:
    """A key whose value a later layer changed (a config file over a built-in workload
    pattern, a `--set` over a preset), with every value it took, in layer order.

    Attributes:
        key: the dotted key (`workload.count`).
        steps: (value as TOML, where it was written) of each value it took, the first the one
            overridden, the last the one in force; a value of None means a later layer replaced
            the table holding the key, which then takes its default.
    """

    key: str
    steps: tuple[tuple[str | None, str], ...]
    text: str

    @property
    def old(self) -> str | None:
        return self.steps[0][0]

    @property
    def new(self) -> str | None:
        return self.steps[-1][0]

    def __str__(self) -> str:
        """`workload.count: 200000 (from workload:randwrite:6) -> 30000 (from my.toml:2)`."""
        return self.text


def overrides_of(found: Iterable[tuple[str, list[tuple[str | None, str]], str]]) -> list[ConfigOverride]:
    """The core's overridden keys as `ConfigOverride`s."""
    return [ConfigOverride(key, tuple((v, o) for v, o in steps), text) for key, steps, text in found]


class Resolved(NamedTuple):
    """A resolved configuration: its TOML (with each value's origin as a comment, if asked) and
    the keys a later layer overrode."""

    toml: str
    overridden: list[ConfigOverride]


def resolve_explained(
    preset: str | None = "tiny",
    workload: str | Path | None = None,
    trace: str | Path | None = None,
    overrides: Overrides = (),
    config_files: Iterable[str | Path] = (),
    trace_format: str | None = None,
    trace_with_workload: bool = False,
    origins: bool = True,
) -> Resolved:
    """`resolve`, each value followed by `# <where it was written>` (`preset:tiny:6`,
    `my.toml:2`, `--set`, `default`) unless `origins` is False, and the keys a later layer
    overrode."""
    raw = raw_config(preset, workload, trace, overrides, config_files, trace_format, trace_with_workload)
    text, found, overridden = _core.resolve_config(*raw, origins)
    warn_deprecated(found)
    return Resolved(text, overrides_of(overridden))


def resolve(
    preset: str | None = "tiny",
    workload: str | Path | None = None,
    trace: str | Path | None = None,
    overrides: Overrides = (),
    config_files: Iterable[str | Path] = (),
    trace_format: str | None = None,
    trace_with_workload: bool = False,
) -> str:
    """The fully resolved configuration (every key) as TOML; raises ConfigError listing every
    problem."""
    raw = raw_config(preset, workload, trace, overrides, config_files, trace_format, trace_with_workload)
    text, found, _ = _core.resolve_config(*raw)
    warn_deprecated(found)
    return text


def key_suggestions(key: str) -> list[str]:
    """The config keys closest to `key` (a misspelt one), best first, at most three: what the
    core suggests for an unknown key."""
    return list(_core.config_key_suggestions(key))


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
