"""`ssdlab report`'s pages in a real browser (issue #32 part 5, issue #45): headless Chromium
opens each page from its file with the network off, and the test fails on any console error,
any failed request or request leaving the file, and any figure not drawn (the figure containers
holding Vega's interactive drawing, an SVG with marks or a canvas, counted against the figures
the page declares, and no static drawing left beside it). Every page is then captured as a
headless capture does it, a full-page screenshot without scrolling (its path printed: look at
it; it is written under pytest's temporary directory, never into the repository), and printed
to PDF: every figure must be drawn and fit its container, on screen and on paper. A page
printed before its interactive figures were drawn, captured from the command line at load, or
opened with JavaScript off, must show every figure all the same (its static drawing).

The pages are built from real tiny runs: a run report, a compare directory, a sweep directory
(the layout `ssdlab sweep` writes) and a reproduction directory; and a 100-run sweep, whose
report must stay under 5 MB (issue #32's target; its load time is measured and printed, not
asserted: a timed test fails on a busy machine, not on slow code).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import report_builders

from ssdlab.htmlreport import build_page, figures, static_svg, write_report

from .chromium_harness import (
    NO_JAVASCRIPT,
    VIRTUAL_TIME,
    capture,
    figure_fit,
    open_paused_after_first_figure,
    open_report,
    print_to_pdf,
    screenshot,
    start_browser,
)

#: Issue #32's budget for a 100-run sweep's report.
MAX_BYTES = 5 * 1024 * 1024

#: A4's printable width at 96 px per inch, less Chromium's default margins (about 0.4 in each).
PRINT_WIDTH_PX = 718


@pytest.fixture(scope="session")
def shots(tmp_path_factory) -> Path:
    """Where the screenshots and printouts go (printed by each test): pytest's temporary
    directory, not the repository."""
    return tmp_path_factory.mktemp("browser")


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
def test_report_opens_offline_and_draws_every_figure(browser, inputs, kind, tmp_path, shots):
    written = write_report(inputs[kind], tmp_path / f"{kind}.html")
    assert written.figures > 0
    opened = open_report(browser, written.path)
    assert opened.problems() == []
    assert opened.with_drawing == written.figures
    # A headless capture: the whole page, no scrolling, nothing blanked by the capture itself.
    shot = screenshot(browser, shots / f"report-{kind}.png")
    fit = figure_fit(browser)
    print(
        f"\n{kind}: {written.figures} figures, {written.bytes / 1e6:.2f} MB, drawn in {opened.drawn_ms:.0f} ms; "
        f"screenshot {shot}"
    )
    assert [f["id"] for f in fit if not f["drawn"]] == [], "every figure drawn in the screenshot"
    assert [f for f in fit if f["overflow_px"]] == [], "no figure wider than its container"
    # Printed: the browser's print, then its print stylesheet at a page's width, where the
    # figures (drawn for the screen) must still be drawn and fit.
    pdf = print_to_pdf(browser, shots / f"report-{kind}.pdf")
    assert pdf.read_bytes().startswith(b"%PDF")
    print(f"{kind}: printed {pdf}")
    fit = printed_fit(browser)
    assert [f["id"] for f in fit if not (f["drawn"] and f["shown"])] == [], "every figure drawn on paper"
    assert [f for f in fit if f["overflow_px"]] == [], f"a figure overflows the {PRINT_WIDTH_PX} px page"


def printed_fit(driver) -> list[dict]:
    """`figure_fit` under the print stylesheet at A4's width (the window emulating the page),
    then back to the screen."""
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": PRINT_WIDTH_PX, "height": 1000, "deviceScaleFactor": 1, "mobile": False},
    )
    try:
        return figure_fit(driver)
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})


def test_many_variants_with_long_labels_fit_their_panels(browser, tmp_path, shots):
    """Twelve variants of two keys, each labelled `gc.scheduler=... gc.trigger_free_blocks=...`:
    the legends wrap (at the screen's width and at a page's), and no figure overflows."""
    compare = report_builders.compare_dir(
        tmp_path / "many",
        schedulers="greedy,lazy_rtgc,rlgc,rlgc_aggressive,rlgc_qtc,predictor",
        seeds=1,
        also_vary=["gc.trigger_free_blocks=12,14"],
        requests=3000,
    )
    written = write_report(compare, tmp_path / "many.html")
    assert "gc.scheduler=rlgc_aggressive gc.trigger_free_blocks=14" in written.path.read_text()
    opened = open_report(browser, written.path)
    assert opened.problems() == []
    shot = screenshot(browser, shots / "report-many-variants.png")
    print(f"\nmany variants: screenshot {shot}")
    assert [f for f in figure_fit(browser) if f["overflow_px"] or not f["drawn"]] == []
    assert [f for f in printed_fit(browser) if f["overflow_px"] or not f["drawn"]] == []


def test_a_page_printed_before_its_figures_are_drawn_prints_every_figure(browser, inputs, tmp_path, shots):
    """Printed when one interactive figure is drawn and the others wait (the page paused after
    its first): the printout shows the first figure's interactive drawing and the static drawing
    of every other, each fitting A4's width."""
    written = write_report(inputs["sweep"], tmp_path / "sweep.html")  # the page of most figures
    open_paused_after_first_figure(browser, written.path)
    pdf = print_to_pdf(browser, shots / "report-printed-early.pdf")
    fit = printed_fit(browser)
    print(f"\nprinted with 1 of {written.figures} figures drawn interactively: {pdf}")
    assert [(f["id"], f["drawn"], f["static"]) for f in fit] == [
        (f"figure-{i}", i == 1, i > 1) for i in range(1, written.figures + 1)
    ]
    assert [f["id"] for f in fit if not f["shown"]] == [], "every figure on paper"
    assert [f for f in fit if f["overflow_px"]] == [], f"a figure overflows the {PRINT_WIDTH_PX} px page"
    browser.execute_script("window.releaseTimers()")


def test_a_headless_capture_with_virtual_time_draws_every_figure_interactively(inputs, tmp_path, shots):
    """`chromium --headless --virtual-time-budget=10000 --screenshot` (docs/report.md): the DOM
    it captures holds every interactive figure drawn, without a script waiting for them."""
    written = write_report(inputs["compare"], tmp_path / "compare.html")
    dom = capture(written.path, VIRTUAL_TIME, "--dump-dom")
    assert f'data-figures-rendered="{written.figures}"' in dom
    assert dom.count('class="figure-plot drawn"') == written.figures
    assert f'class="{static_svg.STATIC_CLASS}"' not in dom, "the static drawings replaced"
    shot = shots / "report-compare-cli-virtual-time.png"
    capture(written.path, VIRTUAL_TIME, "--window-size=1400,4000", f"--screenshot={shot}")
    assert shot.read_bytes()[:4] == b"\x89PNG"
    print(f"\nheadless capture with virtual time: {shot}")


#: The line colours of the compare page's three variants (`figures.PALETTE`, in order).
VARIANT_COLOURS = [tuple(int(c[i : i + 2], 16) for i in (1, 3, 5)) for c in figures.PALETTE[:3]]


def pixels_of(png: Path, colours: list[tuple[int, int, int]]) -> list[int]:
    """How many pixels of a screenshot are each colour (exactly: a line drawn 1.5 px wide has
    pixels of its full colour at its middle)."""
    from PIL import Image

    counts = Image.open(png).convert("RGB").getcolors(maxcolors=1 << 24)
    found = {rgb: n for n, rgb in counts}
    return [found.get(c, 0) for c in colours]


def test_a_plain_capture_at_load_shows_every_figure(inputs, tmp_path, shots):
    """`chromium --headless --dump-dom` and `--screenshot` alone, taken once the page has loaded
    (before the plotting library is inflated): every figure container holds an SVG with marks
    (its static drawing, or the interactive one if that came first), and the screenshot shows
    the variants' lines in their colours."""
    written = write_report(inputs["compare"], tmp_path / "compare.html")
    dom = capture(written.path, "--dump-dom").split("<main>", 1)[1]
    containers = re.split(r'<div class="figure-plot(?: drawn)?" id="figure-\d+">', dom)[1:]
    assert len(containers) == written.figures
    for n, held in enumerate(containers, start=1):
        drawing = held.split("</svg>", 1)[0]
        assert drawing.startswith(f'<svg class="{static_svg.STATIC_CLASS}"') or "svg" in drawing[:300], n
        assert re.search(r'<path d="M[^"]+"', drawing) and "<text" in drawing, f"figure-{n}: no marks"
    shot = shots / "report-compare-cli-at-load.png"
    capture(written.path, "--window-size=1400,5000", f"--screenshot={shot}")
    print(f"\nplain headless capture at load: {shot}")
    assert min(pixels_of(shot, VARIANT_COLOURS)) > 100, "every variant's line in the screenshot"


def test_the_simplified_static_drawing_draws_what_vega_drew(browser, inputs, tmp_path):
    """Each figure of the compare page as `vl_convert.vega_to_svg` wrote it and as the page holds
    it (`static_svg.simplified`: rounded to 0.1 px, axis-aligned segments as H and V, attributes
    dropped), each screenshot alone: the pictures are the same but for edge pixels that a
    tenth of a pixel shifts (at most 1 in 2,000 pixels differing by more than a quarter)."""
    import vl_convert
    from PIL import Image, ImageChops

    page, _ = build_page(inputs["compare"])
    for figure in page.figures:
        vega_svg = vl_convert.vega_to_svg(json.loads(figure.spec))
        shots = []
        for name, svg in (("vega", vega_svg), ("page", static_svg.simplified(vega_svg, figure.id))):
            html = tmp_path / f"{figure.id}-{name}.html"
            html.write_text(f"<!DOCTYPE html><body style='margin:0'>{svg}</body>")
            browser.get(html.as_uri())
            shots.append(Image.open(screenshot(browser, tmp_path / f"{figure.id}-{name}.png")).convert("RGB"))
        assert shots[0].size == shots[1].size
        inked = sum(shots[0].convert("L").histogram()[:200])
        assert inked > 2000, f"{figure.id}: Vega's drawing is blank ({inked} dark pixels)"
        histogram = ImageChops.difference(*shots).convert("L").histogram()
        differing = sum(histogram[64:])
        assert differing <= sum(histogram) / 2000, f"{figure.id}: {differing} pixels differ"
        assert len(svg) < 0.7 * len(vega_svg), f"{figure.id}: {len(vega_svg)} -> {len(svg)} bytes"


def test_a_page_opened_without_javascript_shows_and_prints_every_figure(inputs, tmp_path, shots):
    """With the page's scripts off (`--blink-settings=scriptEnabled=false`: a viewer or
    converter that runs none), every figure is its static drawing, fitting its container on
    screen and at A4's width, and the screenshot shows the variants' lines. (Chromium's own
    `--headless --screenshot` writes no file at all with scripts off, whatever the page.)"""
    written = write_report(inputs["compare"], tmp_path / "compare.html")
    driver = start_browser(NO_JAVASCRIPT)
    try:
        driver.get(written.path.resolve().as_uri())
        rendered = driver.execute_script("return document.body.dataset.figuresRendered === undefined")
        shot = screenshot(driver, shots / "report-compare-no-javascript.png")
        pdf = print_to_pdf(driver, shots / "report-compare-no-javascript.pdf")
        on_screen, on_paper = figure_fit(driver), printed_fit(driver)
    finally:
        driver.quit()
    print(f"\nno JavaScript: screenshot {shot}, printed {pdf}")
    assert rendered, "no script ran"
    assert min(pixels_of(shot, VARIANT_COLOURS)) > 100, "every variant's line in the screenshot"
    assert len(on_screen) == written.figures
    for fit in (on_screen, on_paper):
        assert [f["id"] for f in fit if not (f["static"] and f["shown"]) or f["drawn"]] == []
        assert [f for f in fit if f["overflow_px"]] == []


def test_a_100_run_sweep_report_stays_under_5_mb_and_opens(tmp_path, shots):
    """Five GC schedulers x four utilizations x five seeds, every cell a real run. Opened in a
    fresh browser (after a blank page, so that the browser's own start is not counted), then
    again; both times are printed and kept in timings.json beside the screenshots."""
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
    assert "100 cells" in written.path.read_text().split("<header>", 1)[1][:600]
    driver = start_browser()
    try:
        blank = tmp_path / "blank.html"
        blank.write_text("<!DOCTYPE html><title>blank</title><body data-figures-rendered='0'>")
        driver.get(blank.as_uri())
        first = open_report(driver, written.path)
        again = open_report(driver, written.path)
        shot = screenshot(driver, shots / "report-sweep100.png")
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
    (shots / "timings.json").write_text(json.dumps(timings, indent=2) + "\n")
    print(f"\n100-run sweep report: {json.dumps(timings)}; screenshot {shot}")


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
