"""Layer: Python, HTML report. One job: turn runs' latencies into the curves the report draws, a
CDF and its tail (the fraction of requests at least that slow), few enough points to keep a page
of many runs small.

Exact curves come from the runs' latency histograms (sorted (latency_ns, count) pairs, pooled
over the runs of a group). A histogram holds a point per distinct latency, thousands per run, so
the curve is read off at a few hundred latencies spaced evenly on the log axis it is drawn on:
at 400 points over three decades that is a step of 1.7 %, finer than the eye resolves. Reports
without histograms (saved before they were kept) give a curve through their percentiles, marked
`exact=False` so that the caption can say so.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

#: Points per resampled curve.
CURVE_POINTS = 400

#: The percentiles of a report's `latency` section, as (key, quantile).
PERCENTILE_KEYS = (
    ("p50_ns", 0.5),
    ("p90_ns", 0.9),
    ("p99_ns", 0.99),
    ("p99_9_ns", 0.999),
    ("p99_99_ns", 0.9999),
    ("p99_9999_ns", 0.999999),
)


@dataclass(frozen=True)
class LatencyCurve:
    """A latency distribution ready to draw: `latency_us` ascending, `cdf` = P(latency <= x) and
    `at_least` = P(latency >= x), which stays at 1/N at the slowest request (a log axis cannot
    show the 0 that 1 - CDF reaches there). `requests` is N; `exact` is False for a curve
    through percentiles."""

    latency_us: np.ndarray
    cdf: np.ndarray
    at_least: np.ndarray
    requests: int
    exact: bool


def pool(histograms: Iterable[Sequence[tuple[int, int]]]) -> tuple[np.ndarray, np.ndarray]:
    """Several histograms as one: the distinct latencies (ns, ascending) and their summed counts."""
    arrays = [np.asarray(pairs, dtype=np.int64).reshape(-1, 2) for pairs in histograms]
    arrays = [a for a in arrays if len(a)]
    if not arrays:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64)
    both = np.concatenate(arrays)
    values, inverse = np.unique(both[:, 0], return_inverse=True)
    counts = np.zeros(len(values), dtype=np.int64)
    np.add.at(counts, inverse, both[:, 1])
    return values, counts


def from_histogram(
    values_ns: np.ndarray, counts: np.ndarray, points: int = CURVE_POINTS
) -> LatencyCurve | None:
    """The exact curve of a histogram, read at `points` latencies log-spaced from its fastest to
    its slowest request (both included), or at each latency if it has no more than `points`;
    None for an empty histogram."""
    keep = counts > 0
    values_ns, counts = values_ns[keep], counts[keep]
    if len(values_ns) == 0:
        return None
    total = int(counts.sum())
    cumulative = np.cumsum(counts)
    if len(values_ns) <= points:
        grid = values_ns.astype(float)  # few distinct latencies: every one of them
    else:
        low, high = max(float(values_ns[0]), 1.0), float(values_ns[-1])
        grid = np.unique(np.concatenate([np.geomspace(low, high, points), values_ns[[0, -1]].astype(float)]))
    # P(latency <= x): the requests up to the last value not above x.
    upto = np.searchsorted(values_ns, grid, side="right") - 1
    cdf = np.where(upto >= 0, cumulative[np.maximum(upto, 0)], 0) / total
    # P(latency >= x): the requests from the first value not below x.
    below = np.searchsorted(values_ns, grid, side="left") - 1
    at_least = 1.0 - np.where(below >= 0, cumulative[np.maximum(below, 0)], 0) / total
    return LatencyCurve(grid / 1e3, cdf, at_least, total, exact=True)


def from_percentiles(summaries: Sequence[Mapping[str, Any]]) -> LatencyCurve | None:
    """A curve through the percentiles of one operation's `latency` summaries (one per run; the
    percentiles are averaged over the runs, which approximates the pooled distribution). Only
    percentiles the requests resolve are kept (p99.9999 of 2,000 requests is the maximum), and
    the maximum closes the curve at P(latency >= max) = 1/N."""
    summaries = [s for s in summaries if s.get("count", 0) > 0]
    if not summaries:
        return None
    total = int(sum(s["count"] for s in summaries))
    xs, qs = [], []
    for key, q in PERCENTILE_KEYS:
        if 1.0 - q >= 1.0 / total:
            xs.append(float(np.mean([s[key] for s in summaries])))
            qs.append(q)
    xs.append(float(np.mean([s["max_ns"] for s in summaries])))
    qs.append(1.0)
    latency = np.maximum.accumulate(np.array(xs))  # averaged percentiles stay ordered
    cdf = np.array(qs)
    at_least = np.maximum(1.0 - cdf, 1.0 / total)
    return LatencyCurve(latency / 1e3, cdf, at_least, total, exact=False)
