"""Layer: Python, HTML report. One job: the plotly figures of a report, each drawn from groups of
runs (`{label: [Report, ...]}`: one run, the seeds of a compare variant, the cells of a sweep
sharing an axis value), so that a page of a hundred runs draws one line per group, not per run.

Each builder returns `(figure, caption)`, or None when the runs hold nothing to draw, so a page
shows only the sections its input allows. Captions say how a group was aggregated and where a
curve is approximate.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ssdlab.htmlreport import distributions

if TYPE_CHECKING:
    import pandas as pd
    import plotly.graph_objects as go

    from ssdlab.report import Report

Groups = Mapping[str, Sequence["Report"]]
Drawn = tuple["go.Figure", str]

#: Line colours of the groups, in order (plotly's and D3's qualitative palettes).
PALETTE = (
    "#636efa", "#ef553b", "#00cc96", "#ab63fa", "#ffa15a", "#19d3f3", "#ff6692", "#b6e880",
    "#ff97ff", "#fecb52", "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
)  # fmt: skip

#: The flash-operation sources of `device.counters.by_source`, with their colours.
SOURCES = {
    "host": "#4c78a8",
    "gc": "#e45756",
    "mapping": "#72b7b2",
    "migration": "#f58518",
    "buffer_flush": "#54a24b",
}

#: The time series of a report, with their axis titles.
SERIES = {
    "free_blocks": "free blocks",
    "buffer_occupied_pages": "buffer pages in use",
    "buffer_dirty_pages": "dirty buffer pages",
}

#: Points kept of a time series (a run keeps up to `report.max_samples`, 4096 by default).
SERIES_POINTS = 1500


def colour(index: int) -> str:
    return PALETTE[index % len(PALETTE)]


def _subplots(**kw: Any) -> go.Figure:
    from plotly.subplots import make_subplots

    return make_subplots(**kw)


def _legend(groups: Groups, below: float) -> dict[str, Any]:
    """A legend of the groups below the plot; none for a single group (one run's page)."""
    if len(groups) < 2:
        return {"showlegend": False}
    return {"legend": {"orientation": "h", "y": below}}


def latency_curve(reports: Sequence[Report], op: str) -> distributions.LatencyCurve | None:
    """The latency distribution of `op` over the runs: exact (their histograms pooled) when every
    run that issued `op` kept its histogram, else through their percentiles."""
    issued = [r for r in reports if r["latency"][op]["count"] > 0]
    if not issued:
        return None
    if all(r.histograms.get(op) for r in issued):
        values, counts = distributions.pool(r.histograms[op] for r in issued)
        return distributions.from_histogram(values, counts)
    return distributions.from_percentiles([r["latency"][op] for r in issued])


def latency(groups: Groups, op: str, pooled_over: str = "") -> Drawn | None:
    """The CDF of `op` latency (left) and its tail, the fraction of requests at least that slow,
    on log-log axes (right), one line per group. Dotted lines mark where p99 and p99.99 read."""
    curves = {label: latency_curve(reports, op) for label, reports in groups.items()}
    if not any(curves.values()):
        return None
    import plotly.graph_objects as go

    fig = _subplots(rows=1, cols=2, subplot_titles=(f"{op} latency CDF", f"{op} latency tail: 1 - CDF"))
    approximate = []
    for i, (label, curve) in enumerate(curves.items()):
        if curve is None:
            continue
        if not curve.exact:
            approximate.append(label)
        # Steps: the CDF holds its value until the next latency ("hv"); the fraction at least
        # as slow as x takes the value of the next latency ("vh").
        line = {"color": colour(i), "dash": "solid" if curve.exact else "dash"}
        cdf_line = {**line, "shape": "hv" if curve.exact else "linear"}
        tail_line = {**line, "shape": "vh" if curve.exact else "linear"}
        mode = "lines" if curve.exact else "lines+markers"
        hover = f"{label}<br>%{{x:.4~s}} us<br>%{{y:.6~g}}<extra></extra>"
        fig.add_trace(
            go.Scatter(
                x=curve.latency_us,
                y=curve.cdf,
                name=label,
                legendgroup=label,
                mode=mode,
                line=cdf_line,
                hovertemplate=hover,
            ),
            row=1,
            col=1,
        )
        fig.add_trace(
            go.Scatter(
                x=curve.latency_us, y=curve.at_least, name=label, legendgroup=label, mode=mode, line=tail_line,
                showlegend=False, hovertemplate=hover,
            ),
            row=1,
            col=2,
        )  # fmt: skip
    for level, name in ((1e-2, "p99"), (1e-4, "p99.99")):
        fig.add_hline(y=level, line={"dash": "dot", "color": "grey", "width": 1}, row=1, col=2)
        # An annotation on a log axis is placed by the exponent (plotly's convention).
        fig.add_annotation(
            x=1, xref="x2 domain", y=math.log10(level), yref="y2", text=name, showarrow=False,
            xanchor="right", yanchor="bottom", font={"size": 10, "color": "grey"},
        )  # fmt: skip
    fig.update_xaxes(type="log", title_text=f"{op} latency (us)")
    fig.update_yaxes(title_text="CDF", range=[0, 1.02], row=1, col=1)
    fig.update_yaxes(
        type="log", title_text="fraction at least this slow", exponentformat="power", row=1, col=2
    )
    fig.update_layout(height=440, margin={"t": 40}, **_legend(groups, -0.2))
    caption = (
        f"{op.capitalize()} latency of every request{pooled_over}. Right: the fraction of requests at "
        "least as slow as x, down to 1/N at the slowest request; dotted lines mark where p99 and "
        "p99.99 read."
    )
    if approximate:
        caption += (
            f" Dashed with markers ({', '.join(approximate)}): the saved reports keep no latency "
            "histogram, so the curve joins the reported percentiles (p50 to the maximum) and is "
            "exact only at its markers."
        )
    return fig, caption


def _thin(values: np.ndarray, points: int) -> np.ndarray:
    step = max(1, int(np.ceil(len(values) / points)))
    return values[::step]


def time_series(groups: Groups) -> Drawn | None:
    """Free blocks (and the write buffer's pages, with a buffer) over simulated time, one line per
    group: the first run of the group (a time series does not average across seeds whose
    bursts fall at different times)."""
    import plotly.graph_objects as go

    firsts = {label: reports[0] for label, reports in groups.items() if reports}
    names = [n for n in SERIES if any(n in r["time_series"] for r in firsts.values())]
    if not names or not any(len(r["time_series"]["free_blocks"]["values"]) for r in firsts.values()):
        return None
    fig = _subplots(rows=len(names), cols=1, shared_xaxes=True, vertical_spacing=0.08)
    for i, (label, report) in enumerate(firsts.items()):
        for row, name in enumerate(names, start=1):
            if name not in report["time_series"]:
                continue
            series = report["time_series"][name]
            t = _thin(np.asarray(series["time_ns"], dtype=float) / 1e9, SERIES_POINTS)
            v = _thin(np.asarray(series["values"], dtype=float), SERIES_POINTS)
            fig.add_trace(
                go.Scatter(
                    x=t, y=v, name=label, legendgroup=label, showlegend=row == 1, mode="lines",
                    line={"color": colour(i), "width": 1.5},
                ),
                row=row,
                col=1,
            )  # fmt: skip
            fig.update_yaxes(title_text=SERIES[name], row=row, col=1)
    fig.update_xaxes(title_text="simulated time (s)", row=len(names), col=1)
    fig.update_layout(height=260 + 160 * len(names), margin={"t": 30}, **_legend(groups, -0.15))
    several = any(len(reports) > 1 for reports in groups.values())
    caption = (
        "Free blocks over simulated time: garbage collection reclaims blocks when they fall to its "
        "trigger, so the curve shows when and how hard it works. The core samples the free blocks "
        "(and a write buffer's pages), not the WAF: the WAF is the run's total, in the tables."
    )
    if several:
        caption += " One run per group (its first seed): seeds' bursts fall at different times, so their series are not averaged."
    return fig, caption


def by_source(reports: Sequence[Report]) -> dict[str, dict[str, float]]:
    """Flash reads, programs and erases per source (host, gc, mapping, migration, buffer_flush),
    the mean over the runs."""
    out = {}
    for source in SOURCES:
        rows = [r["device"]["counters"]["by_source"].get(source, {}) for r in reports]
        out[source] = {
            op: float(np.mean([row.get(op, 0) for row in rows])) for op in ("reads", "programs", "erases")
        }
    return out


def flash_accounting(groups: Groups) -> Drawn | None:
    """Flash reads, programs and erases by the source that issued them, stacked, per group."""
    import plotly.graph_objects as go

    tallies = {label: by_source(reports) for label, reports in groups.items() if reports}
    sources = [s for s in SOURCES if any(sum(t[s].values()) for t in tallies.values())]
    if not sources:
        return None
    labels = list(tallies)
    fig = _subplots(rows=1, cols=3, subplot_titles=("flash reads", "flash programs", "erases"))
    for col, op in enumerate(("reads", "programs", "erases"), start=1):
        for source in sources:
            fig.add_trace(
                go.Bar(
                    x=labels, y=[tallies[label][source][op] for label in labels], name=source,
                    legendgroup=source, showlegend=col == 1, marker_color=SOURCES[source],
                ),
                row=1,
                col=col,
            )  # fmt: skip
    fig.update_layout(barmode="stack", height=420, legend={"orientation": "h", "y": -0.25}, margin={"t": 40})
    several = any(len(reports) > 1 for reports in groups.values())
    caption = (
        "Flash operations by the source that issued them (device.counters.by_source): host I/O, "
        "garbage collection, mapping (translation pages), migration between regions and write "
        "buffer flushes."
    ) + (" Mean over the runs of each group." if several else "")
    return fig, caption


def learning_curve(reports: Sequence[Report], point: str) -> pd.DataFrame | None:
    """The reward per window of decisions of the runs' agent at `point`, averaged over the runs
    by window, up to the windows at least half the runs reached (None when no run has an agent
    there)."""
    import pandas as pd

    frames = [r.learning_curve(point) for r in reports if point in r.raw.get("learning", {})]
    frames = [f for f in frames if not f.empty]
    if not frames:
        return None
    windows = pd.concat(frames).groupby("decisions")
    curve = windows[["window_mean_reward", "mean_reward"]].mean()
    # A window only the longest runs reached would be their mean alone, and jump: cut there.
    curve = curve[windows.size() * 2 >= len(frames)]
    return curve.reset_index()


def learning(groups: Groups, point: str) -> Drawn | None:
    """The learning curve of the agent at a decision point (`gc`, `eviction`, `region`): mean
    reward per window of decisions (solid) and the running mean since the start (dotted)."""
    import plotly.graph_objects as go

    curves = {label: learning_curve(reports, point) for label, reports in groups.items()}
    if not any(c is not None for c in curves.values()):
        return None
    fig = _subplots(rows=1, cols=1)
    for i, (label, curve) in enumerate(curves.items()):
        if curve is None:
            continue
        fig.add_trace(
            go.Scatter(x=curve["decisions"], y=curve["window_mean_reward"], name=label, legendgroup=label,
                       mode="lines", line={"color": colour(i)})
        )  # fmt: skip
        fig.add_trace(
            go.Scatter(x=curve["decisions"], y=curve["mean_reward"], name=f"{label} (running mean)",
                       legendgroup=label, showlegend=False, mode="lines", line={"color": colour(i), "dash": "dot"})
        )  # fmt: skip
    fig.update_xaxes(title_text="decisions")
    fig.update_yaxes(title_text="reward")
    fig.update_layout(height=400, margin={"t": 30}, **_legend(groups, -0.2))
    several = any(len(reports) > 1 for reports in groups.values())
    caption = (
        f"Learning curve of the `{point}` agent: the mean reward of each window of decisions "
        "(solid) and the running mean since the first decision (dotted)."
    ) + (
        " Averaged over the runs of each group, window by window, as far as at least half of them went."
        if several
        else ""
    )
    return fig, caption


def metrics_by_value(frame: pd.DataFrame, axis: str, metrics: Mapping[str, str]) -> Drawn | None:
    """A sweep's figures against one axis: per value, the mean over the cells with that value,
    with error bars from their smallest to their largest."""
    import plotly.graph_objects as go

    metrics = {m: t for m, t in metrics.items() if m in frame.columns and frame[m].notna().any()}
    if not metrics:
        return None
    grouped = frame.groupby(axis, sort=True, dropna=False)
    fig = _subplots(rows=1, cols=len(metrics), subplot_titles=list(metrics.values()))
    for col, metric in enumerate(metrics, start=1):
        stats = grouped[metric].agg(["mean", "min", "max"])
        x = [str(v) for v in stats.index]
        fig.add_trace(
            go.Scatter(
                x=x, y=stats["mean"], mode="markers+lines", showlegend=False, line={"color": colour(0)},
                error_y={"type": "data", "symmetric": False, "array": stats["max"] - stats["mean"],
                         "arrayminus": stats["mean"] - stats["min"]},
                name=metric,
            ),
            row=1,
            col=col,
        )  # fmt: skip
        fig.update_xaxes(type="category", title_text=axis, row=1, col=col)
        if metric.endswith("_us"):  # latencies of cells apart by orders of magnitude
            fig.update_yaxes(type="log", row=1, col=col)
    fig.update_layout(height=360, margin={"t": 40})
    caption = (
        f"The sweep's figures against {axis}: per value, the mean over every cell with that value "
        "(the other axes and seeds), bars from the smallest to the largest; latencies on log axes."
    )
    return fig, caption


def verdict_ratios(verdicts: pd.DataFrame, colours: Sequence[str]) -> Drawn | None:
    """Ours over the paper's figure for each headline of a reproduction, a dot per headline on a
    log axis around 1, in its verdict's colour."""
    import plotly.graph_objects as go

    if "ratio" not in verdicts.columns:
        return None
    ratio = pd_numeric(verdicts["ratio"])
    keep = np.isfinite(ratio) & (ratio > 0)
    if not keep.any():
        return None
    labels = [str(h) for h in verdicts["headline"][keep]] if "headline" in verdicts.columns else None
    fig = go.Figure(
        go.Scatter(
            x=ratio[keep], y=labels, mode="markers", marker={"size": 12, "color": np.asarray(colours)[keep].tolist()},
            hovertemplate="%{y}<br>ours / paper = %{x:.3g}<extra></extra>",
        )
    )  # fmt: skip
    fig.add_vline(x=1.0, line={"color": "grey", "dash": "dot"})
    fig.update_xaxes(type="log", title_text="ours / paper")
    fig.update_yaxes(autorange="reversed", type="category")
    fig.update_layout(height=max(240, 90 + 30 * int(keep.sum())), margin={"t": 20, "l": 10})
    left_out = int((~keep).sum())
    caption = "Each headline's figure as a ratio of the paper's (1: the same; log axis)."
    if left_out:
        caption += f" {left_out} headline{'s' if left_out > 1 else ''} without a positive ratio (no figure, or of the opposite sign) {'are' if left_out > 1 else 'is'} in the table only."
    return fig, caption


def pd_numeric(column: pd.Series) -> np.ndarray:
    """A column as floats, NaN where a value is not a number."""
    import pandas as pd

    return pd.to_numeric(column, errors="coerce").to_numpy(dtype=float)
