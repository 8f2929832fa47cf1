"""Reproduction of Yoo & Shin, "Reinforcement Learning-Based SLC Cache Technique for Enhancing SSD
Write Performance", HotStorage 2020, Sec. 4: Fig. 4 (write throughput normalised to QLC-only),
Figs. 5 and 6 (SLC blocks and the hot/cold threshold theta every 128 MB of host writes), Fig. 7
(write execution time by component), the WAF comparison and Fig. 8 (a pre-trained agent against
an untrained one), with the averages Sec. 4 quotes.

The SLC cache policies, each an `slc.policy` on the preset `yoo-hybrid-qlc` (the paper's drive:
one 32 GB QLC chip of 2,138 blocks of 1,024 16 KB pages, 256 in SLC mode, modelled as 4 KiB
pages with Table 1's timings divided by four; 3 % over-provisioning, a 144 KB write buffer,
migration and GC below 5 free blocks):

* QLC-only (`none`): every block in QLC mode, the paper's normalisation baseline;
* Static (`static`): a fixed SLC region of `STATIC_SHARE` (10 %) of the blocks and theta =
  32 KiB. Sec. 2.1 describes the static scheme but Fig. 4 leaves it out; the size and threshold
  are ours (theta as DWA's), so that a fixed cache sits beside the dynamic ones;
* DWA (`dwa`): SLC size from the space utilisation, Table 2's setting 1, theta 32 KB (Sec. 4);
* UST (`ust`): every write to SLC first, at most MAX_SLC = 6 SLC blocks per logical block, SLC
  GC keeping hot data in SLC (SLC-to-SLC) and moving cold data out (Sec. 4);
* RL (`rl`): the paper's Q-learning agent (Algorithms 1 and 2), one decision per eight SLC
  blocks of host writes, epsilon 0.07.

Beside them, not the paper's: RL-control, the agent with every action drawn at random
(`slc.rl.random_control`; the same states and steps), so that what RL gains by learning can be
told apart from what its action set gives alone; and RL-mean, the agent rewarded against the
mean of the cost over all steps (`slc.rl.reward_baseline = "all_steps"`, the paper's literal
wording) instead of RL's exponential moving average (the default), to see what the reward
baseline does to the spread over seeds. Neither is pre-trained
(Fig. 8 trains RL only).

Two parts (issue #33). First, Table 4's six workloads as the specs built from the paper's figures
(`PAPER_WORKLOADS`: address space, total writes, mean size, the byte shares of four size classes;
docs/workloads.md), each at the paper's length on the paper's drive from empty, no address folded
(`PAPER_UTILIZATION`), `PAPER_SEEDS` seeds, with `PAPER_POLICIES`: paper_runs.csv, the tables
titled `PAPER_PART` and verdicts.csv. Beside Fig. 4: the ceiling each workload's byte share of
writes of at most 512 KiB allows (`throughput_ceiling`, on the stream the runs wrote), DWA's
utilisation reached against Table 2 (`dwa_table`), UST's SLC blocks per logical block written
against its budget of 6 (`ust_table`) and issue #33's checks (`paper_checks`). Then the stand-in
real traces below (runs.csv and the tables under the figures' names), the part this module ran
before.

The set-up of the stand-in part and where it differs from the paper's:

* Traces. The paper's six traces (PC, Phone, TPC-C, OLTP, LinkBench, YCSB-A; Table 4) are not
  public. Each is stood in for by a real trace of ../shared/traces with writes (`STAND_INS`,
  with the reason for each), chosen by what the SLC policies react to: the write sizes against
  theta (every stand-in's writes are at most 128 KiB but for Tencent's 5 %, where the paper's
  traces have 20-96 % above 512 KB) and how often data is rewritten. The excerpts' write
  footprints (23 MiB to 0.8 GiB, packed at the front of the drive with `fold = "compact"`) are
  far smaller than the paper's address spaces (1 to 30 GB of 32): the space utilisation stays
  low (DWA keeps its largest SLC region, 56 %), and every pass rewrites the same small set of
  pages, so little data is cold at the scale of an SLC cache of gigabytes. `fill` (not the
  paper's set-up) writes part of the drive before the trace, to see what utilisation changes.
* Length. Each trace is replayed back to back (`workload.repeat`) until the host has written
  about `DRIVE_WRITES` (1.5) times the logical capacity (the paper's traces write 0.8 to 3 times
  the 32 GB drive), at most `MAX_REQUESTS` requests: a probe run of one pass on QLC-only says how
  many bytes a pass writes. Where the cap stops a trace earlier, setup.csv says how many drives
  it wrote. The drive starts empty (the paper's Fig. 2 at 0 % utilisation; Sec. 4 names no
  warm-up); the host addresses `UTILIZATION` (90 %) of the logical space, which leaves Static's
  fixed region room in the spare.
* Replay. Closed loop, one request outstanding (`REPLAY`), not at the traces' timestamps: the
  paper's simulator counts flash operations per request, and nothing here depends on time (no
  policy migrates in idle time), so the execution-time components are the same either way
  (checked on TPC-C), while an open-loop replay of a trace the QLC drive cannot keep up with
  queues millions of requests. The simulator's write latency is then a request's service time.
* Write throughput is the paper's (Sec. 4: the simulator counts flash operations per write):
  host write bytes over the write execution time, the sum of Fig. 7's components (the flash
  array time of SLC and QLC host programs, SLC-to-QLC migration, QLC-to-QLC GC and, for UST,
  SLC-to-SLC GC). The simulator's own write MB/s (host bytes over the simulated time of the
  closed-loop replay) and write latency are in runs.csv too.
* Averages. The paper's "on average over the previous techniques" is read as the arithmetic
  mean, over every trace and both of DWA and UST, of RL's per-trace ratio to that technique
  (seeds averaged first); the paper does not say how it averages.
* Fig. 8. An agent is trained on the stand-ins of PC, Phone, YCSB-A and LinkBench in that
  order (each run loads the Q-table the one before saved, `slc.rl.load_qtable` /
  `slc.rl.save_qtable`, and keeps learning), then runs the stand-ins of TPC-C and OLTP with that
  table (still learning, as the paper's agent "adapts"); the untrained agent is Fig. 4's RL run
  on the same trace and seed. The trained table is saved as qtable_pretrained.json.

Beside them, issue #46's readings (`readings`, `pipeline.reproduce("slc", ..., readings=True)`: `ssdlab
reproduce slc --readings`): where the paper's text leaves the simulator a choice (the SLC size a
reservation, a cap, or a cap in free space shared with QLC, `slc.region`; what Algorithm 2's
average averages, `slc.rl.reward_baseline`), each reading's RL and its control on Table 4's
workloads, two workloads of large cold writes of ours (`LARGE_COLD`, `LARGE_COLD_WIDE`) and the
stand-ins, with Static and DWA under each region reading.

Modules, one job each: `settings` (the policies, the stand-ins, Table 4's workloads, the sizes of
a run and the drive), `grid` (the probe, the plans and Fig. 4-7's runs), `training` (Fig. 8's
stages), `paper` (the part on Table 4's workloads: its runs, streams, tables and checks),
`results` (a run's figures and the frames made of them), `analysis` (the stand-in part's
tables), `figures` (the plots), `readings` (issue #46's readings); the reproduction's steps (`PARTS`:
`prepare` and `run`, for `pipeline.reproduce`) here.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, replace
from pathlib import Path

import pandas as pd

from ssdlab._console import console
from ssdlab.experiments.common import (
    EXPLORATION_TITLE,
    Job,
    choose_traces,
    exploration_table,
    print_frame,
    verified,
    write_verdicts,
)
from ssdlab.experiments.pipeline import Choice, Context, Outcome, Parts
from ssdlab.experiments.slc.analysis import (
    CEILING,
    SUMMARY,
    breakdown,
    ceiling_table,
    control_table,
    fig8,
    seed_spread,
    summary,
    tables,
)
from ssdlab.experiments.slc.figures import PLOTS, learning_plots, paper_plot, plots
from ssdlab.experiments.slc.grid import (
    MAX_THRESHOLD_BYTES,
    check,
    jobs,
    plan,
    probe,
    small_write_byte_share,
    throughput_ceiling,
)
from ssdlab.experiments.slc.grid import _probe_worker as _probe_worker
from ssdlab.experiments.slc.paper import _NOT_IN_PAPER_PART as _NOT_IN_PAPER_PART
from ssdlab.experiments.slc.paper import (
    LOGICAL_BLOCK_BYTES,
    PAPER_PART,
    PAPER_SAMPLE_BYTES,
    UST_BUDGET,
    _stream_worker,
    dwa_table,
    paper_ceiling_table,
    paper_checks,
    paper_jobs,
    paper_setup,
    paper_summary,
    paper_tables,
    stream_jobs,
    ust_table,
)
from ssdlab.experiments.slc.paper import _table2_blocks as _table2_blocks
from ssdlab.experiments.slc.readings import READINGS, STAND_IN_READINGS, reproduce_readings
from ssdlab.experiments.slc.results import _worker, measure, normalise, rewards_frame, series_frame
from ssdlab.experiments.slc.settings import (
    BASELINE,
    COMPONENTS,
    DRIVE_WRITES,
    LARGE_COLD,
    LARGE_COLD_WIDE,
    MAX_REQUESTS,
    PAPER,
    PAPER_DRIVE,
    PAPER_POLICIES,
    PAPER_SEEDS,
    PAPER_UTILIZATION,
    PAPER_WORKLOADS,
    POLICIES,
    PRESET,
    PREVIOUS,
    QUICK,
    QUICK_TRACES,
    QUICK_WORKLOADS,
    RECLAIM,
    REPLAY,
    STAND_INS,
    STATIC_SHARE,
    STATIC_THRESHOLD_BYTES,
    TRAINING_ORDER,
    UTILIZATION,
    Settings,
    StandIn,
    Trace,
    drive,
    traces_of,
)
from ssdlab.experiments.slc.training import (
    pretrained_jobs,
    pretrained_path,
    qtable_path,
    training_jobs,
    training_traces,
)

__all__ = [
    "BASELINE",
    "CEILING",
    "COMPONENTS",
    "DRIVE_WRITES",
    "LARGE_COLD",
    "LARGE_COLD_WIDE",
    "LOGICAL_BLOCK_BYTES",
    "MAX_REQUESTS",
    "MAX_THRESHOLD_BYTES",
    "PAPER",
    "PAPER_DRIVE",
    "PAPER_PART",
    "PAPER_POLICIES",
    "PAPER_SAMPLE_BYTES",
    "PAPER_SEEDS",
    "PAPER_UTILIZATION",
    "PAPER_WORKLOADS",
    "PLOTS",
    "POLICIES",
    "PRESET",
    "PREVIOUS",
    "QUICK",
    "QUICK_TRACES",
    "QUICK_WORKLOADS",
    "READINGS",
    "RECLAIM",
    "REPLAY",
    "STAND_INS",
    "STAND_IN_READINGS",
    "STATIC_SHARE",
    "STATIC_THRESHOLD_BYTES",
    "SUMMARY",
    "TRAINING_ORDER",
    "UST_BUDGET",
    "UTILIZATION",
    "Settings",
    "StandIn",
    "Trace",
    "breakdown",
    "ceiling_table",
    "check",
    "control_table",
    "drive",
    "dwa_table",
    "fig8",
    "jobs",
    "learning_plots",
    "measure",
    "normalise",
    "paper_ceiling_table",
    "paper_checks",
    "paper_jobs",
    "paper_plot",
    "paper_setup",
    "paper_summary",
    "paper_tables",
    "plan",
    "plots",
    "pretrained_jobs",
    "pretrained_path",
    "probe",
    "qtable_path",
    "reproduce_readings",
    "rewards_frame",
    "seed_spread",
    "series_frame",
    "small_write_byte_share",
    "stream_jobs",
    "summary",
    "tables",
    "throughput_ceiling",
    "traces_of",
    "training_jobs",
    "training_traces",
    "ust_table",
]


@dataclass(frozen=True)
class Plan:
    """A run of the reproduction, prepared: its settings, traces and whether it runs the
    readings instead."""

    settings: Settings
    loads: list[Trace]
    verify: bool
    readings: bool


def prepare(choice: Choice) -> Plan:
    """The settings (`quick`: the CI-sized grid, `QUICK`, every mapping verified; option `fill`
    writes that share of the drive before each trace, `Settings.fill`, not the paper's), the
    stand-in traces, and option `readings`: issue #46's readings instead
    (`readings.reproduce_readings`: readings.md, readings_runs.csv, readings_series.csv, the
    region-size figure on YCSB-A). Every run's configuration, traces included, is checked before
    the first starts."""
    quick, seeds = choice.quick, choice.seeds
    base = QUICK if quick else Settings()
    settings = replace(
        base,
        seeds=seeds,
        fill=choice.options.get("fill"),
        paper_seeds=max(base.paper_seeds, 1 if quick else seeds),
    )
    verify = choice.verify or quick
    traces = list(choice.traces) if choice.traces else None
    paths = choose_traces(traces, choice.shared_traces, QUICK_TRACES if quick else tuple(STAND_INS))
    loads = traces_of(paths)
    readings = bool(choice.options.get("readings"))
    if not readings:
        paper_grid = verified(paper_jobs(settings)) if verify else paper_jobs(settings)
        dummy = {t.label: {"repeat": 1} for t in loads}
        check([*paper_grid, *jobs(loads, settings, dummy)])
    return Plan(settings, loads, verify, readings)


def run(ctx: Context, prepared: Plan) -> Outcome:
    """The first table's runs (Table 4's workloads) beside Fig. 4-7's on the stand-ins, then
    Fig. 8's training stages and pre-trained runs (they pass Q-tables through files in
    `out/qtables`, so on a Ray cluster `out` must be a path every node shares); or the
    readings."""
    settings, loads, verify, out, runner = (
        prepared.settings,
        prepared.loads,
        prepared.verify,
        ctx.out,
        ctx.runner,
    )
    if prepared.readings:
        return Outcome(
            reproduce_readings(out, settings, loads, runner, verify=verify),
            tables_file=None,
            files="readings.md, readings_runs.csv, readings_series.csv, readings_*_slc_blocks.png",
        )
    train = training_traces(loads)
    test = [t for t in loads if t.role == "test"] if train else []
    paper_grid = verified(paper_jobs(settings)) if verify else paper_jobs(settings)
    d = drive(settings)
    pd_ = drive(PAPER_DRIVE)
    console.print(
        f"First table: {len(settings.workloads)} Table 4 workloads x {len(PAPER_POLICIES)} policies x "
        f"{settings.paper_seeds} seed(s) on the empty {PRESET} ({pd_['blocks']} blocks), "
        "each as long as the paper's trace"
        + (
            " (cut: " + ", ".join(f"{k} {v:,}" for k, v in settings.workload_requests) + " requests)"
            if settings.workload_requests
            else ""
        )
    )
    streams = pd.DataFrame(ctx.run(stream_jobs(settings), _stream_worker))
    console.print(
        f"Probe: one pass of each of {len(loads)} traces on the empty QLC-only drive "
        f"({PRESET}, {d['blocks']} blocks, {d['logical_bytes'] / 2**30:.1f} GiB logical)"
    )
    probes = probe(loads, settings, runner)
    plans = {t.label: plan(t, settings, probes[probes["trace"] == t.label].iloc[0].to_dict()) for t in loads}
    setup = pd.DataFrame(plans.values())
    setup.to_csv(out / "setup.csv", index=False)
    print_frame(
        f"Set-up per trace ({setup['start'].iloc[0]} start)", setup.drop(columns=["path"]).set_index("trace")
    )

    def checked(grid: list[Job]) -> list[Job]:
        grid = verified(grid) if verify else grid
        check(grid)
        return grid

    main = checked(jobs(loads, settings, plans))
    (out / "qtables").mkdir(exist_ok=True)
    stages = [checked(training_jobs(train, settings, plans, out, k)) for k in range(len(train))]
    tests = checked(pretrained_jobs(test, settings, plans, out)) if test else []
    total = len(main) + sum(map(len, stages)) + len(tests)
    console.print(
        f"{total} runs: {len(loads)} traces x {len(POLICIES)} policies x {settings.seeds} seed(s)"
        + (
            f"; Fig. 8: training on {', '.join(t.label for t in train)}, then {len(tests)} pre-trained run(s)"
            if tests
            else "; Fig. 8 skipped (needs a training and a test stand-in among the traces)"
        )
    )
    # The first training stage needs nothing before it: it runs beside Fig. 4's grid, and both
    # beside the first table's runs (one grid keeps both cores busy to its end).
    first = stages[0] if tests else []
    results = ctx.run([*paper_grid, *main, *first], _worker)
    paper_results, results = results[: len(paper_grid)], results[len(paper_grid) :]
    if tests:
        for k in range(1, len(stages)):
            results += ctx.run(stages[k], _worker)
        for seed in range(settings.seeds):
            shutil.copyfile(qtable_path(out, seed, len(stages) - 1), pretrained_path(out, seed))
        results += ctx.run(tests, _worker)
    series = series_frame(results)
    series.to_csv(out / "series.csv", index=False)
    reward_rows = rewards_frame(results)
    reward_rows.to_csv(out / "rewards.csv", index=False)
    runs = pd.DataFrame([{k: v for k, v in r.items() if not k.startswith("_")} for r in results])
    runs.insert(0, "preset", PRESET)
    runs["paper_workload"] = [plans[t]["paper_workload"] for t in runs["trace"]]
    runs["drive_writes"] = runs["host_write_bytes"] / d["logical_bytes"]
    runs = normalise(runs)
    runs.to_csv(out / "runs.csv", index=False)
    # The first table: Table 4's workloads.
    paper_runs = pd.DataFrame([{k: v for k, v in r.items() if not k.startswith("_")} for r in paper_results])
    paper_runs.insert(0, "preset", PRESET)
    paper_runs["paper_workload"] = "-"
    paper_runs["spec"] = [j.setup.workload for j in paper_grid]
    paper_runs["drive_writes"] = paper_runs["host_write_bytes"] / pd_["logical_bytes"]
    paper_runs["utilization_end"] = paper_runs["valid_pages_end"] * pd_["page_bytes"] / pd_["logical_bytes"]
    paper_runs = normalise(paper_runs)
    paper_runs.to_csv(out / "paper_runs.csv", index=False)
    paper_set = paper_setup(streams, paper_runs, pd_)
    paper_set.to_csv(out / "paper_setup.csv", index=False)
    paper_series = series_frame(paper_results)
    paper_series.to_csv(out / "paper_series.csv", index=False)
    paper_reward_rows = rewards_frame(paper_results)
    paper_reward_rows.to_csv(out / "paper_rewards.csv", index=False)
    paper = paper_tables(paper_runs, paper_set, pd_)
    result = {f"{PAPER_PART}: {title}": table for title, table in paper.items()}
    result["Table 4 workloads: what the runs wrote, per seed"] = paper_set.set_index(["trace", "seed"])
    result.update(tables(runs))
    result[CEILING] = ceiling_table(runs, setup)
    for title, frame in ((f"{PAPER_PART}: {EXPLORATION_TITLE}", paper_runs), (EXPLORATION_TITLE, runs)):
        explored = exploration_table(frame, ["experiment", "policy"])
        if explored is not None:
            result[title] = explored
    preamble = (
        f"First Table 4's six workloads, built from the paper's published figures (docs/workloads.md), "
        f"on the paper's drive ({PRESET}, {pd_['blocks']} blocks, {pd_['logical_bytes'] / 2**30:.2f} GiB "
        f"logical, {PAPER_UTILIZATION:.0%} of it addressed: no address folded) from empty, each as long "
        f"as the paper's trace{' (cut for CI)' if settings.workload_requests else ''}, "
        f"{settings.paper_seeds} seed(s); the tables titled '{PAPER_PART}'. Then the stand-in real "
        "traces (the tables under their figures' names):\n\n"
        f"Preset {PRESET} ({d['blocks']} blocks, {d['logical_bytes'] / 2**30:.2f} GiB logical), "
        + (f"{settings.fill:.0%} of it written before each trace" if settings.fill else "empty start")
        + f", each trace replayed back to back up to {settings.drive_writes} logical capacities of "
        f"host writes or {settings.max_requests:,} requests, {settings.seeds} seed(s). Throughput is "
        "host write bytes over the write execution time (Fig. 7's components). Averages: arithmetic "
        "means over the traces of RL's per-trace ratio to each technique (seeds averaged first).\n\n"
        "Stand-ins: "
        + "; ".join(f"{t.paper} = {t.label}" for t in loads if t.stand_in)
        + (f". Fig. 8: trained on {', '.join(t.label for t in train)}." if tests else ".")
    )

    def verdicts(path: Path) -> pd.DataFrame:
        # verdicts.csv: the first table's headlines against the paper's, then issue #33's checks.
        mechanical = write_verdicts(path, result[f"{PAPER_PART}: {SUMMARY}"])
        checks = paper_checks(
            result[f"{PAPER_PART}: {SUMMARY}"],
            paper[CEILING],
            paper["DWA against Static: utilisation reached and SLC size (Table 2, setting 1)"],
            paper["UST: SLC blocks per logical block written (budget 6)"],
        )
        frame = pd.concat([mechanical, checks], ignore_index=True)
        frame.to_csv(path, index=False)
        return frame

    def figures(out: Path) -> None:
        plots(runs, series, reward_rows, out)
        learning_plots(results, out)
        paper_plot(paper_runs, paper[CEILING], out)
        (out / "paper").mkdir(exist_ok=True)
        plots(paper_runs, paper_series, paper_reward_rows, out / "paper")

    paper_printed = (
        SUMMARY,
        "Fig. 4: write throughput normalised to QLC-only",
        CEILING,
        "DWA against Static: utilisation reached and SLC size (Table 2, setting 1)",
        "UST: SLC blocks per logical block written (budget 6)",
    )
    stand_in_printed = (SUMMARY, "Fig. 4: write throughput normalised to QLC-only", CEILING)
    return Outcome(
        result,
        preamble=preamble,
        verdicts=verdicts,
        figures=figures,
        printed=[(f"{PAPER_PART}: {n}", result[f"{PAPER_PART}: {n}"]) for n in paper_printed]
        + [(f"Stand-in traces: {n}", result[n]) for n in stand_in_printed],
        files="paper_setup.csv, paper_runs.csv, paper_series.csv, paper_rewards.csv, "
        "setup.csv, runs.csv, series.csv, rewards.csv, tables.md, verdicts.csv, paper_fig4_throughput.png, "
        f"paper/ (Figs. 4-7 on Table 4's workloads), {', '.join(PLOTS)}, "
        "learning_curves_*.png" + (", qtable_pretrained.json" if tests else ""),
    )


#: The reproduction's steps for `pipeline.reproduce`.
PARTS = Parts(prepare, run)
