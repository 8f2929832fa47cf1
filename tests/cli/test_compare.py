"""`ssdlab compare` (and `make run`, which is one `ssdlab compare` command) on a tiny budget."""

from __future__ import annotations

import csv
import json
import math
import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from ssdlab import data
from ssdlab._console import fmt_duration_us
from ssdlab.cli import cli, main

REPO = Path(__file__).resolve().parents[2]


def invoke(*args: str):
    return CliRunner(env={"COLUMNS": "80"}).invoke(cli, list(args), catch_exceptions=False)


def read_runs(out: Path) -> list[dict[str, str]]:
    with open(out / "runs.csv", newline="") as f:
        return list(csv.DictReader(f))


def test_compare_runs_every_variant_and_seed_and_writes_runs_plot_and_reports(tmp_path):
    out = tmp_path / "cmp"
    result = invoke(
        "compare", "--preset", "tiny", "--workload", "randwrite", "--set", "workload.count=2000",
        "--vary", "gc.scheduler=greedy,lazy_rtgc", "--seeds", "2", "--jobs", "2", "--out", str(out),
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    runs = read_runs(out)
    assert [(r["gc.scheduler"], r["seed"]) for r in runs] == [
        ("greedy", "0"), ("greedy", "1"), ("lazy_rtgc", "0"), ("lazy_rtgc", "1"),
    ]  # fmt: skip
    for row in runs:
        # Every figure of runs.csv is the one in that run's own saved report.
        report = json.loads((out / row["report"]).read_text())
        assert report["seed"] == int(row["seed"])
        assert report["config"]["gc"]["scheduler"] == row["gc.scheduler"]
        assert report["workload"]["requests"] == int(row["requests"]) == 2000
        assert float(row["write_p99_us"]) == report["latency"]["write"]["p99_ns"] / 1e3
        assert int(row["erases"]) == report["wear"]["erases"]
        assert math.isnan(float(row["read_p99_us"]))  # write-only: missing, not 0
    assert runs[0]["write_p99_us"] != runs[1]["write_p99_us"]  # the seeds are different runs
    assert (out / "write_latency_tail.png").read_bytes()[:4] == b"\x89PNG"
    # The printed table is the mean over seeds of runs.csv.
    for scheduler in ("greedy", "lazy_rtgc"):
        mine = [float(r["write_p99_99_us"]) for r in runs if r["gc.scheduler"] == scheduler]
        line = next(ln for ln in result.output.splitlines() if ln.startswith(scheduler + " "))
        assert fmt_duration_us(sum(mine) / 2) in line


def test_compare_shows_dashes_for_figures_a_read_only_run_does_not_have(tmp_path):
    out = tmp_path / "cmp"
    result = invoke(
        "compare", "--preset", "tiny", "--workload", "randread", "--set", "workload.count=500",
        "--vary", "gc.victim=greedy,fifo", "--jobs", "1", "--out", str(out),
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    rows = [ln.split() for ln in result.output.splitlines() if ln.startswith(("greedy ", "fifo "))]
    assert rows == [["greedy", "-", "-", "-", "0"], ["fifo", "-", "-", "-", "0"]]
    assert not (out / "write_latency_tail.png").exists()  # nothing to plot
    assert all(math.isnan(float(r["waf"])) for r in read_runs(out))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--vary", "gc.scheduler"], "is not KEY=V1,V2"),
        (["--vary", "gc.scheduler=greedy,nope"], "nope"),
        (["--vary", "seed=1,2", "--seeds", "2"], "not both"),
        ([], "Missing option '--vary'"),
    ],
)
def test_compare_input_errors_exit_2_before_anything_runs(args, message, tmp_path, capsys):
    with pytest.raises(SystemExit) as info:
        main(["compare", "--preset", "tiny", "--out", str(tmp_path / "never"), *args])
    assert info.value.code == 2
    assert message in capsys.readouterr().err.replace("\n", " ")
    assert not (tmp_path / "never").exists()


def make_run_arguments() -> list[str]:
    """The `ssdlab ...` command of the Makefile's `run` target, as an argument list."""
    recipe = REPO.joinpath("Makefile").read_text().split("\nrun: build\n", 1)[1]
    lines = []
    for line in recipe.splitlines():
        lines.append(line.strip().removesuffix("\\"))
        if not line.endswith("\\"):
            break
    words = shlex.split(" ".join(lines))
    assert words[0] == "$(BIN)/ssdlab"
    return words[1:]


def test_make_run_compares_the_five_gc_schedulers_on_the_bundled_trace(tmp_path):
    args = make_run_arguments()
    assert args[0] == "compare"
    assert "msr_cut10k_rw20_80_105" in args and "--vary" in args
    # The same command on a tiny budget: later --set and options win.
    out = tmp_path / "demo"
    budget = ["--set", "workload.repeat=1", "--set", "workload.count=1000", "--seeds", "1", "--jobs", "1"]
    result = invoke(*args, *budget, "--out", str(out))
    assert result.exit_code == 0, result.output
    runs = read_runs(out)
    schedulers = ["greedy", "lazy_rtgc", "rlgc", "rlgc_aggressive", "rlgc_qtc"]
    assert [r["gc.scheduler"] for r in runs] == schedulers
    report = json.loads((out / runs[0]["report"]).read_text())
    assert report["config"]["workload"]["path"] == str(data.trace_path("msr_cut10k_rw20_80_105"))
    assert report["config"]["device"]["blocks_per_plane"] == 512
    assert report["warmup"]["pages_written"] > 0  # preconditioned before measuring
    assert report["gc"]["victims_reclaimed"] > 0  # GC at work from the first requests
    for scheduler in schedulers:
        assert re.search(rf"^{scheduler}\s+\d", result.output, re.MULTILINE)
