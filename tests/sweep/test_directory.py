"""One sweep at a time per results directory, and never another grid's results replaced unasked
(`ssdlab.sweeps.lock`, `ssdlab.sweeps.store.claim_directory`): a second sweep refuses (exit
status 3) naming the one running, or with --wait waits for it and then resumes; a different grid
is refused unless --replace-grid; what a killed sweep left half written is cleaned up."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner
from sweep_helpers import sweep_command

import ssdlab
from ssdlab.cli import cli
from ssdlab.sweeps import DirectoryRefused, SweepWarning, read_table
from ssdlab.sweeps.lock import LOCK_FILE, hold

GRID = """
seeds = 2
[base]
preset = "tiny"
workload = "randwrite"
set = ["workload.count=400"]
"""
#: Sixteen cells of about a third of a second each (one process): long enough to be met running.
SLOW_GRID = "seeds = 16\n[base]\nworkload = 'randwrite'\nset = ['workload.count=300000']\n"


def write_grid(directory: Path, text: str = GRID, name: str = "grid.toml") -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    path.write_text(textwrap.dedent(text).lstrip())
    return path


def invoke(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def unwrapped(text: str) -> str:
    return " ".join(text.split())


def wait_for(condition, what: str, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + 120
    while not condition():
        assert process.poll() is None, f"the first sweep ended before {what}"
        assert time.monotonic() < deadline, f"not {what} in two minutes"
        time.sleep(0.01)


def test_a_second_sweep_into_a_directory_in_use_refuses_and_with_wait_waits_then_resumes(tmp_path):
    grid, out = write_grid(tmp_path, SLOW_GRID), tmp_path / "out"
    logs = {name: tmp_path / name for name in ("first.out", "first.err", "waited.out", "waited.err")}
    with (
        open(logs["first.out"], "w") as first_out,
        open(logs["first.err"], "w") as first_err,
        open(logs["waited.out"], "w") as waited_out,
        open(logs["waited.err"], "w") as waited_err,
    ):
        first = subprocess.Popen(sweep_command(grid, out, "-j", "1"), stdout=first_out, stderr=first_err)
        waited = None
        try:
            wait_for(lambda: list((out / "cells").glob("*.json")), "a cell finished", first)
            refused = subprocess.run(sweep_command(grid, out), capture_output=True, text=True, timeout=120)
            assert first.poll() is None, "the first sweep ended before the second was refused"
            assert refused.returncode == 3
            message = unwrapped(refused.stderr)
            assert message.startswith(
                f"error: {out}: another sweep is writing into this directory (pid {first.pid} on "
            )
            assert "wait for it with --wait" in message and "Traceback" not in refused.stderr
            waited = subprocess.Popen(
                sweep_command(grid, out, "--wait"), stdout=waited_out, stderr=waited_err
            )
            wait_for(
                lambda: "waiting for it to end" in logs["waited.err"].read_text(), "the third waited", first
            )
            assert first.wait(timeout=300) == 0
            assert waited.wait(timeout=300) == 0, logs["waited.err"].read_text()
        finally:
            for process in (first, waited):
                if process is not None:
                    process.kill()
                    process.wait()
    assert "16 cells: 16 ok, 0 failed\n" in logs["first.out"].read_text()  # the first ran every cell
    assert f"warning: {out}: another sweep is writing into this directory (pid {first.pid} on " in unwrapped(
        logs["waited.err"].read_text()
    )
    # The sweep that waited ran no cell again: each ran once, in the first sweep.
    assert "16 cells: 16 ok, 0 failed, 16 from an earlier run" in logs["waited.out"].read_text()
    assert len(read_table(out)) == 16


def test_the_lock_is_released_when_its_holder_is_killed(tmp_path):
    out = tmp_path / "out"
    code = f"from pathlib import Path; from ssdlab.sweeps.lock import hold\nwith hold(Path({str(out)!r})):\n    print('held', flush=True); import time; time.sleep(600)"
    with subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True) as holder:
        try:
            assert holder.stdout.readline() == "held\n"
            with pytest.raises(DirectoryRefused, match=f"pid {holder.pid} on "), hold(out):
                pass
        finally:
            holder.kill()
    with hold(out):  # SIGKILL leaves no stale lock behind
        assert (out / LOCK_FILE).read_text().startswith(f"pid {os.getpid()} on ")
    assert (out / LOCK_FILE).read_text() == ""


def test_another_grid_into_a_directory_is_refused_unless_replace_grid(tmp_path):
    grid, out = write_grid(tmp_path), tmp_path / "out"
    first = ssdlab.sweep(grid, out=out, processes=1)
    other = write_grid(tmp_path, GRID.replace("seeds = 2", "seeds = 3"), name="other.toml")
    refused = invoke("sweep", str(other), "-o", str(out), "-j", "1")
    assert refused.exit_code == 3
    assert unwrapped(refused.output).startswith(
        f"error: {out}: holds the results of another grid: its grid.toml differs from {other} from line 1; "
        "refusing to replace them: use another directory, or --replace-grid to replace its grid.toml and results.parquet"
    )
    assert (out / "grid.toml").read_text() == grid.read_text()  # untouched
    pd.testing.assert_frame_equal(read_table(out), first)
    replaced = invoke("sweep", str(other), "-o", str(out), "-j", "1", "--replace-grid")
    assert replaced.exit_code == 0, replaced.output
    assert f"warning: {out}: its grid.toml differs from {other} from line 1; replacing" in unwrapped(
        replaced.output
    )
    # The cells both grids share came from their records; the new one ran.
    assert "3 cells: 3 ok, 0 failed, 2 from an earlier run" in replaced.output
    assert (out / "grid.toml").read_text() == other.read_text()
    assert list(read_table(out)["seed"]) == [0, 1, 2]
    # The same grid again (or an identical copy elsewhere) is the same directory's: no flag needed.
    assert invoke("sweep", str(other), "-o", str(out)).exit_code == 0


def test_a_table_without_its_grid_is_refused_and_another_tools_table_too(tmp_path):
    grid, out = write_grid(tmp_path), tmp_path / "out"
    ssdlab.sweep(grid, out=out, processes=1)
    (out / "grid.toml").unlink()
    result = invoke("sweep", str(grid), "-o", str(out))
    assert result.exit_code == 3
    assert "holds a results.parquet without the grid.toml it was made from" in unwrapped(result.output)
    pd.DataFrame({"x": [1]}).to_parquet(out / "results.parquet")
    result = invoke("sweep", str(grid), "-o", str(out), "--replace-grid")
    assert result.exit_code == 3  # --replace-grid replaces a sweep's table, never another tool's
    assert "not a results table of `ssdlab sweep`" in unwrapped(result.output)


def test_a_table_that_is_not_parquet_is_set_aside_and_made_again(tmp_path):
    grid, out = write_grid(tmp_path), tmp_path / "out"
    first = ssdlab.sweep(grid, out=out, processes=1)
    (out / "results.parquet").write_bytes(b"PAR1 cut short")
    with pytest.warns(
        SweepWarning, match="results.parquet: not a readable Parquet file; moved to results.parquet.bad"
    ):
        again = ssdlab.sweep(grid, out=out, processes=1)
    pd.testing.assert_frame_equal(again, first.assign(wall_s=again["wall_s"]))
    assert (out / "results.parquet.bad").read_bytes() == b"PAR1 cut short"


def test_files_a_killed_sweep_left_half_written_are_removed(tmp_path):
    grid, out = write_grid(tmp_path), tmp_path / "out"
    ssdlab.sweep(grid, out=out, processes=1)
    partials = [
        out / "cells" / ".abc.json.123.partial",
        out / "reports" / ".abc.json.9.partial",
        out / ".results.parquet.77.partial",
    ]
    for partial in partials:
        partial.write_text("half")
    (out / "cells" / "keep.partial").write_text("not ours")
    ssdlab.sweep(grid, out=out, processes=1)
    assert not any(p.exists() for p in partials)
    assert (out / "cells" / "keep.partial").exists()


def test_a_record_of_another_schema_version_refuses_the_directory_with_status_3(tmp_path):
    grid, out = write_grid(tmp_path), tmp_path / "out"
    frame = ssdlab.sweep(grid, out=out, processes=1)
    record = out / "cells" / f"{frame['cell_id'][0]}.json"
    record.write_text(json.dumps({"schema": "ssdlab-sweep-cell/2", "id": frame["cell_id"][0]}))
    result = invoke("sweep", str(grid), "-o", str(out))
    assert result.exit_code == 3
    assert "a cell record of schema 'ssdlab-sweep-cell/2'" in unwrapped(result.output)
    assert record.exists()  # not set aside: it is another version's, not damaged
