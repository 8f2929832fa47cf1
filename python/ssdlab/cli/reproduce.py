"""`ssdlab reproduce PAPER`: re-run a paper's experiment with one command."""

from __future__ import annotations

from pathlib import Path

import click

SHARED_TRACES = Path(__file__).resolve().parents[3].parent / "shared" / "traces"


@click.group()
def reproduce() -> None:
    """Reproduce a paper's tables and figures."""


@reproduce.command()
@click.option(
    "--trace", "-t", "traces", multiple=True, type=click.Path(dir_okay=False), help="Trace(s) to use."
)
@click.option(
    "--traces-dir",
    type=click.Path(file_okay=False),
    default=str(SHARED_TRACES),
    show_default="../shared/traces beside the repository",
    help="Where the default write-heavy real traces are.",
)
@click.option(
    "--preset", "presets", multiple=True, help="Preset(s) (default: kang-3d-128gb and kang-3d-512gb)."
)
@click.option(
    "--seeds",
    default=10,
    show_default=True,
    help="Repeated seeds per configuration (the paper: ten runs; Tables 9-10).",
)
@click.option(
    "--all", "include_predictors", is_flag=True, help="Also the interval predictors of Tables 11-12."
)
@click.option(
    "--quick",
    is_flag=True,
    help="CI-sized: one trace and one synthetic workload, 256 blocks per plane, two drives written, two seeds.",
)
@click.option("--verify", is_flag=True, help="Check every mapping at the end of every run (slower).")
@click.option("--jobs", "-j", type=int, default=None, help="Parallel processes (default: one per core).")
@click.option("--out", "-o", type=click.Path(file_okay=False), default="results/rlgc", show_default=True)
def rlgc(traces, traces_dir, presets, seeds, include_predictors, quick, verify, jobs, out) -> None:
    """RLGC (Kang et al., TECS 2017) and its Q-table cache: Tables 5-10, Figs. 7 and 9."""
    from ssdlab.experiments import rlgc as rlgc_experiment

    rlgc_experiment.reproduce(
        [Path(t) for t in traces] or None,
        Path(out),
        seeds=seeds,
        include_predictors=include_predictors,
        presets=tuple(presets) or rlgc_experiment.PRESETS,
        processes=jobs,
        shared_traces=Path(traces_dir),
        quick=quick,
        verify=verify,
    )
