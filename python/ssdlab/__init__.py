"""ssdlab: a trace-driven SSD simulator and laboratory for machine-learning-assisted FTLs.

>>> import ssdlab
>>> report = ssdlab.run(preset="tiny", workload="randwrite", overrides=["workload.count=1000"])
>>> report.waf >= 1.0
True
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ssdlab._core import __version__
from ssdlab.config import preset_toml, presets, resolve, workload_patterns
from ssdlab.errors import (
    ActionError,
    ConfigDeprecationWarning,
    ConfigError,
    DeviceFullError,
    InternalError,
    SsdlabError,
    SsdlabIOError,
    TraceFormatError,
)
from ssdlab.setup import Setup

if TYPE_CHECKING:
    from ssdlab.api import Simulation, WarmDrive, run
    from ssdlab.report import Report
    from ssdlab.sweeps import sweep

# The API and the report load pandas and numpy (about half a second); they are imported on first
# use (PEP 562) so that `import ssdlab` and the `ssdlab` command start fast.
_LAZY = {
    "Simulation": "ssdlab.api",
    "run": "ssdlab.api",
    "WarmDrive": "ssdlab.api",
    "Report": "ssdlab.report",
    "sweep": "ssdlab.sweeps",
}


#: Submodules reached as attributes (`ssdlab.trace.read(path)` after `import ssdlab`), imported
#: on first use like the names above.
_SUBMODULES = {"trace"}


def __getattr__(name: str) -> Any:
    if name in _SUBMODULES:
        return importlib.import_module(f"ssdlab.{name}")
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'ssdlab' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY, *_SUBMODULES})


__all__ = [
    "ActionError",
    "ConfigDeprecationWarning",
    "ConfigError",
    "DeviceFullError",
    "InternalError",
    "Report",
    "Setup",
    "Simulation",
    "SsdlabError",
    "SsdlabIOError",
    "TraceFormatError",
    "WarmDrive",
    "__version__",
    "preset_toml",
    "presets",
    "resolve",
    "run",
    "sweep",
    "workload_patterns",
]
