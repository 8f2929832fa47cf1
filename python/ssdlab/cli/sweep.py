"""`ssdlab sweep`: a grid file's cells on local cores or Ray, into one results table (the work is
in `ssdlab.sweeps`; this module parses options and prints the summary)."""

from __future__ import annotations

import os
import signal
import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from rich.markup import escape

from ssdlab._console import MISSING, fmt_duration_us, fmt_number, fmt_sig, new_table
from ssdlab.cli.common import console, console_err
from ssdlab.errors import ConfigError, InternalError, SsdlabError, SsdlabIOError, TraceFormatError

if TYPE_CHECKING:
    import pandas as pd
    from rich.table import Table

#: Exit statuses of `ssdlab sweep` (and of the reproductions, on the same engine). 2 is every
#: command's status for bad input (`ssdlab.cli.main`); 70 is sysexits' EX_SOFTWARE.
EXIT_CELL_FAILED = 1
EXIT_INPUT_REFUSED = 2
EXIT_DIRECTORY_REFUSED = 3
EXIT_INTERNAL_ERROR = 70
EXIT_TERMINATED = 128 + signal.SIGTERM

#: Rows of the summary table printed at most (the table on disk has them all).
SUMMARY_ROWS = 30
#: Failed cells listed at most, with their reasons.
FAILED_ROWS = 10


def _mean(frame: pd.DataFrame, column: str) -> float:
    if column not in frame:
        return float("nan")
    return float(frame[column].astype(float).mean())


def summary_table(frame: pd.DataFrame, axis_keys: list[str]) -> Table:
    """Per combination of axis values: runs ok of runs, and the mean over its ok seeds of the
    write tail, WAF and erases."""
    table = new_table("mean over seeds of the ok runs")
    for key in axis_keys:
        table.add_column(key, overflow="fold")
    for header in ("ok", "write p99", "write p99.99", "WAF", "erases"):
        table.add_column(header, justify="right", no_wrap=True)
    groups: Any = frame.groupby(axis_keys, sort=False, dropna=False) if axis_keys else [((), frame)]
    for shown, (values, group) in enumerate(groups):
        if shown == SUMMARY_ROWS:
            table.add_row(*(["..."] * (len(axis_keys) + 5)))
            break
        ok = group[group["status"] == "ok"]
        keys = values if isinstance(values, tuple) else (values,)
        table.add_row(
            *(str(v) for v in keys),
            f"{len(ok)}/{len(group)}",
            fmt_duration_us(_mean(ok, "write_p99_us")) if len(ok) else MISSING,
            fmt_duration_us(_mean(ok, "write_p99_99_us")) if len(ok) else MISSING,
            fmt_sig(_mean(ok, "waf")) if len(ok) else MISSING,
            fmt_number(_mean(ok, "erases"), ",.0f") if len(ok) else MISSING,
        )
    return table


def first_reason(error: str) -> str:
    """The first problem of an error: its first line, or the line after a heading such as
    "2 configuration problems:"."""
    lines = [line.strip() for line in error.strip().splitlines() if line.strip()]
    if len(lines) > 1 and lines[0].endswith(":"):
        return lines[1]
    return lines[0] if lines else ""


def failed_table(frame: pd.DataFrame, axis_keys: list[str]) -> Table:
    """The failed cells (the first few) with the first line of their reason (the table on disk
    has each cell's id and whole reason)."""
    table = new_table("failed cells")
    for key in axis_keys:
        table.add_column(key, overflow="fold")
    table.add_column("seed", justify="right", no_wrap=True)
    table.add_column("reason", overflow="fold")
    failed = frame[frame["status"] != "ok"]
    for _, row in failed.head(FAILED_ROWS).iterrows():
        table.add_row(*(str(row[k]) for k in axis_keys), str(row["seed"]), first_reason(str(row["error"])))
    if len(failed) > FAILED_ROWS:
        table.add_row(*(["..."] * len(axis_keys)), "", f"{len(failed) - FAILED_ROWS} more in the table")
    return table


def _print_error(kind: str, message: str) -> None:
    # The message is text, not markup: a grid's `[axes]` must print as written.
    console_err.print(f"[bold red]{kind}:[/] {escape(message)}", highlight=False, markup=True, soft_wrap=True)


def _debug() -> bool:
    return os.environ.get("SSDLAB_DEBUG") == "1"


@contextmanager
def engine_statuses() -> Iterator[None]:
    """What every command on the sweep engine shares (`ssdlab sweep`, the reproductions): its
    SweepWarnings printed as `warning: ...` on stderr (a damaged record set aside, a grid
    replaced, a wait for another sweep); exit status 3 for a results directory refused, 143 for
    SIGTERM (the finished cells stay recorded)."""
    from ssdlab.sweeps.errors import DirectoryRefused, SweepWarning
    from ssdlab.sweeps.lifetime import Terminated

    with warnings.catch_warnings():
        previous = warnings.showwarning

        def show(message, category, filename, lineno, file=None, line=None):  # type: ignore[no-untyped-def]
            if issubclass(category, SweepWarning):
                console_err.print(
                    f"[yellow]warning:[/] {escape(str(message))}",
                    highlight=False,
                    markup=True,
                    soft_wrap=True,
                )
            else:
                previous(message, category, filename, lineno, file, line)

        warnings.showwarning = show
        warnings.simplefilter("always", SweepWarning)
        try:
            yield
        except DirectoryRefused as e:
            if _debug():
                raise
            _print_error("error", e.message)
            sys.exit(EXIT_DIRECTORY_REFUSED)
        except Terminated:
            console_err.print("terminated (SIGTERM): the finished cells are recorded; rerun to resume")
            sys.exit(EXIT_TERMINATED)


@contextmanager
def sweep_statuses() -> Iterator[None]:
    """`engine_statuses`, and for `ssdlab sweep` one status per kind of failure: 2 for any
    refusal before a cell ran (input errors with their hint from `ssdlab.cli.main`; Ray missing
    or out of reach here), 3 for a results directory that cannot be written (an OSError: full,
    read-only), 70 for an internal error (a bug: no traceback unless SSDLAB_DEBUG=1), so that 1
    means a cell failed and nothing else."""
    with engine_statuses():
        try:
            yield
        except (ConfigError, TraceFormatError, SsdlabIOError):
            raise  # status 2, as every command's, from ssdlab.cli.main
        except InternalError as e:
            if _debug():
                raise
            _print_error("internal error", f"{e.message} (a bug in ssdlab: please report it)")
            sys.exit(EXIT_INTERNAL_ERROR)
        except SsdlabError as e:
            if _debug():
                raise
            _print_error("error", e.message)
            sys.exit(EXIT_INPUT_REFUSED)
        except OSError as e:  # the results directory: full, read-only, gone meanwhile
            if _debug():
                raise
            _print_error("error", f"cannot write the results: {e}")
            sys.exit(EXIT_DIRECTORY_REFUSED)
        except Exception as e:
            if _debug():
                raise
            _print_error(
                "internal error",
                f"{type(e).__name__}: {e} (a bug in ssdlab: please report it, with the traceback "
                "SSDLAB_DEBUG=1 shows)",
            )
            sys.exit(EXIT_INTERNAL_ERROR)


@click.command()
@click.argument("grid_file", metavar="GRID.toml", type=click.Path(dir_okay=False))
@click.option(
    "--out",
    "-o",
    required=True,
    type=click.Path(file_okay=False),
    help="Results directory: results.parquet, reports/, cells/ (one record per cell), grid.toml and "
    "sweep.lock (held while a sweep writes into it).",
)
@click.option(
    "--backend",
    type=click.Choice(["local", "ray"]),
    default="local",
    show_default=True,
    help="Where cells run: a process pool on this machine, or Ray (pip install ssdlab[ray]).",
)
@click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=1),
    default=None,
    help="Local processes, or the CPUs of the Ray instance started here (default: one per core).",
)
@click.option(
    "--address",
    default=None,
    metavar="ADDR",
    help="With --backend ray: the address of an existing Ray cluster (default: start a local instance).",
)
@click.option(
    "--ship-traces",
    is_flag=True,
    help="With --backend ray: send each trace file once through Ray's object store (no shared file system).",
)
@click.option("--no-resume", "no_resume", is_flag=True, help="Run every cell again, even those already done.")
@click.option(
    "--retry-failed", is_flag=True, help="Run the cells that failed before again (resuming the rest)."
)
@click.option(
    "--wait",
    is_flag=True,
    help="If another sweep is writing into --out, wait for it to end, then resume (default: refuse, exit 3).",
)
@click.option(
    "--replace-grid",
    is_flag=True,
    help="If --out holds another grid's results, replace its grid.toml and results.parquet with this "
    "grid's (its cell records and reports stay; default: refuse, exit 3).",
)
# The whole command runs inside sweep_statuses (a contextmanager is also a decorator).
@sweep_statuses()
def sweep(
    grid_file: str,
    out: str,
    backend: str,
    jobs: int | None,
    address: str | None,
    ship_traces: bool,
    no_resume: bool,
    retry_failed: bool,
    wait: bool,
    replace_grid: bool,
) -> None:
    """Run every cell of a grid file (axes x seeds, minus excludes) into one results table.

    A cell is one configuration and seed; its id is a hash of its resolved configuration (traces
    by content), so a rerun into the same --out skips the cells already done: a sweep that was
    stopped, even killed, resumes where it was. A cell that fails (an invalid configuration, a
    run that stops) is recorded with its reason and the others run on. A cell record that is
    damaged, or another cell's, is set aside (cells/<id>.json.bad, with a warning) and its cell
    runs again. One sweep at a time writes into a directory. The grid format and the table's
    columns: docs/sweeps.md.

    \b
    Exit status:
      0    every cell ok
      1    the sweep ran, and a cell failed (the table is complete all the same)
      2    refused: the grid file, an option or the backend (nothing ran)
      3    refused: --out is in use by another sweep (see --wait), holds another grid's
           results (see --replace-grid), a table or record of another schema or tool, or
           cannot be written
      70   internal error (a bug in ssdlab; SSDLAB_DEBUG=1 shows the traceback)
      130  interrupted (^C), 143 terminated (SIGTERM): finished cells are kept, rerun to resume

    \b
    Examples:
      ssdlab sweep docs/examples/sweep_gc.toml -o results/sweep_gc
      ssdlab sweep grid.toml -o results/g --backend ray --jobs 8
      ssdlab sweep grid.toml -o results/g --backend ray --address 10.0.0.1:6379 --ship-traces
    """
    from ssdlab.sweeps import outcomes_by_status, run_sweep

    result = run_sweep(
        grid_file,
        out=out,
        backend=backend,
        processes=jobs,
        address=address,
        resume=not no_resume,
        ship_traces=ship_traces,
        retry_failed=retry_failed,
        wait=wait,
        replace_grid=replace_grid,
    )
    counts = outcomes_by_status(result.outcomes)
    axis_keys = result.grid.axis_keys
    if len(result.frame):
        console.print(summary_table(result.frame, axis_keys))
    if counts["failed"]:
        console.print(failed_table(result.frame, axis_keys))
    resumed = f", {counts['resumed']} from an earlier run" if counts["resumed"] else ""
    console.print(
        f"{len(result.outcomes)} cells: {counts['ok']} ok, {counts['failed']} failed{resumed}",
        highlight=False,
    )
    out_dir = Path(out)
    # soft_wrap: a long path stays on one line (copyable), not folded at the terminal width.
    console.print(f"  table:   {result.table_path}", highlight=False, soft_wrap=True)
    console.print(f"  reports: {out_dir / 'reports'}", highlight=False, soft_wrap=True)
    if counts["failed"]:
        sys.exit(EXIT_CELL_FAILED)
