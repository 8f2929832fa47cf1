"""Layer: Python, experiments. One job: the RLGC reproduction's tables of runs: Tables 5-10,
learned schedulers against their controls, QTC against RLGC, the spread over seeds, and the
paper's figures beside ours with the direction checks (verdicts.csv)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pandas as pd

from ssdlab.experiments.common import write_verdicts
from ssdlab.experiments.rlgc.settings import LEARNED, PAPER, PAPER_AVG, PAPER_LEARNED, PAPER_PART


def tables(runs: pd.DataFrame, sustainable: set[tuple[str, str]]) -> dict[str, pd.DataFrame]:
    """Tables 5-8 (mean over seeds, normalised to LazyRTGC; Page absolute in ms) and 9-10 (std
    dev), with averages over the sustainable workloads and over all."""
    out = {}
    metrics = {
        "p99": "write_p99_us",
        "p99.99": "write_p99_99_us",
        "p99.9999": "write_p99_9999_us",
        "erases": "erases",
    }
    for preset, group in runs.groupby("preset"):
        for label, col in metrics.items():
            mean = group.pivot_table(index="workload", columns="scheduler", values=col, aggfunc="mean")
            norm = mean.div(mean["LazyRTGC"], axis=0)
            if "Page" in norm and col != "erases":
                norm["Page (abs, ms)"] = mean["Page"] / 1e3
            keep = [w for w in norm.index if (preset, w) in sustainable]
            rows = norm.copy()
            rows.loc["average (sustainable)"] = norm.loc[keep].mean(numeric_only=True)
            rows.loc["average (all)"] = norm.mean(numeric_only=True)
            out[f"{preset} {label} (normalised to LazyRTGC)"] = rows
        std = group.pivot_table(
            index="workload", columns="scheduler", values="write_p99_99_us", aggfunc="std"
        )
        mean = group.pivot_table(
            index="workload", columns="scheduler", values="write_p99_99_us", aggfunc="mean"
        )
        out[f"{preset} p99.99 std dev over seeds, % of mean"] = 100 * std / mean
        out[f"{preset} WAF"] = group.pivot_table(
            index="workload", columns="scheduler", values="waf", aggfunc="mean"
        )
    return out


def paired_ratios(
    runs: pd.DataFrame, pairs: dict[str, tuple[str, str]], sustainable: set[tuple[str, str]]
) -> pd.DataFrame:
    """Per preset and workload, the p99.99 of each pair's first scheduler over its second's in
    the same seed (the same arrivals), averaged over seeds; then the averages over the
    sustainable workloads and over all. One column per pair (label: numerator, denominator); a
    pair whose schedulers did not both run is left out."""
    frames = {}
    for preset, group in runs.groupby("preset"):
        piv = group.pivot_table(index=["workload", "seed"], columns="scheduler", values="write_p99_99_us")
        ratios = pd.DataFrame(
            {label: piv[num] / piv[den] for label, (num, den) in pairs.items() if num in piv and den in piv},
            index=piv.index,
        )
        per_workload = ratios.groupby(level="workload").mean()
        keep = [w for w in per_workload.index if (preset, w) in sustainable]
        rows = per_workload.copy()
        rows.loc["average (sustainable)"] = per_workload.loc[keep].mean()
        rows.loc["average (all)"] = per_workload.mean()
        frames[preset] = rows
    return pd.concat(frames, names=["preset", "workload"])


def control_table(runs: pd.DataFrame, sustainable: set[tuple[str, str]]) -> pd.DataFrame:
    """Each learned scheduler's p99.99 over its random-action control's: below 1 where learning,
    not the triggers and masks alone, shortens the tail."""
    pairs = {name: (name, f"{name}-control") for name in LEARNED}
    return paired_ratios(runs, pairs, sustainable)


def qtc_table(runs: pd.DataFrame, sustainable: set[tuple[str, str]]) -> pd.DataFrame:
    """QTC against RLGC with the same action set (Base-2, the slides' 0..=2), with the
    unseen-state variant and Base's own action range beside it; `paper` is the slides' figure,
    an average, on the averages' rows."""
    pairs = {
        "QTC / Base-2": ("QTC", "Base-2"),
        "QTC-u1 / Base-2": ("QTC-u1", "Base-2"),
        "QTC / Base": ("QTC", "Base"),
    }
    table = paired_ratios(runs, pairs, sustainable)
    averages = table.index.get_level_values("workload").str.startswith("average")
    table["paper"] = [PAPER["QTC vs RLGC p99.99"] if a else math.nan for a in averages]
    return table


def spread(runs: pd.DataFrame, sustainable: set[tuple[str, str]]) -> pd.DataFrame:
    """Per seed, the p99.99 ratio to LazyRTGC averaged over the sustainable workloads; then
    mean, std, min and max over seeds."""
    rows = []
    for (preset, seed), group in runs.groupby(["preset", "seed"]):
        piv = group.pivot_table(index="workload", columns="scheduler", values="write_p99_99_us")
        piv = piv.loc[[w for w in piv.index if (preset, w) in sustainable]]
        ratio = piv.div(piv["LazyRTGC"], axis=0).mean()
        rows.append({"preset": preset, "seed": seed, **ratio.to_dict()})
    frame = pd.DataFrame(rows).drop(columns=["seed"])
    return frame.groupby("preset").agg(["mean", "std", "min", "max"]).T


def paper_table(result: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Our figure beside each of the paper's (`PAPER`): Aggr's p99.99 normalised to LazyRTGC per
    drive and QTC over RLGC on the slides' action set (QTC / Base-2), averaged over the
    sustainable workloads (over all where none is), the presets' averages averaged."""

    def average(table: pd.DataFrame | None, col: str) -> float:
        if table is None or col not in table:
            return math.nan
        rows = table[col]
        workloads = rows.index.get_level_values(-1)
        for which in ("average (sustainable)", "average (all)"):
            values = rows[workloads == which].dropna()
            if len(values):
                return float(values.mean())
        return math.nan

    qtc = next((t for title, t in result.items() if title.startswith("QTC vs RLGC")), None)
    ours = {
        "Aggr 512Gb p99.99": average(result.get("kang-3d-512gb p99.99 (normalised to LazyRTGC)"), "Aggr"),
        "Aggr 128Gb p99.99": average(result.get("kang-3d-128gb p99.99 (normalised to LazyRTGC)"), "Aggr"),
        "QTC vs RLGC p99.99": average(qtc, "QTC / Base-2"),
    }
    return pd.DataFrame({"ours": pd.Series(ours), "paper": pd.Series(PAPER)})


def paper_control_table(runs: pd.DataFrame, sustainable: set[tuple[str, str]]) -> pd.DataFrame:
    """`control_table` for the paper part: every learned scheduler of `PAPER_LEARNED` over its
    control (QTC-u1 over QTC-control)."""
    pairs = {name: (name, control) for name, control in PAPER_LEARNED.items()}
    return paired_ratios(runs, pairs, sustainable)


def _average(table: pd.DataFrame, col: str, which: str = "average (all)") -> float:
    """A column's figure on the `which` row of a per-preset table (the presets' mean)."""
    if col not in table:
        return math.nan
    rows = table[col]
    values = rows[rows.index.get_level_values(-1) == which].dropna()
    return float(values.mean()) if len(values) else math.nan


def paper_summary(result: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """The paper part's figures beside the paper's (`PAPER_AVG`: averages over its nine
    workloads, so ours are over all nine too), then the direction checks of issue #33 (`paper`
    empty: no figure to be near, only a side to be on): each learned scheduler's p99.99 over its
    control's, and Aggr < Base < LazyRTGC."""
    rows: dict[str, dict[str, Any]] = {}
    for part, preset in (("512Gb", "kang-3d-512gb"), ("128Gb", "kang-3d-128gb")):
        table = result.get(f"{PAPER_PART}: {preset} p99.99 (normalised to LazyRTGC)")
        for name in ("Base", "Aggr"):
            key = f"{name} {part} p99.99 / LazyRTGC"
            ours = math.nan if table is None else float(table.loc["average (all)", name])
            rows[key] = {"ours": ours, "paper": PAPER_AVG[key]}
        if table is not None:
            base, aggr = (float(table.loc["average (all)", n]) for n in ("Base", "Aggr"))
            rows[f"{part}: Aggr < Base < LazyRTGC at p99.99"] = {
                "ours": f"{aggr:.3f} < {base:.3f} < 1: {aggr < base < 1}",
                "paper": math.nan,
            }
    qtc = result.get(f"{PAPER_PART}: QTC vs RLGC p99.99")
    if qtc is not None:
        rows["QTC / RLGC p99.99 (Base-2)"] = {
            "ours": _average(qtc, "QTC / Base-2"),
            "paper": PAPER_AVG["QTC / RLGC p99.99 (Base-2)"],
        }
        rows["QTC-u1 / RLGC p99.99 (Base-2)"] = {"ours": _average(qtc, "QTC-u1 / Base-2"), "paper": math.nan}
    control = result.get(f"{PAPER_PART}: learned vs random control")
    if control is not None:
        for name in PAPER_LEARNED:
            ours = _average(control, name)
            rows[f"{name} / its control p99.99 (< 1: learning helps)"] = {
                "ours": f"{ours:.3f}: {ours < 1}",
                "paper": math.nan,
            }
    return pd.DataFrame.from_dict(rows, orient="index")[["ours", "paper"]]


def _verdicts(path: Path, summary: pd.DataFrame) -> pd.DataFrame:
    """verdicts.csv: `write_verdicts` on the figures the paper gives, then one row per direction
    check (`reproduced` when ours is on the paper's side, else `not`)."""
    frame = write_verdicts(path, summary)
    checks = summary[summary["paper"].isna()]
    extra = [
        {
            "headline": headline,
            "paper": "below 1" if "control" in headline else "holds",
            "ours": row["ours"],
            "ratio": math.nan,
            "verdict": "reproduced" if str(row["ours"]).endswith("True") else "not",
        }
        for headline, row in checks.iterrows()
        if isinstance(row["ours"], str)
    ]
    frame = pd.concat([frame, pd.DataFrame(extra)], ignore_index=True)
    frame.to_csv(path, index=False)
    return frame
