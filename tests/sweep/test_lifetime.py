"""No process of a sweep outlives it (`ssdlab.sweeps.lifetime`): `ssdlab sweep -j 2` killed
(SIGKILL, which cannot be caught), terminated (SIGTERM: what `timeout`, batch schedulers and
systemd send) or interrupted (SIGINT to it alone) while its cells run leaves no process behind,
neither its pool's workers nor the forkserver nor the resource tracker, and a rerun finishes
exactly the cells it had not. The same for SIGTERM with the Ray backend."""

from __future__ import annotations

import os
import signal
import subprocess
import time
import uuid
from pathlib import Path

import pytest
from sweep_helpers import sweep_command

from ssdlab.sweeps import run_sweep

#: Cells of about a tenth of a second each, so many that the stop, sent once two have finished,
#: comes long before the last (with eight, a quiet machine finished them all in the 0.3 s
#: between the second cell and the signal).
CELLS = 32
GRID = f"seeds = {CELLS}\n[base]\nworkload = 'randwrite'\nset = ['workload.count=100000']\n"
#: Processes marked with this variable (inherited by every process the sweep starts) are its.
MARK = "SSDLAB_TEST_SWEEP_MARK"
#: How long the processes of a stopped sweep may take to be gone (a worker ends at once; Ray's
#: processes take a few seconds to shut down).
GONE_WITHIN_S = 60


def marked(token: str) -> list[tuple[int, str]]:
    """The live processes (not zombies) that carry `MARK=token` in their environment, with their
    command lines: read from /proc (Linux, where the tests run)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes().split(b"\0")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:  # gone meanwhile, or not ours to read
            continue
        if f"{MARK}={token}".encode() in environ and state != "Z":
            found.append((int(entry.name), command[:120]))
    return found


def left_behind(token: str) -> list[tuple[int, str]]:
    """The marked processes still there after GONE_WITHIN_S (none, as soon as they are gone)."""
    deadline = time.monotonic() + GONE_WITHIN_S
    while (found := marked(token)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return found


def default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def stop_half_way(
    tmp_path: Path, signum: int, *options: str
) -> tuple[subprocess.CompletedProcess, Path, Path, str]:
    """Start `ssdlab sweep GRID -j 2 OPTIONS` in a session of its own, send it `signum` once two
    cells have finished, and wait for it; returns its status and output, the grid, the results
    directory and the token marking its processes."""
    grid, out = tmp_path / "grid.toml", tmp_path / "out"
    grid.write_text(GRID)
    token = uuid.uuid4().hex
    # Files, not pipes: a process left behind would hold a pipe open, and reading it would hang.
    with (
        open(tmp_path / "stdout", "w+") as stdout,
        open(tmp_path / "stderr", "w+") as stderr,
        subprocess.Popen(
            sweep_command(grid, out, "-j", "2", *options),
            env={**os.environ, MARK: token},
            stdout=stdout,
            stderr=stderr,
            start_new_session=True,
            # A shell without job control starts background jobs with SIGINT ignored, and the
            # sweep keeps what it inherits (as `nohup` and `cmd &` expect); the test wants
            # the interactive disposition, whatever shell runs pytest.
            preexec_fn=default_sigint,
        ) as process,
    ):
        try:
            deadline = time.monotonic() + 180
            while len(list((out / "cells").glob("*.json"))) < 2:
                assert process.poll() is None, "the sweep ended before it could be stopped"
                assert time.monotonic() < deadline, "no two cells finished in three minutes"
                time.sleep(0.01)
            assert len(marked(token)) >= 4  # the sweep, the forkserver or Ray, and the workers
            os.kill(process.pid, signum)
            process.wait(timeout=120)
        finally:
            process.kill()
    completed = subprocess.CompletedProcess(
        process.args, process.returncode, (tmp_path / "stdout").read_text(), (tmp_path / "stderr").read_text()
    )
    return completed, grid, out, token


@pytest.mark.parametrize(
    ("signum", "status", "says"),
    [
        (signal.SIGKILL, -signal.SIGKILL, None),
        (signal.SIGTERM, 143, "terminated (SIGTERM): the finished cells are recorded; rerun to resume"),
        (signal.SIGINT, 130, "aborted"),
    ],
    ids=["SIGKILL", "SIGTERM", "SIGINT"],
)
def test_a_stopped_local_sweep_leaves_no_process_and_resumes_exactly(tmp_path, signum, status, says):
    stopped, grid, out, token = stop_half_way(tmp_path, signum)
    assert stopped.returncode == status, stopped.stderr
    assert "Traceback" not in stopped.stderr
    if says is not None:
        assert stopped.stderr.rstrip().endswith(says)
    assert left_behind(token) == []
    finished = {p.stem: p.read_bytes() for p in (out / "cells").glob("*.json")}
    assert 2 <= len(finished) < CELLS, "the stop came too late to test resuming"

    result = run_sweep(grid, out=out, processes=2)
    assert {o.id for o in result.outcomes if o.resumed} == set(finished)
    assert {o.id for o in result.outcomes if not o.resumed} == {c.id for c in result.cells} - set(finished)
    assert all(o.ok for o in result.outcomes) and list(result.frame["seed"]) == list(range(CELLS))
    # The records of the finished cells were read as they were, not rewritten.
    assert {p: (out / "cells" / f"{p}.json").read_bytes() for p in finished} == finished
    assert not list(out.rglob("*.bad*")) and not list(out.rglob(".*.partial"))


def test_a_terminated_ray_sweep_shuts_ray_down_and_leaves_no_process(tmp_path):
    stopped, grid, out, token = stop_half_way(tmp_path, signal.SIGTERM, "--backend", "ray")
    assert stopped.returncode == 143, stopped.stderr
    assert "Traceback" not in stopped.stderr
    assert left_behind(token) == []
    finished = {p.stem for p in (out / "cells").glob("*.json")}
    result = run_sweep(grid, out=out, processes=2)
    assert {o.id for o in result.outcomes if o.resumed} == finished
    assert all(o.ok for o in result.outcomes)
