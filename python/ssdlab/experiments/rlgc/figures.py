"""Layer: Python, experiments. One job: the RLGC reproduction's figures: Fig. 7's latency tail
and Fig. 9's free blocks per preset and workload, and each learned scheduler's learning curve
beside its random-action control."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from ssdlab.experiments.rlgc.settings import LEARNED


def plots(results: list[dict[str, Any]], out: Path) -> None:
    import matplotlib.pyplot as plt
    import numpy as np

    from ssdlab import axis_units
    from ssdlab.plots import save_figure, time_axis_unit

    first_seed = [r for r in results if r["seed"] == 0]
    for (preset, workload), group in pd.DataFrame(first_seed).groupby(["preset", "workload"]):
        fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
        # Latency and time axes in the units their ranges ask for.
        latency = axis_units.latency_unit(
            v for pairs in group["write_histogram"] if pairs for v in (pairs[0][0], pairs[-1][0])
        )
        time = time_axis_unit(r["free_blocks"]["time_s"] for _, r in group.iterrows())
        for _, r in group.iterrows():
            pairs = r["write_histogram"]
            if pairs:
                values = latency.of_ns(np.array([v for v, _ in pairs], dtype=float))
                counts = np.cumsum([c for _, c in pairs])
                tail = np.maximum(1.0 - counts / counts[-1], 1e-9)
                ax1.step(values, tail, where="post", label=r["scheduler"])
            times = time.of_ns(np.asarray(r["free_blocks"]["time_s"], dtype=float) * 1e9)
            ax2.plot(times, r["free_blocks"]["values"], label=r["scheduler"])
        ax1.set(
            xscale="log",
            yscale="log",
            xlabel=f"write latency ({latency.symbol})",
            ylabel="1 - CDF",
            title="Fig. 7: tail",
        )
        ax2.set(xlabel=f"simulated time ({time.symbol})", ylabel="free blocks", title="Fig. 9: free blocks")
        for ax in (ax1, ax2):
            ax.grid(True, alpha=0.3)
            ax.legend(fontsize=7, loc="upper right")  # "best" is slow on long series
        fig.suptitle(f"{preset} / {workload}")
        save_figure(fig, out / f"fig7_fig9_{preset}_{Path(workload).stem}.png")


def _curve_workload(
    curves: dict[tuple[str, str], dict[str, dict]], preset: str, sustainable: set[tuple[str, str]]
) -> str | None:
    """The workload of a preset's learning-curve figure: the first sustainable one on which the
    learned schedulers drew a curve, else the first with one. A run of fewer GC decisions than
    one window (`gc.rlgc.reward_sample_every`, 1000) draws none: the sustainable traces here,
    whose GC has little to do, take about 600."""
    drawn = [w for (p, w), at in curves.items() if p == preset and any(c["decisions"] for c in at.values())]
    return next((w for w in drawn if (preset, w) in sustainable), drawn[0] if drawn else None)


def learning_plots(results: list[dict[str, Any]], sustainable: set[tuple[str, str]], out: Path) -> None:
    """Per preset, seed 0 on one workload (`_curve_workload`): the reward per window of
    decisions of each learned scheduler beside its random-action control."""
    from ssdlab.plots import learning_curves

    names = [n for name in LEARNED for n in (name, f"{name}-control")]
    curves: dict[tuple[str, str], dict[str, dict]] = {}
    for r in results:
        if r["scheduler"] in names and r["learning_curve"] is not None:
            curves.setdefault((r["preset"], r["workload"]), {})[r["scheduler"]] = r["learning_curve"]
    for preset in dict.fromkeys(p for p, _ in curves):
        workload = _curve_workload(curves, preset, sustainable)
        if workload is None:
            continue
        at = curves[(preset, workload)]
        learning_curves(
            {n: pd.DataFrame(at[n]) for n in names if n in at},
            out / f"learning_curves_{preset}.png",
            title=f"{preset}, {workload}, seed 0: learned vs random control",
            window=5,
        )
