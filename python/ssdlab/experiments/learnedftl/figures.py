"""The LearnedFTL reproduction's plots: Figs. 14, 15 and 20."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ssdlab.experiments.learnedftl.settings import FTLS, PATTERNS


def plots(runs: pd.DataFrame, out: Path) -> None:
    import matplotlib.pyplot as plt

    from ssdlab.plots import save_figure

    fio = runs[runs["figure"] == "fig14"]
    if "accounting" in fio:
        fio = fio[fio["accounting"] == "paper"]
    if not fio.empty:
        order = [f for f in FTLS if f in set(fio["ftl"])]
        fig, axes = plt.subplots(1, 4, figsize=(17, 4))
        specs = (
            ("iops", "throughput (IOPS)", "Fig. 14(a)"),
            ("cmt_hit_ratio", "CMT hit ratio", "Fig. 14(b)"),
            ("waf", "WAF", "Fig. 14(c)"),
            ("erased_blocks", "blocks erased", "Fig. 15"),
        )
        for ax, (col, ylabel, title) in zip(axes, specs, strict=True):
            table = fio.pivot_table(index="workload", columns="ftl", values=col, aggfunc="mean").reindex(
                columns=order
            )
            table.reindex([p for p in PATTERNS if p in table.index]).plot.bar(ax=ax, rot=0)
            ax.set(ylabel=ylabel, title=title, xlabel="")
            ax.grid(True, axis="y", alpha=0.3)
            ax.legend(fontsize=7)
        save_figure(fig, out / "fig14_fig15.png")
    tr = runs[runs["figure"] == "fig20"]
    if not tr.empty:
        fig, axes = plt.subplots(1, 2, figsize=(11, 4))
        for ax, (col, label) in zip(axes, (("all_p99_us", "P99"), ("all_p99_9_us", "P99.9")), strict=True):
            table = tr.pivot_table(index="workload", columns="ftl", values=col, aggfunc="mean")
            table.plot.bar(ax=ax, rot=10, logy=True)
            ax.set(ylabel=f"{label} latency (us)", title=f"Fig. 20: {label}", xlabel="")
            ax.grid(True, axis="y", alpha=0.3)
            ax.legend(fontsize=7)
        save_figure(fig, out / "fig20.png")
