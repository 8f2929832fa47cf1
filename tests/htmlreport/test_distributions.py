"""Latency curves: exact from histograms (pooled, resampled), approximate through percentiles."""

from __future__ import annotations

import numpy as np
import pytest

from ssdlab.htmlreport import distributions


def test_pool_sums_the_counts_of_equal_latencies():
    values, counts = distributions.pool([[(100, 2), (300, 1)], [], [(100, 1), (200, 4)]])
    assert values.tolist() == [100, 200, 300]
    assert counts.tolist() == [3, 4, 1]


def test_curve_of_a_histogram_reads_the_cdf_and_the_tail_exactly():
    values = np.array([100_000, 200_000, 400_000, 800_000])  # ns
    curve = distributions.from_histogram(values, np.array([1, 1, 1, 1]), points=3)  # resampled
    assert curve.exact and curve.requests == 4
    at = dict(
        zip(curve.latency_us.round(6).tolist(), zip(curve.cdf, curve.at_least, strict=True), strict=True)
    )
    assert at[100.0] == (0.25, 1.0)  # the fastest request: a quarter at most, all at least
    assert at[800.0] == (1.0, 0.25)  # the slowest: all at most, 1/N at least (never 0)
    between = next(x for x in at if 200 < x < 400)  # a resampled latency between two values
    assert at[between] == (0.5, 0.5)
    assert np.all(np.diff(curve.latency_us) > 0) and len(curve.latency_us) <= 5


def test_a_histogram_with_few_latencies_is_drawn_at_each():
    values = np.array([100_000, 200_000, 400_000])
    curve = distributions.from_histogram(values, np.array([2, 1, 1]))
    assert curve.latency_us.tolist() == [100, 200, 400]
    assert curve.cdf.tolist() == [0.5, 0.75, 1.0]
    assert curve.at_least.tolist() == [1.0, 0.5, 0.25]


def test_a_run_s_curve_matches_its_own_percentiles():
    """The curve from a real run's histogram against the percentiles the core reported."""
    import ssdlab

    report = ssdlab.run(
        preset="tiny", workload="randrw", overrides=["workload.count=20000", "warmup.fill=true"]
    )
    values, counts = distributions.pool([report.histograms["write"]])
    curve = distributions.from_histogram(values, counts)
    summary = report["latency"]["write"]
    n = summary["count"]
    assert curve.requests == n > 5000
    assert curve.latency_us[0] == min(v for v, _ in report.histograms["write"]) / 1e3
    assert curve.latency_us[-1] == summary["max_ns"] / 1e3
    assert curve.at_least[-1] == pytest.approx(counts[-1] / n)
    # At the p99 the core reported, at least 99 % of the requests are no slower.
    p99 = summary["p99_ns"] / 1e3
    assert curve.cdf[np.searchsorted(curve.latency_us, p99)] >= 0.99
    # Few points, whatever the number of distinct latencies.
    assert len(values) > 1000 > len(curve.latency_us)
    # The resampled curve agrees with the full one (Report.latency_cdf) at its points.
    full = report.latency_cdf("write")
    idx = np.searchsorted(full["latency_us"].to_numpy(), curve.latency_us, side="right") - 1
    assert np.allclose(full["cdf"].to_numpy()[idx], curve.cdf)


def test_curve_through_percentiles_keeps_only_what_the_requests_resolve():
    summary = {
        "count": 2000, "p50_ns": 10_000, "p90_ns": 20_000, "p99_ns": 50_000, "p99_9_ns": 90_000,
        "p99_99_ns": 99_000, "p99_9999_ns": 99_000, "max_ns": 100_000, "mean_ns": 12_000,
    }  # fmt: skip
    curve = distributions.from_percentiles([summary])
    assert not curve.exact
    # p99.99 and p99.9999 of 2,000 requests are not resolved (1 - q < 1/N): max closes the curve.
    assert curve.latency_us.tolist() == [10, 20, 50, 90, 100]
    assert curve.cdf.tolist() == [0.5, 0.9, 0.99, 0.999, 1.0]
    assert curve.at_least[-1] == pytest.approx(1 / 2000)


def test_no_curve_without_requests():
    assert distributions.from_histogram(np.array([], dtype=np.int64), np.array([], dtype=np.int64)) is None
    assert distributions.from_percentiles([{"count": 0}]) is None


def test_curve_through_percentiles_of_several_runs_averages_them():
    base = {"p90_ns": 2, "p99_ns": 3, "p99_9_ns": 4, "p99_99_ns": 5, "p99_9999_ns": 6}
    one = {"count": 10**6, "p50_ns": 1000, "max_ns": 9000, **{k: v * 1000 for k, v in base.items()}}
    two = {**one, "p50_ns": 3000, "max_ns": 11000}
    curve = distributions.from_percentiles([one, two])
    assert curve.requests == 2 * 10**6
    assert curve.latency_us[0] == 2.0 and curve.latency_us[-1] == 10.0
