"""Layer: Python, HTML report. One job: the page of one run report (`ssdlab run --out`): its
headline figures and latency percentiles, then the shared sections."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ssdlab import exploration
from ssdlab._console import fmt_sig
from ssdlab.htmlreport import sections, tables
from ssdlab.htmlreport.page import Page

if TYPE_CHECKING:
    import pandas as pd

    from ssdlab.htmlreport.sources import RunInput
    from ssdlab.report import Report

#: The columns of the percentile table, as `Report.latency` names them.
PERCENTILES = ("mean", "p50", "p90", "p99", "p99_9", "p99_99", "p99_9999", "max")


def build(source: RunInput) -> Page:
    report = source.report
    workload = sections.trace_facts([report])["workload"]
    page = Page(
        title=f"ssdlab run: {source.path.name}",
        subtitle=(
            f"{report['config']['device'].get('source', 'device')}; {workload}; seed {report['seed']}; "
            f"{report['workload']['requests']:,} requests; ssdlab {report['ssdlab_version']}"
        ),
    )
    summary = page.section("Summary")
    summary.raw(tables.facts(headline(report), columns=3))
    exploring = exploration.group_why([report])
    if exploring:
        summary.raw(sections.exploring_warning([exploring]))
    summary.raw(
        tables.frame_table(
            percentile_table(report),
            formats={c: tables.duration for c in PERCENTILES},
            headers={c: c.replace("_", ".") for c in PERCENTILES},
        )
    )
    summary.note("Latencies per operation; a dash: the run issued no such request.")
    sections.run_sections(page.section, {"this run": [report]})
    sections.provenance(page, [report], [source.path])
    return page


def headline(report: Report) -> dict[str, str]:
    """The run's policies and figures (those `ssdlab compare` records in runs.csv), readable."""
    from ssdlab.report import run_figures

    policies = report["policies"]
    out = {
        "GC scheduler / victim": f"{policies['gc_scheduler']} / {policies['gc_victim']}",
        "mapping": policies["mapping"],
    }
    figures = run_figures(report)
    # Throughput first, in significant figures (0.053 IOPS is not 0), and once.
    out["IOPS (simulated)"] = fmt_sig(figures.pop("iops"))
    out["MB/s (simulated)"] = fmt_sig(figures.pop("mb_per_s"))
    out.update({tables.readable(name): tables.format_value(name, v) for name, v in figures.items()})
    for agent in exploration.of_report(report):
        text = exploration.share_text([agent])
        if agent.control:
            text += " (random control)"
        elif agent.exploring:
            text += " (still exploring)"
        out[f"{agent.point} agent ({agent.policy})"] = text
    return out


def percentile_table(report: Report) -> pd.DataFrame:
    """Read and write latency percentiles (us, shown with units), with the request count."""
    return report.latency.loc[["read", "write"], ["count", *PERCENTILES]].reset_index(names="op")
