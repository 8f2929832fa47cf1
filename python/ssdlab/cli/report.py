"""`ssdlab report`: one self-contained HTML page of a run, a comparison, a sweep or a
reproduction (the work is in `ssdlab.htmlreport`; this module parses options and prints)."""

from __future__ import annotations

from pathlib import Path

import click

from ssdlab._console import fmt_bytes
from ssdlab.cli.common import console


@click.command()
@click.argument("path", type=click.Path(path_type=Path))
@click.option(
    "--out",
    "-o",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="The HTML file to write (default: report.html in a results directory, or the run report's name with .html).",
)
def report(path: Path, out: Path | None) -> None:
    """Write one HTML page of a run, a comparison, a sweep or a reproduction.

    PATH is a run report (`ssdlab run --out`), a `compare` or `sweep` output directory, or a
    reproduction's (`ssdlab reproduce X -o DIR`). The page is one file that opens in a browser with no network (the plotting library is embedded): the
    summary table (per run, per variant over its seeds, or per sweep cell), latency CDFs and
    their tails on log axes, free blocks over time, flash operations by source (host, GC,
    mapping, migration, buffer flushes), the learning curves of any agent, a reproduction's
    verdicts, tables and figures, and the provenance (versions, seeds, trace, the resolved
    configuration). Many runs are drawn as one line per variant or axis value, not per run.

    \b
    Examples:
      ssdlab report r.json                      # writes r.html
      ssdlab report results/demo -o results/demo/report.html
      ssdlab report results/fsp                 # a reproduction: results/fsp/report.html
    """
    from ssdlab.htmlreport import write_report

    if out is None:
        out = path / "report.html" if path.is_dir() else path.with_suffix(".html")
    written = write_report(path, out)
    figures = f"{written.figures} figure{'s' if written.figures != 1 else ''}"
    console.print(f"report of a {written.kind}, {figures}, {fmt_bytes(written.bytes)}:", highlight=False)
    # soft_wrap: a long path stays on one line (copyable), not folded at the terminal width.
    # Absolute: a path to paste into a browser's address bar.
    console.print(f"  {written.path.resolve()}", highlight=False, soft_wrap=True)
