"""Layer: Python, experiments. One job: the RL-SLC reproduction's figures: Figs. 4-8 and RL's
rewards (each part's), Fig. 4 on Table 4's workloads with their ceilings, and the learning
curves of RL beside its random control."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from ssdlab.experiments.slc.analysis import _order, _pivot, _with_mean, breakdown, fig8
from ssdlab.experiments.slc.settings import BASELINE, COMPONENTS


def paper_plot(runs: pd.DataFrame, ceiling: pd.DataFrame, out: Path) -> None:
    """Fig. 4 on Table 4's workloads: bars per policy, each workload's ceiling as a black tick."""
    import matplotlib.pyplot as plt

    from ssdlab.plots import save_figure

    _, policies = _order(runs)
    norm = _pivot(runs, "throughput_norm")
    shown = [p for p in policies if p != BASELINE]
    ax = norm[shown].plot.bar(figsize=(max(7, 1.5 * len(norm)), 4.2), width=0.8)
    for i, t in enumerate(norm.index):
        if t in ceiling.index:
            limit = ceiling.loc[t, "throughput_ceiling"]
            ax.hlines(
                limit, i - 0.45, i + 0.45, color="black", linewidth=1.5, label="ceiling" if i == 0 else None
            )
    ax.axhline(1.0, color="black", linewidth=0.8, linestyle=":")
    ax.set_yscale("log", base=2)
    ax.set(
        ylabel="write throughput / QLC-only",
        xlabel="",
        title="Fig. 4, Table 4's workloads (black: the ceiling writes <= 512 KiB allow)",
    )
    plt.setp(ax.get_xticklabels(), rotation=0, fontsize=8)
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=7, ncol=2)
    save_figure(ax.get_figure(), out / "paper_fig4_throughput.png")


def _short(label: str) -> str:
    return label if len(label) <= 28 else label[:26] + ".."


def plots(runs: pd.DataFrame, series: pd.DataFrame, rewards: pd.DataFrame, out: Path) -> None:
    import matplotlib.pyplot as plt
    import numpy as np

    from ssdlab.plots import panel_grid, save_figure

    traces, policies = _order(runs)
    paper = dict(zip(runs["trace"], runs["paper_workload"], strict=False))

    def title(t: str) -> str:
        return f"{paper.get(t, '-')}: {_short(t)}" if paper.get(t, "-") != "-" else _short(t)

    # Fig. 4: bars per trace, the mean last.
    norm = _with_mean(_pivot(runs, "throughput_norm"))
    norm.index = [title(t) if t != "mean" else "mean" for t in norm.index]
    shown = [p for p in policies if p != BASELINE]
    ax = norm[shown].plot.bar(figsize=(max(7, 1.4 * len(norm)), 4.2), width=0.8)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set(ylabel="write throughput / QLC-only", xlabel="", title="Fig. 4: write throughput")
    plt.setp(ax.get_xticklabels(), rotation=25, ha="right", rotation_mode="anchor", fontsize=8)
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=8)
    fig = ax.get_figure()
    save_figure(fig, out / "fig4_throughput.png")

    first = series[(series["experiment"] == "fig4") & (series["seed"] == series["seed"].min())]
    # Fig. 5: SLC blocks over host writes, a curve per SLC policy.
    fig, axes = panel_grid(len(traces))
    for ax, t in zip(axes, traces, strict=True):
        for p in shown:
            s = first[(first["trace"] == t) & (first["policy"] == p)]
            if len(s):
                ax.plot(s["host_write_bytes"] / 2**30, s["slc_blocks"], label=p, drawstyle="steps-post")
        ax.set(xlabel="host pages programmed (GiB)", ylabel="SLC blocks", title=f"Fig. 5: {title(t)}")
        ax.grid(True, alpha=0.3)
        if ax.has_data():
            ax.legend(fontsize=7, loc="upper right")
    save_figure(fig, out / "fig5_slc_blocks.png")

    # Fig. 6: RL's theta over host writes.
    fig, axes = panel_grid(len(traces))
    for ax, t in zip(axes, traces, strict=True):
        s = first[(first["trace"] == t) & (first["policy"] == "RL")]
        if len(s):
            ax.plot(s["host_write_bytes"] / 2**30, s["threshold_bytes"] / 1024, drawstyle="steps-post")
            ax.set_yscale("log", base=2)
        ax.set(xlabel="host pages programmed (GiB)", ylabel="theta (KiB)", title=f"Fig. 6: {title(t)}")
        ax.grid(True, alpha=0.3)
    save_figure(fig, out / "fig6_theta.png")

    # Fig. 7: stacked components, normalised to QLC-only's total.
    b = breakdown(runs)
    fig, axes = panel_grid(len(traces), width=4.2, height=3.4)
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for ax, t in zip(axes, traces, strict=True):
        rows = b.loc[t] if t in b.index.get_level_values(0) else pd.DataFrame()
        bottom = np.zeros(len(rows))
        for i, name in enumerate(COMPONENTS.values()):
            values = rows[name].to_numpy() if len(rows) else np.zeros(0)
            ax.bar(range(len(rows)), values, bottom=bottom, label=name, color=colors[i % len(colors)])
            bottom += values
        ax.set_xticks(range(len(rows)), list(rows.index), rotation=30, ha="right", fontsize=8)
        ax.set(ylabel="time / QLC-only's total", title=f"Fig. 7: {title(t)}")
        ax.grid(True, axis="y", alpha=0.3)
    if axes:
        axes[0].legend(fontsize=7)
    save_figure(fig, out / "fig7_breakdown.png")

    # Fig. 8: pre-trained vs untrained.
    f8 = fig8(runs)
    fig, ax = plt.subplots(figsize=(max(4.5, 2.2 * max(1, len(f8))), 3.8))
    if len(f8):
        f8 = f8.rename(index=title)
        f8[["untrained", "pre-trained"]].plot.bar(ax=ax, width=0.7)
        ax.axhline(1.0, color="black", linewidth=0.8)
        plt.setp(ax.get_xticklabels(), rotation=0, fontsize=8)
    else:
        ax.text(0.5, 0.5, "no training or test trace", ha="center", va="center", transform=ax.transAxes)
    ax.set(ylabel="write throughput / QLC-only", xlabel="", title="Fig. 8: pre-trained vs untrained agent")
    ax.grid(True, axis="y", alpha=0.3)
    save_figure(fig, out / "fig8_pretrained.png")

    # RL's reward per step (moving mean over 25 steps): Fig. 4's runs, and the pre-trained ones.
    fig, axes = panel_grid(len(traces))
    low = rewards["seed"].min() if len(rewards) else 0
    for ax, t in zip(axes, traces, strict=True):
        for exp, style, name in (("fig4", "-", "untrained"), ("fig8-test", "--", "pre-trained")):
            r = rewards[(rewards["trace"] == t) & (rewards["experiment"] == exp) & (rewards["seed"] == low)]
            if len(r):
                smooth = r["reward"].rolling(25, min_periods=1).mean()
                ax.plot(r["host_write_bytes"] / 2**30, smooth, style, label=name)
        ax.set(
            xlabel="host pages programmed (GiB)",
            ylabel="reward (mean of 25 steps)",
            title=f"RL reward: {title(t)}",
        )
        ax.grid(True, alpha=0.3)
        if ax.has_data():
            ax.legend(fontsize=7)
    save_figure(fig, out / "rl_rewards.png")


def _step_curve(rewards: dict[str, list]) -> pd.DataFrame:
    """A run's reward of every step (Algorithm 2's; the first step has none) as a learning
    curve of one step per window. `Report.learning_curve("region")` samples every 100 steps
    (fixed in the core): one point for each of the quick run's 119 and 194 steps."""
    reward = pd.Series(rewards["reward"], dtype=float)
    return pd.DataFrame({"decisions": range(1, len(reward) + 1), "window_mean_reward": reward})


def learning_plots(results: list[dict[str, Any]], out: Path) -> None:
    """Per trace, seed 0 of Fig. 4's runs: RL's and RL-control's reward per step, the mean of
    25 steps (as rl_rewards.png)."""
    from ssdlab.plots import learning_curves

    curves: dict[str, dict[str, pd.DataFrame]] = {}
    for r in results:
        if (r["experiment"], r["seed"]) == ("fig4", 0) and r["policy"] in ("RL", "RL-control"):
            curves.setdefault(r["trace"], {})[r["policy"]] = _step_curve(r["_rewards"])
    for trace, at in curves.items():
        learning_curves(
            at,
            out / f"learning_curves_{trace}.png",
            title=f"{_short(trace)}, seed 0: RL vs random control, mean of 25 steps",
            window=25,
        )


PLOTS = (
    "fig4_throughput.png",
    "fig5_slc_blocks.png",
    "fig6_theta.png",
    "fig7_breakdown.png",
    "fig8_pretrained.png",
    "rl_rewards.png",
)
