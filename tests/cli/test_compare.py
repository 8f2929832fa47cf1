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
        # A learned scheduler still exploring on this tiny budget is marked, its figures shown.
        assert re.search(rf"^{scheduler}( †)?\s+\d", result.output, re.MULTILINE)


#: RLGC on the tiny drive at steady state: GC decisions from the first requests.
RLGC_RUN = (
    "--preset", "tiny", "--workload", "randwrite", "--set", "warmup.fill=true",
    "--set", "gc.trigger_free_blocks=12", "--set", "gc.rlgc.zero_interval=same_arrival",
)  # fmt: skip


def test_with_controls_runs_each_learned_variant_beside_its_random_control_with_the_same_seeds(tmp_path):
    out = tmp_path / "cmp"
    result = invoke(
        "compare", *RLGC_RUN, "--set", "workload.count=3000", "--vary", "gc.scheduler=greedy,rlgc",
        "--seeds", "2", "--jobs", "2", "--with-controls", "--out", str(out),
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    runs = read_runs(out)
    assert [(r["variant"], r["seed"]) for r in runs] == [
        ("greedy", "0"),
        ("greedy", "1"),
        ("rlgc", "0"),
        ("rlgc", "1"),
        ("rlgc (random control)", "0"),
        ("rlgc (random control)", "1"),
    ]  # fmt: skip, greedy learns nothing: no control; rlgc's right after it, the same seeds
    for row in runs:
        report = json.loads((out / row["report"]).read_text())
        control = row["variant"].endswith("(random control)")
        assert report["config"]["gc"]["rlgc"]["random_control"] is control
        assert (
            report["seed"] == int(row["seed"]) and report["config"]["gc"]["scheduler"] == row["gc.scheduler"]
        )
        if control:  # every decision drawn at random, and said to be the control, not flagged
            gc = report["learning"]["gc"]
            assert gc["control"] and gc["explorations"] == gc["decisions"] > 0
            assert float(row["exploration_share"]) == 1.0 and row["exploring"] == "False"
    assert (out / "reports" / "rlgc_random_control_seed0.json").exists()
    lines = result.output.splitlines()
    rows = [i for i, ln in enumerate(lines) if ln.startswith(("greedy ", "rlgc "))]
    assert [lines[i].split()[0] for i in rows] == ["greedy", "rlgc", "rlgc"]
    assert "(random control)" in lines[rows[2]] and "(random control)" not in lines[rows[1]]


def test_with_controls_is_refused_when_no_variant_learns(tmp_path, capsys):
    with pytest.raises(SystemExit) as info:
        main([
            "compare", "--preset", "tiny", "--vary", "gc.scheduler=greedy,lazy_rtgc", "--with-controls",
            "--out", str(tmp_path / "never"),
        ])  # fmt: skip
    assert info.value.code == 2
    err = capsys.readouterr().err.replace("\n", " ")
    assert "--with-controls: no compared variant runs a policy that learns" in err
    assert "gc.rlgc.random_control" in err
    assert not (tmp_path / "never").exists()


def test_an_agent_shorter_than_its_epsilon_schedule_is_flagged_and_a_long_enough_one_is_not(tmp_path):
    """rlgc explores at 0.8 for its first 1,000 GC decisions: a run of a few hundred is marked
    with its share and where the schedule stood; the same run with a schedule of 50 decisions,
    long past it with few random decisions, is not."""
    out = tmp_path / "cmp"
    result = invoke(
        "compare", *RLGC_RUN, "--set", "workload.count=2000", "--set", "gc.scheduler=rlgc",
        "--vary", "gc.rlgc.epsilon_switch_after_decisions=1000,50", "--jobs", "2", "--out", str(out),
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    short, long = read_runs(out)
    reports = [json.loads((out / r["report"]).read_text())["learning"]["gc"] for r in (short, long)]
    decisions = reports[0]["decisions"]
    assert 100 < decisions < 1000, "the run is shorter than the schedule"
    assert short["exploring"] == "True" and long["exploring"] == "False"
    assert float(short["exploration_share"]) > 0.5 and float(long["exploration_share"]) < 0.1
    lines = result.output.splitlines()
    assert next(ln for ln in lines if ln.startswith("1000 ")).startswith("1000 †")
    assert "†" not in next(ln for ln in lines if ln.startswith("50 "))
    footnote = " ".join(lines[next(i for i, ln in enumerate(lines) if ln.startswith("† 1000:")) :])
    share = round(100 * reports[0]["explorations"] / decisions)
    assert f"{share} % of {decisions:,} GC decisions explored" in footnote
    assert f"epsilon 0.8 until decision 1,000, then 0.01; the run took {decisions:,}" in footnote
