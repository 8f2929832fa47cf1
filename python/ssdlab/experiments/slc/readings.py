"""Layer: Python, experiments. One job: issue #46's readings of the RL-SLC paper, where its text
leaves our simulator a choice that decides what RL does on a workload an SLC cache cannot help
(YCSB-A: "its performance is similar to the baseline performance", Sec. 4.1), run side by side
(`ssdlab reproduce slc --readings`).

* **The SLC size: a reservation or a cap** (`slc.region`). Sec. 1: "the total capacity of SSD is
  reduced as more flash blocks are allocated to the SLC region" (reserved: a resize converts
  the blocks at once); the dynamic caches of the drives Sec. 2.1 cites [1-3] write free blocks in
  SLC mode up to a maximum (cap: blocks are converted as SLC writes need them, so an SLC size
  routing leaves unused costs QLC nothing). Static and DWA run under both too (item 4).
* **What Algorithm 2's "average total cost" averages** (`slc.rl.reward_baseline`): line 4
  compares the step's cost with it, line 9 "Update average total write cost". The mean over every
  earlier step (the literal reading), an exponential mean, or a mean per state.
* **The state** (Table 3): the demand for SLC writes is the share of a step's host pages routed
  to SLC, binned at 0.5 (2 bins, Table 3); checked, not a reading here (docs/experiments/slc.md).

Each reading's RL runs beside its random control (the control's actions do not depend on the
reward, so one control per region reading) on Table 4's six workloads and a workload of large
cold writes of ours (`LARGE_COLD`), `PAPER_SEEDS` seeds, then on the stand-in traces with the
readings `STAND_IN_READINGS`. The tables: per reading, RL and its control over QLC-only on each
workload, the overall gain against DWA and UST beside the paper's +77.6 %, and whether it meets
the paper's two statements (RL near QLC-only on YCSB-A, first on the other five); the figure:
the SLC region's size over host writes on YCSB-A, per reading.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from ssdlab._console import console
from ssdlab.experiments.common import Job, Runner, print_frame, run_jobs, verified, write_tables
from ssdlab.experiments.slc.grid import _policy_overrides, _run_overrides, check, plan, probe
from ssdlab.experiments.slc.paper import _paper_overrides
from ssdlab.experiments.slc.results import _worker, series_frame
from ssdlab.experiments.slc.settings import (
    BASELINE,
    LARGE_COLD,
    LARGE_COLD_WIDE,
    PAPER,
    PAPER_DRIVE,
    PAPER_WORKLOADS,
    PRESET,
    Settings,
    Trace,
)
from ssdlab.setup import Setup

#: The region readings: what `slc.region` each sets (every one explicitly: unset is `shared`).
REGION: dict[str, tuple[str, ...]] = {
    "reserved": ("slc.region=reserved",),
    "cap": ("slc.region=cap",),
    "shared": ("slc.region=shared",),
}
#: Algorithm 2 line 9's average as the paper words it (the default is the exponential mean).
ALL_STEPS = ("slc.rl.reward_baseline=all_steps",)
#: The policies without a sized region: they refuse `slc.region` (run as they are).
UNSIZED = ("QLC-only", "UST")


@dataclass(frozen=True)
class Reading:
    """One reading of the paper: the region's (`REGION`) and the reward's settings of RL."""

    region: str
    reward: tuple[str, ...] = ()
    #: The paper's sentence it rests on.
    why: str = ""


#: The readings of RL, the paper's literal one first.
READINGS: dict[str, Reading] = {
    "literal": Reading(
        "reserved",
        ALL_STEPS,
        "Sec. 1: SLC blocks reduce the capacity as they are allocated; Algorithm 2 line 9: the average "
        "of every step",
    ),
    "exponential": Reading(
        "reserved", ("slc.rl.reward_baseline=exponential",), "line 9's average as an exponential mean"
    ),
    "per-state": Reading("reserved", ("slc.rl.reward_baseline=per_state",), "line 9's average per state"),
    "cap": Reading(
        "cap",
        ALL_STEPS,
        "Sec. 2.1: the dynamic scheme of commercial QLC SSDs [1-3], free blocks in SLC mode up to a size",
    ),
    "cap + exponential": Reading("cap", ("slc.rl.reward_baseline=exponential",), "both"),
    "cap + per-state": Reading("cap", ("slc.rl.reward_baseline=per_state",), "both"),
    "shared": Reading(
        "shared",
        ALL_STEPS,
        "the cap, in the device's free space: Sec. 1's trade-off between capacity loss and migration, "
        "taken block by block (SLC data folded into QLC where that reclaims space more cheaply)",
    ),
    "shared + exponential": Reading("shared", ("slc.rl.reward_baseline=exponential",), "both"),
    "shared + per-state": Reading("shared", ("slc.rl.reward_baseline=per_state",), "both"),
}
#: The readings run on the stand-in traces as well (the rest only on Table 4's workloads).
STAND_IN_READINGS = ("literal", "cap", "per-state", "cap + per-state", "shared", "shared + per-state")
#: The baselines under each region reading (UST has no size to bound: reserved only).
BASELINES: tuple[tuple[str, str], ...] = (
    ("QLC-only", "reserved"),
    ("Static", "reserved"),
    ("DWA", "reserved"),
    ("UST", "reserved"),
    ("Static", "cap"),
    ("DWA", "cap"),
    ("Static", "shared"),
    ("DWA", "shared"),
)
#: The names of `LARGE_COLD` and `LARGE_COLD_WIDE` (ours) in the tables.
OURS: dict[str, str] = {LARGE_COLD: "Large cold", LARGE_COLD_WIDE: "Large cold, wide"}
#: The workload whose region size over time the figure shows.
FIGURE_WORKLOAD = "YCSB-A"
#: The paper's statements a reading should meet: RL "similar to the baseline" on YCSB-A (read as
#: at least this over QLC-only) ...
NEAR_BASELINE = 0.9


def _policy_keys(policy: str, reading: str | None, region: str) -> tuple[str, ...]:
    keys = _policy_overrides(policy, PAPER_DRIVE)
    return (*keys, *_region_keys(policy, region), *_reward_keys(policy, reading))


def _region_keys(policy: str, region: str) -> tuple[str, ...]:
    return () if policy in UNSIZED else REGION[region]


def _reward_keys(policy: str, reading: str | None) -> tuple[str, ...]:
    """A reading's reward baseline; the controls keep the all-steps mean they were measured with
    (their actions ignore the reward, their mean reward does not)."""
    if reading:
        return READINGS[reading].reward
    return ALL_STEPS if policy == "RL-control" else ()


def _variants() -> list[dict[str, Any]]:
    """Every (policy, reading, region) a workload runs: the baselines, RL per reading, and one
    control per region reading."""
    out = [{"policy": p, "reading": r, "region": r, "rl_reading": None} for p, r in BASELINES]
    for name, reading in READINGS.items():
        out.append({"policy": "RL", "reading": name, "region": reading.region, "rl_reading": name})
    for region in REGION:
        out.append({"policy": "RL-control", "reading": region, "region": region, "rl_reading": None})
    return out


def workloads(settings: Settings) -> dict[str, str]:
    """The workloads of the readings' first part: Table 4's (spec -> the paper's name) and ours."""
    return {**{s: PAPER_WORKLOADS.get(s, s) for s in settings.workloads}, **OURS}


def readings_jobs(settings: Settings) -> list[Job]:
    """Every (workload, variant, seed) run on Table 4's drive (the first table's set-up)."""
    out = []
    for seed in range(settings.paper_seeds):
        for spec, name in workloads(settings).items():
            base = _paper_overrides(settings, spec, seed)
            for v in _variants():
                labels = {
                    "experiment": "readings",
                    "trace": name,
                    "policy": v["policy"],
                    "reading": v["reading"],
                }
                labels |= {"seed": seed, "stage": None}
                keys = _policy_keys(v["policy"], v["rl_reading"], v["region"])
                out.append(Job(labels, Setup(PRESET, spec, overrides=(*base, *keys))))
    return out


def stand_in_jobs(traces: list[Trace], settings: Settings, plans: dict[str, dict[str, Any]]) -> list[Job]:
    """The stand-in traces' runs (sized as the stand-in part's, `plan`): the baselines, RL under
    `STAND_IN_READINGS` and the controls."""
    out = []
    for seed in range(settings.seeds):
        for t in traces:
            base = _run_overrides(t, settings, plans[t.label]["repeat"], seed)
            for v in _variants():
                if v["rl_reading"] is not None and v["rl_reading"] not in STAND_IN_READINGS:
                    continue
                labels = {"experiment": "readings-stand-in", "trace": t.label, "policy": v["policy"]}
                labels |= {"reading": v["reading"], "seed": seed, "stage": None}
                keys = (
                    *_policy_overrides(v["policy"], settings),
                    *_region_keys(v["policy"], v["region"]),
                    *_reward_keys(v["policy"], v["rl_reading"]),
                )
                out.append(Job(labels, Setup(PRESET, trace=str(t.path), overrides=(*base, *keys))))
    return out


def normalise(runs: pd.DataFrame) -> pd.DataFrame:
    """Adds `throughput_norm`: each run's write throughput over QLC-only's on the same workload,
    seed and part."""
    base = runs[runs["policy"] == BASELINE].set_index(["experiment", "trace", "seed"])[
        "write_throughput_mb_s"
    ]
    keys = pd.MultiIndex.from_frame(runs[["experiment", "trace", "seed"]])
    runs = runs.copy()
    runs["throughput_norm"] = runs["write_throughput_mb_s"].to_numpy() / base.reindex(keys).to_numpy()
    return runs


def _column(policy: str, reading: str) -> str:
    """A variant's column name: `RL (cap)`, `Static (reserved)`, `QLC-only`."""
    return policy if policy == BASELINE else f"{policy} ({reading})"


def norm_table(runs: pd.DataFrame) -> pd.DataFrame:
    """Workload x variant: write throughput over QLC-only, mean over seeds, with the mean row."""
    frame = runs.assign(variant=[_column(p, r) for p, r in zip(runs["policy"], runs["reading"], strict=True)])
    order = list(pd.unique(frame["variant"]))
    table = frame.pivot_table(index="trace", columns="variant", values="throughput_norm", aggfunc="mean")
    table = table.reindex(index=list(pd.unique(runs["trace"])), columns=order)
    table.loc["mean"] = table.mean()
    return table


def _control_of(reading: str) -> str:
    return f"RL-control ({READINGS[reading].region})"


def _gain(tput: pd.DataFrame, rl: str, dwa: str, workloads: list[str]) -> float:
    """RL's write throughput over `dwa`'s and UST's: the mean over `workloads` and the two of
    the per-workload ratio (seeds averaged first), in % (the paper's "on average over the
    previous techniques", read as in the first table)."""
    ratios = [tput.loc[w, rl] / tput.loc[w, c] for w in workloads for c in (dwa, "UST (reserved)")]
    return 100 * (sum(ratios) / len(ratios) - 1)


def readings_table(runs: pd.DataFrame, paper_names: list[str]) -> pd.DataFrame:
    """Per reading: RL and its random control over QLC-only on each workload (means over
    seeds), RL's overall gain against DWA and UST (the mean over Table 4's workloads and the two
    of RL's per-workload ratio, seeds averaged first, the paper's +77.6 %) with DWA run under
    the reading's region and under the reserved one, RL over its control on the five workloads
    other than YCSB-A, and whether the reading meets the paper's statements: RL at least
    `NEAR_BASELINE` x QLC-only on YCSB-A, first on the other five."""
    norm = norm_table(runs).drop(index="mean")
    tput = runs.assign(variant=[_column(p, r) for p, r in zip(runs["policy"], runs["reading"], strict=True)])
    tput = tput.pivot_table(index="trace", columns="variant", values="write_throughput_mb_s", aggfunc="mean")
    paper = [w for w in paper_names if w in norm.index]
    others = [w for w in paper if w != FIGURE_WORKLOAD]
    rows = []
    for name, reading in READINGS.items():
        rl, control = f"RL ({name})", _control_of(name)
        if rl not in norm:
            continue
        row: dict[str, Any] = {"reading": name, "region": reading.region}
        for w in norm.index:
            row[f"{w}: RL"] = norm.loc[w, rl]
            row[f"{w}: control"] = norm.loc[w, control]

        row["gain vs DWA and UST (%)"] = _gain(tput, rl, f"DWA ({reading.region})", paper)
        row["gain vs reserved DWA and UST (%)"] = _gain(tput, rl, "DWA (reserved)", paper)
        row["RL / control, other five"] = sum(norm.loc[w, rl] / norm.loc[w, control] for w in others) / max(
            1, len(others)
        )
        rivals = [c for c in norm.columns if not c.startswith("RL") and c != BASELINE]
        first = [w for w in others if norm.loc[w, rl] >= norm.loc[w, rivals].max()]
        row["first on the other five"] = len(first)
        row["beats control on the other five"] = sum(norm.loc[w, rl] > norm.loc[w, control] for w in others)
        if FIGURE_WORKLOAD in norm.index:
            row[f"{FIGURE_WORKLOAD} >= {NEAR_BASELINE}"] = bool(
                norm.loc[FIGURE_WORKLOAD, rl] >= NEAR_BASELINE
            )
        row["paper +77.6 %"] = PAPER["RL write throughput vs DWA and UST (%)"]
        rows.append(row)
    return pd.DataFrame(rows).set_index("reading")


def region_table(runs: pd.DataFrame) -> pd.DataFrame:
    """Per workload and variant with an SLC region: its mean and largest size (blocks, means over
    seeds), theta at the end and the share of host pages written to SLC."""
    slc = runs[~runs["policy"].isin([BASELINE])].copy()
    slc["variant"] = [_column(p, r) for p, r in zip(slc["policy"], slc["reading"], strict=True)]
    slc["slc share"] = slc["slc_host_pages"] / (slc["slc_host_pages"] + slc["qlc_host_pages"])
    table = slc.groupby(["trace", "variant"], sort=False)[
        [
            "slc_blocks_mean",
            "slc_blocks_max",
            "slc share",
            "theta_end_bytes",
            "qlc_to_qlc_ns",
            "slc_to_qlc_ns",
        ]
    ].mean()
    table.index = pd.Index([f"{t} / {v}" for t, v in table.index], name="workload / variant")
    return table


def region_plot(series: pd.DataFrame, out: Path, workload: str = FIGURE_WORKLOAD, seed: int = 0) -> Path:
    """The SLC region's size over host writes on `workload` (seed `seed`): RL under each reward
    reading with a reserved region, with the size as a cap and as a cap in shared free space
    (each panel its own scale), Static and DWA under each (bottom)."""
    import matplotlib.pyplot as plt

    from ssdlab.plots import save_figure

    s = series[(series["trace"] == workload) & (series["seed"] == seed)]
    colours = {"": "C0", "exponential": "C1", "per-state": "C2"}
    panels = (
        ("RL, size reserved", lambda p, r: p == "RL" and READINGS[r].region == "reserved"),
        ("RL, size as a cap", lambda p, r: p == "RL" and READINGS[r].region == "cap"),
        ("RL, size as a cap in shared free space", lambda p, r: p == "RL" and READINGS[r].region == "shared"),
        ("Static and DWA", lambda p, r: p in ("Static", "DWA")),
    )
    fig, axes = plt.subplots(len(panels), 1, figsize=(8, 10.5), sharex=True)
    for ax, (title, shown) in zip(axes, panels, strict=True):
        for (policy, reading), g in s.groupby(["policy", "reading"], sort=False):
            if not shown(policy, reading):
                continue
            if policy == "RL":
                reward = reading.removeprefix(READINGS[reading].region).removeprefix(" + ")
                style, colour = "-", colours.get(reward.replace("literal", ""), "C3")
            else:
                style = {"reserved": "-", "cap": "--", "shared": ":"}[reading]
                colour = "C4" if policy == "Static" else "C5"
            label = _column(policy, reading)
            ax.plot(g["host_write_bytes"] / 2**30, g["slc_blocks"], style, color=colour, label=label, lw=1.1)
        ax.set_ylabel("SLC blocks")
        ax.set_title(title, fontsize=9)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7, ncol=3)
    fig.suptitle(f"SLC region size on {workload} (seed {seed})", fontsize=10)
    axes[-1].set_xlabel("host writes (GiB)")
    path = out / f"readings_{workload.lower().replace('-', '_')}_slc_blocks.png"
    save_figure(fig, path)
    return path


def _series(results: list[dict[str, Any]]) -> pd.DataFrame:
    """The SLC size and theta samples of every run, with its reading (`series_frame`'s rows)."""
    frames = [series_frame([r]).assign(reading=r["reading"]) for r in results]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def _frame(results: list[dict[str, Any]]) -> pd.DataFrame:
    runs = pd.DataFrame([{k: v for k, v in r.items() if not k.startswith("_")} for r in results])
    runs.insert(0, "preset", PRESET)
    return normalise(runs)


def reproduce_readings(
    out: Path,
    settings: Settings,
    traces: list[Trace],
    runner: Runner,
    verify: bool = False,
) -> dict[str, pd.DataFrame]:
    """Run the readings (module docstring) into `out`: readings_runs.csv, readings_series.csv,
    readings.md and the region-size figure on YCSB-A."""
    first = readings_jobs(settings)
    first = verified(first) if verify else first
    check(first)
    names = workloads(settings)
    console.print(
        f"Readings: {len(names)} workloads x {len(_variants())} variants x {settings.paper_seeds} seed(s) "
        f"on the empty {PRESET} ({len(first)} runs), then {len(traces)} stand-in trace(s)"
    )
    results = run_jobs(first, _worker, runner)
    stand_in_results: list[dict[str, Any]] = []
    if traces:
        probes = probe(traces, settings, runner)
        plans = {
            t.label: plan(t, settings, probes[probes["trace"] == t.label].iloc[0].to_dict()) for t in traces
        }
        grid = stand_in_jobs(traces, settings, plans)
        grid = verified(grid) if verify else grid
        check(grid)
        stand_in_results = run_jobs(grid, _worker, runner)
    runs = _frame(results + stand_in_results)
    runs.to_csv(out / "readings_runs.csv", index=False)
    series = _series(results)
    series.to_csv(out / "readings_series.csv", index=False)
    part = runs[runs["experiment"] == "readings"]
    paper_names = [PAPER_WORKLOADS.get(s, s) for s in settings.workloads]
    tables: dict[str, pd.DataFrame] = {
        "Readings: RL and its control over QLC-only, gain vs DWA and UST": readings_table(part, paper_names),
        "Readings: write throughput over QLC-only, every variant": norm_table(part),
        "Readings: SLC region, theta and reclaim time per variant": region_table(part),
    }
    if stand_in_results:
        tables["Readings on the stand-in traces: write throughput over QLC-only"] = norm_table(
            runs[runs["experiment"] == "readings-stand-in"]
        )
    write_tables(
        out / "readings.md",
        tables,
        f"Issue #46's readings on {PRESET}: Table 4's workloads and large cold writes (ours), "
        f"{settings.paper_seeds} seed(s), from empty; then the stand-in traces, {settings.seeds} seed(s). "
        "Variants: `(reserved)` or `(cap)` is slc.region; RL's readings add slc.rl.reward_baseline.",
    )
    path = region_plot(series, out) if FIGURE_WORKLOAD in set(series["trace"]) else None
    for title in list(tables)[:2]:
        print_frame(title, tables[title])
    console.print(
        f"\nresults: {out}/ (readings_runs.csv, readings_series.csv, readings.md"
        + (f", {path.name})" if path else ")")
    )
    return tables


__all__ = [
    "BASELINES",
    "LARGE_COLD",
    "READINGS",
    "REGION",
    "STAND_IN_READINGS",
    "Reading",
    "norm_table",
    "readings_jobs",
    "readings_table",
    "region_plot",
    "region_table",
    "reproduce_readings",
    "stand_in_jobs",
    "workloads",
]
