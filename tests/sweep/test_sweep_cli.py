"""`ssdlab sweep` on the command line: the summary, exit statuses, input errors before anything
runs, and the one-line hint when Ray is missing."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

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


def test_ray_not_installed_is_one_line_without_a_traceback(tmp_path, capsys, monkeypatch):
    grid = write_grid(tmp_path, GRID)
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` raises ImportError
    with pytest.raises(SystemExit) as info:
        main(["sweep", str(grid), "-o", str(tmp_path / "out"), "--backend", "ray"])
    assert info.value.code == 1
    assert capsys.readouterr().err == "error: Ray is not installed: pip install ssdlab[ray]\n"
    assert not (tmp_path / "out" / "cells").exists()
