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

Python code raises them as it would any exception: `ConfigError(message, path=None,
line=None, problems=None)`."""

from __future__ import annotations

from ssdlab._core import (
    ConfigError,
    DeviceFullError,
    InternalError,
    SsdlabError,
    SsdlabIOError,
    TraceFormatError,
)

__all__ = [
    "ConfigError",
    "DeviceFullError",
    "InternalError",
    "SsdlabError",
    "SsdlabIOError",
    "TraceFormatError",
]
