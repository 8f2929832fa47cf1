"""Layer: Python, HTML report. One job: the page of a `compare` directory: per variant the mean
over seeds (and the spread) of the comparison's figures, every run in a collapsed table, then
the shared sections with one line per variant (seeds pooled)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from ssdlab import exploration
from ssdlab._console import MISSING
from ssdlab.htmlreport import sections, tables
from ssdlab.htmlreport.page import Page

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    import pandas as pd

    from ssdlab.htmlreport.sources import CompareInput
    from ssdlab.report import Report

#: The figures of the per-variant table (runs.csv columns) with their titles.
VARIANT_METRICS = {
    "write_p99_us": "write p99",
    "write_p99_99_us": "write p99.99",
    "read_p99_us": "read p99",
    "read_p99_99_us": "read p99.99",
    "waf": "WAF",
    "erases": "erases",
    "gc_pages_copied": "GC pages copied",
}


#: The column of the share of a variant's decisions its agents explored, and the mark of a
#: variant still exploring when its runs ended (`ssdlab.exploration`).
EXPLORED = "explored"
FLAG = "†"
EXPLORED_NOTE = (
    f"Explored: the share of the agents' decisions taken at random; {FLAG}: {exploration.MEANING}."
)


def build(source: CompareInput) -> Page:
    runs = source.runs
    seeds = runs.groupby("variant", sort=False).size()
    varied = ", ".join(source.keys) or "variant"
    first = source.reports[0]
    page = Page(
        title=f"ssdlab compare: {source.path.name}",
        subtitle=(
            f"{len(seeds)} variants of {varied}, {len(runs)} runs ({_seeds_text(seeds)}); "
            f"{first['config']['device'].get('source', 'device')}; {sections.trace_facts(source.reports)['workload']}"
        ),
    )
    summary = page.section("Summary")
    groups: dict[str, list[Report]] = {str(v): [] for v in runs["variant"].drop_duplicates()}
    for variant, report in zip(runs["variant"], source.reports, strict=True):
        groups[str(variant)].append(report)
    frame, numeric = variant_table(runs, source.keys, groups)
    summary.raw(tables.frame_table(frame, numeric=numeric))
    summary.note(
        "Per variant: the mean over its seeds, ± the sample standard deviation as a share of the mean; "
        "a dash: no such figure (e.g. the reads of a write-only run). Lower is better."
        + (f" {EXPLORED_NOTE}" if EXPLORED in frame.columns else "")
    )
    flagged = [
        f"{label}: {text}" for label, reports in groups.items() if (text := exploration.group_why(reports))
    ]
    if flagged:
        summary.raw(sections.exploring_warning(flagged, mark=FLAG))
    summary.details(f"every run ({len(runs)}, runs.csv)", tables.frame_table(runs))
    pooled = ", seeds pooled per variant" if seeds.max() > 1 else ""
    sections.run_sections(page.section, groups, pooled_over=pooled)
    sections.provenance(page, source.reports, [source.path])
    return page


def _seeds_text(seeds: pd.Series) -> str:
    counts = sorted(set(seeds))
    return (
        f"{counts[0]} seeds each" if len(counts) == 1 else "seeds per variant: " + ", ".join(map(str, counts))
    )


def variant_table(
    runs: pd.DataFrame, keys: list[str], groups: Mapping[str, Sequence[Report]] | None = None
) -> tuple[pd.DataFrame, set[str]]:
    """One row per variant: its settings, its runs, each figure as `mean ±sd%` text and, when a
    variant has an agent, the share of its decisions explored (`EXPLORED`), marked `FLAG` where
    it was still exploring (the columns returned as numeric, to align right)."""
    import pandas as pd

    rows = []
    for variant, mine in runs.groupby("variant", sort=False):
        row = {"variant": variant, **{k: mine[k].iloc[0] for k in keys if k != "variant"}, "runs": len(mine)}
        for metric, title in VARIANT_METRICS.items():
            if metric in mine.columns:
                row[title] = mean_spread(metric, mine[metric].astype(float).tolist())
        agents = [a for r in (groups or {}).get(str(variant), []) for a in exploration.of_report(r)]
        if agents:
            text = exploration.percent_span([a.share for a in agents])
            if all(a.control for a in agents):
                text += " (random control)"
            row[EXPLORED] = f"{text} {FLAG}" if any(a.exploring for a in agents) else text
        rows.append(row)
    frame = pd.DataFrame(rows)
    if EXPLORED in frame.columns:
        frame[EXPLORED] = frame[EXPLORED].fillna(MISSING)
    if len(keys) == 1:  # the variant's label is the value of its one key
        frame = frame.drop(columns=keys[0], errors="ignore")
    return frame, {t for t in (*VARIANT_METRICS.values(), EXPLORED) if t in frame.columns}


def mean_spread(metric: str, values: list[float]) -> str:
    """`mean ±sd%`: the spread over seeds as a share of the mean (as `ssdlab compare` prints it)."""
    if not values or any(math.isnan(v) for v in values):
        return MISSING
    mean = sum(values) / len(values)
    text = tables.format_value(metric, mean)
    if len(values) > 1 and mean != 0:
        sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1))
        text += f" ±{sd / abs(mean):.0%}"
    return text
