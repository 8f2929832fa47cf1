"""Layer: Python, HTML report. One job: the page of a reproduction (`ssdlab reproduce X -o DIR`):
the paper-vs-ours verdicts first, then its tables (tables.md) and figures (its PNGs, embedded),
its runs, and, when it ran on the sweep engine, the sweep's sections."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ssdlab.htmlreport import figures, sections, sweep_page, tables
from ssdlab.htmlreport.page import Page

if TYPE_CHECKING:
    import pandas as pd

    from ssdlab.htmlreport.sources import ReproductionInput

#: Words of a verdict that say the paper's finding held, held in part, or did not: word stems,
#: and short words matched whole. A verdict matching none stays uncoloured.
GOOD = (("reproduc", "hold", "held", "match", "agree", "confirm", "pass"), {"yes", "ok"})
PARTIAL = (("partl", "partial", "weaker", "mixed"), set())
BAD = (("differ", "contradict", "opposite", "fail", "refut"), {"no", "not"})


def build(source: ReproductionInput) -> Page:
    runs = len(source.runs) if source.runs is not None else None
    page = Page(
        title=f"ssdlab reproduction: {source.path.name}",
        subtitle=", ".join(
            part
            for part in (
                f"{len(source.verdicts)} headline verdicts" if source.verdicts is not None else "",
                f"{runs} runs" if runs is not None else "",
                f"{len(source.figures)} figure{'s' if len(source.figures) > 1 else ''}"
                if source.figures
                else "",
            )
            if part
        )
        or "reproduction results",
    )
    if source.verdicts is not None:
        verdict_section(page, source.verdicts)
    if source.tables_md:
        page.section("Tables").raw(tables.markdown(source.tables_md))
    if source.figures:
        section = page.section("Figures")
        for path in source.figures:
            section.image(path.read_bytes(), path.name)
    if source.runs is not None:
        runs_section = page.section("Runs")
        runs_section.details(f"every run ({len(source.runs)}, runs.csv)", tables.frame_table(source.runs))
    reports = list(source.cells.values())
    if source.sweep is not None:
        sweep_page.axis_sections(page.section, source.sweep)
        reports = reports or list(source.sweep.reports.values())
    provenance = sections.provenance(page, reports, [source.path])
    if not reports and source.record_versions:
        provenance.note(
            f"Each run's figures are kept in cells/*.json (the sweep engine's records, ssdlab "
            f"{', '.join(source.record_versions)}), not full run reports: each run's settings are "
            "its labels in runs.csv."
        )
    elif not reports:
        provenance.note(
            "This reproduction saved no run reports (cells/*.json): versions and configurations are not known."
        )
    return page


def verdict_section(page: Page, verdicts: pd.DataFrame) -> None:
    section = page.section("Verdicts: the paper against ours")
    section.raw(
        tables.frame_table(
            verdicts,
            table_class="verdicts",
            numeric={"paper", "ours", "ratio"} & set(verdicts.columns),
            cell_class=lambda column, value: f"verdict {verdict_class(value)}" if column == "verdict" else "",
        )
    )
    drawn = figures.verdict_ratios(
        verdicts, [verdict_colour(v) for v in verdicts.get("verdict", [""] * len(verdicts))]
    )
    if drawn:
        section.figure(*drawn)


def verdict_colour(text: Any) -> str:
    """The colour of a verdict's class (the page's CSS colours), grey if it has none."""
    return {"verdict-good": "#17723a", "verdict-mid": "#9a6700", "verdict-bad": "#b3261e"}.get(
        verdict_class(text), "#777"
    )


#: Verdicts that judge nothing: no figure of ours to set beside the paper's (a reproduction's
#: `write_verdicts` says "not measured"); left uncoloured, not red.
UNJUDGED = ("not measured", "unmeasured", "n/a")


def verdict_class(text: Any) -> str:
    """`verdict-good`, `verdict-mid` or `verdict-bad` by the words of a verdict ("" if none, or
    if it judges nothing: `UNJUDGED`)."""
    if str(text).strip().lower().startswith(UNJUDGED):
        return ""
    words = str(text).lower().replace("-", " ").replace(",", " ").split()
    for kind, (stems, whole) in (("mid", PARTIAL), ("bad", BAD), ("good", GOOD)):
        if any(w.startswith(stems) or w in whole for w in words):
            return f"verdict-{kind}"
    return ""
