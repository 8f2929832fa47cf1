"""`run_cells`, the engine under sweeps and reproductions, with workers that do not simulate:
order, failures, files, resuming, and what a dead worker process or a missing Ray does."""

from __future__ import annotations

import json
import multiprocessing
import os
import sys

import pytest
from sweep_helpers import counting_worker, executed, make_cells

import ssdlab
from ssdlab.experiments.common import Job
from ssdlab.sweeps import Cell, CellOutcome, run_cells


def dying_worker(job: Job) -> dict:
    """Kills its own process on n == 2 (a crash, out of memory)."""
    if job.labels["n"] == 2:
        os._exit(1)
    return {"n": job.labels["n"]}


def odd_worker(job: Job) -> dict:
    return {"list": [1], "not json": {1, 2}} if job.labels["n"] else "a string"  # type: ignore[return-value]


@pytest.mark.parametrize("processes", [1, 2])
def test_outcomes_come_back_in_cell_order_a_failure_is_recorded_and_the_rest_run(tmp_path, processes):
    log, out = tmp_path / "log", tmp_path / "out"
    cells = make_cells(6, log)
    outcomes = run_cells(cells, counting_worker, out=out, processes=processes)
    assert [o.id for o in outcomes] == [c.id for c in cells]
    assert executed(log) == [0, 1, 2, 3, 4, 5]
    assert [o.status for o in outcomes] == ["ok", "ok", "ok", "failed", "ok", "ok"]
    failed = outcomes[3]
    assert failed.error.startswith("ValueError: three is not welcome (at sweep_helpers.py:")
    assert failed.result is None and failed.files == ()
    ok = outcomes[4]
    assert ok.result == {"n": 4, "squares": [16]}  # the files left the result ...
    assert ok.files == ("notes/cell04.txt",)  # ... for the results directory
    assert (out / "notes" / "cell04.txt").read_text() == "cell 4"
    assert ok.wall_s > 0 and not ok.resumed
    record = json.loads((out / "cells" / "cell03.json").read_text())
    assert record["schema"] == "ssdlab-sweep-cell/1" and record["status"] == "failed"
    assert record["labels"]["n"] == 3 and record["error"] == failed.error


def test_a_rerun_resumes_from_the_records_and_runs_failed_cells_only_when_asked(tmp_path):
    log, out = tmp_path / "log", tmp_path / "out"
    cells = make_cells(5, log)
    first = run_cells(cells[:2], counting_worker, out=out, processes=1)  # "killed" after two cells
    assert executed(log) == [0, 1]
    second = run_cells(cells, counting_worker, out=out, processes=1)
    assert executed(log) == [2, 3, 4]  # only the unfinished cells
    assert [o.resumed for o in second] == [True, True, False, False, False]
    assert second[:2] == [CellOutcome(**{**o.__dict__, "resumed": True}) for o in first]
    third = run_cells(cells, counting_worker, out=out, processes=1)
    assert executed(log) == [] and all(o.resumed for o in third)
    assert third[3].status == "failed"  # recorded failure, not retried
    run_cells(cells, counting_worker, out=out, processes=1, retry_failed=True)
    assert executed(log) == [3]
    run_cells(cells, counting_worker, out=out, processes=1, resume=False)
    assert executed(log) == [0, 1, 2, 3, 4]
    run_cells(cells, counting_worker, processes=1)  # no directory: nothing to resume from
    assert executed(log) == [0, 1, 2, 3, 4]


def test_cells_sharing_an_id_run_once(tmp_path):
    log = tmp_path / "log"
    a, b = make_cells(2, log)
    twin = Cell(a.id, {"n": 9}, b.job)
    outcomes = run_cells([a, twin, b], counting_worker, processes=1)
    assert executed(log) == [0, 1]
    assert outcomes[0] == outcomes[1] and outcomes[1].result["n"] == 0


def test_an_invalid_cell_is_recorded_failed_without_running(tmp_path):
    log, out = tmp_path / "log", tmp_path / "out"
    good, bad = make_cells(2, log)
    bad = Cell(bad.id, bad.labels, bad.job, invalid="device.utilization: 7 is outside (0, 1]")
    outcomes = run_cells([good, bad], counting_worker, out=out, processes=1)
    assert executed(log) == [0]
    assert outcomes[1] == CellOutcome(bad.id, "failed", "device.utilization: 7 is outside (0, 1]", 0.0, None)
    assert json.loads((out / "cells" / f"{bad.id}.json").read_text())["status"] == "failed"


def test_a_result_that_is_not_a_json_dict_fails_its_cell(tmp_path):
    cells = make_cells(2, tmp_path / "log")
    not_a_dict, not_json = run_cells(cells, odd_worker, out=tmp_path / "out", processes=1)
    assert not_a_dict.status == "failed" and "the worker returned str, not a dict" in not_a_dict.error
    assert (
        not_json.status == "failed"
        and "TypeError: Object of type set is not JSON serializable" in not_json.error
    )


def test_a_dead_worker_process_fails_its_own_cell_only_and_the_sweep_goes_on(tmp_path):
    cells = make_cells(12, tmp_path / "log")
    outcomes = run_cells(cells, dying_worker, processes=2)
    assert [o.status for o in outcomes] == ["ok", "ok", "failed"] + ["ok"] * 9
    assert "its worker process died" in outcomes[2].error
    assert [o.result["n"] for o in outcomes if o.ok] == [n for n in range(12) if n != 2]
    # No worker of the broken pools is left behind: the interpreter's exit would wait for it.
    for process in multiprocessing.active_children():
        process.join(timeout=30)
    assert not [p for p in multiprocessing.active_children() if p.is_alive()]


def test_a_record_of_another_schema_is_refused_not_misread(tmp_path):
    out = tmp_path / "out"
    (cell,) = make_cells(1, tmp_path / "log")
    (out / "cells").mkdir(parents=True)
    (out / "cells" / f"{cell.id}.json").write_text(
        json.dumps({"schema": "ssdlab-sweep-cell/0", "status": "ok"})
    )
    with pytest.raises(ssdlab.SsdlabIOError, match="cell record of schema 'ssdlab-sweep-cell/0'"):
        run_cells([cell], counting_worker, out=out, processes=1)
    assert not (tmp_path / "log").exists()  # refused before running anything


def test_unknown_backends_and_misplaced_ray_options_are_config_errors(tmp_path):
    cells = make_cells(1, tmp_path / "log")
    with pytest.raises(ssdlab.ConfigError, match="unknown backend 'slurm'; known: local, ray"):
        run_cells(cells, counting_worker, backend="slurm")
    with pytest.raises(ssdlab.ConfigError, match="for --backend ray"):
        run_cells(cells, counting_worker, address="10.0.0.1:6379")


def test_ray_missing_is_a_one_line_hint_before_anything_runs(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` raises ImportError
    log = tmp_path / "log"
    with pytest.raises(ssdlab.SsdlabError) as info:
        run_cells(make_cells(2, log), counting_worker, backend="ray")
    assert info.value.message == "Ray is not installed: pip install ssdlab[ray]"
    assert not log.exists()
