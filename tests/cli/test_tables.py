"""Every table the CLI prints fits an 80-column terminal or log without cutting anything: no
line is wider than 80 characters and no cell ends in an ellipsis. Figures that do not exist print
as a dash."""

from __future__ import annotations

import tomllib

import pytest
from click.testing import CliRunner

import ssdlab
from ssdlab.cli import cli

BUNDLED = "msr_cut10k_rw20_80_105"


def output_at_80_columns(*args: str) -> str:
    # COLUMNS is what Rich sizes by, and it is also what it falls back to (80) when the output is
    # piped to a file, as in a log.
    result = CliRunner(env={"COLUMNS": "80"}).invoke(cli, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def assert_fits(text: str) -> None:
    assert text.strip()
    for line in text.splitlines():
        assert len(line) <= 80, line
        assert "…" not in line, line


@pytest.mark.parametrize(
    "args",
    [
        ("presets",),
        ("run", "--preset", "tiny", "--workload", "randrw", "--set", "workload.count=2000", "--verify"),
        ("trace", "stats", BUNDLED),
        (
            "compare",
            "--preset",
            "tiny",
            "--workload",
            "randwrite",
            "--set",
            "workload.count=1000",
            "--vary",
            "gc.scheduler=greedy,rlgc_aggressive",
            "--vary",
            "gc.victim=greedy,cost_benefit",
            "--jobs",
            "1",
            "--out",
            "cmp",
        ),
    ],
)
def test_tables_fit_80_columns(args, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # short output paths: a long path is printed whole, on one line
    assert_fits(output_at_80_columns(*args))


def test_each_preset_is_one_line_with_its_whole_geometry():
    """Wrapping a cell is what made the tables hard to read: a preset's row holds its geometry on
    the same line as its name."""
    lines = output_at_80_columns("presets").splitlines()
    for name in ssdlab.presets():
        d = tomllib.loads(ssdlab.preset_toml(name))["device"]
        shape = (d["channels"], d["chips_per_channel"], d.get("dies_per_chip", 1), d.get("planes_per_die", 1))
        geometry = " x ".join(str(n) for n in (*shape, d["blocks_per_plane"], d["pages_per_block"]))
        row = next(line for line in lines if line.startswith(name + " "))
        assert row.rstrip().endswith(geometry), row


def test_presets_list_the_bundled_trace():
    out = output_at_80_columns("presets")
    assert BUNDLED in out and "MSR Cambridge" in out


def test_trace_stats_fit_80_columns(traces):
    names = ["msr/hm_0.sample1000.csv", "msr/msr_cut10k_rw20_80_105.trace", "msr/rsrch_1.txt.gz"]
    assert_fits(output_at_80_columns("trace", "stats", *(str(traces / n) for n in names)))


def test_run_shows_dashes_for_the_reads_of_a_write_only_run():
    out = output_at_80_columns(
        "run", "--preset", "tiny", "--workload", "randwrite", "--set", "workload.count=500"
    )
    assert_fits(out)
    read_row = next(line.split() for line in out.splitlines() if line.startswith("read "))
    assert read_row == ["read", "0", "-", "-", "-", "-", "-", "-"]
    write_row = next(line.split() for line in out.splitlines() if line.startswith("write "))
    assert write_row[1] == "500" and "-" not in write_row


def test_run_of_a_read_only_workload_shows_no_waf():
    out = output_at_80_columns(
        "run", "--preset", "tiny", "--workload", "randread", "--set", "workload.count=500"
    )
    waf = next(line.split() for line in out.splitlines() if line.startswith("WAF"))
    assert waf == ["WAF", "-"]


def test_run_shows_idle_time_and_what_was_done_in_it():
    out = output_at_80_columns(
        "run",
        "--preset",
        "tiny",
        "--workload",
        "onoff",
        "--set",
        "workload.count=600",
        "--set",
        'gc.background="idle"',
        "--set",
        "gc.background_free_blocks=40",
        "--set",
        'cache.capacity="256k"',
        "--set",
        "cache.flush_on_idle=true",
    )
    assert_fits(out)
    rows = {line.split("  ")[0].strip(): line for line in out.splitlines()}
    periods = next(v for k, v in rows.items() if k.startswith("idle periods"))
    assert int(periods.split()[-3].replace(",", "")) > 0, periods
    assert any(k.startswith("idle GC") for k in rows), out
    assert any(k.startswith("write buffer: idle flushes") for k in rows), out


def test_bench_prints_a_dash_for_the_waf_of_a_read_only_scenario():
    out = output_at_80_columns("bench", "--requests", "2000", "--scenario", "randread")
    assert_fits(out)
    row = next(line.split() for line in out.splitlines() if line.startswith("randread"))
    assert row[0:2] == ["randread", "2,000"]
    assert row[4] == "-"  # scenario, requests, wall s, req/s, WAF, peak RSS
