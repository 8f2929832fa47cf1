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


def require_browser() -> None:
    """Skip (fail in CI) when Chromium or its driver is absent."""
    missing = [str(p) for p in (CHROMIUM, CHROMEDRIVER) if not p.exists()]
    if missing:
        reason = (
            f"{' and '.join(missing)} absent: `make browser` installs Debian's chromium and chromium-driver"
        )
        if os.environ.get("CI"):
            pytest.fail(f"CI: {reason}")
        pytest.skip(reason)


#: A plain headless capture from the command line: taken when the page has loaded, before its
#: interactive figures are drawn (the page holds their static drawings).
CAPTURE_ARGUMENTS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--hide-scrollbars",
    "--host-resolver-rules=MAP * ~NOTFOUND",
)

#: Added to `CAPTURE_ARGUMENTS`, as docs/report.md gives it for the interactive drawings: virtual
#: time, which Chromium spends only while the page is idle, lets them draw before the capture.
VIRTUAL_TIME = "--virtual-time-budget=10000"

#: Added to `CAPTURE_ARGUMENTS` (or `start_browser`'s): the page's scripts do not run, as in a
#: viewer or converter that runs no JavaScript.
NO_JAVASCRIPT = "--blink-settings=scriptEnabled=false"


def capture(path: Path, *how: str, timeout_s: float = 120) -> str:
    """`chromium CAPTURE_ARGUMENTS *how file://path`: its standard output (the DOM with
    `--dump-dom`)."""
    import subprocess

    require_browser()
    done = subprocess.run(
        [str(CHROMIUM), *CAPTURE_ARGUMENTS, *how, path.resolve().as_uri()],
        capture_output=True,
        text=True,
        timeout=timeout_s,
        check=True,
    )
    return done.stdout


def start_browser(*arguments: str):
    """A new headless Chromium, offline, with its console and network logged, and `arguments`
    (`NO_JAVASCRIPT`); skips (fails in CI) if Chromium is absent. The caller quits it."""
    require_browser()
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
        *arguments,
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
    holding an interactive drawing (Vega's SVG or canvas, not the static one); console errors (SEVERE), failed requests and
    requests that left the file (anything but file:, data: and blob: URLs); how long it took:
    `open_s` from the request to every figure drawn (wall clock, seen from the test);
    `content_ms`, `library_ms`, `first_figure_ms` and `drawn_ms` from the page's navigation start
    to its content parsed (tables shown), the plotting library loaded, the first figure and the
    last drawn (the page's own clock)."""

    declared: int
    rendered: int | None
    with_drawing: int
    with_static: int
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
        if self.with_static and self.render_error is None:
            out.append(f"{self.with_static} static drawings left beside the interactive ones")
        return out


#: What a figure container holds. Vega draws a view into its container as an <svg class="marks">
#: (or a <canvas>) inside an element `.figure-view`, hidden while it is being made
#: (`.pending`); the page holds a static drawing, <svg class="figure-static">, until then. A
#: drawing with no mark (path, line, text) is not a figure.
_DRAWING = """
const VIEW = ".figure-view:not(.pending) svg.marks, .figure-view:not(.pending) canvas.marks";
const marked = d => d.tagName.toLowerCase() === "canvas" || d.querySelector("path, line, text") !== null;
const drawing = p => [...p.querySelectorAll(VIEW)].some(marked);
const staticDrawing = p => [...p.querySelectorAll("svg.figure-static")].some(marked);
"""

_DONE = (
    "return document.body !== null && (document.body.dataset.figuresRendered !== undefined"
    " || document.body.dataset.renderError !== undefined)"
)

_STATE = (
    _DRAWING
    + """
const body = document.body;
const plots = [...document.querySelectorAll(".figure-plot")];
const mark = name => { const m = performance.getEntriesByName(name); return m.length ? m[0].startTime : null; };
return {
  declared: Number(document.querySelector('meta[name="ssdlab-figures"]').content),
  rendered: body.dataset.figuresRendered === undefined ? null : Number(body.dataset.figuresRendered),
  renderError: body.dataset.renderError === undefined ? null : body.dataset.renderError,
  withDrawing: plots.filter(drawing).length,
  withStatic: plots.filter(staticDrawing).length,
  containers: plots.length,
  contentMs: performance.timing.domContentLoadedEventEnd - performance.timing.navigationStart,
  libraryMs: mark("ssdlab-library-loaded"),
  firstFigureMs: mark("ssdlab-first-figure-drawn"),
  drawnMs: mark("ssdlab-figures-drawn"),
};
"""
)


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
        with_static=state["withStatic"],
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


def screenshot(driver, path: Path) -> Path:
    """The whole page as a PNG at `path`, captured as a headless capture would: beyond the
    viewport, without scrolling and without resizing the window (`Page.captureScreenshot`)."""
    import base64

    shot = driver.execute_cdp_cmd("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True})
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(base64.b64decode(shot["data"]))
    return path


def print_to_pdf(driver, path: Path) -> Path:
    """The page printed (`Page.printToPDF`: the browser's print, `beforeprint` and `afterprint`
    included) to a PDF at `path`, A4 portrait."""
    import base64

    printed = driver.execute_cdp_cmd(
        "Page.printToPDF", {"printBackground": True, "paperWidth": 8.27, "paperHeight": 11.69}
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(base64.b64decode(printed["data"]))
    return path


#: Per figure container: whether it holds Vega's interactive drawing (`drawn`), its static one
#: (`static`), whether a drawing with marks is shown (`shown`: one that takes room and is not
#: hidden, as the interactive one is while it is being made), and by how many pixels the
#: drawings overflow the container on the right (0 when they fit).
_FIGURE_FIT = (
    _DRAWING
    + """
return [...document.querySelectorAll(".figure-plot")].map(p => {
  const box = p.getBoundingClientRect();
  const drawings = [...p.querySelectorAll("svg, canvas")].filter(d => d.matches(VIEW + ", svg.figure-static"));
  const widest = Math.max(0, ...drawings.map(m => m.getBoundingClientRect().right));
  const visible = d => d.getBoundingClientRect().width > 0 && getComputedStyle(d).visibility === "visible";
  return {
    id: p.id, drawn: drawing(p), static: staticDrawing(p),
    shown: drawings.some(d => visible(d) && marked(d)),
    overflow_px: Math.max(0, Math.round(widest - box.right)),
  };
});
"""
)


def figure_fit(driver) -> list[dict]:
    """Every figure container: `{id, drawn, static, shown, overflow_px}` (see `_FIGURE_FIT`)."""
    return driver.execute_script(_FIGURE_FIT)


#: Installed before a page's own scripts: once its first figure is drawn, every zero-delay
#: timer (the page's pause between two figures) is held until `window.releaseTimers()`, so the
#: page stops drawing after one figure, as a page printed a moment after it opened would.
_HOLD_AFTER_FIRST_FIGURE = """
(() => {
  const original = window.setTimeout, held = [];
  window.setTimeout = function (callback, delay, ...rest) {
    if (!delay && performance.getEntriesByName("ssdlab-first-figure-drawn").length) {
      held.push(() => callback(...rest));
      return 0;
    }
    return original.call(window, callback, delay, ...rest);
  };
  window.releaseTimers = () => { window.setTimeout = original; held.splice(0).forEach(f => original(f, 0)); };
})();
"""


def open_paused_after_first_figure(driver, path: Path, timeout_s: float = 60) -> None:
    """Open a report whose drawing stops after its first figure (`_HOLD_AFTER_FIRST_FIGURE`),
    and return once that figure is drawn; `window.releaseTimers()` lets it go on."""
    from selenium.webdriver.support.ui import WebDriverWait

    script = driver.execute_cdp_cmd(
        "Page.addScriptToEvaluateOnNewDocument", {"source": _HOLD_AFTER_FIRST_FIGURE}
    )
    try:
        driver.get("about:blank")
        driver.get(path.resolve().as_uri())
    finally:
        driver.execute_cdp_cmd(
            "Page.removeScriptToEvaluateOnNewDocument", {"identifier": script["identifier"]}
        )
    WebDriverWait(driver, timeout_s, poll_frequency=0.02).until(
        lambda d: d.execute_script(
            "return performance.getEntriesByName('ssdlab-first-figure-drawn').length > 0"
            " || document.body.dataset.renderError !== undefined"
        )
    )
