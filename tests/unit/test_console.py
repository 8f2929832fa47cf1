"""Cell formats of the result tables: units, significant figures and the dash for a figure that
does not exist."""

from __future__ import annotations

import math

import pytest

from ssdlab._console import MISSING, fmt_bytes, fmt_duration_ns, fmt_duration_us, fmt_number, fmt_sig


@pytest.mark.parametrize(
    ("us", "text"),
    [
        (0.0, "0.00 us"),
        (0.512, "512 ns"),
        (0.0005, "0.500 ns"),
        (81.24, "81.2 us"),
        (99.95, "100 us"),  # rounds to three figures before picking the unit ...
        (999.6, "1.00 ms"),  # ... so a value never prints as "1,000 us"
        (2_008.8, "2.01 ms"),
        (165_890.0, "166 ms"),
        (2_082_700.0, "2.08 s"),
        (119e6, "119 s"),
        (143e6, "2.38 min"),
        (7_200e6, "2.00 h"),
        (595_000e6, "6.89 d"),
    ],
)
def test_durations_keep_three_significant_figures_and_a_unit(us, text):
    assert fmt_duration_us(us) == text


@pytest.mark.parametrize(
    ("n", "text"),
    [
        (512, "512 B"),
        (1024, "1.00 KiB"),
        (30_248_960, "28.8 MiB"),
        (113.4 * 2**20, "113 MiB"),
        (2**40, "1.00 TiB"),
    ],
)
def test_sizes_use_binary_units(n, text):
    assert fmt_bytes(n) == text


def test_missing_figures_print_as_a_dash_never_as_zero():
    assert fmt_duration_us(math.nan) == MISSING == "-"
    assert fmt_duration_us(None) == MISSING
    assert fmt_number(math.nan, ".2f") == MISSING
    assert fmt_number(0.0, ".2f") == "0.00"


def test_an_idle_time_of_a_week_reads_in_days_not_a_nine_digit_millisecond_count():
    # The "594,248,213.4 ms".
    assert fmt_duration_ns(594_248_213.4e6) == "6.88 d"
    assert fmt_duration_ns(1_500) == "1.50 us"
    assert fmt_duration_ns(math.nan) == MISSING


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0.053, "0.053"),  # the "IOPS 0"
        (0.0534, "0.0534"),
        (0.000123456, "0.000123"),
        (1.0, "1"),
        (1.2345, "1.23"),
        (12.345, "12.3"),
        (99.94, "99.9"),
        (99.96, "100"),
        (1_234_567.8, "1,234,568"),
        (-0.5, "-0.5"),
        (0, "0"),
    ],
)
def test_rates_keep_three_significant_figures_and_never_round_to_zero(value, text):
    assert fmt_sig(value) == text


def test_a_missing_rate_is_a_dash():
    assert fmt_sig(math.nan) == MISSING == fmt_sig(None)
    assert fmt_sig(0.053, digits=1) == "0.05"


class _FakeProgress:
    """Records what `run_with_progress` shows: (description, completed, total) per update."""

    def __init__(self) -> None:
        self.tasks: list[str] = []
        self.updates: list[tuple[str, float, float | None]] = []

    def start(self) -> None: ...

    def stop(self) -> None: ...

    def add_task(self, description: str, total: float | None) -> int:
        self.tasks.append(description)
        return len(self.tasks) - 1

    def update(self, task: int, completed: float, total: float | None) -> None:
        self.updates.append((self.tasks[task], completed, total))


class _FakeSimulation:
    """A warm-up of 3 slices of pages, 2 of timed writes, then 3 steps of requests."""

    def __init__(self) -> None:
        self.warm = [
            (100, 300, 0, 4_000_000),
            (200, 300, 0, 4_000_000),
            (300, 300, 2_000_000, 4_000_000),
            None,
        ]
        self.steps = 0

    def warm_up_step(self, max_work: int) -> bool:
        self.warm.pop(0)
        return self.warm[0] is None

    def warmup_progress(self):
        return self.warm[0]

    def step(self) -> bool:
        self.steps += 1
        return self.steps == 3

    def progress(self):
        return (self.steps * 10, 30)

    def report(self) -> str:
        return "report"


def test_the_warm_up_shows_its_own_bar_before_the_run(monkeypatch):
    from ssdlab import _console

    fake = _FakeProgress()
    monkeypatch.setattr(_console, "_new_progress", lambda transient: fake)
    clock = iter(range(0, 1000, 2))  # two seconds between reads: past the one-second threshold
    monkeypatch.setattr(_console.time, "perf_counter", lambda: next(clock))
    assert _console.run_with_progress(_FakeSimulation()) == "report"
    assert fake.tasks == ["warming up (pages)", "warming up (simulated ms)", "simulating"]
    assert fake.updates == [
        ("warming up (pages)", 200, 300),
        ("warming up (simulated ms)", 2, 4),
        ("simulating", 10, 30),
        ("simulating", 20, 30),
    ]


def test_a_quiet_run_shows_no_bar(monkeypatch):
    from ssdlab import _console

    monkeypatch.setattr(_console, "_new_progress", lambda transient: pytest.fail("a bar was shown"))
    assert _console.run_with_progress(_FakeSimulation(), quiet=True) == "report"
