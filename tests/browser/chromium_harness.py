"""A real headless Chromium (Debian's `chromium` and `chromedriver`; `make browser` installs them)
driven through selenium, offline, logging the console and the network, and what it saw when it
opened a report.

In CI (the `CI` variable set) a missing browser fails the test: a browser test that skips checks
nothing. Elsewhere it is skipped, saying how to install one."""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")


def start_browser():
    """A new headless Chromium, offline, with its console and network logged; skips (fails in
    CI) if Chromium is absent. The caller quits it."""
    missing = [str(p) for p in (CHROMIUM, CHROMEDRIVER) if not p.exists()]
    if missing:
        reason = (
            f"{' and '.join(missing)} absent: `make browser` installs Debian's chromium and chromium-driver"
        )
        if os.environ.get("CI"):
            pytest.fail(f"CI: {reason}")
        pytest.skip(reason)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for argument in (
        "--headless=new",
        "--no-sandbox",  # root in a container has no user namespace for the sandbox
        "--disable-dev-shm-usage",
        "--window-size=1400,1000",
        # No name resolves: a page that reaches for the network fails to load it (and the
        # test sees the failed request), rather than fetching it.
        "--host-resolver-rules=MAP * ~NOTFOUND",
    ):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd(
        "Network.emulateNetworkConditions",
        {"offline": True, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1},
    )
    return driver


@dataclass
class Opened:
    """What the browser saw when it opened a report: the figures the page declares
    (`<meta name="ssdlab-figures">`), those it reports drawn, its figure containers and those
    holding a drawing (Vega's SVG or canvas); console errors (SEVERE), failed requests and
    requests that left the file (anything but file:, data: and blob: URLs); how long it took:
    `open_s` from the request to every figure drawn (wall clock, seen from the test);
    `content_ms`, `library_ms`, `first_figure_ms` and `drawn_ms` from the page's navigation start
    to its content parsed (tables shown), the plotting library loaded, the first figure and the
    last drawn (the page's own clock)."""

    declared: int
    rendered: int | None
    with_drawing: int
    containers: int
    render_error: str | None
    console_errors: list[str] = field(default_factory=list)
    failed_requests: list[str] = field(default_factory=list)
    external_requests: list[str] = field(default_factory=list)
    open_s: float = 0.0
    content_ms: float | None = None
    library_ms: float | None = None
    first_figure_ms: float | None = None
    drawn_ms: float | None = None

    def problems(self) -> list[str]:
        """Everything wrong with the page, empty when it opened cleanly with every figure drawn."""
        out = [f"console error: {e}" for e in self.console_errors]
        out += [f"failed request: {r}" for r in self.failed_requests]
        out += [f"request outside the file: {r}" for r in self.external_requests]
        if self.render_error is not None:
            out.append(f"figures not drawn: {self.render_error}")
        if self.rendered != self.declared:
            out.append(f"{self.rendered} figures drawn of {self.declared} declared")
        if self.with_drawing != self.declared or self.containers != self.declared:
            out.append(
                f"{self.with_drawing} figures drawn as SVG or canvas ({self.containers} containers) of {self.declared}"
            )
        return out


_DONE = (
    "return document.body !== null && (document.body.dataset.figuresRendered !== undefined"
    " || document.body.dataset.renderError !== undefined)"
)

_STATE = """
const body = document.body;
const plots = [...document.querySelectorAll(".figure-plot")];
// Vega draws a view into its container as an <svg class="marks"> (or a <canvas>) with at least
// one mark: an empty SVG is not a figure.
const drawing = p => p.querySelector("svg.marks path, svg.marks line, svg.marks text, canvas.marks") !== null;
const mark = name => { const m = performance.getEntriesByName(name); return m.length ? m[0].startTime : null; };
return {
  declared: Number(document.querySelector('meta[name="ssdlab-figures"]').content),
  rendered: body.dataset.figuresRendered === undefined ? null : Number(body.dataset.figuresRendered),
  renderError: body.dataset.renderError === undefined ? null : body.dataset.renderError,
  withDrawing: plots.filter(drawing).length,
  containers: plots.length,
  contentMs: performance.timing.domContentLoadedEventEnd - performance.timing.navigationStart,
  libraryMs: mark("ssdlab-library-loaded"),
  firstFigureMs: mark("ssdlab-first-figure-drawn"),
  drawnMs: mark("ssdlab-figures-drawn"),
};
"""


def open_report(driver, path: Path, timeout_s: float = 60, fragment: str = "") -> Opened:
    """Open a report file (at `#fragment`, if given) and wait until its figures are drawn (or
    failed)."""
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get("about:blank")  # a new document, even for the same file at another #fragment
    driver.get_log("browser")  # what earlier pages logged
    driver.get_log("performance")
    start = time.perf_counter()
    driver.get(path.resolve().as_uri() + (f"#{fragment}" if fragment else ""))
    WebDriverWait(driver, timeout_s, poll_frequency=0.02).until(lambda d: d.execute_script(_DONE))
    open_s = time.perf_counter() - start
    state = driver.execute_script(_STATE)
    console = [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    failed, external = [], []
    urls: dict[str, str] = {}
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        params = message.get("params", {})
        if message["method"] == "Network.requestWillBeSent":
            url = params["request"]["url"]
            urls[params["requestId"]] = url
            if not url.startswith(("file:", "data:", "blob:")):
                external.append(url)
        elif message["method"] == "Network.loadingFailed":
            failed.append(f"{urls.get(params['requestId'], params['requestId'])}: {params.get('errorText')}")
    return Opened(
        declared=state["declared"],
        rendered=state["rendered"],
        with_drawing=state["withDrawing"],
        containers=state["containers"],
        render_error=state["renderError"],
        console_errors=console,
        failed_requests=failed,
        external_requests=external,
        open_s=open_s,
        content_ms=state["contentMs"],
        library_ms=state["libraryMs"],
        first_figure_ms=state["firstFigureMs"],
        drawn_ms=state["drawnMs"],
    )


def screenshot(driver, path: Path, max_height: int = 16000) -> Path:
    """The whole page (up to `max_height` pixels) as a PNG at `path`."""
    height = int(driver.execute_script("return document.documentElement.scrollHeight"))
    width = int(driver.execute_script("return window.outerWidth")) or 1400
    driver.set_window_size(width, min(height + 120, max_height))
    path.parent.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(path))
    driver.set_window_size(1400, 1000)
    return path
