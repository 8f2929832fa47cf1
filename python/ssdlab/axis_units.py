"""Layer: Python, figures (the HTML report's and the PNG plots'). One job: choose the unit of a
time or latency axis from the range it spans, so that an axis reads `0-21 d` rather than
`0-1.8M s`, and `0.1-30 ms` rather than `100-30,000 us` (issue #45).

A time axis (simulated time, linear) takes the largest unit its span reaches: microseconds,
milliseconds and seconds from one of them, minutes, hours and days from two (an axis to 90 s
reads better in seconds than as 0-1.5 min); a linear latency axis likewise, in microseconds to
seconds. A latency axis on a log scale takes the unit of the geometric middle of its range, so
that its labels sit around 1 to 1,000 of it whether a few outliers reach seconds or not.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Unit:
    """A unit of time: its symbol, its length in ns, and how many of it a span must reach
    before an axis uses it."""

    symbol: str
    ns: float
    from_count: float = 1.0

    def of_ns(self, value_ns: float) -> float:
        """A value in ns, in this unit."""
        return value_ns / self.ns


MICROSECOND = Unit("us", 1e3)
MILLISECOND = Unit("ms", 1e6)
SECOND = Unit("s", 1e9)
#: Units of simulated time, shortest first.
TIME_UNITS = (
    MICROSECOND,
    MILLISECOND,
    SECOND,
    Unit("min", 60e9, 2),
    Unit("h", 3600e9, 2),
    Unit("d", 86400e9, 2),
)
#: Units of latency, shortest first.
LATENCY_UNITS = (MICROSECOND, MILLISECOND, SECOND)


def _largest_reached(value_ns: float, units: tuple[Unit, ...]) -> Unit:
    chosen = units[0]
    if not math.isfinite(value_ns):
        return chosen
    for unit in units:
        if value_ns >= unit.from_count * unit.ns:
            chosen = unit
    return chosen


def time_unit(span_ns: float) -> Unit:
    """The unit of a simulated-time axis from 0 to `span_ns`."""
    return _largest_reached(abs(span_ns), TIME_UNITS)


def latency_span_unit(span_ns: float) -> Unit:
    """The unit of a linear latency axis from 0 to `span_ns` (a latency percentile over time)."""
    return _largest_reached(abs(span_ns), LATENCY_UNITS)


def latency_unit(values_ns: Iterable[float]) -> Unit:
    """The unit of a latency axis (log) through `values_ns`: that of the geometric middle of
    their positive range (microseconds when there is none)."""
    positive = [v for v in values_ns if v > 0 and math.isfinite(v)]
    if not positive:
        return MICROSECOND
    middle = math.sqrt(min(positive) * max(positive))
    return _largest_reached(middle, LATENCY_UNITS)
