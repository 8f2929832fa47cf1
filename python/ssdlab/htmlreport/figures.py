"""Layer: Python, HTML report. One job: the Vega-Lite figures of a report, each drawn from groups
of runs (`{label: [Report, ...]}`: one run, the seeds of a compare variant, the cells of a sweep
sharing an axis value), so that a page of a hundred runs draws one line per group, not per run.

Each builder returns `(spec, caption)`, or None when the runs hold nothing to draw, so a page
shows only the sections its input allows. A spec is a Vega-Lite specification as a plain dict
(what the page embeds as JSON; altair would add a dependency and a layer of objects between the
code and the JSON the tests read back). Widths are left to the page, which sizes each view to its
container when it draws it; heights are set here. A curve's points are stored as one row per line
holding arrays (`{"g": label, "x": [...], "y": [...]}`, flattened in the browser), which keeps a
page of many lines a third the size of one row per point. Captions say how a group was
aggregated and where a curve is approximate.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ssdlab import axis_units
from ssdlab.htmlreport import distributions

if TYPE_CHECKING:
    import pandas as pd

    from ssdlab.report import Report

Groups = Mapping[str, Sequence["Report"]]
Spec = dict[str, Any]
Drawn = tuple[Spec, str]

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

#: The time series of a report, in the order the page shows them, with their titles: those the
#: core samples today and those it is being taught (throughput, latency percentiles, WAF, GC
#: copies per interval). A series of another name is drawn too, after these, titled from its
#: name (`series_title`), its unit from its suffix (`series_unit`).
SERIES = {
    "iops": "IOPS",
    "mb_per_s": "throughput",
    "read_latency_p50_us": "read latency p50",
    "read_latency_p99_us": "read latency p99",
    "write_latency_p50_us": "write latency p50",
    "write_latency_p99_us": "write latency p99",
    "waf": "WAF",
    "gc_pages_copied": "GC pages copied",
    "free_blocks": "free blocks",
    "buffer_occupied_pages": "buffer pages in use",
    "buffer_dirty_pages": "dirty buffer pages",
}

#: What a series shows, for its caption.
SERIES_CAPTIONS = {
    "free_blocks": "garbage collection reclaims blocks when they fall to its trigger, so the curve "
    "shows when and how hard it works",
    "waf": "flash programs per host program within each interval",
    "gc_pages_copied": "valid pages garbage collection copied within each interval",
}

#: Points kept of a time series (a run keeps up to `report.max_samples`, 4096 by default).
SERIES_POINTS = 1500

#: A legend below a figure: at most this many columns, each label cut at this many pixels
#: (the page lowers the columns to what a narrower figure holds: `page.LEGEND_COLUMN_PX`).
LEGEND_COLUMNS = 6
LEGEND_LABEL_PX = 180

#: A learning curve of at most this many windows shows its points.
LEARNING_POINTS_SHOWN = 30

#: Significant digits a figure's numbers keep (the tables hold the exact values).
DIGITS = 8

#: Vega-Lite's schema, named in every spec (the version the embedded library compiles).
SCHEMA = "https://vega.github.io/schema/vega-lite/v6.json"


def colour(index: int) -> str:
    return PALETTE[index % len(PALETTE)]


def number(value: Any) -> float | int | None:
    """A number as JSON takes it: `DIGITS` significant digits, None for NaN or infinity."""
    value = float(value)
    if not math.isfinite(value):
        return None
    if value == 0:
        return 0
    rounded = float(f"{value:.{DIGITS}g}")
    return int(rounded) if rounded.is_integer() and abs(rounded) < 2**53 else rounded


def numbers(values: Any) -> list[float | int | None]:
    return [number(v) for v in np.asarray(values, dtype=float)]


def figure(spec: Spec) -> Spec:
    """A top-level spec: the schema and the spec."""
    return {"$schema": SCHEMA, **spec}


def _colours(labels: Sequence[str], legend: bool) -> dict[str, Any]:
    """The colour encoding of groups: each its palette colour in order; a legend below the plot,
    none for a single group (one run's page)."""
    return {
        "field": "g",
        "type": "nominal",
        "title": None,
        "sort": list(labels),
        "scale": {"domain": list(labels), "range": [colour(i) for i in range(len(labels))]},
        "legend": {
            "orient": "bottom",
            "columns": min(LEGEND_COLUMNS, len(labels)),
            "labelLimit": LEGEND_LABEL_PX,
            "symbolType": "stroke",
            "symbolStrokeWidth": 2.5,
        }
        if legend and len(labels) > 1
        else None,
    }


def _angle(labels: Sequence[str], room: int) -> int:
    """Category labels upright when they fit side by side (`room` characters in all, about a
    panel's width), else slanted."""
    return 0 if sum(len(label) + 2 for label in labels) <= room else -35


def _zoom(name: str) -> list[dict[str, Any]]:
    """Drag to pan, wheel to zoom, double-click to reset."""
    return [{"name": name, "select": "interval", "bind": "scales"}]


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


def _curve_layers(
    y: str, exact_step: str, unit: str, y_axis: dict[str, Any], labels, legend, op: str
) -> list:
    """The lines of the groups' curves in a panel: exact curves as steps, curves through
    percentiles dashed with a marker at each percentile (they are exact only there)."""
    x = {"field": "x", "type": "quantitative", "scale": {"type": "log"}, "title": f"{op} latency ({unit})"}
    y_enc = {"field": y, "type": "quantitative", **y_axis}
    colours = _colours(labels, legend)
    tooltip = [
        {"field": "g", "title": "group"},
        {"field": "x", "title": f"latency ({unit})", "format": ".4~s"},
        {"field": y, "title": y_axis.get("title", y), "format": ".6~g"},
    ]
    return [
        {
            "transform": [{"filter": "datum.exact"}],
            "mark": {"type": "line", "interpolate": exact_step, "strokeWidth": 1.5},
            "encoding": {"x": x, "y": y_enc, "color": colours, "tooltip": [{"field": "g", "title": "group"}]},
        },
        {
            "transform": [{"filter": "!datum.exact"}],
            "mark": {"type": "line", "strokeDash": [6, 4], "point": True, "strokeWidth": 1.5},
            "encoding": {"x": x, "y": y_enc, "color": colours, "tooltip": tooltip},
        },
    ]


def curve_points(curve: distributions.LatencyCurve, unit: axis_units.Unit) -> dict[str, list]:
    """A curve's points as a figure draws them, latencies in `unit`. An exact curve starts from
    P = 0 at its fastest request (a step up from 0 there), so that its CDF is read from zero, not
    from the share of requests as fast as the fastest (30 % of a buffered run's writes, 99 % of
    a read-mostly run's reads); a curve through percentiles starts at its p50, all it knows."""
    x_us, cdf, tail = curve.latency_us, curve.cdf, curve.at_least
    if curve.exact:
        x_us = np.concatenate(([x_us[0]], x_us))
        cdf, tail = np.concatenate(([0.0], cdf)), np.concatenate(([1.0], tail))
    return {"x": numbers(unit.of_ns(x_us * 1e3)), "cdf": numbers(cdf), "tail": numbers(tail)}


def latency(groups: Groups, op: str, pooled_over: str = "") -> Drawn | None:
    """The CDF of `op` latency (left, from 0) and its tail, the fraction of requests at least that
    slow, on log-log axes (right), one line per group, latencies in the unit their range asks for
    (`axis_units.latency_unit`). Dotted lines mark where p99 and p99.99 read."""
    curves = {label: latency_curve(reports, op) for label, reports in groups.items()}
    if not any(curves.values()):
        return None
    unit = axis_units.latency_unit(
        v * 1e3 for c in curves.values() if c is not None for v in (c.latency_us[0], c.latency_us[-1])
    )
    rows, approximate = [], []
    for label, curve in curves.items():
        if curve is None:
            continue
        if not curve.exact:
            approximate.append(label)
        rows.append({"g": label, "exact": curve.exact, **curve_points(curve, unit)})
    labels = [r["g"] for r in rows]
    # The levels where p99 and p99.99 read, those the curves reach (a rule further down would
    # stretch the axis past every curve).
    lowest = min(min(v for v in r["tail"] if v) for r in rows)
    levels = [
        {"level": level, "name": name} for level, name in ((1e-2, "p99"), (1e-4, "p99.99")) if level >= lowest
    ]
    # Ticks at the powers of ten only (a log axis labels 2e-1, 3e-1... between them otherwise).
    decades = [10.0**-i for i in range(0, math.ceil(-math.log10(lowest) - 1e-9) + 1)]
    height = 330
    cdf = {
        "title": f"{op} latency CDF",
        "height": height,
        "params": _zoom(f"zoom_{op}_cdf"),
        "layer": _curve_layers(
            "cdf",
            "step-after",
            unit.symbol,
            {"title": "CDF", "scale": {"domain": [0, 1.02]}},
            labels,
            True,
            op,
        ),
    }
    tail_layers = _curve_layers(
        "tail", "step-before", unit.symbol,
        {"title": "fraction at least this slow", "scale": {"type": "log"}, "axis": {"format": "~e", "values": decades}},
        labels, False, op,
    )  # fmt: skip
    cdf["layer"][0]["params"] = cdf.pop("params")
    tail_layers[0]["params"] = _zoom(f"zoom_{op}_tail")
    if levels:
        marks = {"data": {"values": levels}, "encoding": {"y": {"field": "level", "type": "quantitative"}}}
        tail_layers.append({**marks, "mark": {"type": "rule", "strokeDash": [2, 3], "color": "grey"}})
        tail_layers.append(
            {
                **marks,
                "mark": {"type": "text", "align": "right", "baseline": "bottom", "dy": -2, "fontSize": 10, "color": "grey"},
                "encoding": {**marks["encoding"], "x": {"value": "width"}, "text": {"field": "name"}},
            }
        )  # fmt: skip
    tail = {"title": f"{op} latency tail: 1 - CDF", "height": height, "layer": tail_layers}
    spec = figure(
        {
            "data": {"values": rows},
            "transform": [{"flatten": ["x", "cdf", "tail"]}],
            "hconcat": [cdf, tail],
        },
    )
    caption = (
        f"{op.capitalize()} latency of every request{pooled_over}, in {unit.symbol}. Right: the fraction of requests at "
        "least as slow as x, down to 1/N at the slowest request; dotted lines mark where p99 and "
        "p99.99 read. Drag to pan, scroll to zoom, double-click to reset."
    )
    if approximate:
        caption += (
            f" Dashed with markers ({', '.join(approximate)}): the saved reports keep no latency "
            "histogram, so the curve joins the reported percentiles (p50 to the maximum) and is "
            "exact only at its markers."
        )
    return spec, caption


def _thin(values: np.ndarray, points: int) -> np.ndarray:
    step = max(1, int(np.ceil(len(values) / points)))
    return values[::step]


def series_names(reports: Sequence[Report]) -> list[str]:
    """The time series the runs hold with at least one value: those of `SERIES` in its order,
    then any other, by name. A series of gaps alone (read latencies of a write-only run) would
    be an empty figure."""
    present = {
        name
        for r in reports
        for name, series in (r.raw.get("time_series") or {}).items()
        if isinstance(series, Mapping) and any(v is not None for v in series.get("values") or ())
    }
    return [n for n in SERIES if n in present] + sorted(present - set(SERIES))


def series_title(name: str) -> str:
    """A series' title: `SERIES`' own, else its name read (`read_latency_p999_us` -> `read latency
    p999`)."""
    from ssdlab.htmlreport.tables import readable

    return SERIES.get(name) or readable(name)


def series_unit(name: str, values_ns_or_plain: Sequence[float] = ()) -> tuple[str, float]:
    """The unit of a series' values from its name's suffix, and the factor its values are
    multiplied by to show them in it: `_us` a latency in the unit its largest value reaches
    (us, ms or s), `mb_per_s` MB/s, `iops` IOPS, `_pages` (or `pages` in the name) pages,
    `_blocks` blocks; `("", 1)` for a plain number (the WAF)."""
    if name.endswith("_us"):
        top = max((abs(v) for v in values_ns_or_plain if v is not None and math.isfinite(v)), default=0.0)
        unit = axis_units.latency_span_unit(top * 1e3)
        return unit.symbol, 1e3 / unit.ns
    if name.endswith("mb_per_s"):
        return "MB/s", 1.0
    if name == "iops" or name.endswith("_iops"):
        return "IOPS", 1.0
    if name.endswith("_pages") or "pages" in name.split("_"):
        return "pages", 1.0
    if name.endswith("_blocks"):
        return "blocks", 1.0
    return "", 1.0


def _interval_text(ns: float) -> str:
    unit = axis_units.time_unit(ns)
    return f"{unit.of_ns(ns):.3g} {unit.symbol}"


def time_series(groups: Groups) -> list[Drawn]:
    """A figure per time series the runs hold (`series_names`: every series of their reports'
    `time_series`, so that a series the core adds is drawn without a change here), one line
    per group: the first run of the group (a time series does not average across seeds whose
    bursts fall at different times). Every figure's time axis is in the same unit, chosen from
    the longest series (`axis_units.time_unit`); each series' values are in the unit its name
    says (`series_unit`)."""
    firsts = {label: reports[0] for label, reports in groups.items() if reports}
    names = series_names(list(firsts.values()))
    if not names:
        return []
    span_ns = max(
        float(max(series["time_ns"]))
        for r in firsts.values()
        for name in names
        if (series := r["time_series"].get(name)) and len(series.get("time_ns") or ())
    )
    time = axis_units.time_unit(span_ns)
    several = any(len(reports) > 1 for reports in groups.values())
    drawn = []
    for name in names:
        kept = {label: r["time_series"][name] for label, r in firsts.items() if name in r["time_series"]}
        values = [float(v) for series in kept.values() for v in series["values"] if v is not None]
        unit, factor = series_unit(name, values)
        rows = []
        for label, series in kept.items():
            t = _thin(time.of_ns(np.asarray(series["time_ns"], dtype=float)), SERIES_POINTS)
            v = _thin(
                np.asarray([np.nan if x is None else x for x in series["values"]], dtype=float) * factor,
                SERIES_POINTS,
            )
            rows.append({"g": label, "t": numbers(t), "v": numbers(v)})
        labels = list(kept)
        title = series_title(name)
        # The unit in brackets unless the title names it (`free blocks`, `IOPS`).
        axis_title = f"{title} ({unit})" if unit and unit.lower() not in title.lower().split() else title
        height = 160
        spec = figure(
            {
                "data": {"values": rows},
                "transform": [{"flatten": ["t", "v"]}],
                "height": height,
                "mark": {"type": "line", "strokeWidth": 1.5},
                "params": _zoom(f"zoom_series_{name}"),
                "encoding": {
                    "x": {"field": "t", "type": "quantitative", "title": f"simulated time ({time.symbol})"},
                    "y": {
                        "field": "v",
                        "type": "quantitative",
                        "title": axis_title,
                        "scale": {"zero": False},
                    },
                    "color": _colours(labels, True),
                    "tooltip": [
                        {"field": "g", "title": "group"},
                        {"field": "t", "title": f"time ({time.symbol})", "format": ".4~g"},
                        {"field": "v", "title": axis_title, "format": ".4~g"},
                    ],
                },
            },
        )
        intervals = {int(s["interval_ns"]) for s in kept.values() if s.get("interval_ns")}
        caption = f"{title[:1].upper()}{title[1:]} over simulated time"
        if len(intervals) == 1:
            caption += f", sampled at most every {_interval_text(next(iter(intervals)))}"
        if name in SERIES_CAPTIONS:
            caption += f": {SERIES_CAPTIONS[name]}"
        caption += "."
        if several:
            caption += " One run per group (its first seed): seeds' bursts fall at different times, so their series are not averaged."
        drawn.append((spec, caption))
    return drawn


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


#: The panels of the flash accounting figure: the operation and its title.
FLASH_OPS = {"reads": "flash reads", "programs": "flash programs", "erases": "erases"}


def flash_accounting(groups: Groups) -> Drawn | None:
    """Flash reads, programs and erases by the source that issued them, stacked, per group."""
    tallies = {label: by_source(reports) for label, reports in groups.items() if reports}
    sources = [s for s in SOURCES if any(sum(t[s].values()) for t in tallies.values())]
    if not sources:
        return None
    labels = list(tallies)
    rows = [
        {
            "g": label,
            "source": source,
            "order": sources.index(source),
            "op": op,
            "n": number(tallies[label][source][op]),
        }
        for op in FLASH_OPS
        for label in labels
        for source in sources
    ]
    height = 300
    colours = {
        "field": "source", "type": "nominal", "title": None, "sort": sources,
        "scale": {"domain": sources, "range": [SOURCES[s] for s in sources]},
        "legend": {"orient": "bottom", "direction": "horizontal"},
    }  # fmt: skip
    views = [
        {
            "title": title,
            "height": height,
            "transform": [{"filter": {"field": "op", "equal": op}}],
            "mark": "bar",
            "encoding": {
                "x": {
                    "field": "g",
                    "type": "nominal",
                    "sort": labels,
                    "title": None,
                    "axis": {"labelAngle": _angle(labels, 40)},
                },
                "y": {"field": "n", "type": "quantitative", "stack": "zero", "title": None},
                "color": colours,
                "order": {"field": "order", "type": "quantitative"},
                "tooltip": [
                    {"field": "g", "title": "group"},
                    {"field": "source"},
                    {"field": "n", "title": title, "format": ",.1f"},
                ],
            },
        }
        for op, title in FLASH_OPS.items()
    ]
    spec = figure({"data": {"values": rows}, "hconcat": views})
    several = any(len(reports) > 1 for reports in groups.values())
    caption = (
        "Flash operations by the source that issued them (device.counters.by_source): host I/O, "
        "garbage collection, mapping (translation pages), migration between regions and write "
        "buffer flushes."
    ) + (" Mean over the runs of each group." if several else "")
    return spec, caption


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
    curves = {label: learning_curve(reports, point) for label, reports in groups.items()}
    rows = [
        {
            "g": label,
            "decisions": numbers(curve["decisions"]),
            "window": numbers(curve["window_mean_reward"]),
            "running": numbers(curve["mean_reward"]),
        }
        for label, curve in curves.items()
        if curve is not None
    ]
    if not rows:
        return None
    labels = [r["g"] for r in rows]
    x = {"field": "decisions", "type": "quantitative", "title": "decisions"}
    colours = _colours(labels, True)
    height = 300
    # A curve of few windows (one, for a run just past its first) is drawn with its points: a
    # line through one point draws nothing.
    points = max(len(r["decisions"]) for r in rows) <= LEARNING_POINTS_SHOWN
    spec = figure(
        {
            "data": {"values": rows},
            "transform": [{"flatten": ["decisions", "window", "running"]}],
            "height": height,
            "layer": [
                {
                    "params": _zoom(f"zoom_learning_{point}"),
                    "mark": {"type": "line", "strokeWidth": 1.5, "point": points},
                    "encoding": {
                        "x": x,
                        "y": {"field": "window", "type": "quantitative", "title": "reward"},
                        "color": colours,
                        "tooltip": [{"field": "g", "title": "group"}],
                    },
                },
                {
                    "mark": {"type": "line", "strokeDash": [2, 3], "strokeWidth": 1.5},
                    "encoding": {"x": x, "y": {"field": "running", "type": "quantitative"}, "color": colours},
                },
            ],
        },
    )
    several = any(len(reports) > 1 for reports in groups.values())
    caption = (
        f"Learning curve of the `{point}` agent: the mean reward of each window of decisions "
        "(solid) and the running mean since the first decision (dotted)."
    ) + (
        " Averaged over the runs of each group, window by window, as far as at least half of them went."
        if several
        else ""
    )
    return spec, caption


def metrics_by_value(frame: pd.DataFrame, axis: str, metrics: Mapping[str, str]) -> Drawn | None:
    """A sweep's figures against one axis: per value, the mean over the cells with that value,
    with error bars from their smallest to their largest."""
    metrics = {m: t for m, t in metrics.items() if m in frame.columns and frame[m].notna().any()}
    if not metrics:
        return None
    grouped = frame.groupby(axis, sort=True, dropna=False)
    height = 250
    views = []
    for metric, title in metrics.items():
        stats = grouped[metric].agg(["mean", "min", "max"])
        values = [str(v) for v in stats.index]
        factor = 1.0
        if metric.endswith("_us"):  # in the unit the cells' range asks for
            unit = axis_units.latency_unit(float(v) * 1e3 for v in stats[["min", "max"]].to_numpy().ravel())
            factor, title = 1e3 / unit.ns, f"{title} ({unit.symbol})"
        rows = [
            {"v": v, "mean": number(m * factor), "min": number(lo * factor), "max": number(hi * factor)}
            for v, m, lo, hi in zip(values, stats["mean"], stats["min"], stats["max"], strict=True)
        ]
        # Latencies of cells apart by orders of magnitude: a log axis.
        scale = {"type": "log"} if metric.endswith("_us") else {"zero": False}
        x = {
            "field": "v",
            "type": "ordinal",
            "sort": values,
            "title": axis,
            "axis": {"labelAngle": _angle(values, 24)},
        }
        y = {"field": "mean", "type": "quantitative", "title": title, "scale": scale}
        views.append(
            {
                "data": {"values": rows},
                "title": title,
                "height": height,
                "layer": [
                    {"mark": {"type": "rule", "color": colour(0)},
                     "encoding": {"x": x, "y": {**y, "field": "min"}, "y2": {"field": "max"}}},
                    {"mark": {"type": "line", "point": True, "color": colour(0)},
                     "encoding": {"x": x, "y": y, "tooltip": [
                         {"field": "v", "title": axis}, {"field": "mean", "format": ".4~g"},
                         {"field": "min", "format": ".4~g"}, {"field": "max", "format": ".4~g"}]}},
                ],
            }
        )  # fmt: skip
    spec = figure({"hconcat": views})
    caption = (
        f"The sweep's figures against {axis}: per value, the mean over every cell with that value "
        "(the other axes and seeds), bars from the smallest to the largest; latencies on log axes."
    )
    return spec, caption


def verdict_ratios(verdicts: pd.DataFrame, colours: Sequence[str]) -> Drawn | None:
    """Ours over the paper's figure for each headline of a reproduction, a dot per headline on a
    log axis around 1, in its verdict's colour."""
    if "ratio" not in verdicts.columns:
        return None
    ratio = pd_numeric(verdicts["ratio"])
    keep = np.isfinite(ratio) & (ratio > 0)
    if not keep.any():
        return None
    if "headline" in verdicts.columns:
        labels = [str(h) for h in verdicts["headline"][keep]]
    else:
        labels = [f"headline {i + 1}" for i in np.flatnonzero(keep)]
    rows = [
        {"headline": h, "ratio": number(r), "colour": c}
        for h, r, c in zip(labels, ratio[keep], np.asarray(colours)[keep].tolist(), strict=True)
    ]
    height = max(120, 30 * len(rows))
    x = {"type": "quantitative", "scale": {"type": "log"}, "title": "ours / paper"}
    spec = figure(
        {
            "height": height,
            "layer": [
                {
                    "data": {"values": rows},
                    "mark": {"type": "point", "filled": True, "size": 140, "opacity": 1},
                    "encoding": {
                        "x": {**x, "field": "ratio"},
                        "y": {
                            "field": "headline",
                            "type": "nominal",
                            "sort": labels,
                            "title": None,
                            "axis": {"labelLimit": 480},
                        },
                        "color": {"field": "colour", "type": "nominal", "scale": None},
                        "tooltip": [
                            {"field": "headline"},
                            {"field": "ratio", "title": "ours / paper", "format": ".3g"},
                        ],
                    },
                },
                {
                    "data": {"values": [{"one": 1}]},
                    "mark": {"type": "rule", "strokeDash": [2, 3], "color": "grey"},
                    "encoding": {"x": {**x, "field": "one"}},
                },
            ],
        },
    )
    left_out = int((~keep).sum())
    caption = "Each headline's figure as a ratio of the paper's (1: the same; log axis)."
    if left_out:
        caption += f" {left_out} headline{'s' if left_out > 1 else ''} without a positive ratio (no figure, or of the opposite sign) {'are' if left_out > 1 else 'is'} in the table only."
    return spec, caption


def pd_numeric(column: pd.Series) -> np.ndarray:
    """A column as floats, NaN where a value is not a number."""
    import pandas as pd

    return pd.to_numeric(column, errors="coerce").to_numpy(dtype=float)
