"""Layer: Python, experiments. One job: the RL-SLC reproduction's tables of runs: Figs. 4-8 as
tables (means over seeds), our averages beside the paper's, RL against its random control and
the spread over seeds, and each trace's throughput ceiling."""

from __future__ import annotations

import math

import pandas as pd

from ssdlab.experiments.slc.settings import BASELINE, COMPONENTS, PAPER, POLICIES, PREVIOUS


def ceiling_table(runs: pd.DataFrame, setup: pd.DataFrame) -> pd.DataFrame:
    """Per trace: the byte share of writes that may go to SLC, the throughput ceiling it allows
    over QLC-only (`throughput_ceiling`), and each SLC policy's write throughput over QLC-only
    (Fig. 4's runs, seeds averaged) beside it; `RL under` says whether RL stays under its
    ceiling, as it must."""
    norm = _pivot(runs, "throughput_norm")
    limits = setup.set_index("trace")[["small_write_byte_share", "throughput_ceiling"]]
    table = limits.join(norm.drop(columns=[BASELINE], errors="ignore"), how="inner")
    if "RL" in table:
        table["RL under"] = table["RL"] <= table["throughput_ceiling"]
    return table


def _main(runs: pd.DataFrame) -> pd.DataFrame:
    return runs[runs["experiment"] == "fig4"]


def _order(runs: pd.DataFrame) -> tuple[list[str], list[str]]:
    main = _main(runs)
    return list(pd.unique(main["trace"])), [p for p in POLICIES if p in set(main["policy"])]


def _pivot(runs: pd.DataFrame, col: str) -> pd.DataFrame:
    """Trace x policy of Fig. 4's runs, mean over seeds."""
    traces, policies = _order(runs)
    table = _main(runs).pivot_table(index="trace", columns="policy", values=col, aggfunc="mean")
    return table.reindex(index=traces, columns=policies)


def _with_mean(table: pd.DataFrame) -> pd.DataFrame:
    table = table.copy()
    table.loc["mean"] = table.mean()
    return table


def _name(runs: pd.DataFrame, trace: str) -> str:
    """A trace with the paper's workload it stands in for ("PC: msr_cut10k_...")."""
    paper = dict(zip(runs["trace"], runs["paper_workload"], strict=False))
    return f"{paper[trace]}: {trace}" if paper.get(trace, "-") != "-" else trace


def _display(runs: pd.DataFrame, table: pd.DataFrame) -> pd.DataFrame:
    """Row labels with the paper's workload each trace stands in for."""
    return table.rename(index=lambda t: _name(runs, t) if t in set(runs["trace"]) else t)


def _ratios(runs: pd.DataFrame, col: str, num: str, den: str) -> pd.Series:
    """`num`'s figure over `den`'s per trace (Fig. 4's runs, seeds averaged first)."""
    table = _pivot(runs, col)
    if num not in table or den not in table:
        return pd.Series(dtype=float)
    return (table[num] / table[den]).replace([math.inf, -math.inf], math.nan)


def fig8(runs: pd.DataFrame) -> pd.DataFrame:
    """Per test trace: the untrained agent (Fig. 4's RL run) and the pre-trained one, throughput
    normalised to QLC-only (mean over seeds), and the change."""
    test = runs[runs["experiment"] == "fig8-test"]
    if test.empty:
        return pd.DataFrame(columns=["untrained", "pre-trained", "change (%)"])
    traces = list(pd.unique(test["trace"]))
    untrained = _main(runs)[_main(runs)["policy"] == "RL"].groupby("trace")["throughput_norm"].mean()
    trained = test.groupby("trace")["throughput_norm"].mean()
    table = pd.DataFrame({"untrained": untrained.reindex(traces), "pre-trained": trained.reindex(traces)})
    table["change (%)"] = 100 * (table["pre-trained"] / table["untrained"] - 1)
    for col, name in (("waf", "WAF"), ("rl_mean_reward", "mean reward")):
        table[f"{name} untrained"] = _main(runs)[_main(runs)["policy"] == "RL"].groupby("trace")[col].mean()
        table[f"{name} pre-trained"] = test.groupby("trace")[col].mean()
    return table


def summary(runs: pd.DataFrame) -> pd.DataFrame:
    """Our averages beside the paper's (`PAPER`): % change of RL's figure against the others'."""

    def change(col: str, num: str, dens: tuple[str, ...]) -> float:
        ratios = pd.concat([_ratios(runs, col, num, d) for d in dens])
        return 100 * (ratios.mean() - 1) if len(ratios) else math.nan

    f8 = fig8(runs)
    ours = {
        "RL write throughput vs DWA and UST (%)": change("write_throughput_mb_s", "RL", PREVIOUS),
        "RL write throughput vs DWA (%)": change("write_throughput_mb_s", "RL", ("DWA",)),
        "RL write throughput vs UST (%)": change("write_throughput_mb_s", "RL", ("UST",)),
        "RL write throughput vs Static (%)": change("write_throughput_mb_s", "RL", ("Static",)),
        "RL write throughput vs QLC-only (%)": change("write_throughput_mb_s", "RL", (BASELINE,)),
        "RL WAF vs DWA and UST (%)": change("waf", "RL", PREVIOUS),
        "RL WAF vs DWA (%)": change("waf", "RL", ("DWA",)),
        "RL WAF vs UST (%)": change("waf", "RL", ("UST",)),
        "RL migration + GC time vs UST (%)": change("reclaim_ns", "RL", ("UST",)),
        "Pre-trained vs untrained RL write throughput, best test trace (%)": f8["change (%)"].max()
        if len(f8)
        else math.nan,
        "Pre-trained vs untrained RL write throughput, mean of the test traces (%)": f8["change (%)"].mean()
        if len(f8)
        else math.nan,
    }
    return pd.DataFrame({"ours": pd.Series(ours), "paper": pd.Series(PAPER)}).reindex(list(ours))


def control_table(runs: pd.DataFrame) -> pd.DataFrame:
    """The paper's metric for RL against its random-action control (Fig. 4's runs): per trace,
    the write throughput of RL and of RL-mean over RL-control's (seeds averaged first), and the
    mean rewards; the mean over the traces last."""
    reward = _pivot(runs, "rl_mean_reward")
    table = pd.DataFrame(
        {
            "write throughput RL / RL-control": _ratios(runs, "write_throughput_mb_s", "RL", "RL-control"),
            "write throughput RL-mean / RL-control": _ratios(
                runs, "write_throughput_mb_s", "RL-mean", "RL-control"
            ),
            "mean reward RL": reward["RL"],
            "mean reward RL-control": reward["RL-control"],
        }
    )
    return _with_mean(table)


def seed_spread(runs: pd.DataFrame) -> pd.DataFrame:
    """Per trace, the write throughput's standard deviation over seeds as a share of its mean
    (%), for RL, RL-mean and RL-control (randomness alone), NaN with one seed; the mean over the
    traces last. `RL-mean / RL` above 1: RL's exponential reward baseline narrows the spread."""
    main = _main(runs)
    names = [p for p in ("RL", "RL-mean", "RL-control") if p in set(main["policy"])]
    throughput = main[main["policy"].isin(names)].groupby(["trace", "policy"])["write_throughput_mb_s"]
    spread = (100 * throughput.std() / throughput.mean()).unstack("policy")
    traces, _ = _order(runs)
    table = _with_mean(spread.reindex(index=traces, columns=names))
    if {"RL", "RL-mean"} <= set(names):
        table["RL-mean / RL"] = table["RL-mean"] / table["RL"]
    table["seeds"] = main["seed"].nunique()
    return table


def breakdown(runs: pd.DataFrame) -> pd.DataFrame:
    """Fig. 7: each component's execution time as a share of QLC-only's total on the same trace
    (so a policy's row sums to 1 / its normalised throughput), mean over seeds; and the seconds."""
    main = _main(runs)
    traces, policies = _order(runs)
    cols = list(COMPONENTS)
    mean = main.groupby(["trace", "policy"])[[*cols, "write_exec_ns"]].mean()
    rows = []
    for t in traces:
        base = mean.loc[(t, BASELINE), "write_exec_ns"] if (t, BASELINE) in mean.index else math.nan
        for p in policies:
            if (t, p) not in mean.index:
                continue
            r = mean.loc[(t, p)]
            rows.append(
                {
                    "trace": t,
                    "policy": p,
                    **{COMPONENTS[c]: r[c] / base for c in cols},
                    "total": r["write_exec_ns"] / base,
                    "total (s)": r["write_exec_ns"] / 1e9,
                }
            )
    return pd.DataFrame(rows).set_index(["trace", "policy"])


#: The title of the table of our figures beside the paper's (the first of tables.md; verdicts.csv).
SUMMARY = "Summary: RL against the other techniques (mean of per-trace ratios)"
#: The title of `ceiling_table`'s table.
CEILING = "Ceiling: write throughput over QLC-only that the byte share of writes <= 512 KiB allows"


def tables(runs: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """The paper's figures as tables (means over seeds)."""
    out: dict[str, pd.DataFrame] = {SUMMARY: summary(runs)}
    out["Fig. 4: write throughput normalised to QLC-only"] = _display(
        runs, _with_mean(_pivot(runs, "throughput_norm"))
    )
    out["Write throughput (MB/s, host write bytes / write execution time)"] = _display(
        runs, _pivot(runs, "write_throughput_mb_s")
    )
    b = breakdown(runs)
    b.index = pd.Index([f"{_name(runs, t)} / {p}" for t, p in b.index], name="trace / policy")
    out["Fig. 7: write execution time by component, share of QLC-only's total"] = b
    out["WAF"] = _display(runs, _with_mean(_pivot(runs, "waf")))
    out["Figs. 5-6: SLC blocks, mean over the run"] = _display(runs, _pivot(runs, "slc_blocks_mean"))
    out["Figs. 5-6: SLC blocks at the end"] = _display(runs, _pivot(runs, "slc_blocks_end"))
    out["Figs. 5-6: theta at the end (KiB)"] = _display(runs, _pivot(runs, "theta_end_bytes") / 1024)
    out["Fig. 8: pre-trained vs untrained RL, write throughput normalised to QLC-only"] = _display(
        runs, fig8(runs)
    )
    out["Host pages written to SLC (share of host pages)"] = _display(
        runs,
        _pivot(runs, "slc_host_pages") / (_pivot(runs, "slc_host_pages") + _pivot(runs, "qlc_host_pages")),
    )
    out["Simulator's write latency, mean (us)"] = _display(runs, _pivot(runs, "write_mean_us"))
    out["Simulator's write latency, p99 (us)"] = _display(runs, _pivot(runs, "write_p99_us"))
    policies = set(_main(runs)["policy"])
    if {"RL", "RL-control"} <= policies:
        out["Learned vs random control: write throughput, RL / RL-control"] = _display(
            runs, control_table(runs)
        )
    if {"RL", "RL-mean"} <= policies:
        out["RL vs RL-mean: write throughput spread over seeds, std / mean (%)"] = _display(
            runs, seed_spread(runs)
        )
    rl = runs[runs["policy"].str.startswith("RL")]
    if not rl.empty:
        steps = rl.groupby(["experiment", "trace", "policy"], sort=False)[
            ["rl_steps", "rl_mean_reward", "rl_states_visited", "rl_explorations", "drive_writes"]
        ].mean()
        steps.index = pd.Index([f"{e} / {_name(runs, t)} / {p}" for e, t, p in steps.index], name="run")
        out["RL: steps and mean reward per run (mean over seeds)"] = steps
    return out
