"""`ssdlab.axis_units`: the unit of a time or latency axis from its range (issue #45)."""

from __future__ import annotations

import pytest

from ssdlab import axis_units


@pytest.mark.parametrize(
    ("span_ns", "symbol"),
    [
        (0, "us"),
        (999e3, "us"),
        (1e6, "ms"),  # one of a decimal unit is enough
        (999e6, "ms"),
        (1e9, "s"),
        (119e9, "s"),  # under two minutes: seconds read better than 0-1.98 min
        (120e9, "min"),
        (7199e9, "min"),
        (7200e9, "h"),
        (2 * 86_400e9 - 1, "h"),
        (1.8e15, "d"),  # the 1.8 M seconds: 20.8 days
    ],
)
def test_a_time_axis_takes_the_largest_unit_its_span_reaches(span_ns, symbol):
    assert axis_units.time_unit(span_ns).symbol == symbol


def test_a_log_latency_axis_takes_the_unit_of_its_geometric_middle():
    # 20 us to 50 ms: the middle is 1 ms; a single outlier at 2 s does not turn it into seconds.
    assert axis_units.latency_unit([20e3, 50e6]).symbol == "ms"
    assert axis_units.latency_unit([20e3, 300e3, 2e9]).symbol == "ms"
    assert axis_units.latency_unit([20e3, 300e3]).symbol == "us"
    assert axis_units.latency_unit([0.5e9, 30e9]).symbol == "s"
    assert (
        axis_units.latency_unit([]).symbol == "us"
        and axis_units.latency_unit([0, float("nan")]).symbol == "us"
    )
    # Latencies stop at seconds.
    assert axis_units.latency_span_unit(3600e9).symbol == "s"


def test_a_unit_converts_from_ns():
    assert axis_units.time_unit(1.8e15).of_ns(1.8e15) == pytest.approx(20.833, abs=1e-3)
    assert axis_units.MILLISECOND.of_ns(2_500_000) == 2.5
