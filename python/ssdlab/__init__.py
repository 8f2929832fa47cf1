"""ssdlab: a trace-driven SSD simulator and laboratory for machine-learning-assisted FTLs.

>>> import ssdlab
>>> report = ssdlab.run(preset="tiny", workload="randwrite", overrides=["workload.count=1000"])
>>> report.waf >= 1.0
True
"""

from ssdlab._core import __version__
from ssdlab.api import Simulation, run
from ssdlab.config import preset_toml, presets, resolve, workload_patterns
from ssdlab.errors import (
    ConfigError,
    DeviceFullError,
    InternalError,
    SsdlabError,
    SsdlabIOError,
    TraceFormatError,
)
from ssdlab.report import Report

__all__ = [
    "ConfigError",
    "DeviceFullError",
    "InternalError",
    "Report",
    "Simulation",
    "SsdlabError",
    "SsdlabIOError",
    "TraceFormatError",
    "__version__",
    "preset_toml",
    "presets",
    "resolve",
    "run",
    "workload_patterns",
]
