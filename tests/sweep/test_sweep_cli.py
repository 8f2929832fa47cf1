"""`ssdlab sweep` on the command line: the summary, exit statuses (0 ok, 1 a cell failed, 2 input
refused, 70 an internal error; 3 for a directory refused is in test_directory.py, 130 and 143 in
test_lifetime.py), input errors before anything runs, and the one-line hint when Ray is missing."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

import ssdlab
import ssdlab.sweeps
from ssdlab.cli import cli, main

GRID = """
seeds = 2
[base]
workload = "randwrite"
set = ["workload.count=2000"]
[axes]
"gc.scheduler" = ["greedy", "lazy_rtgc"]
"device.utilization" = [0.7, 7.0]
"""


def invoke(*args: str):
    return CliRunner(env={"COLUMNS": "80"}).invoke(cli, list(args), catch_exceptions=False)


def write_grid(directory: Path, text: str) -> Path:
    path = directory / "grid.toml"
    path.write_text(textwrap.dedent(text).lstrip())
    return path


def test_sweep_prints_a_summary_and_resumes_on_a_rerun(tmp_path):
    grid = write_grid(tmp_path, GRID.replace(", 7.0", ""))
    out = tmp_path / "out"
    result = invoke("sweep", str(grid), "-o", str(out), "-j", "2")
    assert result.exit_code == 0, result.output
    assert "4 cells: 4 ok, 0 failed\n" in result.output
    assert f"table:   {out / 'results.parquet'}" in result.output
    for scheduler in ("greedy", "lazy_rtgc"):
        line = next(ln for ln in result.output.splitlines() if ln.startswith(scheduler + " "))
        assert line.split()[:3] == [scheduler, "0.7", "2/2"]  # both seeds ok
    again = invoke("sweep", str(grid), "-o", str(out))
    assert "4 cells: 4 ok, 0 failed, 4 from an earlier run" in again.output
    fresh = invoke("sweep", str(grid), "-o", str(out), "--no-resume", "-j", "1")
    assert "4 cells: 4 ok, 0 failed\n" in fresh.output


def test_failed_cells_are_listed_with_their_reason_and_the_exit_status_is_1(tmp_path):
    grid = write_grid(tmp_path, GRID)
    result = invoke("sweep", str(grid), "-o", str(tmp_path / "out"), "-j", "2")
    assert result.exit_code == 1
    assert "8 cells: 4 ok, 4 failed" in result.output
    failed = [ln.split() for ln in result.output.splitlines() if " 7.0 " in ln and "outside" in ln]
    assert len(failed) == 4
    assert failed[0][:3] == ["greedy", "7.0", "0"]
    assert "device.utilization: 7 is outside (0, 1]" in " ".join(failed[0])
    assert (tmp_path / "out" / "results.parquet").is_file()  # the table is complete all the same


def test_a_bad_grid_exits_2_naming_file_line_and_key_before_anything_runs(tmp_path, capsys):
    grid = write_grid(tmp_path, GRID.replace('"gc.scheduler"', '"gc.schedulr"'))
    with pytest.raises(SystemExit) as info:
        main(["sweep", str(grid), "-o", str(tmp_path / "never")])
    assert info.value.code == 2
    err = capsys.readouterr().err
    message = f"error: {grid}:6: [axes] gc.schedulr: not a config key (did you mean gc.scheduler?)"
    assert message in " ".join(err.split())  # unwrapped
    assert not (tmp_path / "never").exists()


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (b"seeds = [18446744073709551616]\n[base]\nworkload = 'randwrite'\n", ":1: seeds: seed 18446744073709551616 is out of range"),
        ("# café\n[base]\nworkload = 'randwrite'\n".encode("latin-1"), ":1: not UTF-8 text (byte 0xe9 at column 6)"),
        (b"# nothing\n", ": the grid says nothing to run"),
        (b"[base]\nworkload = 'randwrite'\n[axes]\ngc.scheduler = ['greedy']\n[[exclude]]\ngc.scheduler = 'greedy'\n", ":5: [[exclude]]: every combination of the axes is excluded"),
    ],
    ids=["seed 2^64", "not UTF-8", "empty", "all excluded"],
)  # fmt: skip
def test_grid_input_errors_exit_2_with_file_and_line_and_no_traceback(tmp_path, capsys, content, says):
    grid = tmp_path / "grid.toml"
    grid.write_bytes(content)
    with pytest.raises(SystemExit) as info:
        main(["sweep", str(grid), "-o", str(tmp_path / "never")])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert " ".join(err.split()).startswith(f"error: {grid}{says}") and "Traceback" not in err
    assert not (tmp_path / "never").exists()


def test_ray_not_installed_is_one_line_without_a_traceback(tmp_path, capsys, monkeypatch):
    grid = write_grid(tmp_path, GRID)
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` raises ImportError
    with pytest.raises(SystemExit) as info:
        main(["sweep", str(grid), "-o", str(tmp_path / "out"), "--backend", "ray"])
    assert info.value.code == 2  # refused before anything ran; 1 is only "a cell failed"
    assert capsys.readouterr().err == "error: Ray is not installed: pip install ssdlab[ray]\n"
    assert not (tmp_path / "out" / "cells").exists()


@pytest.mark.parametrize(
    ("error", "says"),
    [
        (
            RuntimeError("the table went missing"),
            "internal error: RuntimeError: the table went missing (a bug in ssdlab",
        ),
        (ssdlab.InternalError("a broken invariant"), "internal error: a broken invariant (a bug in ssdlab"),
    ],
)
def test_an_internal_error_exits_70_without_a_traceback_unless_debugging(
    tmp_path, capsys, monkeypatch, error, says
):
    grid = write_grid(tmp_path, GRID)

    def broken(*args, **kwargs):
        raise error

    monkeypatch.setattr(ssdlab.sweeps, "run_sweep", broken)
    with pytest.raises(SystemExit) as info:
        main(["sweep", str(grid), "-o", str(tmp_path / "out")])
    assert info.value.code == 70  # not 1, which says a cell failed
    err = capsys.readouterr().err
    assert err.startswith(says) and "Traceback" not in err
    monkeypatch.setenv("SSDLAB_DEBUG", "1")
    with pytest.raises(type(error)):
        main(["sweep", str(grid), "-o", str(tmp_path / "out")])


def test_the_exit_statuses_are_in_the_help():
    statuses = {}
    for line in invoke("sweep", "--help").output.splitlines():
        status, _, meaning = line.strip().partition(" ")
        if status.isdigit():
            statuses[int(status)] = meaning.strip()
    assert statuses[0] == "every cell ok"
    assert statuses[1].startswith("the sweep ran, and a cell failed")
    assert statuses[2].startswith("refused: the grid file")
    assert statuses[3].startswith("refused: --out is in use by another sweep")
    assert statuses[70].startswith("internal error")
    assert statuses[130].startswith("interrupted (^C), 143 terminated (SIGTERM)")
