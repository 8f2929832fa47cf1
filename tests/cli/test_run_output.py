"""What `ssdlab run` prints besides its experiment: figures with significant digits (a rate of
0.000005 is not `0`, a week of idle time is not a nine-digit millisecond count, thousands keep
their separators), and the progress bars: on a terminal only, the warm-up's before the run's.

Why a terminal only: a bar redrawn in place is noise in a log file or a pipe (every redraw a
line), and what a bar says, the run's own summary says at the end; rich draws a transient bar
only on a terminal, so the CLI needs no flag for it."""

from __future__ import annotations

import io
import itertools
import re

import pytest
from click.testing import CliRunner
from rich.console import Console

from ssdlab import _console
from ssdlab.api import Simulation
from ssdlab.cli import cli

#: 100 ns per tick (Windows FILETIME, the MSR format): three 4 KiB writes, the last a week later.
WEEK_TICKS = 7 * 86_400 * 10**7
WARMUP = ["--set", "warmup.fill=true", "--set", "warmup.random_writes=0.5"]


def run(*args: str) -> tuple[str, str]:
    result = CliRunner(env={"COLUMNS": "200"}).invoke(cli, ["run", *args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout, result.stderr


def row(stdout: str, figure: str) -> str:
    line = next(line for line in stdout.splitlines() if line.strip().startswith(figure))
    return line.strip()[len(figure) :].strip()


def test_a_week_long_trace_keeps_its_tiny_rates_and_reads_its_idle_time_in_days(tmp_path):
    trace = tmp_path / "week.csv"
    start = 128166372000000000
    trace.write_text(
        f"{start},wdev,1,Write,0,4096,1000\n{start + 1},wdev,1,Write,8192,4096,1000\n"
        f"{start + WEEK_TICKS},wdev,1,Write,4096,4096,1000\n"
    )
    stdout, _ = run("--trace", str(trace))
    # 3 requests over 7 days: 4.96e-06 IOPS; 12 KiB over 7 days: 2.03e-08 MB/s. Neither is 0.
    iops, mb_s = row(stdout, "IOPS (simulated)"), row(stdout, "MB/s (simulated)")
    assert float(iops) == pytest.approx(3 / (7 * 86_400), rel=5e-3) and iops == "4.96e-06"
    assert float(mb_s) == pytest.approx(3 * 4096 / 1e6 / (7 * 86_400), rel=5e-3)
    assert row(stdout, "simulated time") == "7.00 d"
    assert row(stdout, "idle periods (total)") == "1 (7.00 d)"


def test_large_rates_are_whole_numbers_with_separators_and_a_missing_waf_a_dash():
    stdout, _ = run("--workload", "randread", "--set", "workload.count=3000", "--set", "workload.iodepth=32")
    iops, mb_s = row(stdout, "IOPS (simulated)"), row(stdout, "MB/s (simulated)")
    assert re.fullmatch(r"\d{1,3}(,\d{3})+", iops), iops
    assert re.fullmatch(r"\d{3}", mb_s), "from 100 up, whole numbers"
    assert row(stdout, "WAF") == "-", "a read-only run has no WAF, not a WAF of 0"


@pytest.fixture
def slow_clock(monkeypatch):
    """Every reading of the clock two seconds after the last, past the one-second threshold under
    which no bar is shown; warm-up slices of 4,096 pages, so tiny's warm-up takes several; and
    steps of 2,000 events, so the run takes several too."""
    clock = itertools.count(0, 2)
    monkeypatch.setattr(_console.time, "perf_counter", lambda: next(clock))
    monkeypatch.setattr(_console, "WARMUP_SLICE", 4096)
    step = Simulation.step
    monkeypatch.setattr(Simulation, "step", lambda self, max_events=2000: step(self, max_events))


def test_on_a_terminal_the_warm_up_bar_comes_before_the_runs(slow_clock, monkeypatch):
    screen = io.StringIO()
    monkeypatch.setattr(_console, "console_err", Console(file=screen, force_terminal=True, width=120))
    run("--workload", "randwrite", "--set", "workload.count=5000", *WARMUP)
    drawn = screen.getvalue()
    assert "warming up (pages)" in drawn and "simulating" in drawn
    assert drawn.index("warming up (pages)") < drawn.rindex("simulating")


def test_without_a_terminal_no_bar_is_drawn(slow_clock):
    _, stderr = run("--workload", "randwrite", "--set", "workload.count=5000", *WARMUP)
    assert "warming up" not in stderr and "simulating" not in stderr
