"""`ssdlab.experiments.compare`: parsing of --vary, the variant grid, seeds, and the comparison
table's mean and spread (the command line: tests/cli/test_compare.py)."""

from __future__ import annotations

import math

import pytest

import ssdlab
from ssdlab.experiments.compare import Comparison, Setup, Variant, Vary, plan, variants


def test_vary_splits_on_top_level_commas_only():
    assert Vary.parse("gc.scheduler=greedy, lazy_rtgc").values == ("greedy", "lazy_rtgc")
    assert Vary.parse("device.timing.read_ns=[1, 2],[3, 4]").values == ("[1, 2]", "[3, 4]")
    assert Vary.parse('workload.bs="4k","8k"').values == ('"4k"', '"8k"')


@pytest.mark.parametrize("spec", ["gc.scheduler", "=greedy", "gc.scheduler=", "a=x,,y", "a=x,x"])
def test_bad_vary_specs_are_config_errors(spec):
    with pytest.raises(ssdlab.ConfigError):
        Vary.parse(spec)


def test_variants_are_every_combination_first_key_slowest():
    grid = variants([Vary("a", ("1", "2")), Vary("b", ("x", "y", "z"))])
    assert [v.settings for v in grid] == [{"a": a, "b": b} for a in "12" for b in "xyz"]
    assert grid[0].label == "a=1 b=x" and grid[0].slug == "a_1_b_x"
    assert Variant({"gc.scheduler": "rlgc"}).label == "rlgc"
    with pytest.raises(ssdlab.ConfigError):
        variants([Vary("a", ("1",)), Vary("a", ("2",))])


def test_plan_validates_every_variant_before_running_and_numbers_seeds_from_the_set_seed():
    setup = Setup(preset="tiny", workload="randwrite", overrides=("seed=7", "workload.count=100"))
    all_variants, jobs = plan(setup, [Vary("gc.scheduler", ("greedy", "lazy_rtgc"))], seeds=3)
    assert len(all_variants) == 2
    assert [(j.labels["variant"], j.labels["seed"]) for j in jobs] == [
        (s, seed) for s in ("greedy", "lazy_rtgc") for seed in (7, 8, 9)
    ]
    assert jobs[4].setup.overrides[-2:] == ("gc.scheduler=lazy_rtgc", "seed=8")
    with pytest.raises(ssdlab.ConfigError) as info:
        plan(setup, [Vary("gc.scheduler", ("greedy", "no_such_scheduler"))], seeds=1)
    assert "no_such_scheduler" in info.value.message
    with pytest.raises(ssdlab.ConfigError):
        plan(setup, [Vary("seed", ("1", "2"))], seeds=2)


def test_table_gives_mean_and_sample_sd_over_seeds_and_nan_for_missing_figures():
    rows = [
        {"variant": "a", "write_p99_us": 10.0, "write_p99_99_us": 20.0, "waf": 2.0, "erases": 5},
        {"variant": "a", "write_p99_us": 14.0, "write_p99_99_us": 20.0, "waf": 3.0, "erases": 7},
        {"variant": "b", "write_p99_us": math.nan, "write_p99_99_us": math.nan, "waf": math.nan, "erases": 0},
        {"variant": "b", "write_p99_us": math.nan, "write_p99_99_us": math.nan, "waf": math.nan, "erases": 0},
    ]
    comparison = Comparison(["k"], [Variant({"k": "a"}), Variant({"k": "b"})], 2, rows, {}, [{}] * 4)
    a, b = comparison.table()
    assert a["runs"] == 2 and a["k"] == "a"
    assert a["write_p99_us"] == 12.0 and a["write_p99_us_sd"] == pytest.approx(math.sqrt(8))
    assert a["write_p99_99_us_sd"] == 0.0 and a["erases"] == 6.0
    assert math.isnan(b["write_p99_us"]) and math.isnan(b["waf"]) and b["erases"] == 0.0
