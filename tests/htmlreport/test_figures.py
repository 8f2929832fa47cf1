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
    fig, _ = figures.flash_accounting({"a": [run(10), run(30)], "b": [run(4)]})
    programs = [t for t in fig.data if t.xaxis == "x2" and t.name == "gc"]
    assert list(programs[0].y) == [20.0, 4.0]
    assert {t.name for t in fig.data} == {"gc"}, "sources that did nothing are left out"
