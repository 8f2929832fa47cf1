"""Helpers the sweep tests share: cells whose worker notes each run in a log, and the command
line of `ssdlab sweep` in a process of its own."""

from __future__ import annotations

import sys
from pathlib import Path

from ssdlab.experiments.common import Job
from ssdlab.setup import Setup
from ssdlab.sweeps import Cell


def counting_worker(job: Job) -> dict:
    """Logs each execution to the file named in the labels; fails on n == 3; its result carries
    a list (JSON's) and a note per cell (a file written under the results directory)."""
    n = job.labels["n"]
    with open(job.labels["log"], "a") as f:
        f.write(f"{n}\n")
    if n == 3:
        raise ValueError("three is not welcome")
    return {"n": n, "squares": [n * n], "files": {"notes/{id}.txt": f"cell {n}"}}


def make_cells(count: int, log: Path) -> list[Cell]:
    """`count` cells labelled `n` (0, 1, ...) and `log`, the file their worker notes `n` in."""
    return [
        Cell(f"cell{n:02d}", {"n": n, "log": str(log)}, Job({"n": n, "log": str(log)}, Setup(None)))
        for n in range(count)
    ]


def executed(log: Path) -> list[int]:
    """The cells run since the last call (their `n`, sorted): the log is read, then emptied."""
    runs = sorted(int(line) for line in log.read_text().split()) if log.exists() else []
    log.unlink(missing_ok=True)
    return runs


def sweep_command(grid: Path, out: Path, *options: str) -> list[str]:
    """`ssdlab sweep GRID -o OUT OPTIONS` run by this interpreter (the package under test)."""
    return [
        sys.executable,
        "-c",
        "from ssdlab.cli import main; main()",
        "sweep",
        str(grid),
        "-o",
        str(out),
        *options,
    ]
