"""Layer: Python, HTML report. One job: assemble sections of text, tables, images and plotly
figures into one self-contained HTML file that opens with no network.

Why the plotting library is embedded gzipped: plotly.js is 4.8 MB, which alone would take a
5 MB report budget (issue #32: a 100-run sweep's report stays under 5 MB). Gzipped and base64
encoded it is 2.0 MB; the page inflates it with the browser's own `DecompressionStream` (Chrome
and Edge 80, Firefox 113, Safari 16.4 and later) and evaluates it once, then draws every
figure from its JSON, one at a time in page order, those in view first (so that a link of the
contents shows its figures next), letting the page scroll between two. A browser without
`DecompressionStream` shows a message in place of each figure; the tables do not need
JavaScript and show as soon as the page is parsed (plotly.js inline would hold them back until
it had run: 3 s on a busy 2-core machine).

Each figure's JSON is stored without plotly's template (10 kB of styling a figure would
otherwise repeat); the page applies one shared template to all. The page declares how many
figures it holds (`<meta name="ssdlab-figures">`) and, once all are drawn, sets
`data-figures-rendered` on `<body>` (or `data-render-error` if drawing failed), which is what
the browser test checks.
"""

from __future__ import annotations

import base64
import functools
import gzip
import html
import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import plotly.graph_objects as go

#: The plotly template every figure is drawn with.
TEMPLATE = "plotly_white"


def escape(text: object) -> str:
    return html.escape(str(text), quote=True)


@functools.cache
def _plotly_js_gzip_base64() -> str:
    """plotly.js, gzipped (mtime 0: the same input gives the same bytes) and base64 encoded."""
    from plotly.offline import get_plotlyjs

    return base64.b64encode(gzip.compress(get_plotlyjs().encode(), compresslevel=9, mtime=0)).decode()


def _script_json(value: str) -> str:
    """JSON text made safe inside a <script> element (no `</script>` can close it early)."""
    return value.replace("</", "<\\/")


@dataclass
class Figure:
    """A plotly figure placed on the page: its id, its JSON (without template) and caption."""

    id: str
    spec: str
    caption: str
    height: int


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

    def figure(self, fig: go.Figure, caption: str) -> None:
        """Place a plotly figure, drawn in the browser from its JSON."""
        figure = self.page.add_figure(fig, caption)
        self.parts.append(
            f'<figure><div class="figure-plot" id="{figure.id}" style="height:{figure.height}px"></div>'
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

    def add_figure(self, fig: go.Figure, caption: str) -> Figure:
        import plotly.io as pio

        spec = json.loads(pio.to_json(fig, validate=False))
        spec.get("layout", {}).pop("template", None)
        height = int(spec.get("layout", {}).get("height") or 420)
        figure = Figure(
            f"figure-{len(self.figures) + 1}", json.dumps(spec, separators=(",", ":")), caption, height
        )
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
        import plotly.io as pio

        template = json.dumps(pio.templates[TEMPLATE].to_plotly_json(), separators=(",", ":"))
        specs = "\n".join(
            f'<script type="application/json" class="ssdlab-figure" data-target="{f.id}">'
            f"{_script_json(f.spec)}</script>"
            for f in self.figures
        )
        return (
            f'<script type="application/octet-stream" id="plotly-js-gzip">{_plotly_js_gzip_base64()}</script>\n'
            f'<script type="application/json" id="ssdlab-template">{_script_json(template)}</script>\n'
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


_DRAW_JS = """
(async function () {
  const body = document.body;
  // Figures are drawn one at a time, in page order, except that those scrolled into view (or
  // reached by a link of the contents) go first; the page scrolls between two figures.
  const queue = [...document.querySelectorAll("script.ssdlab-figure")];
  // Which figure goes next is decided when it is drawn, from where the page is then (a link of
  // the contents, or the reader's scrolling): the first one in or near the view, else the first
  // in page order. (An IntersectionObserver's events raced plotly's loading on a busy machine.)
  const nearView = script => {
    const box = document.getElementById(script.dataset.target).getBoundingClientRect();
    return box.bottom > -200 && box.top < window.innerHeight + 200;
  };
  const total = queue.length;
  try {
    if (typeof DecompressionStream === "undefined") {
      throw new Error("this browser cannot inflate the embedded plotting library " +
        "(it needs DecompressionStream: Chrome or Edge 80, Firefox 113, Safari 16.4 or later)");
    }
    const packed = atob(document.getElementById("plotly-js-gzip").textContent.trim());
    const bytes = new Uint8Array(packed.length);
    for (let i = 0; i < packed.length; i++) bytes[i] = packed.charCodeAt(i);
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    (0, eval)(await new Response(stream).text());
    performance.mark("ssdlab-plotly-loaded");
    const template = JSON.parse(document.getElementById("ssdlab-template").textContent);
    while (queue.length) {
      const next = queue.splice(Math.max(0, queue.findIndex(nearView)), 1)[0];
      const fig = JSON.parse(next.textContent);
      fig.layout = Object.assign(fig.layout || {}, {template: template});
      await Plotly.newPlot(next.dataset.target, fig.data, fig.layout,
                           {responsive: true, displaylogo: false});
      performance.mark("ssdlab-drawn " + next.dataset.target);
      if (queue.length === total - 1) performance.mark("ssdlab-first-figure-drawn");
      await new Promise(resolve => setTimeout(resolve, 0));
    }
    performance.mark("ssdlab-figures-drawn");
    body.dataset.figuresRendered = String(total);
  } catch (err) {
    body.dataset.renderError = String(err);
    for (const plot of document.querySelectorAll(".figure-plot:not(.js-plotly-plot)")) {
      plot.classList.add("failed");
      plot.textContent = "figure not drawn: " + err.message;
    }
    console.error("ssdlab report: figures not drawn: " + err);
  }
})();
"""

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
.figure-plot { width: 100%; }
.figure-plot.failed { display: flex; align-items: center; justify-content: center;
                      border: 1px dashed #c33; color: #c33; }
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
