"""The FSP reproduction's plots: Figs. 9-13 and the learning curves."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from ssdlab.experiments.fsp.analysis import _normalised, _pivot


def plots(runs: pd.DataFrame, reward_rows: pd.DataFrame, out: Path) -> None:
    import matplotlib.pyplot as plt

    from ssdlab.plots import panel_grid, save_figure

    caches = sorted(set(runs["cache_mib"]))

    def bars(specs: list[tuple[str, str, str, bool]], name: str) -> None:
        """A row per (figure, column, y label, normalised to Baseline), a panel per cache size
        (the paper's panels a-c), the legend above them all."""
        fig, axes = plt.subplots(
            len(specs), len(caches), figsize=(6 * len(caches), 3.8 * len(specs) + 0.4), squeeze=False
        )
        for row, (figure, col, ylabel, normalise) in enumerate(specs):
            for ax, cache in zip(axes[row], caches, strict=True):
                table = _pivot(runs, col, cache)
                table = _normalised(table) if normalise else table
                table.plot.bar(ax=ax, legend=False, width=0.8)
                plt.setp(ax.get_xticklabels(), rotation=35, ha="right", rotation_mode="anchor")
                if normalise:
                    ax.axhline(1.0, color="black", linewidth=0.8)
                ax.set(ylabel=ylabel, xlabel="", title=f"{figure}: {cache} MiB cache")
                ax.tick_params(axis="x", labelsize=7)
                ax.grid(True, axis="y", alpha=0.3)
        handles, labels = axes[0][0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="upper center", ncol=len(labels), fontsize=8)
        save_figure(fig, out / name, rect=(0, 0, 1, 1 - 0.4 / fig.get_figheight()))

    bars(
        [
            ("Fig. 9", "read_mean_us", "read latency / Baseline", True),
            ("Fig. 10", "io_mean_us", "I/O latency / Baseline", True),
        ],
        "fig9_fig10_latency.png",
    )
    bars(
        [
            ("Fig. 11", "lsb_reads", "LSB reads / Baseline", True),
            ("Fig. 11", "lsb_ratio", "LSB reads / flash reads", False),
        ],
        "fig11_lsb_reads.png",
    )
    bars(
        [
            ("Fig. 13", "read_hit_ratio", "read hit ratio", False),
            ("Fig. 13", "write_hit_ratio", "write hit ratio", False),
        ],
        "fig13_hit_ratio.png",
    )
    # Fig. 12: one panel per trace, a curve per cache size (the first seed).
    traces = list(pd.unique(runs["trace"]))
    fig, axes = panel_grid(len(traces), width=5, height=3.3)
    first = reward_rows[reward_rows["seed"] == reward_rows["seed"].min()] if len(reward_rows) else reward_rows
    for ax, trace in zip(axes, traces, strict=True):
        for cache in caches:
            curve = first[(first["trace"] == trace) & (first["cache_mib"] == cache)]
            if len(curve):
                ax.plot(curve["episode"], curve["mean_reward"], marker=".", label=f"{cache} MiB")
        ax.set(xlabel="episode (1000 decisions)", ylabel="mean reward", title=f"Fig. 12: {trace}")
        ax.grid(True, alpha=0.3)
        if ax.has_data():
            ax.legend(fontsize=7)
        else:  # fewer than 1000 decisions: Algorithm 1 never finished an episode
            ax.text(0.5, 0.5, "no complete episode", ha="center", va="center", transform=ax.transAxes)
    save_figure(fig, out / "fig12_rewards.png")


def learning_plots(results: list[dict[str, Any]], out: Path) -> None:
    """Per trace, seed 0: RL's and RL-control's mean reward per episode (1000 decisions), a pair
    of curves per cache size."""
    from ssdlab.plots import learning_curves

    curves: dict[str, dict[str, pd.DataFrame]] = {}
    for r in results:
        if r["policy"] in ("RL", "RL-control") and r["learning_curve"] is not None:
            label = f"{r['policy']}, {r['cache_mib']} MiB"
            curves.setdefault(r["trace"], {})[label] = pd.DataFrame(r["learning_curve"])
    for trace, at in curves.items():
        learning_curves(
            at,
            out / f"learning_curves_{trace}.png",
            title=f"{trace}, seed 0: RL vs random control",
        )
