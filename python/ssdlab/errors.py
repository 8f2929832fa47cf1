"""Exceptions raised by ssdlab. The classes are made by the Rust extension, beside the one
mapping from the core's errors onto them (crates/ssdlab-py/src/errors.rs), and re-exported
here; each carries attributes, not only text: `.message`, `.path` (the file concerned),
`.line` (1-based, if known) and `.problems` (every (key, reason) of a configuration error).

- `SsdlabError`: the base of every ssdlab error.
- `ConfigError` (also a `ValueError`): an impossible or malformed configuration, every
  problem listed at once.
- `TraceFormatError` (also a `ValueError`): a trace line that cannot be read.
- `SsdlabIOError` (also an `OSError`): a file could not be read or written.
- `DeviceFullError`: the simulated device cannot reclaim space.
- `InternalError`: a broken invariant inside ssdlab (a bug: please report it).
- `ActionError` (also a `ValueError`): an outside agent's action refused (out of range,
  masked, or with no decision waiting).

Python code raises them as it would any exception: `ConfigError(message, path=None,
line=None, problems=None)`.

`ConfigDeprecationWarning` is not an error: the loader returns the deprecated names a
configuration used with the config it validated, and the Python layer warns with it."""

from __future__ import annotations

from ssdlab._core import (
    ActionError,
    ConfigError,
    DeviceFullError,
    InternalError,
    SsdlabError,
    SsdlabIOError,
    TraceFormatError,
)


class ConfigDeprecationWarning(FutureWarning):
    """A configuration used a deprecated name (a renamed table such as `[cache.fsp]`); it loaded
    as if it used the new one. A FutureWarning, not a DeprecationWarning: a config file is the
    user's, not a library's, and Python hides DeprecationWarning outside `__main__`.

    Attributes:
        path: where the name was written: a file, a built-in layer, or `--set` for an override.
        line: the 1-based line in that file, if known.
        key: the key as written (`cache.fsp`).
        replacement: the same key under its new name (`cache.page_type_eviction`).
    """

    def __init__(self, message: str, path: str, line: int | None, key: str, replacement: str) -> None:
        super().__init__(message)
        self.message = message
        self.path = path
        self.line = line
        self.key = key
        self.replacement = replacement

    def __str__(self) -> str:
        where = self.path if self.line is None else f"{self.path}:{self.line}"
        return f"{where}: {self.message}"


__all__ = [
    "ActionError",
    "ConfigDeprecationWarning",
    "ConfigError",
    "DeviceFullError",
    "InternalError",
    "SsdlabError",
    "SsdlabIOError",
    "TraceFormatError",
]
