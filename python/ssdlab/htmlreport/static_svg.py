"""Layer: Python, HTML report. One job: draw a compiled Vega figure once, when the page is
written, as a compact SVG that the page holds inline in the figure's container (issue #45).

The page is then complete as it is parsed, with no JavaScript at all: a headless capture at
`load` (`chromium --headless --screenshot` or `--print-to-pdf` alone), a converter or viewer that
runs no script, and a printout all show every figure. The interactive drawing replaces it once
the browser has drawn it (`page`).

Vega draws it (`vl_convert.vega_to_svg`, the same Vega the page's bundle holds, in the runtime
`vl_convert` ships; 0.15-0.5 s a figure on a shared 2-core machine), then the SVG is made smaller
without changing its picture (a browser test compares the pixels): coordinates rounded to 0.1 px
(at the 1336 px the figures are drawn at, a tenth of a pixel is below what a screen or a
printout shows), a line's segments along an axis written `H x` or `V y` (a step curve is little
else), the font every text repeats set once on the root, empty texts (unlabelled ticks) and
line ends at 0 (the default) left out, and the attributes that only Vega's scenegraph and the
interactive view use (`class`, `role`, `aria-*`, `pointer-events`, `opacity="1"`) dropped. The
100-run sweep's ten figures take 0.41 MB instead of 0.90 MB. Scour, the SVG optimiser of Python
(unreleased since 2020), made them 0.40 MB in 1.9 s against these rewrites' 0.4 s: not worth a
dependency.
"""

from __future__ import annotations

import itertools
import re
import xml.etree.ElementTree as ET
from typing import Any

#: The SVG namespace, which ElementTree writes into every tag name.
_SVG_NAMESPACE = "{http://www.w3.org/2000/svg}"

#: Attributes holding coordinates or lengths, whose decimals are rounded.
_GEOMETRY = frozenset(
    {"d", "transform", "x", "y", "x1", "y1", "x2", "y2", "width", "height", "r", "cx", "cy", "points"}
)

#: Attributes of Vega's scenegraph and of the interactive view's accessibility tree, which a
#: still picture does not use (the page's `CONFIG` already hides every mark from screen readers).
_DROPPED = frozenset({"class", "role", "pointer-events"})

#: A number with decimals (and maybe an exponent) inside a geometry attribute.
_DECIMAL = re.compile(r"-?\d+\.\d+(?:[eE]-?\d+)?")

#: A reference to an element of the drawing by its id (Vega's clip paths: `url(#clip1)`).
_REFERENCE = re.compile(r"url\(#([^)]+)\)")

#: A polyline's path, as Vega writes a line mark: absolute moves and lines only.
_POLYLINE = re.compile(r"M[-\d.e]+,[-\d.e]+(?:L[-\d.e]+,[-\d.e]+)+")

#: A line's end points, which default to 0 (not inherited: dropping them changes nothing).
_LINE_ENDS = ("x1", "y1", "x2", "y2")


def _polyline(d: str) -> str:
    """A polyline's path (rounded already) with each segment along an axis written `H x` or
    `V y` instead of `L x,y`: a step curve (the latency CDFs, a series over time) is almost
    nothing else, and its path shrinks by about a third."""
    points = [p.split(",") for p in d[1:].split("L")]
    out = [f"M{points[0][0]},{points[0][1]}"]
    for (x0, y0), (x, y) in itertools.pairwise(points):
        out.append(f"V{y}" if x == x0 else f"H{x}" if y == y0 else f"L{x},{y}")
    return "".join(out)


#: The class the page gives its static drawing (`page` styles and replaces it by it).
STATIC_CLASS = "figure-static"


def _rounded(match: re.Match[str]) -> str:
    text = f"{round(float(match.group()), 1):.1f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def simplified(svg: str, id_prefix: str) -> str:
    """Vega's SVG with its coordinates rounded to 0.1 px and its scenegraph's attributes
    dropped; the root element gets `STATIC_CLASS` and keeps its size and `viewBox`, so the page
    can scale it to its container. Its ids are renamed `{id_prefix}-1`, `-2`, ... in document
    order, and the references to them with them: an id is looked up in the whole HTML
    document, and Vega numbers its clip paths with a counter of its runtime (`clip37` after 36
    drawn before in the same process, `clip1` for the page's own Vega's first), so the drawings
    of one page would clip each other's marks, and the same figure would not give the same
    bytes."""
    root = ET.fromstring(svg)
    ids = {e.attrib["id"]: f"{id_prefix}-{n}" for n, e in enumerate(root.iterfind(".//*[@id]"), start=1)}
    for parent in root.iter():
        # A text without characters draws nothing (Vega writes one per unlabelled log-axis tick).
        for child in [c for c in parent if c.tag == f"{_SVG_NAMESPACE}text" and not (c.text or "").strip()]:
            parent.remove(child)
    fonts = {e.attrib["font-family"] for e in root.iter() if "font-family" in e.attrib}
    for element in root.iter():
        element.tag = element.tag.removeprefix(_SVG_NAMESPACE)
        for name in list(element.attrib):
            value = element.attrib[name]
            if name in _DROPPED or name.startswith("aria-") or (name == "opacity" and value == "1"):
                del element.attrib[name]
            elif name == "font-family" and len(fonts) == 1:
                del element.attrib[name]  # set once on the root, which every text inherits it from
            elif element.tag == "line" and name in _LINE_ENDS and value == "0":
                del element.attrib[name]
            elif name in _GEOMETRY:
                value = _DECIMAL.sub(_rounded, value)
                element.attrib[name] = (
                    _polyline(value) if name == "d" and _POLYLINE.fullmatch(value) else value
                )
            elif name == "id":
                element.attrib[name] = ids[value]
            elif "url(#" in value:
                element.attrib[name] = _REFERENCE.sub(lambda m: f"url(#{ids[m.group(1)]})", value)
    root.attrib.pop("version", None)
    inherited = {"font-family": fonts.pop()} if len(fonts) == 1 else {}
    root.attrib = {"xmlns": _SVG_NAMESPACE[1:-1], "class": STATIC_CLASS, **root.attrib, **inherited}
    return ET.tostring(root, encoding="unicode")


def draw(vega: dict[str, Any], id_prefix: str) -> str:
    """A compiled Vega figure drawn as a simplified SVG (`simplified`), its ids starting with
    `id_prefix`. Nothing is fetched: the figures' data is inline."""
    import vl_convert

    try:
        svg = vl_convert.vega_to_svg(vega, allowed_base_urls=[])
    except ValueError as e:  # a figure builder's bug, not the user's input
        raise RuntimeError(f"the report's figure does not draw: {e}") from e
    return simplified(svg, id_prefix)
