"""Exceptions raised by ssdlab. The Rust core's errors map onto these (one mapping, in
crates/ssdlab-py/src/errors.rs); each carries attributes, not only text."""

from __future__ import annotations


class SsdlabError(Exception):
    """Base of every ssdlab error.

    Attributes:
        path: the file concerned (config, trace), if any.
        line: the 1-based line in that file, if known.
        problems: for configuration errors, every (key, reason) found.
    """

    def __init__(
        self,
        message: str,
        path: str | None = None,
        line: int | None = None,
        problems: list[tuple[str, str]] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.path = path
        self.line = line
        self.problems = list(problems or [])


class ConfigError(SsdlabError, ValueError):
    """An impossible or malformed configuration (every problem listed at once)."""


class TraceFormatError(SsdlabError, ValueError):
    """A trace line that cannot be read (file, line and reason)."""


class SsdlabIOError(SsdlabError, OSError):
    """A file could not be read or written."""


class DeviceFullError(SsdlabError):
    """The simulated device cannot reclaim space: the data does not fit."""


class InternalError(SsdlabError):
    """A broken invariant inside ssdlab (a bug: please report it)."""


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
    "ConfigDeprecationWarning",
    "ConfigError",
    "DeviceFullError",
    "InternalError",
    "SsdlabError",
    "SsdlabIOError",
    "TraceFormatError",
]
