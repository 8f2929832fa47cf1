"""Layer: Python, HTML report. One job: assemble sections of text, tables, images and Vega
figures into one self-contained HTML file that opens with no network.

Why Vega, compiled here: plotly.js is 4.8 MB, and the first compile of it alone took 1.2 s of
issue #32's 2 s budget (a 100-run sweep's report opens in under 2 s and stays under 5 MB) on a
2-core machine. The page now embeds the Vega project's own bundle of Vega, Vega-Lite and
vega-embed (`vl_convert.javascript_bundle`, 0.9 MB, 0.3 MB gzipped) and draws Vega specs that
`figures`' Vega-Lite specs were compiled into here, by `vl_convert` (the same Vega-Lite the
bundle holds), so that the browser only parses and draws them: compiling the 100-run sweep's
ten Vega-Lite specs in the browser cost its renderer 0.2-0.3 s more CPU on first open. The
bundle is embedded gzipped and base64 encoded; the page decodes it natively (a `data:` URL
fetched) and inflates it with the browser's own `DecompressionStream` (Chrome and Edge 80,
Firefox 113, Safari 16.4 and later), evaluates it once, then draws every figure, one at a time
in page order, those in view first (so that a link of the contents shows its figures next),
letting the page scroll between two. Each figure is compiled at `FIGURE_WIDTH` and set to its
container's width when drawn (and drawn again when the window's width changes).

Complete with no JavaScript (issue #45): each figure's container holds, from the start, the
figure drawn once when the page was written (`static_svg`: Vega's SVG at `FIGURE_WIDTH`,
coordinates rounded to 0.1 px, scaled down to a narrower container like any drawing). The
library is inflated and evaluated after the page's `load` event, so a capture taken at `load`
(`chromium --headless --screenshot` or `--print-to-pdf` alone), a converter or viewer that runs
no script, or a browser without `DecompressionStream` would otherwise show no figure at all;
they now show the static drawings (a browser that cannot draw the interactive figures says so
under each). The interactive drawing is made in a hidden element beside the static one, which
it replaces only once complete, as it replaces its own drawing at another width: a figure never
shows blank. A printout shows whatever each container holds, static or interactive, scaled to
the paper by the print stylesheet, which also shows tables whole; no drawing overflows its
container (`_CSS`). The cost: 0.3-0.6 s a figure when the page is written, and some 0.1 MB a
figure on the page (a 100-run sweep's page grows from 0.85 MB to 1.5 MB; issue #32's 5 MB are
far off, so no option leaves them out).

The styling every figure shares (`CONFIG`) is applied when compiling. The page declares how
many figures it holds (`<meta name="ssdlab-figures">`) and, once every interactive figure is
drawn, sets `data-figures-rendered` on `<body>` (or `data-render-error` if drawing failed),
resolves `window.ssdlabFiguresDrawn` and fires `ssdlab-figures-drawn` on `document`: what a
headless capture that wants the interactive drawings waits for, and what the browser test
checks.
"""

from __future__ import annotations

import base64
import functools
import gzip
import html
import json
from dataclasses import dataclass, field
from typing import Any

from ssdlab.htmlreport import static_svg

#: The width (px) figures are compiled at: the page's widest figure container (its 1400 px
#: column less the margins). The page sets each figure to its own container's width.
FIGURE_WIDTH = 1336

#: The room (px) a legend column takes: a label of `figures.LEGEND_LABEL_PX` and its symbol. A
#: legend below a figure gets as many columns as its width holds (`figures` asks for at most
#: `figures.LEGEND_COLUMNS`), so that a long legend wraps onto more rows instead of overflowing.
LEGEND_COLUMN_PX = 210

#: The Vega-Lite configuration every figure is compiled with (plotly's white look, which the
#: page had before: light grid, no frame). No ARIA description per mark: Vega-Lite would give
#: every point of a curve a sentence to compute and store; plotly's figures had none either.
CONFIG: dict[str, Any] = {
    "aria": False,
    "font": "system-ui, -apple-system, Segoe UI, Roboto, sans-serif",
    "view": {"stroke": None},
    "axis": {"gridColor": "#ebf0f8", "domainColor": "#b8c2d1", "tickColor": "#b8c2d1", "labelColor": "#2a3f5f",
             "titleColor": "#2a3f5f", "titleFontWeight": "normal", "labelFontSize": 11, "titleFontSize": 12},
    "title": {"fontSize": 13, "fontWeight": "normal", "color": "#2a3f5f"},
    "legend": {"labelFontSize": 11},
    "concat": {"spacing": 30},
    "line": {"strokeCap": "butt"},
}  # fmt: skip


def escape(text: object) -> str:
    return html.escape(str(text), quote=True)


@functools.cache
def _vega_js_gzip_base64() -> str:
    """Vega, Vega-Lite and vega-embed in one bundle, gzipped (mtime 0: the same input gives the
    same bytes) and base64 encoded. The page calls `vegaEmbed` alone, on Vega specs: the
    bundle's `vega` and `vegaLite` globals are null (their modules have no default export), and
    a bundle of Vega alone cannot be asked for (`javascript_bundle` fails on named imports)."""
    import vl_convert

    bundle = vl_convert.javascript_bundle()
    return base64.b64encode(gzip.compress(bundle.encode(), compresslevel=9, mtime=0)).decode()


def sized(spec: dict[str, Any], width: int) -> dict[str, Any]:
    """A Vega-Lite figure with its views' widths set for a container `width` px wide: the panels
    of a row share it (each less room for its axis), a view in a column takes it all less its
    axis, and a view alone fits it, axis and labels included (`fit-x`). The page does the same
    to the compiled spec (`_DRAW_JS`'s `sized`)."""
    out = dict(spec)
    if "hconcat" in out:
        n = len(out["hconcat"])
        out["hconcat"] = [{**view, "width": max(120, (width - 90 * n) // n)} for view in out["hconcat"]]
    elif "vconcat" in out:
        out["vconcat"] = [{**view, "width": max(120, width - 110)} for view in out["vconcat"]]
    else:
        out["width"] = max(120, width - 20)
        out["autosize"] = {"type": "fit-x", "contains": "padding"}
    return out


def compile_figure(spec: dict[str, Any]) -> dict[str, Any]:
    """A Vega-Lite figure compiled into Vega at `FIGURE_WIDTH`, with `CONFIG`."""
    import vl_convert

    try:
        return vl_convert.vegalite_to_vega(sized(spec, FIGURE_WIDTH), config=CONFIG)
    except ValueError as e:  # a figure builder's bug, not the user's input
        raise RuntimeError(f"the report's figure does not compile: {e}") from e


def _script_json(value: str) -> str:
    """JSON text made safe inside a <script> element (no `</script>` can close it early)."""
    return value.replace("</", "<\\/")


@dataclass
class Figure:
    """A figure placed on the page: its id, its compiled Vega spec (JSON), its static drawing
    (`static_svg`) and its caption."""

    id: str
    spec: str
    static: str
    caption: str


@dataclass
class Section:
    """A titled part of the page: HTML fragments in order. Text passed to `paragraph` and
    `note` is escaped; `raw` takes HTML that the report's own helpers built (and escaped)."""

    page: Page
    title: str
    anchor: str
    level: int = 2
    parts: list[str | Section] = field(default_factory=list)

    def raw(self, fragment: str) -> None:
        self.parts.append(fragment)

    def paragraph(self, text: str) -> None:
        self.parts.append(f"<p>{escape(text)}</p>")

    def note(self, text: str) -> None:
        """A remark on what the section could and could not show."""
        self.parts.append(f'<p class="note">{escape(text)}</p>')

    def figure(self, spec: dict[str, Any], caption: str) -> None:
        """Place a Vega-Lite figure (`figures`): its static drawing in its container, replaced
        by the interactive one the browser draws from its JSON."""
        figure = self.page.add_figure(spec, caption)
        self.parts.append(
            f'<figure><div class="figure-plot" id="{figure.id}">{figure.static}</div>'
            f"<figcaption>{escape(caption)}</figcaption></figure>"
        )

    def image(self, png: bytes, caption: str) -> None:
        """Embed a PNG (base64 in a data URL: the page stays one file)."""
        data = base64.b64encode(png).decode()
        self.parts.append(
            f'<figure><img alt="{escape(caption)}" src="data:image/png;base64,{data}">'
            f"<figcaption>{escape(caption)}</figcaption></figure>"
        )

    def details(self, summary: str, fragment: str) -> None:
        """A collapsed block (long tables, the resolved configuration)."""
        self.parts.append(f"<details><summary>{escape(summary)}</summary>{fragment}</details>")

    def subsection(self, title: str) -> Section:
        """A titled part inside this one (`<h3>`), listed in the contents under it."""
        sub = Section(self.page, title, self.page.new_anchor(title), level=self.level + 1)
        self.parts.append(sub)
        return sub


@dataclass
class Page:
    """The report being built: a title, a line saying what it reports on, and sections."""

    title: str
    subtitle: str
    sections: list[Section] = field(default_factory=list)
    figures: list[Figure] = field(default_factory=list)
    _anchors: set[str] = field(default_factory=set)

    def section(self, title: str) -> Section:
        s = Section(self, title, self.new_anchor(title))
        self.sections.append(s)
        return s

    def new_anchor(self, title: str) -> str:
        base = "".join(c if c.isalnum() else "-" for c in title.lower()).strip("-") or "section"
        anchor, n = base, 1
        while anchor in self._anchors:
            n += 1
            anchor = f"{base}-{n}"
        self._anchors.add(anchor)
        return anchor

    def add_figure(self, spec: dict[str, Any], caption: str) -> Figure:
        """Compile a Vega-Lite figure into the Vega spec the page draws, and draw it once here
        (`static_svg`)."""
        vega = compile_figure(spec)
        text = json.dumps(vega, separators=(",", ":"), allow_nan=False)
        target = f"figure-{len(self.figures) + 1}"
        figure = Figure(target, text, static_svg.draw(vega, id_prefix=f"{target}-static"), caption)
        self.figures.append(figure)
        return figure

    def render(self) -> str:
        """The whole page as one HTML document."""
        body = "\n".join(_render_section(s) for s in self.sections)
        return _DOCUMENT.format(
            title=escape(self.title),
            subtitle=escape(self.subtitle),
            figure_count=len(self.figures),
            css=_CSS,
            contents=_contents(self.sections),
            body=body,
            data=self._render_data(),
            # With nothing to draw, the page is complete as it loads.
            body_attributes="" if self.figures else ' data-figures-rendered="0"',
        )

    def _render_data(self) -> str:
        """The scripts that draw the figures; none when the page has no figure."""
        if not self.figures:
            return ""
        specs = "\n".join(
            f'<script type="application/json" class="ssdlab-figure" data-target="{f.id}">'
            f"{_script_json(f.spec)}</script>"
            for f in self.figures
        )
        return (
            f'<script type="application/octet-stream" id="vega-js-gzip">{_vega_js_gzip_base64()}</script>\n'
            f"{specs}\n<script>{_DRAW_JS}</script>"
        )


def _render_section(section: Section) -> str:
    tag = f"h{section.level}"
    parts = [p if isinstance(p, str) else _render_section(p) for p in section.parts]
    inner = "\n".join(parts)
    return f'<section id="{section.anchor}"><{tag}>{escape(section.title)}</{tag}>\n{inner}\n</section>'


def _contents(sections: list[Section]) -> str:
    items = []
    for s in sections:
        subs = [p for p in s.parts if isinstance(p, Section)]
        inner = "".join(f'<li><a href="#{p.anchor}">{escape(p.title)}</a></li>' for p in subs)
        items.append(
            f'<li><a href="#{s.anchor}">{escape(s.title)}</a>{f"<ul>{inner}</ul>" if inner else ""}</li>'
        )
    return f"<nav><ul>{''.join(items)}</ul></nav>"


_DRAW_JS_TEMPLATE = """
(async function () {
  const body = document.body;
  // Every figure is on the page from the start, drawn when the page was written (a static SVG).
  // The interactive figures replace them one at a time, in page order, except that those
  // scrolled into view (or reached by a link of the contents) go first; the page scrolls between
  // two figures. A printout shows whatever each container holds, static or interactive.
  const queue = [...document.querySelectorAll("script.ssdlab-figure")];
  // Which figure goes next is decided when it is drawn, from where the page is then (a link of
  // the contents, or the reader's scrolling): the first one in or near the view, else the first
  // in page order.
  const nearView = script => {
    const box = document.getElementById(script.dataset.target).getBoundingClientRect();
    return box.bottom > -200 && box.top < window.innerHeight + 200;
  };
  const total = queue.length;
  const drawn = new Map();  // container id -> {spec, view, width}
  let resolveDrawn, rejectDrawn;
  // For a headless capture (a screenshot, a PDF): a promise that settles once every figure is
  // drawn (or drawing failed), beside body[data-figures-rendered] and the `ssdlab-figures-drawn`
  // event on document.
  window.ssdlabFiguresDrawn = new Promise((resolve, reject) => { resolveDrawn = resolve; rejectDrawn = reject; });
  window.ssdlabFiguresDrawn.catch(() => {});
  // Each view gets the container's width, as page.py's `sized` gives it: the panels of a row
  // share it (Vega-Lite compiled their common width into the signal `childWidth`, and the row
  // into a layout of its group marks, a column into a layout of one column), a single view
  // fits it; a legend gets as many columns as fit.
  const sized = (spec, width) => {
    const columns = !spec.layout ? 1 : spec.layout.columns || spec.marks.filter(m => m.type === "group").length;
    const each = Math.max(120, columns > 1 ? Math.floor((width - 90 * columns) / columns) : width - 110);
    const signals = (spec.signals || []).map(s => s.name === "childWidth" ? Object.assign({}, s, {value: each}) : s);
    const alone = typeof spec.width === "number" ? {width: Math.max(120, width - 20)} : {};  // fit-x
    const legends = (spec.legends || []).map(l => l.columns ? Object.assign({}, l, {
      columns: Math.max(1, Math.min(l.columns, Math.floor(width / __LEGEND_COLUMN_PX__)))}) : l);
    return Object.assign({}, spec, {signals: signals, legends: legends}, alone);
  };
  // A figure is drawn into a new element beside what the container shows (its static drawing,
  // or its interactive one at another width), which stays until the new one is complete: a
  // figure never shows blank.
  const draw = async (target, spec) => {
    const container = document.getElementById(target);
    const width = container.clientWidth;
    const old = drawn.get(target);
    const shown = old ? old.element : container.querySelector(".__STATIC_CLASS__");
    const fresh = document.createElement("div");
    fresh.className = "figure-view";
    if (shown) fresh.classList.add("pending");
    container.appendChild(fresh);
    const {view} = await vegaEmbed(fresh, sized(spec, width), {mode: "vega", renderer: "svg", actions: false});
    if (old) old.view.finalize();
    if (shown) {
      shown.remove();
      fresh.classList.remove("pending");
    }
    container.classList.add("drawn");
    drawn.set(target, {spec: spec, view: view, width: width, element: fresh});
  };
  const next = () => queue.splice(Math.max(0, queue.findIndex(nearView)), 1)[0];
  const drawNext = async () => {
    const script = next();
    await draw(script.dataset.target, JSON.parse(script.textContent));
    performance.mark("ssdlab-drawn " + script.dataset.target);
    if (queue.length === total - 1) performance.mark("ssdlab-first-figure-drawn");
  };
  const printing = () => window.matchMedia("print").matches;
  try {
    if (typeof DecompressionStream === "undefined") {
      throw new Error("this browser cannot inflate the embedded plotting library " +
        "(it needs DecompressionStream: Chrome or Edge 80, Firefox 113, Safari 16.4 or later)");
    }
    // A data: URL decodes the base64 natively (a loop over atob's characters took 0.14 s).
    const packed = document.getElementById("vega-js-gzip").textContent.trim();
    const response = await fetch("data:application/gzip;base64," + packed);
    const stream = response.body.pipeThrough(new DecompressionStream("gzip"));
    (0, eval)(await new Response(stream).text());
    performance.mark("ssdlab-library-loaded");
    while (queue.length) {
      await drawNext();
      await new Promise(resolve => setTimeout(resolve, 0));
    }
    performance.mark("ssdlab-figures-drawn");
    body.dataset.figuresRendered = String(total);
    resolveDrawn(total);
    document.dispatchEvent(new Event("ssdlab-figures-drawn"));
  } catch (err) {
    // The figures not drawn keep their static drawing, and say why they are not interactive.
    body.dataset.renderError = String(err);
    for (const plot of document.querySelectorAll(".figure-plot:not(.drawn)")) {
      plot.classList.add("failed");
      for (const pending of plot.querySelectorAll(".figure-view.pending")) pending.remove();
      const message = document.createElement("p");
      message.className = "figure-failed";
      message.textContent = "interactive figure not drawn: " + err.message;
      plot.appendChild(message);
    }
    console.error("ssdlab report: figures not drawn: " + err);
    rejectDrawn(err);
    document.dispatchEvent(new Event("ssdlab-figures-drawn"));
    return;
  }
  // A window of another width: the figures drawn again to fit it, one at a time (not while
  // printing: the print stylesheet scales them to the paper).
  let resizing = null;
  window.addEventListener("resize", () => {
    clearTimeout(resizing);
    resizing = setTimeout(async () => {
      if (printing()) return;
      for (const [target, figure] of drawn) {
        if (document.getElementById(target).clientWidth !== figure.width) await draw(target, figure.spec);
      }
    }, 250);
  });
})();
"""
_DRAW_JS = _DRAW_JS_TEMPLATE.replace("__LEGEND_COLUMN_PX__", str(LEGEND_COLUMN_PX)).replace(
    "__STATIC_CLASS__", static_svg.STATIC_CLASS
)

_CSS = """
:root { --ink: #1d2330; --muted: #5b6475; --rule: #d9dee7; --band: #f4f6f9; --accent: #2f5fb3; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
       color: var(--ink); background: #fff; }
header { padding: 1.2rem 2rem .8rem; border-bottom: 1px solid var(--rule); background: var(--band); }
header h1 { margin: 0 0 .2rem; font-size: 1.5rem; }
header p { margin: 0; color: var(--muted); }
nav { padding: .4rem 2rem; border-bottom: 1px solid var(--rule); font-size: .9rem; }
nav ul { list-style: none; margin: 0; padding: 0; display: flex; flex-wrap: wrap; gap: .2rem 1.2rem; }
nav ul ul { display: inline-flex; gap: .2rem .8rem; margin-left: .6rem; font-size: .85rem; }
nav a { color: var(--accent); text-decoration: none; }
main { padding: 0 2rem 3rem; max-width: 1400px; }
section { margin-top: 1.6rem; }
h2 { font-size: 1.25rem; border-bottom: 1px solid var(--rule); padding-bottom: .2rem; }
h3 { font-size: 1.05rem; margin-top: 1.4rem; }
p.note { color: var(--muted); font-size: .9rem; }
figure { margin: 1rem 0 1.6rem; }
figure img { max-width: 100%; border: 1px solid var(--rule); }
figcaption { color: var(--muted); font-size: .88rem; margin-top: .3rem; max-width: 70rem; }
.figure-plot { width: 100%; position: relative; }
/* Whatever Vega draws (the static drawing at the widest container's width, a long legend, wide
   axis labels), it never overflows its container: a wider drawing is scaled down to fit. */
.figure-plot .vega-embed { display: block; width: 100%; }
.figure-plot svg { display: block; max-width: 100%; height: auto; }
.figure-view.pending { position: absolute; top: 0; left: 0; width: 100%; visibility: hidden; }
.figure-plot .figure-failed { color: #c33; font-size: .85rem; margin: .2rem 0; }
.warning { border-left: 3px solid #c77700; background: #fff7e6; padding: .4rem .8rem; margin: .8rem 0; }
.warning p, .warning ul { margin: .2rem 0; }
.table-wrap { overflow-x: auto; max-height: 34rem; overflow-y: auto; margin: .6rem 0 1rem; }
table { border-collapse: collapse; font-size: .85rem; font-variant-numeric: tabular-nums; }
th, td { padding: .25rem .6rem; border-bottom: 1px solid var(--rule); text-align: left;
         white-space: nowrap; }
th { background: var(--band); position: sticky; top: 0; }
td.num, th.num { text-align: right; }
td.text { white-space: normal; min-width: 24rem; }
tr.failed td { color: #a11; }
details { margin: .6rem 0; }
summary { cursor: pointer; color: var(--accent); }
pre { background: var(--band); padding: .8rem; overflow: auto; font-size: .8rem; max-height: 40rem; }
dl.facts { display: grid; grid-template-columns: repeat(var(--columns, 1), max-content minmax(6rem, max-content));
           gap: .2rem 1.2rem; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; }
.verdicts td.verdict { font-weight: 600; }
.verdict-good { color: #17723a; } .verdict-bad { color: #b3261e; } .verdict-mid { color: #9a6700; }
.markdown table { margin: .6rem 0 1rem; }
@media print {
  /* Every figure on paper: its drawing, static or interactive, is scaled to the page (the rule
     above), tables show all
     their rows and wrap their cells to the page's width (a wider one makes the browser shrink
     the whole printout), and a figure or a table row is not cut across two pages. */
  nav { display: none; }
  header { background: none; }
  main { max-width: none; padding: 0 .5rem; }
  .table-wrap { max-height: none; overflow: visible; }
  table { font-size: .72rem; max-width: 100%; }
  th, td { position: static; white-space: normal; padding: .15rem .35rem; }
  td.text { min-width: 0; }
  figure, tr { break-inside: avoid; }
  h2, h3 { break-after: avoid; }
}
"""

_DOCUMENT = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="ssdlab report">
<meta name="ssdlab-figures" content="{figure_count}">
<title>{title}</title>
<style>{css}</style>
</head>
<body{body_attributes}>
<header><h1>{title}</h1><p>{subtitle}</p></header>
{contents}
<main>
{body}
</main>
{data}
</body>
</html>
"""
