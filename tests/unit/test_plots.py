"""The tail plot draws the right curve: y = P(latency >= x) from an exact histogram."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from ssdlab import plots


def test_latency_tail_plots_the_fraction_at_least_as_slow(tmp_path):
    # 10 requests: 6 at 1 ms, 3 at 2 ms, 1 at 10 ms.
    hist = {"a": [(1_000_000, 6), (2_000_000, 3), (10_000_000, 1)], "empty": []}
    fig = plots.latency_tail(hist, path=tmp_path / "tail.png", title="t")
    assert (tmp_path / "tail.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    ax = fig.axes[0]
    curves = [line for line in ax.get_lines() if line.get_label() == "a"]
    assert len(curves) == 1  # the empty histogram draws nothing
    x, y = curves[0].get_data()
    assert np.allclose(x, [1.0, 2.0, 10.0])  # ms
    # every request is >= 1 ms, 4 of 10 are >= 2 ms, the slowest is 1 of 10 (not 0 on a log axis)
    assert np.allclose(y, [1.0, 0.4, 0.1])
    # For x between two latencies, P(latency >= x) is the value at the next latency: the step
    # holds each value to the left of its point.
    assert curves[0].get_drawstyle() == "steps-pre"
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    assert [label.get_text() for label in ax.get_legend().get_texts()] == ["a"]
    assert not plt.fignum_exists(fig.number)  # saved figures are closed


def test_axes_take_the_unit_of_their_range_and_the_cdf_starts_at_zero(tmp_path):
    """A tail of 20 us to 300 us reads in us; a CDF rises from 0 at its fastest request (30 % of
    the requests there); 21 days of simulated time read in days (issue #45)."""
    from ssdlab.report import Report

    fig = plots.latency_tail({"a": [(20_000, 3), (300_000, 1)]}, path=None)
    assert fig.axes[0].get_xlabel() == "write latency (us)"
    assert np.allclose(fig.axes[0].get_lines()[0].get_data()[0], [20.0, 300.0])
    run = Report(
        {"time_series": {"free_blocks": {"time_ns": [7 * 86_400e9, 21 * 86_400e9], "values": [9, 4]}}},
        histograms={"write": [(100_000, 3), (2_000_000, 6), (50_000_000, 1)]},
    )
    fig = plots.latency_cdf({"run": run}, "write")
    ax = fig.axes[0]
    x, y = ax.get_lines()[0].get_data()
    assert ax.get_xlabel() == "write latency (ms)" and np.allclose(x[:2], [0.1, 0.1])
    assert np.allclose(y, [0.0, 0.3, 0.9, 1.0]) and ax.get_ylim() == (0.0, 1.02)
    fig = plots.time_series({"run": run}, "free_blocks")
    assert fig.axes[0].get_xlabel() == "simulated time (d)"
    assert np.allclose(fig.axes[0].get_lines()[0].get_data()[0], [7.0, 21.0])
    plt.close("all")
