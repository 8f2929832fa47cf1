"""The LearnedFTL reproduction's tables, the paper's figures beside ours and its verdict rules
(verdicts.csv)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pandas as pd

from ssdlab.experiments.common import write_verdicts
from ssdlab.experiments.learnedftl.settings import ACCOUNTINGS, CMT_SHARES, FTLS, PAPER


def _ratio(frame: pd.DataFrame, num: str, den: str) -> pd.Series:
    return frame[num] / frame[den]


def _fio_tables(fio: pd.DataFrame, suffix: str) -> dict[str, pd.DataFrame]:
    """Fig. 14 and 15 of one accounting, each title with `suffix`."""
    out: dict[str, pd.DataFrame] = {}
    if fio.empty:
        return out
    order = [f for f in FTLS if f in set(fio["ftl"])]

    def pivot(col: str) -> pd.DataFrame:
        return fio.pivot_table(index="workload", columns="ftl", values=col, aggfunc="mean").reindex(
            columns=order
        )

    iops = pivot("iops")
    out["Fig. 14(a): throughput (KIOPS)" + suffix] = iops / 1e3
    if {"LearnedFTL", "TPFTL", "DFTL"} <= set(order):
        out["Fig. 14(a): LearnedFTL's throughput relative to" + suffix] = pd.DataFrame(
            {den: _ratio(iops, "LearnedFTL", den) for den in ("TPFTL", "DFTL", "ideal") if den in order}
        )
    out["Fig. 14(b): CMT hit ratio (all lookups; reads only in the read runs)" + suffix] = pivot(
        "cmt_hit_ratio"
    )
    out["Fig. 14(b): model hit ratio of host reads" + suffix] = pivot("model_hit_ratio")
    out["Fig. 14(c): WAF (flash programs / host pages written)" + suffix] = pivot("waf")
    out["Fig. 14(c): WAF from GC / from translation pages" + suffix] = (
        pivot("waf_gc").round(3).astype(str) + " / " + pivot("waf_mapping").round(3).astype(str)
    )
    out["translation reads / writes (thousands)" + suffix] = (
        (pivot("translation_reads") / 1e3).round(1).astype(str)
        + " / "
        + (pivot("translation_writes") / 1e3).round(1).astype(str)
    )
    out["Fig. 15: GC count (blocks erased)" + suffix] = pivot("erased_blocks")
    out["Fig. 15: line (group) collections" + suffix] = pivot("line_collections")
    if "background_collections" in fio and suffix:
        out["background line collections (after requests)" + suffix] = pivot("background_collections")
    out["warm-up: random writes in the timed warm-up (millions)" + suffix] = pivot("warmup_requests") / 1e6
    return out


def tables(runs: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Means over seeds: Fig. 14(a)-(c), Fig. 15, Fig. 3(c), Fig. 20 and the ratios the paper
    quotes."""
    out: dict[str, pd.DataFrame] = {}
    fig14 = runs[runs["figure"] == "fig14"]
    accounting = fig14["accounting"] if "accounting" in fig14 else pd.Series("paper", index=fig14.index)
    for name in ACCOUNTINGS:
        out.update(
            _fio_tables(fig14[accounting == name], "" if name == "paper" else " (artifact accounting)")
        )
    stress = stress_table(runs)
    if not stress.empty:
        out["Stress case seqwrite_split per pass (not the paper's; paper accounting)"] = stress
    cmt = runs[runs["figure"] == "fig3c"]
    if not cmt.empty:
        out["Fig. 3(c): TPFTL's randread CMT hit ratio by CMT size (share of the table)"] = cmt.pivot_table(
            index="cmt_share", values=["read_cmt_hit_ratio", "iops"], aggfunc="mean"
        )
    tr = runs[runs["figure"] == "fig20"]
    if not tr.empty:
        order = [f for f in ("TPFTL", "LearnedFTL", "ideal") if f in set(tr["ftl"])]
        for col, label in (("all_p99_us", "P99"), ("all_p99_9_us", "P99.9")):
            p = tr.pivot_table(index="workload", columns="ftl", values=col, aggfunc="mean")[order]
            if {"TPFTL", "LearnedFTL"} <= set(order):
                p["TPFTL / LearnedFTL"] = _ratio(p, "TPFTL", "LearnedFTL")
            out[f"Fig. 20: {label} latency (us)"] = p
        out["Fig. 20: model hit ratio of host reads"] = tr.pivot_table(
            index="workload", columns="ftl", values="model_hit_ratio", aggfunc="mean"
        )
    return out


def stress_table(runs: pd.DataFrame) -> pd.DataFrame:
    """The stress case per pass: throughput and WAF of the first drive write (the `first` run)
    and of the rest of the 600 s (the full run minus the first: requests, programs and time
    subtracted), with host pages written per line (group) collection in each. Means over seeds.
    Rows: each FTL, and LearnedFTL with the guard."""
    if "span" not in runs:
        return pd.DataFrame()
    stress = runs[runs["figure"] == "stress"]
    full = runs[
        (runs["figure"] == "fig14") & (runs["workload"] == "seqwrite_split") & (runs["accounting"] == "paper")
    ]
    rows = []
    for (ftl, guard, seed), first in stress[stress["span"] == "first"].groupby(["ftl", "guard", "seed"]):
        if guard:
            whole = stress[
                (stress["span"] == "all")
                & (stress["ftl"] == ftl)
                & (stress["guard"] == guard)
                & (stress["seed"] == seed)
            ]
        else:
            whole = full[(full["ftl"] == ftl) & (full["seed"] == seed)]
        if whole.empty:
            continue
        a, b = first.iloc[0], whole.iloc[0]
        programs_a, programs_b = a["waf"] * a["requests"], b["waf"] * b["requests"]
        rest = b["requests"] - a["requests"]
        rest_lines = b["line_collections"] - a["line_collections"]
        rows.append(
            {
                "ftl": ftl + (f", guard {guard:g}" if guard else ""),
                "first write KIOPS": a["requests"] / a["span_s"] / 1e3,
                "first write WAF": a["waf"],
                "first write host pages per collection": a["requests"] / a["line_collections"]
                if a["line_collections"]
                else math.nan,
                # The rest may be short: a slow FTL barely ends its first drive write in the run.
                "rest host writes (thousands)": rest / 1e3,
                "rest KIOPS": rest / (b["span_s"] - a["span_s"]) / 1e3 if rest > 0 else math.nan,
                "rest WAF": (programs_b - programs_a) / rest if rest > 0 else math.nan,
                "rest host pages per collection": rest / rest_lines if rest_lines else math.nan,
                "whole run KIOPS": b["iops"] / 1e3,
                "whole run WAF": b["waf"],
            }
        )
    if not rows:
        return pd.DataFrame()
    return pd.DataFrame(rows).groupby("ftl", sort=False).mean()


#: The headlines issue #33 checks, per accounting, in verdicts.csv.
VERDICT_HEADLINES = (
    "randread LearnedFTL / TPFTL",
    "seqread LearnedFTL / TPFTL",
    "randwrite LearnedFTL / TPFTL",
    "seqwrite LearnedFTL / TPFTL",
    "randread model hit ratio",
    "seqwrite LearnedFTL WAF",
)


#: Headlines whose paper figure is a bound (ours at or below it is `reproduced`), not a value.
BOUNDS = ("seqwrite LearnedFTL WAF",)


def _ours(result: dict[str, pd.DataFrame], suffix: str) -> dict[str, Any]:
    """Our figure for each of the paper's headlines from one accounting's tables (`suffix`)."""

    def cell(title: str, row: str, col: str) -> float:
        table = result.get(title + suffix)
        if table is None or row not in table.index or col not in table.columns:
            return math.nan
        return float(table.loc[row, col])

    relative = "Fig. 14(a): LearnedFTL's throughput relative to"
    ours: dict[str, Any] = {
        "randread LearnedFTL / TPFTL": cell(relative, "randread", "TPFTL"),
        "randread LearnedFTL / DFTL": cell(relative, "randread", "DFTL"),
        "randread LearnedFTL / ideal": cell(relative, "randread", "ideal"),
        "seqread LearnedFTL / ideal": cell(relative, "seqread", "ideal"),
        "randwrite LearnedFTL / TPFTL": cell(relative, "randwrite", "TPFTL"),
        "randwrite LearnedFTL / DFTL": cell(relative, "randwrite", "DFTL"),
        "randread model hit ratio": cell(
            "Fig. 14(b): model hit ratio of host reads", "randread", "LearnedFTL"
        ),
        "seqread LearnedFTL / TPFTL": cell(relative, "seqread", "TPFTL"),
        "seqwrite LearnedFTL / TPFTL": cell(relative, "seqwrite", "TPFTL"),
        "seqwrite LearnedFTL WAF": cell(
            "Fig. 14(c): WAF (flash programs / host pages written)", "seqwrite", "LearnedFTL"
        ),
    }
    return ours


def paper_table(result: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Our figure beside each of the paper's headlines (`PAPER`), taken from the tables (NaN or
    "-" where the grid did not run it: a --quick grid, or Fig. 20 without traces): `ours` under
    the paper's accounting, `ours (artifact)` under the artifact's."""
    p99 = result.get("Fig. 20: P99 latency (us)")
    cmt = result.get("Fig. 3(c): TPFTL's randread CMT hit ratio by CMT size (share of the table)")
    ours = _ours(result, "")
    ours["TPFTL randread CMT hit ratio at 2/10/50 %"] = " / ".join(
        f"{cmt.loc[share, 'read_cmt_hit_ratio']:.3g}" if cmt is not None and share in cmt.index else "-"
        for share in CMT_SHARES
    )
    ours["trace P99 TPFTL / LearnedFTL (mean)"] = (
        float(p99["TPFTL / LearnedFTL"].mean())
        if p99 is not None and "TPFTL / LearnedFTL" in p99
        else math.nan
    )
    artifact = _ours(result, " (artifact accounting)")
    return pd.DataFrame(
        {
            "ours": pd.Series(ours, dtype=object),
            "ours (artifact)": pd.Series(artifact, dtype=object),
            "paper": pd.Series(PAPER, dtype=object),
        }
    )


def verdicts(path: Path, ours_vs_paper: pd.DataFrame) -> pd.DataFrame:
    """verdicts.csv (`write_verdicts`): `VERDICT_HEADLINES` under each accounting, the headline
    followed by "[paper accounting]" or "[artifact accounting]". A bound (`BOUNDS`) is
    `reproduced` when ours is at or below the paper's figure, else `not`."""
    rows = {}
    for name, column in (("paper", "ours"), ("artifact", "ours (artifact)")):
        for headline in VERDICT_HEADLINES:
            rows[f"{headline} [{name} accounting]"] = {
                "ours": ours_vs_paper.loc[headline, column],
                "paper": ours_vs_paper.loc[headline, "paper"],
            }
    frame = write_verdicts(path, pd.DataFrame.from_dict(rows, orient="index"))
    for i, row in frame.iterrows():
        if row["headline"].split(" [")[0] in BOUNDS and row["verdict"] != "not measured":
            frame.loc[i, "verdict"] = "reproduced" if row["ours"] <= row["paper"] else "not"
    frame.to_csv(path, index=False)
    return frame
