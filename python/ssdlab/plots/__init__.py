"""Plots of reports: latency CDFs (with the tail on a log scale), time series, and bar tables
normalised to a baseline like the papers' tables. Uses matplotlib's non-interactive backend.
Time and latency axes are in the unit their range asks for (`ssdlab.axis_units`: a run of 21
days of simulated time in days, not 1.8 M seconds), and a CDF starts from 0."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from ssdlab import axis_units
from ssdlab.report import Report


def latency_cdf(
    reports: Mapping[str, Report], which: str = "write", tail: bool = False, path: str | Path | None = None
):
    """Latency CDF per labelled report, from 0 at its fastest request. With `tail=True` the y
    axis shows 1 - CDF on a log scale (how the RLGC paper's Fig. 7 reads the p99.99 and
    beyond)."""
    fig, ax = plt.subplots(figsize=(6, 4))
    cdfs = {label: report.latency_cdf(which) for label, report in reports.items()}
    unit = axis_units.latency_unit(
        v * 1e3
        for cdf in cdfs.values()
        if not cdf.empty
        for v in (cdf["latency_us"].iloc[0], cdf["latency_us"].iloc[-1])
    )
    for label, cdf in cdfs.items():
        if cdf.empty:
            continue
        x = unit.of_ns(cdf["latency_us"].to_numpy() * 1e3)
        if tail:
            ax.step(x, np.maximum(1.0 - cdf["cdf"], 1e-9), where="post", label=label)
            ax.set_yscale("log")
            ax.set_ylabel("1 - CDF")
        else:
            # From 0: the step up at the fastest request shows how many requests were that fast.
            ax.step(
                np.concatenate(([x[0]], x)), np.concatenate(([0.0], cdf["cdf"])), where="post", label=label
            )
            ax.set_ylim(0, 1.02)
            ax.set_ylabel("CDF")
    ax.set_xscale("log")
    ax.set_xlabel(f"{which} latency ({unit.symbol})")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    return _finish(fig, path)


def latency_tail(
    histograms: Mapping[str, Sequence[tuple[int, int]]],
    path: str | Path | None = None,
    title: str = "",
    what: str = "write",
):
    """The tail of latency distributions given as exact histograms (sorted (latency_ns, count)
    pairs, one per label), on log-log axes: y = P(latency >= x), the fraction of requests at
    least that slow. Using ">=" keeps the slowest request on the plot at 1/N instead of dropping
    to 0, which a log axis cannot show. Dotted lines mark 1e-2 and 1e-4, where the p99 and
    p99.99 of a table are read. A figure saved to `path` is also closed, so that a loop of
    comparisons does not accumulate open figures."""
    fig, ax = plt.subplots(figsize=(7, 4.5))
    drawn = 0
    unit = axis_units.latency_unit(
        v for pairs in histograms.values() if pairs for v in (pairs[0][0], pairs[-1][0])
    )
    for label, pairs in histograms.items():
        if not pairs:
            continue
        values = unit.of_ns(np.array([v for v, _ in pairs], dtype=float))
        counts = np.array([c for _, c in pairs], dtype=float)
        below = np.concatenate(([0.0], np.cumsum(counts)[:-1]))  # requests faster than each value
        at_least = 1.0 - below / counts.sum()
        ax.step(values, at_least, where="pre", label=label)
        drawn += 1
    for level, name in ((1e-2, "p99"), (1e-4, "p99.99")):
        ax.axhline(level, color="grey", linestyle=":", linewidth=0.8)
        ax.annotate(
            name,
            (1.0, level),
            xycoords=("axes fraction", "data"),
            ha="right",
            va="bottom",
            fontsize=8,
            color="grey",
        )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(f"{what} latency ({unit.symbol})")
    ax.set_ylabel("1 - CDF: fraction at least this slow")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    if drawn:
        ax.legend(fontsize=8)
    return _finish(fig, path, close=True)


def time_series(reports: Mapping[str, Report], name: str = "free_blocks", path: str | Path | None = None):
    """One time series (e.g. free blocks) per labelled report, against simulated time in the
    unit its span asks for."""
    fig, ax = plt.subplots(figsize=(6, 4))
    series = {label: report.time_series(name) for label, report in reports.items()}
    unit = time_axis_unit(ts["time_s"] for ts in series.values())
    for label, ts in series.items():
        ax.plot(unit.of_ns(ts["time_s"].to_numpy() * 1e9), ts[name], label=label)
    ax.set_xlabel(f"simulated time ({unit.symbol})")
    ax.set_ylabel(name.replace("_", " "))
    ax.grid(True, alpha=0.3)
    ax.legend()
    return _finish(fig, path)


def time_axis_unit(times_s) -> axis_units.Unit:
    """The unit of a simulated-time axis through series of times in seconds (`axis_units`)."""
    span_s = max((float(np.max(t)) for t in times_s if len(t)), default=0.0)
    return axis_units.time_unit(span_s * 1e9)


def normalized_bars(table: pd.DataFrame, baseline: str, path: str | Path | None = None, title: str = ""):
    """Bars of each column normalised to the `baseline` column (rows = workloads)."""
    norm = table.div(table[baseline], axis=0)
    ax = norm.plot.bar(figsize=(7, 4))
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_ylabel(f"normalised to {baseline}")
    ax.set_title(title)
    fig = ax.get_figure()
    return _finish(fig, path)


def learning_curves(
    curves: Mapping[str, pd.DataFrame], path: str | Path | None = None, title: str = "", window: int = 1
):
    """Learning curves, one per label: the mean reward per window of decisions
    (`Report.learning_curve`), smoothed over `window` points, against decisions taken. A learned
    policy beside its random-action control shows whether the reward moved because of learning.
    A figure saved to `path` is closed."""
    fig, ax = plt.subplots(figsize=(7, 4))
    for label, curve in curves.items():
        if curve.empty:
            continue
        y = curve["window_mean_reward"].rolling(window, min_periods=1).mean()
        ax.plot(curve["decisions"], y, label=label, linestyle="--" if "control" in label else "-")
    ax.set_xlabel("decisions")
    ax.set_ylabel("mean reward per window")
    ax.set_title(title)
    ax.grid(True, alpha=0.3)
    if curves:
        ax.legend(fontsize=8)
    return _finish(fig, path, close=True)


def save_figure(fig, path: str | Path, rect: tuple[float, float, float, float] | None = None) -> None:
    """Lay out a reproduction's figure (inside `rect` of the canvas, when a legend sits above
    the panels), save it at the reproductions' 110 dpi and close it (they draw many in a loop)."""
    fig.tight_layout(rect=rect)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def panel_grid(n: int, width: float = 4.6, height: float = 3.2, cols: int = 3):
    """A figure of `n` panels, up to `cols` a row, each `width` x `height` inches; the unused
    cells of the last row hidden. Returns the figure and the `n` axes in reading order."""
    cols = max(1, min(cols, n))
    rows = -(-n // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(width * cols, height * rows), squeeze=False)
    for ax in list(axes.flat)[n:]:
        ax.set_visible(False)
    return fig, list(axes.flat)[:n]


def _finish(fig, path: str | Path | None, close: bool = False):
    """Lay the figure out and save it to `path` if given (closing it when `close`: plots drawn in a
    loop must not accumulate open figures)."""
    fig.tight_layout()
    if path is not None:
        fig.savefig(path, dpi=120)
        if close:
            plt.close(fig)
    return fig


__all__ = [
    "latency_cdf",
    "latency_tail",
    "learning_curves",
    "normalized_bars",
    "panel_grid",
    "save_figure",
    "time_axis_unit",
    "time_series",
]
