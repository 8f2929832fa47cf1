"""`ssdlab.sweep`: a grid file into a results directory (table, reports, records), failed cells,
schema checks, and a sweep killed with SIGKILL half way that resumes only its unfinished cells."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import textwrap
import time
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest
from sweep_helpers import sweep_command

import ssdlab
from ssdlab.experiments.compare import run_figures
from ssdlab.sweeps import load_grid, plan, read_table, run_sweep

REPO = Path(__file__).resolve().parents[2]

GRID = """
seeds = 2
[base]
preset = "tiny"
workload = "randwrite"
set = ["workload.count=2000", "verify=true"]
[axes]
"gc.scheduler" = ["greedy", "lazy_rtgc"]
"device.utilization" = [0.5, 0.7, 7.0]    # 7.0 is not a valid utilization
[[exclude]]
"gc.scheduler" = "greedy"
"device.utilization" = 0.5
"""


def write_grid(directory: Path, text: str = GRID) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "grid.toml"
    path.write_text(textwrap.dedent(text).lstrip())
    return path


def figure_names() -> list[str]:
    return list(run_figures(ssdlab.run(preset="tiny", workload="randwrite", overrides=["workload.count=10"])))


def test_a_sweep_writes_one_row_per_cell_its_reports_and_records_and_failed_cells_do_not_stop_it(tmp_path):
    grid, out = write_grid(tmp_path), tmp_path / "out"
    frame = ssdlab.sweep(grid, out=out, processes=2)
    assert list(frame.columns) == [
        "cell_id", "gc.scheduler", "device.utilization", "seed", "status", "error", "wall_s",
        "ssdlab_version", "verify", *figure_names(), "report",
    ]  # fmt: skip
    assert list(zip(frame["gc.scheduler"], frame["device.utilization"], frame["seed"], strict=True)) == [
        ("greedy", 0.7, 0), ("greedy", 0.7, 1), ("greedy", 7.0, 0), ("greedy", 7.0, 1),
        ("lazy_rtgc", 0.5, 0), ("lazy_rtgc", 0.5, 1), ("lazy_rtgc", 0.7, 0), ("lazy_rtgc", 0.7, 1),
        ("lazy_rtgc", 7.0, 0), ("lazy_rtgc", 7.0, 1),
    ]  # fmt: skip
    assert list(frame["cell_id"]) == [c.id for c in plan(load_grid(grid))]
    failed = frame[frame["device.utilization"] == 7.0]
    assert set(failed["status"]) == {"failed"} and failed["report"].isna().all()
    assert all("device.utilization: 7 is outside (0, 1]" in e for e in failed["error"])
    assert (failed["wall_s"] == 0).all() and failed["requests"].isna().all()
    ok = frame[frame["device.utilization"] != 7.0]
    assert set(ok["status"]) == {"ok"} and ok["error"].isna().all()
    assert set(ok["verify"]) == {"passed"} and set(ok["ssdlab_version"]) == {ssdlab.__version__}
    assert str(ok["erases"].dtype) == "Int64"  # counts stay integers beside the failed rows
    for _, row in ok.iterrows():
        # Every figure of the table is the one in that cell's own saved report.
        assert row["report"] == f"reports/{row['cell_id']}.json"
        report = json.loads((out / row["report"]).read_text())
        assert report["seed"] == row["seed"]
        assert report["config"]["gc"]["scheduler"] == row["gc.scheduler"]
        assert report["config"]["device"]["utilization"] == row["device.utilization"]
        assert report["workload"]["requests"] == row["requests"] == 2000
        assert row["write_p99_us"] == report["latency"]["write"]["p99_ns"] / 1e3
        assert row["erases"] == report["wear"]["erases"]
    assert ok["write_p99_us"].nunique() > 1  # distinct runs, not one copied
    # The directory: the table (readable, schema-stamped), a record per cell, the grid's copy.
    pd.testing.assert_frame_equal(read_table(out), frame)
    metadata = pq.read_schema(out / "results.parquet").metadata
    assert metadata[b"ssdlab.sweep_schema"] == b"1" and metadata[b"ssdlab.writer"] == b"ssdlab sweep"
    assert sorted(p.stem for p in (out / "cells").glob("*.json")) == sorted(frame["cell_id"])
    assert (out / "grid.toml").read_text() == grid.read_text()


def test_without_a_directory_nothing_is_written_and_the_table_comes_back(tmp_path):
    grid = write_grid(tmp_path / "g", "[base]\nworkload = 'randwrite'\nset = ['workload.count=500']\n")
    frame = ssdlab.sweep(grid, processes=1)
    assert len(frame) == 1 and frame["status"][0] == "ok" and frame["report"].isna().all()
    assert frame["verify"][0] == "off"
    assert sorted(p.name for p in (tmp_path / "g").iterdir()) == ["grid.toml"]


def test_a_table_of_another_schema_or_tool_is_refused_before_anything_runs(tmp_path):
    grid, out = write_grid(tmp_path), tmp_path / "out"
    out.mkdir()
    pd.DataFrame({"cell_id": ["x"], "waf": [1.0]}).to_parquet(out / "results.parquet")
    with pytest.raises(ssdlab.SsdlabIOError, match="not a results table of `ssdlab sweep`"):
        ssdlab.sweep(grid, out=out)
    with pytest.raises(ssdlab.SsdlabIOError, match="not a results table"):
        read_table(out)
    assert not (out / "cells").exists()
    # A table of this tool but another schema version: refused too, naming both versions.
    table = pq.read_table(out / "results.parquet")
    stamped = {b"ssdlab.writer": b"ssdlab sweep", b"ssdlab.sweep_schema": b"2", b"ssdlab.version": b"9.9"}
    pq.write_table(table.replace_schema_metadata(stamped), out / "results.parquet")
    with pytest.raises(ssdlab.SsdlabIOError, match=r"schema 2 \(ssdlab 9.9\); this ssdlab reads schema 1"):
        read_table(out / "results.parquet")


def test_a_sweep_killed_half_way_reruns_only_its_unfinished_cells(tmp_path):
    # Six cells of about a third of a second each, one process: killed after two have finished.
    grid = write_grid(
        tmp_path, "seeds = 6\n[base]\nworkload = 'randwrite'\nset = ['workload.count=300000']\n"
    )
    out = tmp_path / "out"
    command = sweep_command(grid, out, "-j", "1")
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while len(list((out / "cells").glob("*.json"))) < 2:
        assert process.poll() is None, "the sweep ended before it could be killed"
        assert time.monotonic() < deadline, "no cell finished in two minutes"
        time.sleep(0.01)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    finished = {p.stem: p.read_bytes() for p in (out / "cells").glob("*.json")}
    assert 2 <= len(finished) < 6, "the kill came too late to test resuming"
    assert not (out / "results.parquet").exists()

    result = run_sweep(grid, out=out, processes=1)
    ran = {o.id for o in result.outcomes if not o.resumed}
    assert ran == {c.id for c in result.cells} - set(finished)
    assert {o.id for o in result.outcomes if o.resumed} == set(finished)
    assert all(o.ok for o in result.outcomes)
    # The records of the finished cells were read, not rewritten; every cell has its report.
    assert {p: (out / "cells" / f"{p}.json").read_bytes() for p in finished} == finished
    assert all((out / r).is_file() for r in result.frame["report"])
    assert list(read_table(out)["seed"]) == [0, 1, 2, 3, 4, 5]


def test_the_documented_example_grid_is_valid():
    grid = load_grid(REPO / "docs" / "examples" / "sweep_gc.toml")
    cells = plan(grid)
    assert len(cells) > 1 and all(c.invalid is None for c in cells)
