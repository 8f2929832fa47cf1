"""`ssdlab reproduce PAPER`: re-run a paper's experiment with one command."""

from __future__ import annotations

import time
from pathlib import Path

import click

from ssdlab.experiments.registry import REPRODUCTIONS, Option, Reproduction

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


def _seeds_option(default: int, help: str):
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


def _run(
    spec: Reproduction, traces, traces_dir, out, jobs, backend, address, resume, ship_traces, **settings
) -> None:
    """Run the reproduction `spec` (its package imported here: pandas, matplotlib only when a
    command runs) on `traces` (default: its own, under `traces_dir`) into `out`."""
    from ssdlab._console import console
    from ssdlab.cli.sweep import engine_statuses
    from ssdlab.experiments.common import Runner
    from ssdlab.experiments.pipeline import reproduce as run_reproduction

    runner = Runner(processes=jobs, backend=backend, address=address, resume=resume, ship_traces=ship_traces)
    start = time.perf_counter()
    # The sweep engine's warnings, and its statuses: 3 for a directory in use by another run,
    # 143 for SIGTERM (the finished runs stay in OUT/cells).
    with engine_statuses():
        run_reproduction(
            spec,
            [Path(t) for t in traces] or None,
            Path(out),
            shared_traces=Path(traces_dir),
            runner=runner,
            **settings,
        )
    # The full reproductions are meant to finish in minutes on 2 cores: say how long this took.
    console.print(f"wall time: {time.perf_counter() - start:.0f} s")


def _own_option(option: Option):
    """A reproduction's own option (`registry.Option`) as a click option."""
    return click.option(
        *option.flags, option.name, is_flag=option.is_flag, multiple=option.multiple, help=option.help
    )


def command(spec: Reproduction) -> click.Command:
    """`ssdlab reproduce NAME` for one registered reproduction: its traces, --seeds, --quick, its
    own options, and where it runs, alike in every reproduction."""

    def run(**arguments) -> None:
        _run(spec, **arguments)

    run.__doc__ = spec.help
    decorators = [
        _traces_options(spec.traces),
        _seeds_option(spec.seeds, spec.seeds_help),
        click.option("--quick", is_flag=True, help=spec.quick),
        *(_own_option(o) for o in spec.options),
        _run_options(spec.out),
    ]
    for decorator in reversed(decorators):
        run = decorator(run)
    return click.command(spec.name)(run)


def group(reproductions: tuple[Reproduction, ...] = REPRODUCTIONS) -> click.Group:
    """`ssdlab reproduce`: one command per registered reproduction, in the registry's order."""

    @click.group()
    def reproduce() -> None:
        """Reproduce a paper's tables and figures."""

    for spec in reproductions:
        reproduce.add_command(command(spec))
    return reproduce


reproduce = group()
