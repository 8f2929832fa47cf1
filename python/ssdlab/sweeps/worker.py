"""Layer: Python, sweeps. One job: the worker of a grid sweep: run one cell, return its
figures (the columns of `ssdlab compare`'s runs.csv), its verify verdict and version, and its
saved report as a file for the results directory."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from ssdlab.report import run_figures
from ssdlab.sweeps.job import Job
from ssdlab.sweeps.outcome import FILES_KEY

#: Where a cell's report goes in the results directory (`{id}`: the cell's id).
REPORT_FILE = "reports/{id}.json"
VERDICTS = ("passed", "failed", "off")


def verify_verdict(raw: dict[str, Any]) -> str:
    """ "passed" when the run had verify mode on and its final scan found every page, "failed"
    when it did not, "off" when verify mode was off."""
    verify = raw.get("verify") or {}
    if not verify.get("enabled"):
        return "off"
    return "passed" if verify.get("final_scan_passed") else "failed"


def run_cell(job: Job) -> dict[str, Any]:
    """Run one cell of a grid. The report is saved with `Report.save` (so the file is exactly
    what `ssdlab run --out` writes) and returned as text: the caller writes it, which works when
    this runs on another machine."""
    report = job.run()
    with tempfile.TemporaryDirectory(prefix="ssdlab-cell-") as scratch:
        path = Path(scratch) / "report.json"
        report.save(path)
        text = path.read_text()
    return {
        "figures": run_figures(report),
        "verify": verify_verdict(report.raw),
        "ssdlab_version": report["ssdlab_version"],
        FILES_KEY: {REPORT_FILE: text},
    }


def check_result(result: dict[str, Any]) -> str | None:
    """Why a result read back from a record is not one `run_cell` returns (None if it is): the
    table is made from its figures, verdict and version, so a record whose figures are not
    numbers is set aside, not used. Keys it does not read are let be (a record of an earlier
    version may lack a figure added since: its column holds NaN there)."""
    figures = result.get("figures")
    if not isinstance(figures, dict):
        return "its result has no figures"
    for name, value in figures.items():
        if value is not None and (isinstance(value, bool) or not isinstance(value, int | float)):
            return f"its figure {name!r} is not a number"
    if result.get("verify") not in VERDICTS:
        return f"its result's verify is not one of {', '.join(VERDICTS)}"
    if not isinstance(result.get("ssdlab_version"), str):
        return "its result has no ssdlab_version"
    return None
