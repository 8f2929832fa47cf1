"""Figures of groups of runs: how several runs become one line."""

from __future__ import annotations

from ssdlab.htmlreport import figures
from ssdlab.report import Report


def agent_run(window_means: list[float]) -> Report:
    """A report holding only a `gc` agent's reward series (windows of 100 decisions)."""
    series = [[100 * (i + 1), 100, m, 0.0, m] for i, m in enumerate(window_means)]
    return Report({"learning": {"gc": {"reward_series": series}}})


def test_learning_curve_averages_window_by_window_as_far_as_half_the_runs_went():
    runs = [agent_run([1.0, 2.0, 3.0]), agent_run([3.0, 4.0]), agent_run([5.0])]
    curve = figures.learning_curve(runs, "gc")
    # Window 300 was reached by one run of three: left out, not drawn as that run alone.
    assert curve["decisions"].tolist() == [100, 200]
    assert curve["window_mean_reward"].tolist() == [3.0, 3.0]


def test_learning_curve_of_runs_without_an_agent_is_none():
    assert figures.learning_curve([Report({"learning": {}})], "gc") is None


def test_flash_accounting_is_the_mean_over_the_group_s_runs():
    def run(gc_programs: int) -> Report:
        sources = {s: {"reads": 0, "programs": 0, "erases": 0} for s in figures.SOURCES}
        sources["gc"]["programs"] = gc_programs
        return Report({"device": {"counters": {"by_source": sources}}})

    tally = figures.by_source([run(10), run(30)])
    assert tally["gc"] == {"reads": 0.0, "programs": 20.0, "erases": 0.0}
    spec, _ = figures.flash_accounting({"a": [run(10), run(30)], "b": [run(4)]})
    bars = spec["data"]["values"]
    assert [(b["g"], b["n"]) for b in bars if b["op"] == "programs" and b["source"] == "gc"] == [
        ("a", 20),
        ("b", 4),
    ]
    assert {b["source"] for b in bars} == {"gc"}, "sources that did nothing are left out"


def test_figure_numbers_keep_eight_digits_and_json_has_no_nan():
    assert figures.number(1 / 3) == 0.33333333
    assert figures.number(2.0) == 2 and isinstance(figures.number(2.0), int)
    assert figures.number(float("nan")) is None and figures.number(float("inf")) is None
    assert figures.number(123456789.0) == 123456790


def test_every_figure_compiles_to_a_vega_spec_sized_to_its_container():
    """The page draws Vega specs compiled here; a view alone takes the width, a row shares it."""
    from ssdlab.htmlreport import page

    def runs(free: list[int]) -> Report:
        series = {"free_blocks": {"time_ns": [i * 1000 for i in range(len(free))], "values": free}}
        return Report({"time_series": series})

    spec, _ = figures.time_series({"a": [runs([10, 9, 8])], "b": [runs([7, 7, 6])]})
    vega = page.compile_figure(spec)
    assert vega["$schema"].endswith("/vega/v6.json")
    inline = next(data["values"] for data in vega["data"] if "values" in data)
    assert inline[0] == {"g": "a", "series": "free_blocks", "t": [0, 1e-06, 2e-06], "v": [10, 9, 8]}
    assert page.sized(spec, 1000)["vconcat"][0]["width"] == 890
    row = page.sized({"hconcat": [{}, {}]}, 1000)
    assert [v["width"] for v in row["hconcat"]] == [410, 410]
    alone = page.sized({"mark": "point", "usermeta": {"height": 300}}, 1000)
    assert alone == {"mark": "point", "width": 980, "autosize": {"type": "fit-x", "contains": "padding"}}
