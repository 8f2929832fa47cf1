"""Layer: Python, HTML report. One job: the page of a sweep directory (results.parquet, a row per
cell): what ran and what failed, a row per cell, and then, for each axis, the cells grouped by
its values (their figures, pooled latency tails, flash accounting and learning curves), so that
a sweep of hundreds of cells draws a line per axis value, never per cell."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ssdlab.htmlreport import figures, sections, tables
from ssdlab.htmlreport.page import Page, Section, escape

if TYPE_CHECKING:
    import pandas as pd

    from ssdlab.htmlreport.sources import SweepInput

#: The figures shown per cell and per axis value (results.parquet columns), with titles (a
#: latency's axis gets the unit its range asks for when drawn).
METRICS = {
    "write_p99_us": "write p99",
    "write_p99_99_us": "write p99.99",
    "read_p99_us": "read p99",
    "waf": "WAF",
    "erases": "erases",
}

#: Axis values beyond which an axis is summarised in its table only (a line per value would
#: no longer be readable).
MAX_LINES = len(figures.PALETTE)


def build(source: SweepInput) -> Page:
    results = source.results
    ok = int((results["status"] == "ok").sum())
    page = Page(
        title=f"ssdlab sweep: {source.path.name}",
        subtitle=f"{len(results)} cells over {', '.join(source.axes) or 'no axis'}: {ok} ok, {len(results) - ok} failed",
    )
    summary(page.section("Summary"), source)
    axis_sections(page.section, source)
    sections.provenance(page, list(source.reports.values()), [source.path])
    if source.grid_text is not None:
        page.sections[-1].details("grid.toml", f"<pre>{escape(source.grid_text)}</pre>")
    return page


def summary(section: Section, source: SweepInput) -> None:
    results = source.results
    failed = results[results["status"] != "ok"]
    facts = {"cells": len(results), "ok": len(results) - len(failed), "failed": len(failed)}
    if "wall_s" in results.columns:
        facts["wall time of the cells (sum)"] = f"{results['wall_s'].fillna(0).sum():,.1f} s"
    section.raw(tables.facts(facts))
    if len(failed):
        columns = [c for c in ("cell_id", *source.axes, "seed", "error") if c in failed.columns]
        section.paragraph("Failed cells:")
        section.raw(
            tables.frame_table(
                failed[columns],
                row_class=lambda _: "failed",
                cell_class=lambda c, _: "text" if c == "error" else "",
            )
        )
    section.raw(
        tables.frame_table(
            cell_table(source),
            headers={**METRICS, "wall_s": "wall time"},
            row_class=lambda r: "" if r["status"] == "ok" else "failed",
        )
    )
    section.note(
        "A row per cell; a dash: no such figure, or the cell failed. The sections below group the "
        "cells by each axis. Time series are left out: the cells' bursts fall at different times, "
        "so their series do not average (`ssdlab report` on a cell's report draws its own)."
    )


def cell_table(source: SweepInput) -> pd.DataFrame:
    results = source.results
    columns = ["cell_id", *source.axes, "seed", "status", *METRICS, "wall_s"]
    return results[[c for c in columns if c in results.columns]]


def axis_sections(new_section: sections.NewSection, source: SweepInput) -> None:
    """A section per axis (the axes with more than one value; all of them if none has): the
    figures against its values, then the shared sections with the cells grouped by value."""
    results = source.results
    axes = [a for a in source.axes if results[a].nunique(dropna=False) > 1] or source.axes
    for axis in axes:
        section = new_section(f"By {axis}")
        ok = results[results["status"] == "ok"]
        section.raw(tables.frame_table(value_table(results, axis), numeric=set(METRICS.values())))
        drawn = figures.metrics_by_value(ok, axis, METRICS)
        if drawn:
            section.figure(*drawn)
        groups = value_groups(source, axis)
        if len(groups) > MAX_LINES:
            section.note(
                f"{len(groups)} values of {axis}: summarised in the table only (at most {MAX_LINES} lines per figure)."
            )
            continue
        sections.run_sections(
            section.subsection,
            groups,
            pooled_over=f", pooled over the cells of each value of {axis}",
            over_time=False,
        )


def value_groups(source: SweepInput, axis: str) -> figures.Groups:
    """The reports of the cells that ran, grouped by their value of `axis` (in sorted order),
    labelled by the value alone: the section says which axis."""
    groups: dict[str, list] = {}
    ok = source.results[source.results["status"] == "ok"].sort_values(axis, kind="stable")
    for cell, value in zip(ok["cell_id"], ok[axis], strict=True):
        if str(cell) in source.reports:
            groups.setdefault(str(value), []).append(source.reports[str(cell)])
    return groups


def value_table(results: pd.DataFrame, axis: str) -> pd.DataFrame:
    """Per value of `axis`: cells, failed cells and the mean of each figure over the cells that
    ran."""
    import pandas as pd

    rows = []
    for value, mine in results.groupby(axis, sort=True, dropna=False):
        ran = mine[mine["status"] == "ok"]
        row = {axis: value, "cells": len(mine), "failed": len(mine) - len(ran)}
        for metric, title in METRICS.items():
            if metric in ran.columns:
                row[title] = tables.format_value(
                    metric, ran[metric].astype(float).mean() if len(ran) else float("nan")
                )
        rows.append(row)
    return pd.DataFrame(rows)
