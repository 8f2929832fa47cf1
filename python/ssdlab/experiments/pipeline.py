"""Layer: Python, experiments. The one reproduction pipeline: `reproduce` runs any registered
reproduction (`registry.REPRODUCTIONS`) in the same steps. The paper's `Parts.prepare` turns
what was asked (`Choice`) into its settings and traces, every configuration checked before
anything is written; the output directory is made and the runner set to keep each finished run
in `out/cells`; `Parts.run` runs the paper's grids on the sweep engine (`Context.run`, the one
worker reading each run's figures, `common.run_jobs`) and hands back an `Outcome`: its tables,
its verdict rules and its figures, which the pipeline writes (tables.md, verdicts.csv, the
plots), prints and lists."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ssdlab._console import console
from ssdlab.experiments.common import Job, Pick, Runner, print_frame, run_jobs, write_tables
from ssdlab.experiments.registry import Reproduction, reproduction

if TYPE_CHECKING:
    import pandas as pd


@dataclass(frozen=True)
class Choice:
    """What a reproduction was asked to run: `traces` (None: its own, under `shared_traces`),
    `seeds`, `quick` (its CI-sized grid), `verify` (every mapping checked at the end of every
    run, a lost page failing the run) and its own `options` (`registry.Option`)."""

    traces: tuple[Path, ...] | None = None
    shared_traces: Path | None = None
    seeds: int = 1
    quick: bool = False
    verify: bool = False
    options: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Context:
    """Where a reproduction writes (`out`) and runs its grids (`runner`, keeping its runs in
    `out/cells`, so that an interrupted reproduction resumes)."""

    out: Path
    runner: Runner

    def run(self, jobs: Sequence[Job], pick: Pick, share_warmups: bool = False) -> list[dict[str, Any]]:
        """Run a grid: `pick`'s row of each job's run, in job order (`common.run_jobs`)."""
        return run_jobs(jobs, pick, self.runner, share_warmups)


@dataclass
class Outcome:
    """What a reproduction's parts produced, for the pipeline to write: `tables` (tables.md in
    this order under `preamble`, unless `tables_file` is None; what `reproduce` returns unless
    `returned` says otherwise), its verdict rules (`verdicts`: writes verdicts.csv at the path
    given and returns it), its figures (`figures`: draws the plots into the directory given),
    the tables to print (`printed`) and the files to name (`files`)."""

    tables: dict[str, pd.DataFrame]
    preamble: str = ""
    verdicts: Callable[[Path], pd.DataFrame] | None = None
    figures: Callable[[Path], None] | None = None
    printed: Sequence[tuple[str, pd.DataFrame]] = ()
    files: str = ""
    returned: dict[str, pd.DataFrame] | None = None
    tables_file: str | None = "tables.md"


@dataclass(frozen=True)
class Parts:
    """A paper's half of its reproduction, its package's `PARTS`: `prepare` (the settings and
    traces of a `Choice`, every configuration checked; nothing written) and `run` (the grids, on
    the `Context`, from what `prepare` returned, into an `Outcome`)."""

    prepare: Callable[[Choice], Any]
    run: Callable[[Context, Any], Outcome]


def parts_of(spec: Reproduction) -> Parts:
    """The `Parts` of a reproduction (its package imported now: pandas, matplotlib)."""
    return importlib.import_module(spec.package).PARTS


def reproduce(
    name: str | Reproduction,
    traces: Sequence[Path] | None,
    out: Path,
    *,
    seeds: int | None = None,
    quick: bool = False,
    verify: bool = False,
    runner: Runner | None = None,
    shared_traces: Path | None = None,
    **options: Any,
) -> dict[str, pd.DataFrame]:
    """Run the reproduction `name` (registered, or a `Reproduction` of your own) into `out`:
    on `traces` (default: its own under `shared_traces`), `seeds` seeds (default: its own),
    `quick` its CI-sized grid, `verify` checking every mapping at the end of every run, `runner`
    saying where the grids run (local processes by default; finished runs kept in `out/cells`
    and reused), `options` its own (`registry.Option`). Returns its tables."""
    spec = reproduction(name) if isinstance(name, str) else name
    parts = parts_of(spec)
    choice = Choice(
        tuple(Path(t) for t in traces) if traces else None,
        shared_traces,
        spec.seeds if seeds is None else seeds,
        quick,
        verify,
        options,
    )
    plan = parts.prepare(choice)
    out.mkdir(parents=True, exist_ok=True)
    outcome = parts.run(Context(out, (runner or Runner()).under(out)), plan)
    if outcome.tables_file is not None:
        write_tables(out / outcome.tables_file, outcome.tables, outcome.preamble)
    verdicts = outcome.verdicts(out / "verdicts.csv") if outcome.verdicts is not None else None
    if outcome.figures is not None:
        outcome.figures(out)
    for title, frame in outcome.printed:
        print_frame(title, frame)
    if verdicts is not None:
        print_frame("Verdicts (verdicts.csv)", verdicts.set_index("headline"))
    console.print(f"\nresults: {out}/ ({outcome.files})")
    return outcome.tables if outcome.returned is None else outcome.returned
