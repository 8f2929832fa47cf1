"""`ssdlab.exploration`: which agents were still exploring when their run ended, and the words
that say so (issue #45). Reports built by hand: the judgement is on the report's numbers."""

from __future__ import annotations

import math

from ssdlab import exploration


def agent(
    decisions: int,
    explorations: int,
    schedule: dict | None = None,
    control: bool = False,
    unseen: int | None = None,
    policy: str = "rlgc",
) -> dict:
    """A report's `learning.gc` entry with the figures the judgement reads."""
    entry = {
        "policy": policy,
        "control": control,
        "decisions": decisions,
        "explorations": explorations,
        "exploitations": decisions - explorations - (unseen or 0),
        "unseen_state_decisions": unseen,
        "reward_window_decisions": 1000,
    }
    if schedule is not None:
        entry["epsilon_schedule"] = schedule
    return entry


def step(decisions: int, switch: int = 1000) -> dict:
    return {
        "kind": "step",
        "initial": 0.8,
        "after": 0.01,
        "switch_after_decisions": switch,
        "decisions": decisions,
        "episodes": 0,
        "initial_phase_over": decisions >= switch,
    }


def run(**points: dict) -> dict:
    return {"learning": points}


def test_a_run_shorter_than_its_epsilon_schedule_is_still_exploring_and_says_where_it_stood():
    (a,) = exploration.of_report(run(gc=agent(599, 480, step(599))))
    assert a.exploring and a.schedule_unfinished
    assert a.share == 480 / 599
    assert a.why() == (
        "gc agent (rlgc): 80 % of 599 GC decisions explored (above 10 %); "
        "epsilon 0.8 until decision 1,000, then 0.01; the run took 599"
    )


def test_a_schedule_that_ended_long_ago_leaves_a_low_share_unflagged():
    (a,) = exploration.of_report(run(gc=agent(20_000, 990, step(20_000))))
    assert not a.exploring and a.why() == ""
    assert exploration.run_columns(run(gc=agent(20_000, 990, step(20_000)))) == {
        "exploration_share": 990 / 20_000,
        "exploring": False,
    }


def test_a_share_above_the_bound_is_flagged_after_the_schedule_switched():
    """2,000 decisions: 800 explored in the first 1,000, 10 after: 40 % random overall."""
    (a,) = exploration.of_report(run(gc=agent(2000, 810, step(2000))))
    assert not a.schedule_unfinished and a.exploring
    assert "(above 10 %)" in a.why() and "the run took 2,000" in a.why()


def test_the_bound_is_ten_percent_of_the_agent_s_own_choices():
    assert exploration.SHARE_BOUND == 0.10
    at_bound = exploration.of_report(run(gc=agent(1000, 100, step(5000, switch=1000))))[0]
    above = exploration.of_report(run(gc=agent(1000, 101, step(5000, switch=1000))))[0]
    assert not at_bound.exploring and above.exploring


def test_the_random_control_is_never_flagged():
    (a,) = exploration.of_report(run(gc=agent(599, 599, step(599), control=True)))
    assert a.share == 1.0 and not a.exploring and a.why() == ""
    assert exploration.run_columns(run(gc=agent(599, 599, step(599), control=True)))["exploring"] is False


def test_unseen_state_decisions_count_as_choices_and_the_schedule_counts_known_states():
    """RLGC's Q-table cache: its schedule advances on decisions in a known state only."""
    schedule = step(700)
    (a,) = exploration.of_report(run(gc=agent(1000, 500, schedule, unseen=300, policy="rlgc_qtc")))
    assert a.choices == 1000 and a.share == 0.5
    assert (
        a.schedule_text() == "epsilon 0.8 until decision 1,000, then 0.01; the run took 700 in a known state"
    )


def test_an_episode_schedule_is_told_in_episodes():
    schedule = {
        "kind": "episodes",
        "initial": 0.8,
        "after": 0.01,
        "switch_after_episodes": 4,
        "decisions": 2500,
        "episodes": 2,
        "initial_phase_over": False,
    }
    (a,) = exploration.of_report(run(eviction=agent(2500, 2000, schedule, policy="rl_fsp")))
    assert a.why() == (
        "eviction agent (rl_fsp): 80 % of 2,500 page-type decisions explored (above 10 %); "
        "epsilon 0.8 for the first 4 episodes, then 0.01; the run completed 2"
    )


def test_a_constant_epsilon_is_judged_by_its_share():
    constant = {
        "kind": "constant",
        "epsilon": 0.07,
        "decisions": 400,
        "episodes": 0,
        "initial_phase_over": True,
    }
    (a,) = exploration.of_report(run(region=agent(400, 28, constant, policy="rl")))
    assert not a.exploring and a.schedule_text() == ""


def test_reports_before_the_schedule_was_recorded_are_judged_by_their_share():
    (low,) = exploration.of_report(run(gc=agent(50_000, 1000)))
    (high,) = exploration.of_report(run(gc=agent(599, 480)))
    assert (low.schedule, low.exploring, high.exploring) == (None, False, True)
    assert high.why() == "gc agent (rlgc): 80 % of 599 GC decisions explored (above 10 %)"


def test_a_group_of_runs_gives_ranges_and_counts_the_runs_flagged():
    reports = [run(gc=agent(n, e, step(n))) for n, e in ((590, 470), (612, 500), (20_000, 990))]
    assert exploration.why_at(reports, "gc") == (
        "gc agent (rlgc), 2 of 3 runs: 5-82 % of 590-20,000 GC decisions explored "
        "(above 10 %); epsilon 0.8 until decision 1,000, then 0.01; the runs took 590-20,000"
    )
    assert exploration.group_why([run()]) == ""


def test_a_run_without_an_agent_has_no_share():
    columns = exploration.run_columns(run())
    assert math.isnan(columns["exploration_share"]) and columns["exploring"] is None
