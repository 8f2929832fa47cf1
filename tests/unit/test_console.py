"""Cell formats of the result tables: units, significant figures and the dash for a figure that
does not exist."""

from __future__ import annotations

import math

import pytest

from ssdlab._console import MISSING, fmt_bytes, fmt_duration_us, fmt_number


@pytest.mark.parametrize(
    ("us", "text"),
    [
        (0.0, "0.00 us"),
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
