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
