"""Cell records read back only if they are their cell's whole, consistent record
(`ssdlab.sweeps.record`, `ssdlab.sweeps.store`): a record copied over another's, cut short,
missing a key, of a wrong type, contradicting itself or naming a file that is gone or changed is
set aside as `<id>.json.bad` with a warning naming it, and its cell runs again; never used, never
a traceback."""

from __future__ import annotations

import json
import shutil
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from click.testing import CliRunner
from sweep_helpers import counting_worker, executed, make_cells

import ssdlab
from ssdlab.cli import cli
from ssdlab.sweeps import SweepWarning, read_table, run_cells
from ssdlab.sweeps.record import CELL_SCHEMA, record_problem


def edit(path: Path, change: Callable[[dict[str, Any]], None]) -> None:
    """Change a record's JSON as a hand (or a tool) would: its digest left as it was."""
    record = json.loads(path.read_text())
    change(record)
    path.write_text(json.dumps(record))


def drop(key: str) -> Callable[[dict[str, Any]], None]:
    return lambda record: record.pop(key)


def put(key: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def change(record: dict[str, Any]) -> None:
        record[key] = value
        record.pop("record_sha256", None)  # so that the check on this key, not the digest, is what finds it

    return change


# (what is done to the record of cell 1 (ok) or 3 (failed), what the warning says)
DAMAGES: list[tuple[str, int, Callable[[Path, Path], None], str]] = [
    ("copied over", 1, lambda rec, out: shutil.copy(out / "cells" / "cell02.json", rec), "the record of cell 'cell02', not of 'cell01' (copied over it?)"),
    ("cut short", 1, lambda rec, out: rec.write_bytes(rec.read_bytes()[:40]), "not JSON"),
    ("empty", 1, lambda rec, out: rec.write_bytes(b""), "not JSON"),
    ("not UTF-8", 1, lambda rec, out: rec.write_bytes(b'{"\xff": 1}'), "not JSON"),
    ("not an object", 1, lambda rec, out: rec.write_text("[1, 2]"), "not a JSON object but list"),
    ("no status", 1, lambda rec, out: edit(rec, drop("status")), "no 'status'"),
    ("no result", 1, lambda rec, out: edit(rec, drop("result")), "no 'result'"),
    ("wall_s a string", 1, lambda rec, out: edit(rec, put("wall_s", "fast")), "'wall_s' is \"fast\", not a number"),
    ("wall_s a boolean", 1, lambda rec, out: edit(rec, put("wall_s", True)), "'wall_s' is true, not a number"),
    ("files not a list", 1, lambda rec, out: edit(rec, put("files", "notes/cell01.txt")), "'files' is"),
    ("an unknown key", 1, lambda rec, out: edit(rec, put("colour", "red")), "unknown key 'colour'"),
    ("ok with a null result", 1, lambda rec, out: edit(rec, put("result", None)), 'status "ok" with no result'),
    ("ok with an error", 1, lambda rec, out: edit(rec, put("error", "boom")), 'status "ok" with an error'),
    ("failed with a result", 3, lambda rec, out: edit(rec, put("result", {"n": 3})), 'status "failed" with a result'),
    ("failed without an error", 3, lambda rec, out: edit(rec, put("error", None)), 'status "failed" with no error'),
    ("an unknown status", 1, lambda rec, out: edit(rec, put("status", "done")), "status 'done', not one of ok, failed"),
    ("a negative wall time", 1, lambda rec, out: edit(rec, put("wall_s", -1)), "'wall_s' is -1, not a duration"),
    ("its file deleted", 1, lambda rec, out: (out / "notes" / "cell01.txt").unlink(), "its file notes/cell01.txt does not exist"),
    ("its file changed", 1, lambda rec, out: (out / "notes" / "cell01.txt").write_text("cell 2"), "its file notes/cell01.txt is not the one it recorded"),
    ("a file outside", 1, lambda rec, out: edit(rec, put("files", ["../../etc/passwd"])), "its file '../../etc/passwd' is outside"),
    ("a value edited", 1, lambda rec, out: edit(rec, lambda r: r["result"].update(n=7)), "its content does not match its digest"),
    ("another cell's result", 1, lambda rec, out: edit(rec, lambda r: r.update(result={"n": 2})), "its content does not match its digest"),
]  # fmt: skip


@pytest.mark.parametrize(("what", "n", "damage", "reason"), DAMAGES, ids=[d[0] for d in DAMAGES])
def test_a_damaged_record_is_set_aside_with_a_warning_and_its_cell_runs_again(
    tmp_path, what, n, damage, reason
):
    log, out = tmp_path / "log", tmp_path / "out"
    cells = make_cells(4, log)
    first = run_cells(cells, counting_worker, out=out, processes=1)
    executed(log)
    record = out / "cells" / f"cell{n:02d}.json"
    damage(record, out)
    damaged = record.read_bytes()
    with pytest.warns(SweepWarning) as caught:
        second = run_cells(cells, counting_worker, out=out, processes=1)
    messages = [str(w.message) for w in caught]
    assert len(messages) == 1, messages
    assert messages[0].startswith(f"{record}: {reason}")
    assert messages[0].endswith(f"moved to cell{n:02d}.json.bad, and the cell runs again")
    assert executed(log) == [n]  # that cell only, run again
    # The set-aside file is the damaged one, kept as evidence; the new record is the cell's own.
    assert (out / "cells" / f"cell{n:02d}.json.bad").read_bytes() == damaged
    assert second[n].id == f"cell{n:02d}" and not second[n].resumed
    assert second[n].status == first[n].status and second[n].result == first[n].result
    if n == 1:
        assert (
            second[n].result == {"n": 1, "squares": [1]}
            and (out / "notes" / "cell01.txt").read_text() == "cell 1"
        )
    assert record_problem(json.loads(record.read_text()), f"cell{n:02d}", out) is None
    if n == 1:
        assert record.read_bytes() != damaged
    # A third run finds every record sound: nothing runs, nothing is set aside.
    third = run_cells(cells, counting_worker, out=out, processes=1)
    assert executed(log) == [] and all(o.resumed for o in third)


def test_a_second_bad_record_of_one_cell_is_kept_beside_the_first(tmp_path):
    log, out = tmp_path / "log", tmp_path / "out"
    cells = make_cells(2, log)
    run_cells(cells, counting_worker, out=out, processes=1)
    record = out / "cells" / "cell00.json"
    for attempt in (1, 2):
        record.write_text(f"garbage {attempt}")
        with pytest.warns(SweepWarning, match="cell00.json.bad" + ("" if attempt == 1 else ".2")):
            run_cells(cells, counting_worker, out=out, processes=1)
    assert (out / "cells" / "cell00.json.bad").read_text() == "garbage 1"
    assert (out / "cells" / "cell00.json.bad.2").read_text() == "garbage 2"


def test_a_record_written_before_the_digests_existed_is_still_read(tmp_path):
    log, out = tmp_path / "log", tmp_path / "out"
    cells = make_cells(2, log)
    run_cells(cells, counting_worker, out=out, processes=1)
    executed(log)
    for record in (out / "cells").glob("*.json"):
        edit(record, lambda r: (r.pop("record_sha256"), r.pop("files_sha256")))
    again = run_cells(cells, counting_worker, out=out, processes=1)
    assert executed(log) == [] and all(o.resumed for o in again)


def test_record_problem_accepts_the_record_it_was_written_as_and_names_the_key_it_lacks(tmp_path):
    log, out = tmp_path / "log", tmp_path / "out"
    run_cells(make_cells(1, log), counting_worker, out=out, processes=1)
    record = json.loads((out / "cells" / "cell00.json").read_text())
    assert record["schema"] == CELL_SCHEMA and record_problem(record, "cell00", out) is None
    for key in ("schema", "id", "labels", "status", "error", "wall_s", "ssdlab_version", "files", "result"):
        assert record_problem({k: v for k, v in record.items() if k != key}, "cell00", out) == f"no {key!r}"
    assert (
        record_problem(record, "cell01", out)
        == "the record of cell 'cell00', not of 'cell01' (copied over it?)"
    )


GRID = """
seeds = 3
[base]
preset = "tiny"
workload = "randwrite"
set = ["workload.count=400"]
"""


def test_a_sweep_record_copied_over_another_cells_is_rerun_not_misread(tmp_path):
    """The issue's case: one cell's record copied over another's gave that cell the other's
    figures and report, with exit status 0."""
    grid = tmp_path / "grid.toml"
    grid.write_text(textwrap.dedent(GRID).lstrip())
    out = tmp_path / "out"
    first = ssdlab.sweep(grid, out=out, processes=1)
    a, b = first["cell_id"][0], first["cell_id"][1]
    shutil.copy(out / "cells" / f"{a}.json", out / "cells" / f"{b}.json")
    result = CliRunner().invoke(cli, ["sweep", str(grid), "-o", str(out), "-j", "1"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    warning = f"warning: {out / 'cells' / f'{b}.json'}: the record of cell '{a}', not of '{b}'"
    assert warning in " ".join(result.output.split())  # unwrapped
    assert "3 cells: 3 ok, 0 failed, 2 from an earlier run" in result.output
    table = read_table(out)
    pd.testing.assert_frame_equal(table.drop(columns="wall_s"), first.drop(columns="wall_s"))
    row = table[table["cell_id"] == b].iloc[0]
    report = json.loads((out / row["report"]).read_text())
    assert report["seed"] == row["seed"] == 1 and report["wear"]["erases"] == row["erases"]


def test_a_sweep_record_whose_figures_are_not_numbers_is_rerun(tmp_path):
    grid = tmp_path / "grid.toml"
    grid.write_text(textwrap.dedent(GRID).lstrip())
    out = tmp_path / "out"
    first = ssdlab.sweep(grid, out=out, processes=1)
    record = out / "cells" / f"{first['cell_id'][2]}.json"
    edit(record, lambda r: (r["result"]["figures"].update(waf="high"), r.pop("record_sha256")))
    with pytest.warns(SweepWarning, match="its figure 'waf' is not a number"):
        again = ssdlab.sweep(grid, out=out, processes=1)
    pd.testing.assert_frame_equal(again.drop(columns="wall_s"), first.drop(columns="wall_s"))
