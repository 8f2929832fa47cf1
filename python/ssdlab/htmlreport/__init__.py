"""Layer: Python, HTML report (`ssdlab report`). One job: turn a run report, a `compare` or
`sweep` directory or a reproduction into one self-contained HTML page of tables and interactive
figures that opens in a browser with no network.

Modules, from the input to the file: `sources` (tell the kind of input and read it),
`distributions` (latency curves), `figures` (Vega-Lite figures of groups of runs), `tables`,
`sections` (the sections every kind shares), one `*_page` module per kind (what its page holds),
`static_svg` (each figure drawn once as an SVG the page holds, complete without JavaScript) and
`page` (the HTML document: the figures compiled to Vega, Vega's JavaScript embedded once).
From Python: `write_report("results/demo", "results/demo/report.html")`; docs/report.md says
what a page holds.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ssdlab.errors import SsdlabIOError
from ssdlab.htmlreport import compare_page, reproduction_page, run_page, sources, sweep_page
from ssdlab.htmlreport.page import Page

__all__ = ["Written", "build_page", "write_report"]

#: The page builder of each kind of input.
_BUILDERS = {
    sources.RunInput: run_page.build,
    sources.CompareInput: compare_page.build,
    sources.SweepInput: sweep_page.build,
    sources.ReproductionInput: reproduction_page.build,
}

#: What each kind is called in messages.
KIND_NAMES = {
    sources.RunInput: "run report",
    sources.CompareInput: "compare directory",
    sources.SweepInput: "sweep directory",
    sources.ReproductionInput: "reproduction",
}


@dataclass(frozen=True)
class Written:
    """The report written: its path, size, number of figures and the kind of input."""

    path: Path
    bytes: int
    figures: int
    kind: str


def build_page(path: str | Path) -> tuple[Page, str]:
    """The page of whatever `path` holds, and the name of its kind."""
    source = sources.load(path)
    return _BUILDERS[type(source)](source), KIND_NAMES[type(source)]


def write_report(path: str | Path, out: str | Path) -> Written:
    """Write the HTML report of `path` to `out` (its directory is created)."""
    page, kind = build_page(path)
    text = page.render()
    out = Path(out)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text, encoding="utf-8")
    except OSError as e:
        raise SsdlabIOError(f"{out}: cannot write the report: {e.strerror or e}", path=str(out)) from e
    return Written(out, len(text.encode()), len(page.figures), kind)
