"""Layer: Python, HTML report. One job: the sections every kind of input shares, drawn from
groups of runs (see `figures`): latency, time series, flash accounting by source, learning
curves and provenance. A section the runs hold nothing for is left out."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ssdlab import exploration
from ssdlab.config import flatten
from ssdlab.htmlreport import figures, tables
from ssdlab.htmlreport.page import Page, Section, escape

if TYPE_CHECKING:
    import pandas as pd

    from ssdlab.report import Report

#: The decision points a run's agents may learn at (`Report.learning`).
LEARNING_POINTS = ("gc", "eviction", "region")


NewSection = Callable[[str], Section]


def run_sections(
    new_section: NewSection, groups: figures.Groups, pooled_over: str = "", over_time: bool = True
) -> None:
    """Latency, over time, flash accounting and learning, for any grouping of runs, each a
    section made by `new_section` (`Page.section`, or `Section.subsection` to nest them)."""
    latency = new_section("Latency")
    drawn = 0
    for op in ("read", "write"):
        result = figures.latency(groups, op, pooled_over)
        if result:
            latency.figure(*result)
            drawn += 1
    if not drawn:
        latency.note("No read or write request completed: no latency to draw.")
    series = figures.time_series(groups) if over_time else []
    if series:
        over = new_section("Over time")
        for drawn_series in series:
            over.figure(*drawn_series)
    accounting = new_section("Flash operations by source")
    result = figures.flash_accounting(groups)
    if result:
        accounting.figure(*result)
    accounting.raw(tables.frame_table(source_table(groups)))
    learning_section(new_section, groups)


def source_table(groups: figures.Groups) -> pd.DataFrame:
    """Reads, programs and erases per source and group (means over the group's runs), only the
    sources that did something."""
    import pandas as pd

    rows = []
    for label, reports in groups.items():
        for source, ops in figures.by_source(reports).items():
            if any(ops.values()):
                rows.append({"group": label, "source": source, **ops})
    frame = pd.DataFrame(rows, columns=["group", "source", "reads", "programs", "erases"])
    if len(groups) == 1:
        frame = frame.drop(columns="group")
    return frame


def learning_section(new_section: NewSection, groups: figures.Groups) -> None:
    """Per decision point with an agent: its learning curve (or why there is none yet), the
    agents still exploring when their runs ended (`ssdlab.exploration`), and what the agents did
    (decisions, explorations and their share, rewards, states visited, Q-value spread; means
    over a group's runs)."""
    points = [
        p
        for p in LEARNING_POINTS
        if any(p in r.raw.get("learning", {}) for rs in groups.values() for r in rs)
    ]
    if not points:
        return
    section = new_section("Learning")
    for point in points:
        result = figures.learning(groups, point)
        if result:
            section.figure(*result)
        else:
            section.note(no_curve_text(groups, point))
        flagged = [
            text if len(groups) == 1 else f"{label}: {text}"
            for label, reports in groups.items()
            if (text := exploration.why_at(reports, point))
        ]
        if flagged:
            section.raw(exploring_warning(flagged))
        frame = learning_table(groups, point)
        section.raw(
            tables.frame_table(
                frame, headers={c: LEARNING_HEADERS.get(c, tables.readable(c)) for c in frame.columns}
            )
        )


def exploring_warning(flagged: Sequence[str], mark: str = "") -> str:
    """The warning (HTML) beside the figures of agents still exploring, `exploration.why` each:
    one sentence, or a list for several."""
    meaning = f"{mark + ' ' if mark else ''}{exploration.MEANING[:1].upper()}{exploration.MEANING[1:]}."
    if len(flagged) == 1:
        return f'<p class="warning">{escape(meaning)} {escape(flagged[0])}.</p>'
    items = "".join(f"<li>{escape(text)}</li>" for text in flagged)
    return f'<div class="warning"><p>{escape(meaning)}</p><ul>{items}</ul></div>'


def no_curve_text(groups: figures.Groups, point: str) -> str:
    """Why a point has no learning curve: its runs took fewer decisions than one reward window
    (`fewer decisions (599) than one reward window (1,000)`), or no window held a reward."""
    entries = [
        r.raw["learning"][point] for rs in groups.values() for r in rs if point in r.raw.get("learning", {})
    ]
    decisions = sorted(int(e.get("decisions", 0)) for e in entries)
    windows = sorted({int(e["reward_window_decisions"]) for e in entries if e.get("reward_window_decisions")})
    taken = f"{decisions[0]:,}" if decisions[0] == decisions[-1] else f"{decisions[0]:,}-{decisions[-1]:,}"
    if windows and decisions[-1] < windows[0]:
        every = "" if len(entries) == 1 else f" in each of its {len(entries)} runs"
        return (
            f"The `{point}` agent took fewer decisions ({taken}) than one reward window "
            f"({windows[0]:,}){every}: no learning curve yet."
        )
    if not windows and not any(e.get("reward_series") for e in entries):
        # A report written before the window was recorded: the window is not known.
        return f"The `{point}` agent's runs ({taken} decisions) completed no reward window: no learning curve yet."
    return f"The `{point}` agent received no reward in any window ({taken} decisions): no learning curve."


#: Column titles of the learning table where the column name alone would not say it.
LEARNING_HEADERS = {
    "exploration_share": "explored",
    "still_exploring": "still exploring",
}


def learning_table(groups: figures.Groups, point: str) -> pd.DataFrame:
    """Per group: its policy, decisions, explorations and their share (`explored`, flagged when
    still exploring), rewards, states visited and Q spread; means over the group's runs."""
    import pandas as pd

    columns = [
        "decisions",
        "explorations",
        "rewards",
        "mean_reward",
        "states_visited",
        "n_states",
        "q_spread_mean",
    ]
    rows = []
    for label, reports in groups.items():
        frames = [r.learning.loc[[point]] for r in reports if point in r.raw.get("learning", {})]
        if not frames:
            continue
        both = pd.concat(frames)
        policy = ", ".join(
            sorted(set(both["policy"]) | ({"(random control)"} if both["control"].any() else set()))
        )
        agents = [a for r in reports for a in exploration.of_report(r) if a.point == point]
        flagged = sum(a.exploring for a in agents)
        means = both[columns].astype(float).mean().to_dict()
        rows.append(
            {
                "group": label,
                "runs": len(frames),
                "policy": policy,
                "decisions": means.pop("decisions"),
                "explorations": means.pop("explorations"),
                "exploration_share": exploration.percent_span([a.share for a in agents]),
                "still_exploring": (f"yes ({flagged} of {len(agents)})" if len(agents) > 1 else "yes")
                if flagged
                else ("control" if all(a.control for a in agents) else "no"),
                **means,
            }
        )
    return pd.DataFrame(rows)


def provenance(page: Page, reports: Sequence[Report], sources: Sequence[Path] = ()) -> Section:
    """Where the figures come from: ssdlab version and git revision, seeds, device preset,
    trace (name, format and digest, if the report records one), the keys whose values differ
    between the runs and the resolved configuration (the first run's), collapsed."""
    section = page.section("Provenance")
    if not reports:
        section.note("No run report to take the provenance from.")
        return section
    first = reports[0]
    versions = sorted({f"{r['ssdlab_version']} (git {r['git_revision']})" for r in reports})
    seeds = sorted({r["seed"] for r in reports})
    config = first["config"]
    facts: dict[str, Any] = {
        "report schema": first["schema"],
        "ssdlab version" + ("s" if len(versions) > 1 else ""): "; ".join(versions),
        "runs": len(reports),
        "seeds": _compact(seeds),
        "device": config["device"].get("source", "?"),
    }
    facts.update(trace_facts(reports))
    section.raw(tables.facts(facts))
    differ = differing_keys([r["config"] for r in reports])
    if differ:
        rows = "".join(f"<li><code>{escape(k)}</code>: {escape(_some(v))}</li>" for k, v in differ.items())
        section.raw(f"<p>Configuration keys that differ between the runs:</p><ul>{rows}</ul>")
    label = "resolved configuration" + (" of the first run" if len(reports) > 1 else "")
    section.details(label, f"<pre>{escape(json.dumps(config, indent=2))}</pre>")
    if sources:
        section.raw(f'<p class="note">Read from: {escape(", ".join(str(s) for s in sources))}</p>')
    return section


def trace_facts(reports: Sequence[Report]) -> dict[str, str]:
    """The traces the runs replayed (file names and formats) and their digests if the reports
    record any; a synthetic workload is named by its pattern."""
    names, formats, digests = set(), set(), set()
    for r in reports:
        workload = r["config"]["workload"]
        if workload.get("kind") == "trace" and workload.get("path"):
            names.add(Path(workload["path"]).name)
            info = r["workload"].get("trace") or {}
            if info.get("format"):
                formats.add(info["format"])
            digests.update(str(v) for k, v in info.items() if "digest" in k and v)
        else:
            names.add(f"synthetic {workload.get('rw', workload.get('kind', '?'))}")
    out = {"workload": ", ".join(sorted(names))}
    if formats:
        out["trace format"] = ", ".join(sorted(formats))
    if any(n for n in names if not n.startswith("synthetic")):
        out["trace digest"] = ", ".join(sorted(digests)) if digests else "not recorded by the report"
    return out


def differing_keys(configs: Sequence[dict[str, Any]]) -> dict[str, list[str]]:
    """The dotted keys whose values are not the same in every configuration, with the values."""
    flat = [flatten(c) for c in configs]
    keys = sorted(set().union(*flat))
    out = {}
    for key in keys:
        values = {json.dumps(f.get(key), sort_keys=True) for f in flat}
        if len(values) > 1:
            out[key] = sorted(values)
    return out


def _some(values: Sequence[str], shown: int = 8) -> str:
    """The values, or the first few and how many there are."""
    if len(values) <= shown:
        return ", ".join(values)
    return f"{', '.join(values[:shown])}, ... ({len(values)} values)"


def _compact(values: Sequence[int]) -> str:
    """`0-9` for consecutive integers, else the list."""
    if len(values) > 2 and list(values) == list(range(values[0], values[-1] + 1)):
        return f"{values[0]}-{values[-1]}"
    return ", ".join(str(v) for v in values)
