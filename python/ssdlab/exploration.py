"""Layer: Python, above `report.py`. One job: tell whether a run's learning agent was still
exploring when the run ended, and say so in words, so that `ssdlab compare`, `ssdlab report`
and the reproductions flag such an agent's figures beside them instead of presenting a mostly
random policy as a learned one (issue #45: `rlgc` ranked first after some 600 GC decisions, 80 %
of them random, its epsilon at 0.8 until decision 1,000).

An agent is *still exploring* when either

* its epsilon schedule had not left its initial phase when the run ended (the report's
  `learning.<point>.epsilon_schedule.initial_phase_over`: RLGC explores at 0.8 for its first
  1,000 decisions, RL-FSP for its first 4 episodes), or
* more than `SHARE_BOUND` of its decisions over the run were explorations (random actions).

Why 10 %: every paper's steady exploration rate lies below it (RLGC and RL-FSP: 0.01 after
their schedule; the RL SLC cache: a constant 0.07), so an agent running at its paper's rate is
not flagged for it; while RLGC's 1,000 decisions at 0.8 (about 800 random ones) keep the share
above 10 % until some 8,800 decisions (800 + 0.01 (n - 1,000) <= 0.1 n), so a run whose figures
still owe much to its first, random phase is flagged even after its schedule switched.

The random-action control is random by design (every decision an exploration): it is named as
the control, never flagged. Reports written before `epsilon_schedule` was recorded are judged
by their share alone.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

#: The share of explored decisions above which an agent counts as still exploring (see above).
SHARE_BOUND = 0.10
BOUND_TEXT = f"{round(100 * SHARE_BOUND)} %"

#: What a table or a page says of the agents `why` names (the rule, in a line).
MEANING = (
    f"still exploring when the run ended (its epsilon schedule's initial phase not over, or more "
    f"than {BOUND_TEXT} of its decisions random): its figures are largely those of random actions"
)

#: What a decision point's agent decides, for messages.
POINT_DECISIONS = {"gc": "GC decisions", "eviction": "page-type decisions", "region": "SLC steps"}


@dataclass(frozen=True)
class AgentExploration:
    """How much one run's agent at one decision point explored. `choices` are the decisions it
    made itself (explored, exploited, or the default of an unseen state); `schedule` is the
    report's `epsilon_schedule` (None in reports written before it was recorded)."""

    point: str
    policy: str
    control: bool
    decisions: int
    choices: int
    explorations: int
    schedule: Mapping[str, Any] | None

    @property
    def share(self) -> float:
        """Explorations over the agent's choices (NaN without a choice)."""
        return self.explorations / self.choices if self.choices else math.nan

    @property
    def schedule_unfinished(self) -> bool:
        """The run ended in the schedule's initial (exploring) phase."""
        return self.schedule is not None and not self.schedule.get("initial_phase_over", True)

    @property
    def exploring(self) -> bool:
        """Still exploring when the run ended (see the module header); never the control."""
        if self.control:
            return False
        return self.schedule_unfinished or (self.share > SHARE_BOUND)

    def schedule_text(self) -> str:
        """Where the run left the schedule (`schedule_text`)."""
        return schedule_text([self])

    def why(self) -> str:
        """Why it counts as still exploring, with its numbers (empty when it does not)."""
        return why([self])


def of_report(report: Any) -> list[AgentExploration]:
    """The agents of a run (a `Report` or its raw dict), one per decision point, in report order."""
    raw = getattr(report, "raw", report)
    out = []
    for point, entry in raw.get("learning", {}).items():
        explorations = int(entry.get("explorations", 0))
        choices = (
            explorations + int(entry.get("exploitations", 0)) + int(entry.get("unseen_state_decisions") or 0)
        )
        out.append(
            AgentExploration(
                point=point,
                policy=str(entry.get("policy", "?")),
                control=bool(entry.get("control", False)),
                decisions=int(entry.get("decisions", 0)),
                choices=choices,
                explorations=explorations,
                schedule=entry.get("epsilon_schedule"),
            )
        )
    return out


def run_columns(report: Any) -> dict[str, Any]:
    """The columns a results table (runs.csv) gets per run: `exploration_share`, the share of
    explored decisions of the run's agents together (NaN without an agent), and `exploring`,
    whether any of them was still exploring (None without an agent)."""
    agents = of_report(report)
    if not agents:
        return {"exploration_share": math.nan, "exploring": None}
    choices = sum(a.choices for a in agents)
    share = sum(a.explorations for a in agents) / choices if choices else math.nan
    return {"exploration_share": share, "exploring": any(a.exploring for a in agents)}


def _span(values: Sequence[float], fmt: str) -> str:
    """`599` or `590-612`: one value, or the smallest and largest of several."""
    low, high = min(values), max(values)
    return format(low, fmt) if low == high else f"{format(low, fmt)}-{format(high, fmt)}"


def percent_span(values: Sequence[float]) -> str:
    """Shares as `80 %`, or `79-81 %` over several (a dash without a number)."""
    finite = [v for v in values if not math.isnan(v)]
    if not finite:
        return "-"
    low, high = round(100 * min(finite)), round(100 * max(finite))
    return f"{low} %" if low == high else f"{low}-{high} %"


def share_text(agents: Sequence[AgentExploration]) -> str:
    """`80 % of 599 GC decisions explored` (ranges over several runs)."""
    what = POINT_DECISIONS.get(agents[0].point, "decisions")
    return f"{percent_span([a.share for a in agents])} of {_span([a.choices for a in agents], ',')} {what} explored"


def schedule_text(agents: Sequence[AgentExploration]) -> str:
    """Where the runs left their epsilon schedule, in the schedule's own count: `epsilon 0.8 until
    decision 1,000, then 0.01; the run took 599` (empty for reports without it, or a constant
    epsilon). RLGC's Q-table cache counts only its decisions in a known state, and says so."""
    with_schedule = [a for a in agents if a.schedule is not None]
    if not with_schedule:
        return ""
    s = with_schedule[0].schedule
    assert s is not None
    runs = "the run" if len(with_schedule) == 1 else "the runs"
    if s.get("kind") == "step":
        counted = [int(a.schedule["decisions"]) for a in with_schedule if a.schedule is not None]
        known = any(
            int(a.schedule["decisions"]) != a.decisions for a in with_schedule if a.schedule is not None
        )
        return (
            f"epsilon {s['initial']:g} until decision {int(s['switch_after_decisions']):,}, then {s['after']:g}; "
            f"{runs} took {_span(counted, ',')}{' in a known state' if known else ''}"
        )
    if s.get("kind") == "episodes":
        episodes = [int(a.schedule["episodes"]) for a in with_schedule if a.schedule is not None]
        return (
            f"epsilon {s['initial']:g} for the first {int(s['switch_after_episodes']):,} episodes, then "
            f"{s['after']:g}; {runs} completed {_span(episodes, ',')}"
        )
    return ""


def why(agents: Sequence[AgentExploration]) -> str:
    """Why a group of runs' agents (one point, e.g. a compare variant's seeds) count as still
    exploring, `gc agent (rlgc): 80 % of 599 GC decisions explored (above 10 %); epsilon 0.8
    until decision 1,000, then 0.01; the run took 599`: their share (marked when above
    `SHARE_BOUND`) and where their schedule stood (empty when none counts). Every number is
    given, whichever condition flagged them."""
    flagged = [a for a in agents if a.exploring]
    if not flagged:
        return ""
    head = f"{agents[0].point} agent ({agents[0].policy})"
    if len(agents) > 1:
        head += f", {len(flagged)} of {len(agents)} runs"
    share = share_text(agents)
    if any(a.share > SHARE_BOUND for a in flagged):
        share += f" (above {BOUND_TEXT})"
    parts = [share, schedule_text(agents)]
    return f"{head}: " + "; ".join(p for p in parts if p)


def why_at(reports: Sequence[Any], point: str) -> str:
    """`why` for the agents at `point` of a group of runs (a compare variant's seeds)."""
    return why([a for report in reports for a in of_report(report) if a.point == point])


def group_why(reports: Sequence[Any]) -> str:
    """`why` for every decision point of a group of runs, joined (empty when no agent of theirs
    was still exploring)."""
    points = dict.fromkeys(a.point for report in reports for a in of_report(report))
    return "; ".join(text for point in points if (text := why_at(reports, point)))
