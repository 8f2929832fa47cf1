"""`ssdlab run` states its experiment: the drive (preset, raw, logical and used space), the
workload, the warm-up, and requests folded and trace lines skipped, each in yellow with a warning
when it is not 0; a trace folded onto a drive smaller than it warns and names what fits."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

import ssdlab
from ssdlab._console import fmt_bytes
from ssdlab.api import Simulation, preset_sizes
from ssdlab.cli import cli
from ssdlab.cli.run import experiment_table
from ssdlab.trace import stats as trace_stats

CLOUDPHYSICS = "cloudphysics/cloudPhysicsIO.us.csv.gz"
MSR_CUT = "msr/msr_cut10k_rw20_80_105.trace"


def run(*args: str):
    """`ssdlab run ARGS` on a wide terminal (no cell wraps); (stdout, stderr)."""
    result = CliRunner(env={"COLUMNS": "250"}).invoke(cli, ["run", *args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout, " ".join(result.stderr.split())


def row(stdout: str, figure: str) -> str:
    """The value of a summary row."""
    line = next(line for line in stdout.splitlines() if line.strip().startswith(figure))
    return line.strip()[len(figure) :].strip()


def test_a_clean_run_states_drive_and_warm_up_and_warns_of_nothing():
    stdout, stderr = run("--preset", "tiny", "--workload", "randwrite", "--set", "workload.count=2000",
                         "--set", "warmup.fill=true", "--set", "warmup.random_writes=0.5")  # fmt: skip
    # tiny: 4 planes x 64 blocks x 96 pages x 4 KiB, 12.5 % over-provisioned, all of it used.
    assert row(stdout, "drive") == "tiny: 96.0 MiB raw, 84.0 MiB logical, 84.0 MiB used (100 %)"
    # 21,504 pages filled, then half as many overwritten at random.
    assert row(stdout, "warm-up").startswith("fill + 0.5x random overwrites (untimed): 32,256 pages, ")
    assert row(stdout, "requests folded") == "0"
    assert row(stdout, "bad trace lines skipped") == "0"
    assert row(stdout, "workload") == "randwrite, 4.00 KiB requests, iodepth 1"
    assert "warning" not in stderr


def test_a_run_without_warm_up_says_so_and_a_timed_one_its_simulated_time():
    stdout, _ = run("--workload", "randwrite", "--set", "workload.count=500", "--set", "warmup.fill=false",
                    "--set", "warmup.random_writes=0")  # fmt: skip
    assert row(stdout, "warm-up") == "none (the drive starts empty)"
    stdout, _ = run("--workload", "randwrite", "--set", "workload.count=500", "--set", "warmup.fill=false",
                    "--set", "warmup.random_writes=0", "--set", "warmup.timed_random_writes_ns=5000000")  # fmt: skip
    assert re.fullmatch(
        r"timed random writes: [\d,]+ requests over [\d.]+ ms simulated", row(stdout, "warm-up")
    )


def test_the_issues_trace_on_the_default_drive_warns_and_names_a_preset_that_holds_its_footprint(traces):
    """The issue's first hour: a CloudPhysics volume replayed without --preset folds almost all
    of its requests onto tiny's 84 MiB. The summary says so in yellow and the warning names the
    smallest built-in preset whose used space holds the trace's footprint (as `trace stats`
    counts it, independently of the run) and the blocks per plane this drive would need."""
    path = traces / CLOUDPHYSICS
    stdout, stderr = run("--trace", str(path))
    footprint = trace_stats(path)["footprint_bytes"]
    folded = row(stdout, "requests folded")
    assert re.fullmatch(r"[\d,]+ \(9\d(\.\d)? %\)", folded), folded
    assert re.search(
        r"[\d,]+ of 113,872 requests \(9\d(\.\d)? %\) were folded into the drive's 84.0 MiB", stderr
    )
    assert "its footprint is 1.0" in stderr
    named = re.search(r"--preset (\S+) \(", stderr).group(1)
    sizes = {p["name"]: p["used_logical_bytes"] for p in preset_sizes()}
    assert sizes[named] >= footprint
    assert all(used < footprint for used in sizes.values() if used < sizes[named])
    # Its addresses span 31 GiB: the preset needs compact folding unless it holds them too.
    if sizes[named] < 31 * 2**30:
        assert f"--preset {named} (" in stderr and "with --set workload.fold=compact" in stderr
    blocks = int(re.search(r"--set device.blocks_per_plane=(\d+)", stderr).group(1))

    def used_with(n: int) -> int:
        sim = Simulation(overrides=[f"device.blocks_per_plane={n}", "workload.count=1"])
        return sim.run()["drive"]["used_logical_bytes"]

    assert used_with(blocks) >= footprint > used_with(blocks - 1)
    assert "folded" not in run("--trace", str(path), "--preset", named, "--set", "workload.fold=compact")[1]


def test_a_trace_whose_footprint_fits_but_addresses_do_not_is_told_to_fold_compact(traces):
    """The bundled MSR excerpt touches 29 MiB over 13.9 GiB of addresses: on tiny, modulo folding
    folds it, compact folding packs it."""
    path = traces / MSR_CUT
    stdout, stderr = run("--trace", str(path), "--preset", "tiny")
    stats = trace_stats(path)
    footprint, span = fmt_bytes(stats["footprint_bytes"]), fmt_bytes(stats["max_address_bytes"])
    assert row(stdout, "requests folded") != "0"
    assert f"its footprint ({footprint}) fits but its addresses (up to {span}) do not" in stderr
    assert "--set workload.fold=compact" in stderr
    stdout, stderr = run("--trace", str(path), "--preset", "tiny", "--set", "workload.fold=compact")
    assert row(stdout, "requests folded") == "0" and "warning" not in stderr
    assert row(stdout, "workload") == (
        f"trace {path.name} ({stats['trace']['format']}), footprint {footprint}, addresses up to {span}"
    )


def test_bad_lines_skipped_show_in_yellow_with_a_warning(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text(
        "128166372003061629,wdev,1,Write,2850816,4096,1000\n"
        "128166372003061630,wdev,1,Write,oops,4096,1000\n"
        "128166372003061631,wdev,1,Read,2850816,4096,1000\n"
    )
    stdout, stderr = run("--trace", str(bad), "--set", "workload.trace.on_bad_line=skip")
    assert row(stdout, "bad trace lines skipped") == "1"
    # Once, with the line quoted (not a second sentence from the summary).
    assert stderr.count("skipped") == 1
    assert "1 unreadable lines skipped" in stderr and "bad.csv:2:" in stderr
    # The row is yellow.
    report = ssdlab.run(trace=bad, overrides=["workload.trace.on_bad_line=skip"])
    table = experiment_table(report)
    figures = list(table.columns[0].cells)
    assert table.rows[figures.index("bad trace lines skipped")].style == "yellow"
    assert table.rows[figures.index("requests folded")].style is None


@pytest.mark.parametrize("quiet", [True, False])
def test_warnings_print_with_quiet_too(traces, quiet):
    args = ["--trace", str(traces / MSR_CUT), "--set", "workload.count=2000", *(["-q"] if quiet else [])]
    stdout, stderr = run(*args)
    assert "were folded" in stderr
    assert ("requests folded" in stdout) is not quiet
