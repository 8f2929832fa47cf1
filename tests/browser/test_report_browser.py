"""`ssdlab report`'s pages in a real browser (issue #32 part 5): headless Chromium opens each
page from its file with the network off, and the test fails on any console error, any failed
request or request leaving the file, and any figure not drawn (the figure containers holding
Vega's drawing, an SVG with marks or a canvas, counted against the figures the page declares). Screenshots go to results/browser/ in the
repository (printed); look at them.

The pages are built from real tiny runs: a run report, a compare directory, a sweep directory
(the layout `ssdlab sweep` writes) and a reproduction directory; and a 100-run sweep, whose
report must stay under 5 MB (issue #32's target; its load time is measured and printed, not
asserted: a timed test fails on a busy machine, not on slow code).
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
import report_builders

from ssdlab.htmlreport import write_report

from .chromium_harness import open_report, screenshot, start_browser

REPO = Path(__file__).resolve().parents[2]
RESULTS = REPO / "results" / "browser"

#: Issue #32's budget for a 100-run sweep's report.
MAX_BYTES = 5 * 1024 * 1024


@pytest.fixture(scope="session")
def inputs(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("inputs")
    return {
        "run": report_builders.run_report(root / "run.json"),
        "compare": report_builders.compare_dir(root / "compare", schedulers="greedy,lazy_rtgc,rlgc"),
        "sweep": report_builders.sweep_dir(
            root / "sweep",
            {"gc.scheduler": ["greedy", "rlgc"], "device.utilization": [0.8, 1.0, 1.5]},
            seeds=2,
        ),
        "reproduction": report_builders.reproduction_dir(root / "reproduction"),
    }


@pytest.mark.parametrize("kind", ["run", "compare", "sweep", "reproduction"])
def test_report_opens_offline_and_draws_every_figure(browser, inputs, kind, tmp_path):
    written = write_report(inputs[kind], tmp_path / f"{kind}.html")
    assert written.figures > 0
    opened = open_report(browser, written.path)
    shot = screenshot(browser, RESULTS / f"report-{kind}.png")
    print(
        f"\n{kind}: {written.figures} figures, {written.bytes / 1e6:.2f} MB, drawn in {opened.drawn_ms:.0f} ms; screenshot {shot}"
    )
    assert opened.problems() == []
    assert opened.with_drawing == written.figures
    if kind == "compare":  # the main job's kind of page: the screenshot to look at
        shutil.copyfile(shot, RESULTS / "report.png")


def test_a_100_run_sweep_report_stays_under_5_mb_and_opens(tmp_path):
    """Five GC schedulers x four utilizations x five seeds, every cell a real run. Opened in a
    fresh browser (after a blank page, so that the browser's own start is not counted), then
    again; both times are printed and kept in results/browser/timings.json."""
    sweep = report_builders.sweep_dir(
        tmp_path / "sweep100",
        {
            "gc.scheduler": ["greedy", "lazy_rtgc", "rlgc", "rlgc_aggressive", "rlgc_qtc"],
            "device.utilization": [0.7, 0.8, 0.9, 1.0],
        },
        seeds=5,
    )
    written = write_report(sweep, tmp_path / "sweep100.html")
    assert written.bytes < MAX_BYTES, f"{written.bytes:,} bytes"
    assert "100 cells" in written.path.read_text()[:4000]
    driver = start_browser()
    try:
        blank = tmp_path / "blank.html"
        blank.write_text("<!DOCTYPE html><title>blank</title><body data-figures-rendered='0'>")
        driver.get(blank.as_uri())
        first = open_report(driver, written.path)
        again = open_report(driver, written.path)
        screenshot(driver, RESULTS / "report-sweep100.png")
    finally:
        driver.quit()
    assert first.problems() == [] and again.problems() == []
    timings = {
        "cells": 100,
        "bytes": written.bytes,
        "figures": written.figures,
        "first_content_ms": round(first.content_ms or 0),
        "first_open_s": round(first.open_s, 3),
        "first_library_loaded_ms": round(first.library_ms or 0),
        "first_figure_drawn_ms": round(first.first_figure_ms or 0),
        "first_drawn_ms": round(first.drawn_ms or 0),
        "again_open_s": round(again.open_s, 3),
        "again_library_loaded_ms": round(again.library_ms or 0),
        "again_drawn_ms": round(again.drawn_ms or 0),
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "timings.json").write_text(json.dumps(timings, indent=2) + "\n")
    print(f"\n100-run sweep report: {json.dumps(timings)}")


def test_figures_in_view_are_drawn_first(browser, inputs, tmp_path):
    """Opened at its Learning section (a link of the contents), the compare page draws the
    learning curve first, then the others in page order."""
    written = write_report(inputs["compare"], tmp_path / "compare.html")
    opened = open_report(browser, written.path, fragment="learning")
    assert opened.problems() == []
    order = browser.execute_script(
        "return performance.getEntriesByType('mark').filter(m => m.name.startsWith('ssdlab-drawn '))"
        ".map(m => m.name.split(' ')[1])"
    )
    last = f"figure-{written.figures}"
    assert "decisions" in written.path.read_text().split(f'data-target="{last}">')[1][:20000]
    assert order[0] == last and order[1:] == [f"figure-{i}" for i in range(1, written.figures)]


def test_the_check_fails_a_page_that_breaks_or_reaches_out(browser, inputs, tmp_path):
    """The checks above can fail: a figure whose JSON is broken, and a page that fetches an
    image from the network, are each caught."""
    good = write_report(inputs["run"], tmp_path / "good.html").path.read_text()
    broken = tmp_path / "broken.html"
    broken.write_text(re.sub(r'(class="ssdlab-figure" data-target="figure-2">)\{', r"\1{oops", good, count=1))
    opened = open_report(browser, broken)
    assert opened.render_error is not None and opened.console_errors
    assert any("figures not drawn" in p for p in opened.problems())
    assert opened.with_drawing == 1, "the figure drawn before the broken one stays"
    assert "figure not drawn" in browser.find_element("id", "figure-2").text
    reaching = tmp_path / "reaching.html"
    reaching.write_text(good.replace("<main>", '<main><img src="https://example.com/logo.png" alt="">', 1))
    opened = open_report(browser, reaching)
    assert opened.external_requests == ["https://example.com/logo.png"]
    assert opened.failed_requests and "example.com" in opened.failed_requests[0]
