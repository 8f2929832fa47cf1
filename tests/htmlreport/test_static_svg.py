"""The static drawing of a figure (issue #45): Vega's SVG made smaller without changing what it
shows, its ids its own on a page of many drawings. (That it draws the same pixels as Vega's:
tests/browser.)"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from ssdlab.htmlreport import figures, page, static_svg

#: The shape of what `vl_convert.vega_to_svg` writes: Vega's scenegraph classes and roles, long
#: decimals, a clip path numbered by Vega's runtime, a step curve, grid lines, labels that are
#: numbers in the font every text repeats, and an unlabelled tick's empty text.
FONT = "system-ui, -apple-system, Segoe UI, Roboto, sans-serif"
VEGA_SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" version="1.1" '
    'class="marks" width="500" height="200" viewBox="0 0 500 200">'
    '<g class="mark-group role-frame root" role="graphics-object" aria-roledescription="group mark container">'
    '<g clip-path="url(#clip37)"><path class="background" aria-hidden="true" pointer-events="none" '
    'd="M90.98134,330L-0.04,327.25e-3L92.15,1e5" stroke="#636efa" opacity="1"/>'
    '<path d="M91,330L91,330L91,305.71L92.132,305.7L92.132,303.001L93.5,302" stroke="#ef553b"/>'
    '<path d="M0,0h578v330h-578Z"/></g>'
    '<line transform="translate(35,-330)" x2="0" y2="330" stroke="#ebf0f8"/>'
    f'<text transform="translate(34.79906749875621,16)" font-family="{FONT}" opacity="0.5">0.125 &amp; 2.55</text>'
    f'<text transform="translate(55.1,16)" font-family="{FONT}"/></g>'
    '<defs><clipPath id="clip37"><rect x="0" y="0" width="1268.75" height="160"/></clipPath></defs></svg>'
)


def test_coordinates_are_rounded_and_the_scenegraph_s_attributes_dropped():
    out = static_svg.simplified(VEGA_SVG, "figure-3-static")
    assert out.startswith('<svg xmlns="http://www.w3.org/2000/svg" class="figure-static" width="500"')
    root = ET.fromstring(out)
    assert root.get("viewBox") == "0 0 500 200", "the page scales it to its container by its viewBox"
    assert root.get("font-family") == FONT, "the font every text had, inherited from the root"
    paths = root.findall(".//{http://www.w3.org/2000/svg}path")
    assert [p.attrib for p in paths] == [
        {"d": "M91,330L0,0.3L92.2,1e5", "stroke": "#636efa"},
        {"d": "M91,330V330V305.7H92.1V303L93.5,302", "stroke": "#ef553b"},  # along an axis: H or V
        {"d": "M0,0h578v330h-578Z"},
    ]
    line = root.find(".//{http://www.w3.org/2000/svg}line")
    assert line.attrib == {"transform": "translate(35,-330)", "y2": "330", "stroke": "#ebf0f8"}
    texts = root.findall(".//{http://www.w3.org/2000/svg}text")
    assert [t.attrib for t in texts] == [{"transform": "translate(34.8,16)", "opacity": "0.5"}], (
        "the empty one gone"
    )
    assert texts[0].text == "0.125 & 2.55", "a label's numbers are the figure's, not coordinates"
    rect = root.find(".//{http://www.w3.org/2000/svg}rect")
    assert rect.get("width") == "1268.8"
    assert not [
        e
        for e in root.iter()
        if {"class", "role", "aria-hidden", "pointer-events"} & set(e.attrib) and e is not root
    ]
    # Renumbered from 1 under the page's prefix, the reference with it.
    assert root.find(".//{http://www.w3.org/2000/svg}clipPath").get("id") == "figure-3-static-1"
    assert 'clip-path="url(#figure-3-static-1)"' in out and "clip37" not in out


def test_a_figure_drawn_twice_gives_the_same_bytes_whatever_was_drawn_before():
    """Vega's runtime numbers clip paths across drawings: the page's ids do not depend on it."""
    spec = figures.figure(
        {
            "data": {"values": [{"x": 1, "y": 2}, {"x": 2, "y": 3}]},
            "mark": {"type": "line", "clip": True},
            "encoding": {
                "x": {"field": "x", "type": "quantitative"},
                "y": {"field": "y", "type": "quantitative"},
            },
        }
    )
    vega = page.compile_figure(spec)
    first = static_svg.draw(vega, "figure-1-static")
    assert static_svg.draw(vega, "figure-1-static") == first
    assert "<path" in first and 'id="figure-1-static-1"' in first
