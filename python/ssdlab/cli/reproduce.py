"""`ssdlab reproduce PAPER`: re-run a paper's experiment with one command."""

from __future__ import annotations

import time
from pathlib import Path

import click

SHARED_TRACES = Path(__file__).resolve().parents[3].parent / "shared" / "traces"


def _traces_options(what: str):
    """--trace/-t (repeatable) and --traces-dir, alike in every reproduction."""

    def apply(command):
        command = click.option(
            "--traces-dir",
            type=click.Path(file_okay=False),
            default=str(SHARED_TRACES),
            show_default="../shared/traces beside the repository",
            help=f"Where the default {what} are.",
        )(command)
        return click.option(
            "--trace", "-t", "traces", multiple=True, type=click.Path(dir_okay=False), help="Trace(s) to use."
        )(command)

    return apply


def _seeds_option(
    default: int = 1, help: str = "Repeated seeds per configuration (the `seed` key: 0, 1, ...)."
):
    """--seeds, alike in every reproduction (at least one)."""
    return click.option("--seeds", type=click.IntRange(min=1), default=default, show_default=True, help=help)


def _run_options(out: str):
    """--verify, --out/-o and where the grid runs (--jobs/-j, --backend, --address, --no-resume,
    --ship-traces: the sweep engine's options, as `ssdlab sweep` takes them), alike in every
    reproduction."""

    def apply(command):
        for option in reversed(
            (
                click.option(
                    "--verify", is_flag=True, help="Check every mapping at the end of every run (slower)."
                ),
                click.option(
                    "--jobs",
                    "-j",
                    type=click.IntRange(min=1),
                    default=None,
                    help="Parallel processes (default: one per core).",
                ),
                click.option(
                    "--backend",
                    type=click.Choice(["local", "ray"]),
                    default="local",
                    show_default=True,
                    help="Local processes, or Ray tasks (pip install ssdlab[ray]).",
                ),
                click.option(
                    "--address", default=None, help="With --backend ray: an existing cluster's address."
                ),
                click.option(
                    "--resume/--no-resume",
                    default=True,
                    show_default=True,
                    help="Reuse the runs already finished in OUT/cells (an interrupted reproduction goes on).",
                ),
                click.option(
                    "--ship-traces",
                    is_flag=True,
                    help="With --backend ray: send each trace once through the object store "
                    "(default: read from its path, which every node must share).",
                ),
                click.option("--out", "-o", type=click.Path(file_okay=False), default=out, show_default=True),
            )
        ):
            command = option(command)
        return command

    return apply


def _run(name: str, traces, traces_dir, out, jobs, backend, address, resume, ship_traces, **settings) -> None:
    """Import `ssdlab.experiments.<name>` (pandas, matplotlib: only when a command runs) and run
    its reproduction on `traces` (default: its own, under `traces_dir`) into `out`."""
    import importlib

    from ssdlab._console import console
    from ssdlab.cli.sweep import engine_statuses
    from ssdlab.experiments.common import Runner

    experiment = importlib.import_module(f"ssdlab.experiments.{name}")
    runner = Runner(processes=jobs, backend=backend, address=address, resume=resume, ship_traces=ship_traces)
    start = time.perf_counter()
    # The sweep engine's warnings, and its statuses: 3 for a directory in use by another run,
    # 143 for SIGTERM (the finished runs stay in OUT/cells).
    with engine_statuses():
        experiment.reproduce(
            [Path(t) for t in traces] or None,
            Path(out),
            shared_traces=Path(traces_dir),
            runner=runner,
            **settings,
        )
    # The full reproductions are meant to finish in minutes on 2 cores: say how long this took.
    console.print(f"wall time: {time.perf_counter() - start:.0f} s")


@click.group()
def reproduce() -> None:
    """Reproduce a paper's tables and figures."""


@reproduce.command()
@_traces_options("write-heavy real traces")
@click.option(
    "--preset", "presets", multiple=True, help="Preset(s) (default: kang-3d-128gb and kang-3d-512gb)."
)
@_seeds_option(10, "Repeated seeds per configuration (the paper: ten runs; Tables 9-10).")
@click.option(
    "--all", "include_predictors", is_flag=True, help="Also the interval predictors of Tables 11-12."
)
@click.option(
    "--quick",
    is_flag=True,
    help="CI-sized: one trace and one synthetic workload, 256 blocks per plane, two drives written, two seeds.",
)
@_run_options("results/rlgc")
def rlgc(traces, traces_dir, presets, seeds, include_predictors, quick, **run) -> None:
    """RLGC (Kang et al., TECS 2017) and its Q-table cache: Tables 5-10, Figs. 7 and 9."""
    from ssdlab.experiments import rlgc as rlgc_experiment

    _run(
        "rlgc",
        traces,
        traces_dir,
        seeds=seeds,
        include_predictors=include_predictors,
        presets=tuple(presets) or rlgc_experiment.PRESETS,
        quick=quick,
        **run,
    )


@reproduce.command()
@_traces_options("real traces of Fig. 20")
@_seeds_option()
@click.option(
    "--quick",
    is_flag=True,
    help="CI-sized: a 2 GiB drive, 60 s warm-up, 100k reads, 20 s writes, one trace.",
)
@_run_options("results/learnedftl")
def learnedftl(traces, traces_dir, seeds, quick, **run) -> None:
    """LearnedFTL (Wang et al., HPCA 2024) against DFTL, TPFTL and ideal: Figs. 3c, 14, 15, 20."""
    _run("learnedftl", traces, traces_dir, seeds=seeds, quick=quick, **run)


@reproduce.command()
@_traces_options("real traces with reads and writes")
@_seeds_option()
@click.option(
    "--quick",
    is_flag=True,
    help="CI-sized: two traces (CloudPhysics cut to its first 20,000 requests, one MSR cut).",
)
@_run_options("results/fsp")
def fsp(traces, traces_dir, seeds, quick, **run) -> None:
    """RL FSP scheduling (Li et al., TCAD 2024) on QLC: Figs. 9-14, 2/8/32 MiB caches.

    Page type-aware full-sequence program scheduling by reinforcement learning against Baseline,
    Baseline-RW, Frequency and Distance, on every real trace with reads and writes."""
    _run("fsp", traces, traces_dir, seeds=seeds, quick=quick, **run)


@reproduce.command()
@_traces_options("real traces standing in for the paper's")
@_seeds_option()
@click.option(
    "--quick",
    is_flag=True,
    help="CI-sized: Table 4's PC and YCSB-A cut to 60,000 and 12,000 requests, then a 192-block drive "
    "and two traces (the PC and TPC-C stand-ins); every mapping verified.",
)
@click.option(
    "--readings",
    is_flag=True,
    help="Instead: issue #46's readings of the paper (SLC size reserved or a cap, Algorithm 2's average) "
    "side by side, RL and its control on Table 4's workloads, large cold writes and the stand-ins.",
)
@_run_options("results/slc")
def slc(traces, traces_dir, seeds, quick, readings, **run) -> None:
    """RL SLC cache (Yoo & Shin, HotStorage 2020) on hybrid SLC/QLC: Figs. 4-8 and WAF.

    First Table 4's six workloads (the specs slc-pc ... slc-ycsb-a, at the paper's address
    spaces and total writes, from empty, at least 3 seeds), with each one's throughput ceiling;
    then QLC-only, Static, DWA, UST and the Q-learning SLC cache manager on the preset
    yoo-hybrid-qlc over the stand-in traces, each replayed until it has written 1.5 drives, and
    an agent trained on the training stand-ins against an untrained one (Fig. 8). --seeds sets
    the stand-ins' seeds, and the first table's when above 3. --readings runs the readings of
    docs/experiments/slc.md ("Readings") instead."""
    _run("slc", traces, traces_dir, seeds=seeds, quick=quick, readings=readings, **run)
