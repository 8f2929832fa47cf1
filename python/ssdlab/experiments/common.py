"""Layer: Python, experiments. Helpers shared by the experiments and by `ssdlab compare`: a grid
of simulation jobs run on the sweep engine (local processes or Ray, resumable), the choice of
traces, and the files every reproduction writes (tables.md, verdicts.csv)."""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ssdlab._console import console, fmt_sig
from ssdlab.errors import ConfigError, SsdlabError
from ssdlab.exploration import MEANING, run_columns
from ssdlab.sweeps.job import Job, WarmGroup

if TYPE_CHECKING:
    import pandas as pd

    from ssdlab.report import Report


class Measured:
    """One job's run as a worker reads it: `report` (the job run on first use, so that a worker
    that needs no simulation, a stream's statistics, runs none), `figures` (`run_figures` of
    it: the per-run figures every results table holds) and `wall_s` (how long the run took)."""

    def __init__(self, job: Job) -> None:
        self._job = job
        self._report: Report | None = None
        self._figures: dict[str, Any] | None = None
        self.wall_s = math.nan

    @property
    def report(self) -> Report:
        if self._report is None:
            start = time.perf_counter()
            self._report = self._job.run()
            self.wall_s = round(time.perf_counter() - start, 3)
        return self._report

    @property
    def figures(self) -> dict[str, Any]:
        if self._figures is None:
            from ssdlab.report import run_figures

            self._figures = run_figures(self.report)
        return self._figures


#: What a grid keeps of a run: a module-level function (pickled to the worker processes or Ray
#: tasks) from the job and its `Measured` run to the run's row.
Pick = Callable[[Job, Measured], dict[str, Any]]


def _read(pick: Pick, job: Job) -> dict[str, Any]:
    """The one worker of every reproduction: `pick` on the job's measured run."""
    return pick(job, Measured(job))


def _run_cell(pick: Pick, job: Job) -> dict[str, Any]:
    """The worker on `job`, or for a WarmGroup on each member from the group's warm drive."""
    if not isinstance(job, WarmGroup):
        return _read(pick, job)
    from ssdlab.api import Simulation

    drive = Simulation(setup=job.members[0].setup).warm_drive()
    return {"runs": [_read(pick, replace(member, warm_drive=drive)) for member in job.members]}


@dataclass(frozen=True)
class Runner:
    """How an experiment's grids run, on the sweep engine (`ssdlab.sweeps.run_cells`): the
    backend (`local` processes or `ray`), how many processes, a Ray cluster's address, and the
    directory whose `cells/` keeps each finished run (`out`: reused when the same job of the same
    worker runs again, so an interrupted reproduction resumes; None keeps nothing)."""

    processes: int | None = None
    backend: str = "local"
    address: str | None = None
    resume: bool = True
    ship_traces: bool = False
    out: Path | None = None

    def under(self, out: Path) -> Runner:
        """This runner keeping its runs in `out/cells` (a reproduction's output directory)."""
        return replace(self, out=out)


def run_jobs(
    jobs: Sequence[Job],
    pick: Pick,
    runner: Runner | None = None,
    share_warmups: bool = False,
) -> list[dict[str, Any]]:
    """Run every job on the sweep engine with a progress bar, each row `pick(job, Measured(job))`
    (the one worker, `_read`); returns the rows in job order. `pick` must be a module-level
    function (it is pickled to the worker processes or Ray tasks). A cell's id is the job's (its
    resolved configuration, traces by content) combined with `pick`'s name, as one job can feed
    two picks (a probe and a measured run). A result is what went through JSON (the engine's records), fresh or resumed. A
    failed job fails the grid, after the others finished (and were kept).

    `share_warmups`: jobs whose configurations differ only in `[workload]` and that warm up
    (`[warmup]`) run as one cell (`WarmGroup`), the warm-up done once; results are the same as
    without (the core's `start_from` guarantees it), only fewer cells run, each longer. Not with
    `ship_traces` (a group's traces are read at their paths)."""
    from ssdlab.sweeps import cells_from_jobs, run_cells

    runner = runner or Runner()
    name = f"{pick.__module__}.{pick.__qualname__}"
    cells = [replace(c, id=_salted(c.id, name)) for c in cells_from_jobs(jobs)]
    groups = _warm_groups(jobs, cells) if share_warmups and not runner.ship_traces else {}
    # A group runs where its first member stood: the grid's order is kept, so long cells (a
    # group's warm-up and its runs) do not all land at the end, where one would run alone.
    group_at = {members[0]: members for members in groups.values()}
    grouped = {i for members in groups.values() for i in members}
    run = []
    for i, cell in enumerate(cells):
        if i in group_at:
            run.append(_group_cell([jobs[m] for m in group_at[i]], [cells[m] for m in group_at[i]]))
        elif i not in grouped:
            run.append(cell)
    outcomes = run_cells(
        run,
        partial(_run_cell, pick),
        out=runner.out,
        backend=runner.backend,
        processes=runner.processes,
        address=runner.address,
        resume=runner.resume,
        ship_traces=runner.ship_traces,
    )
    failed = [(cell, o) for cell, o in zip(run, outcomes, strict=True) if not o.ok]
    if failed:
        lines = "\n".join(f"  {cell.labels}: {o.error}" for cell, o in failed)
        raise SsdlabError(f"{len(failed)} of {len(run)} runs failed:\n{lines}")
    results: dict[str, dict[str, Any]] = {}
    for cell, outcome in zip(run, outcomes, strict=True):
        if isinstance(cell.job, WarmGroup):
            results.update(zip(cell.labels["members"], outcome.result["runs"], strict=True))
        else:
            results[cell.id] = outcome.result
    return [results[c.id] for c in cells]


def _warm_groups(jobs: Sequence[Job], cells: Sequence[Any]) -> dict[str, list[int]]:
    """The jobs (by index) that can share a warm-up, by setup: valid, with a warm-up, two or
    more with the same resolved configuration but `[workload]` (and the same workload's queue
    depth when the timed warm-up takes it from there). A repeated cell (the same id) is counted
    once."""
    import tomllib

    from ssdlab.sweeps.cells import resolve_job

    by_setup: dict[str, list[int]] = {}
    seen: set[str] = set()
    for i, (job, cell) in enumerate(zip(jobs, cells, strict=True)):
        if cell.invalid is not None or cell.id in seen:
            continue
        seen.add(cell.id)
        config = tomllib.loads(resolve_job(job))
        warmup = config.get("warmup", {})
        if not (warmup.get("fill") or warmup.get("random_writes") or warmup.get("timed_random_writes_ns")):
            continue
        workload = config.pop("workload", {})
        if warmup.get("timed_random_writes_ns") and not warmup.get("timed_queue_depth"):
            config["workload"] = workload  # the timed warm-up's depth is the workload's
        key = hashlib.sha256(repr(sorted(config.items())).encode()).hexdigest()
        by_setup.setdefault(key, []).append(i)
    return {key: members for key, members in by_setup.items() if len(members) > 1}


def _group_cell(jobs: list[Job], cells: list[Any]) -> Any:
    """One cell for a WarmGroup: its id from its members' (so a group of other members is
    another cell), its members' ids as a label (results are handed back by them), trace paths
    absolute (a Ray worker runs elsewhere)."""
    from ssdlab.sweeps import Cell

    def absolute(job: Job) -> Job:
        trace = job.setup.trace
        if trace and Path(trace).is_file():
            return replace(job, setup=replace(job.setup, trace=str(Path(trace).resolve())))
        return job

    members = tuple(absolute(j) for j in jobs)
    ids = [c.id for c in cells]
    group = WarmGroup(members[0].labels, members[0].setup, members=members)
    labels = {**cells[0].labels, "members": ids}
    return Cell(_salted("\n".join(ids), "warm group"), labels, group)


def _salted(cell_id: str, worker: str) -> str:
    """A cell id for `worker`'s run of the cell (as long as the engine's ids)."""
    return hashlib.sha256(f"{cell_id}\n{worker}".encode()).hexdigest()[: len(cell_id)]


def verified(jobs: Sequence[Job]) -> list[Job]:
    """The jobs with verify mode on: every mapping checked at the end of each run, which fails
    on a lost page (the rest of each job's setup as it was)."""
    return [replace(j, setup=j.setup.with_overrides("verify=true")) for j in jobs]


def print_frame(title: str, frame: pd.DataFrame) -> None:
    """A result table on the console, every number with three significant figures (`fmt_sig`:
    0.00053 stays 0.00053, never rounds to 0)."""
    console.print(f"\n[bold]{title}[/]")
    # soft_wrap: a wide frame is printed whole, not folded at the terminal's (or a log's) 80 columns.
    text = frame.to_string(float_format=fmt_sig)
    console.print(text, highlight=False, markup=False, soft_wrap=True)


def choose_traces(traces: Sequence[Path] | None, shared: Path | None, names: Sequence[str]) -> list[Path]:
    """The traces a reproduction runs: those given, else `names` under the shared traces folder
    (a clear error when neither is there)."""
    if traces:
        return [Path(t) for t in traces]
    if shared is None or not shared.is_dir():
        raise ConfigError("no --trace given and ../shared/traces is not present")
    return [shared / name for name in names]


def write_tables(path: Path, tables: dict[str, pd.DataFrame], preamble: str = "") -> None:
    """A reproduction's tables.md: the preamble (set-up, how averages are taken), then each table
    under its title, rounded to 3 places."""
    with open(path, "w") as f:
        if preamble:
            f.write(preamble.rstrip("\n") + "\n\n")
        for title, table in tables.items():
            f.write(f"### {title}\n\n{table.round(3).to_markdown()}\n\n")


def exploration_columns(report: Any) -> dict[str, Any]:
    """A run's learning agents' exploration as a reproduction's runs columns:
    `rl_exploration_share` (explored decisions over the agents' decisions; NaN without an agent)
    and `rl_exploring` (still exploring when the run ended, `ssdlab.exploration`; None without
    an agent)."""
    return {f"rl_{k}": v for k, v in run_columns(report).items()}


def exploration_table(runs: pd.DataFrame, by: Sequence[str]) -> pd.DataFrame | None:
    """Per group of runs (`by`) with a learning agent, the random-action controls left out: the
    runs, the share of the agents' decisions explored (mean, smallest, largest) and how many were
    still exploring when they ended (`ssdlab.exploration`: the epsilon schedule's initial phase
    not over, or more than 10 % of decisions explored), marked `†`: their figures are largely
    those of random actions, whatever a table beside this one says of learning. None when no run
    has an agent, or the runs predate these columns."""
    import pandas as pd

    if "rl_exploring" not in runs.columns:
        return None
    learned = runs[runs["rl_exploring"].notna()]
    if "rl_control" in learned.columns:
        learned = learned[learned["rl_control"].astype(str) != "True"]
    if learned.empty:
        return None
    rows = []
    for key, group in learned.groupby(list(by), sort=False):
        share = group["rl_exploration_share"].astype(float)
        flagged = int(group["rl_exploring"].astype(str).eq("True").sum())
        rows.append(
            {
                **dict(zip(by, key if isinstance(key, tuple) else (key,), strict=True)),
                "runs": len(group),
                "explored (mean)": share.mean(),
                "explored (min)": share.min(),
                "explored (max)": share.max(),
                "still exploring": f"{flagged} of {len(group)} †" if flagged else "0",
            }
        )
    return pd.DataFrame(rows).set_index(list(by))


#: The title of a reproduction's `exploration_table`.
EXPLORATION_TITLE = f"Learned agents' exploration (share of decisions taken at random; †: runs {MEANING})"


#: A figure of ours within this share of the paper's counts as reproduced, within twice as far as
#: partly. A mechanical check of the numbers only: why a figure differs is the reproduction's
#: document's to say.
REPRODUCED_WITHIN = 0.10


def write_verdicts(path: Path, ours_vs_paper: pd.DataFrame) -> pd.DataFrame:
    """verdicts.csv from a table of `ours` beside `paper` per headline (index): their ratio and a
    mechanical verdict (`reproduced` within REPRODUCED_WITHIN of the paper's figure, `partly`
    within twice that, else `not`; `not measured` without a figure of ours); headlines without a
    (numeric) paper figure are left out. Returns the table written."""
    import pandas as pd

    numeric = ours_vs_paper.apply(pd.to_numeric, errors="coerce")
    rows = []
    for headline, row in numeric.dropna(subset=["paper"]).iterrows():
        ours, paper = float(row["ours"]), float(row["paper"])
        ratio = ours / paper if paper else float("nan")
        off = abs(ratio - 1.0)
        if ratio != ratio:  # NaN: no figure of ours, or a paper figure of 0
            verdict = "not measured"
        elif off <= REPRODUCED_WITHIN:
            verdict = "reproduced"
        elif off <= 2 * REPRODUCED_WITHIN:
            verdict = "partly"
        else:
            verdict = "not"
        rows.append({"headline": headline, "paper": paper, "ours": ours, "ratio": ratio, "verdict": verdict})
    frame = pd.DataFrame(rows, columns=["headline", "paper", "ours", "ratio", "verdict"])
    frame.to_csv(path, index=False)
    return frame
