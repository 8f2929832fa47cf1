"""Layer: Python, HTML report. One job: HTML tables, from DataFrames of results and from the
markdown tables a reproduction writes (tables.md), with numbers formatted as the CLI prints
them (durations with their unit, counts with thousands separators, a dash for a missing figure).
Every cell is escaped."""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from ssdlab._console import MISSING, fmt_duration_us
from ssdlab.htmlreport.page import escape

if TYPE_CHECKING:
    import pandas as pd

Formatter = Callable[[Any], str]


def is_missing(value: Any) -> bool:
    if value is None:
        return True
    try:
        return isinstance(value, numbers.Real) and math.isnan(float(value))
    except (TypeError, ValueError):
        return False


def format_value(column: str, value: Any) -> str:
    """A cell as text, by what the column holds: `_us` and `_s` columns are durations, `waf` three
    decimals, whole numbers and numbers from 1,000 on with separators, other numbers four
    significant figures."""
    if is_missing(value):
        return MISSING
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, numbers.Real):
        if column.endswith("_us") or column.endswith("_us_sd"):
            return fmt_duration_us(float(value))
        if column.endswith("_s") and not column.endswith("_per_s"):  # `mb_per_s` is a rate
            return fmt_duration_us(float(value) * 1e6)
        if column.startswith("waf"):
            return f"{float(value):.3f}"
        if float(value).is_integer() and abs(float(value)) < 1e15:
            return f"{int(value):,}"
        if abs(float(value)) >= 1000:
            return f"{float(value):,.0f}"
        return f"{float(value):.4g}"
    return str(value)


def duration(value_us: Any) -> str:
    """A duration in microseconds, with its unit (`81.2 us`, `2.01 ms`)."""
    return MISSING if is_missing(value_us) else fmt_duration_us(float(value_us))


def frame_table(
    frame: pd.DataFrame,
    formats: Mapping[str, Formatter] | None = None,
    headers: Mapping[str, str] | None = None,
    row_class: Callable[[Mapping[str, Any]], str] | None = None,
    table_class: str = "",
    numeric: set[str] | None = None,
    cell_class: Callable[[str, Any], str] | None = None,
) -> str:
    """A DataFrame (its columns, not its index) as an HTML table in a scrolling frame. Number
    columns (and those named in `numeric`, numbers already formatted) are right-aligned;
    `formats` overrides the formatting of a column, `headers` its title, and `row_class` gives a
    row a CSS class (failed sweep cells) and `cell_class(column, value)` a cell (verdicts)."""
    import pandas as pd

    formats = formats or {}
    headers = headers or {}
    numeric = set(numeric or ()) | {
        c for c in frame.columns if pd.api.types.is_numeric_dtype(frame[c]) and frame[c].dtype != bool
    }
    head = "".join(
        f'<th class="num">{escape(headers.get(c, c))}</th>'
        if c in numeric
        else f"<th>{escape(headers.get(c, c))}</th>"
        for c in frame.columns
    )
    rows = []
    for record in frame.to_dict(orient="records"):
        cells = []
        for c in frame.columns:
            text = formats[c](record[c]) if c in formats else format_value(str(c), record[c])
            classes = " ".join(
                x
                for x in ("num" if c in numeric else "", cell_class(str(c), record[c]) if cell_class else "")
                if x
            )
            cls = f' class="{escape(classes)}"' if classes else ""
            cells.append(f"<td{cls}>{escape(text)}</td>")
        cls = row_class(record) if row_class else ""
        rows.append(
            f'<tr class="{cls}">' + "".join(cells) + "</tr>" if cls else "<tr>" + "".join(cells) + "</tr>"
        )
    cls = f' class="{table_class}"' if table_class else ""
    return f'<div class="table-wrap"><table{cls}><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table></div>'


def facts(items: Mapping[str, Any], columns: int = 1) -> str:
    """A list of `name: value` facts (provenance, a run's headline figures), laid out in
    `columns` side by side."""
    rows = "".join(f"<dt>{escape(k)}</dt><dd>{escape(v)}</dd>" for k, v in items.items())
    return f'<dl class="facts" style="--columns:{columns}">{rows}</dl>'


#: Rates whose names `readable` would misread (`_s` is not seconds there).
RATE_TITLES = {"iops": "IOPS", "mb_per_s": "MB/s"}


def readable(name: str) -> str:
    """A figure's column name as a title: `write_p99_99_us` -> `write p99.99`, `mb_per_s` ->
    `MB/s`, `iops` -> `IOPS`."""
    if name in RATE_TITLES:
        return RATE_TITLES[name]
    text = name.removesuffix("_us").removesuffix("_s")
    text = re.sub(r"p(\d+)_(\d+)", r"p\1.\2", text)
    return text.replace("_", " ").replace("waf", "WAF").replace("gc ", "GC ")


def markdown(text: str) -> str:
    """Markdown (headings, paragraphs, pipe tables) as HTML; raw HTML in the text is escaped,
    not passed through. Tables get the page's scrolling frame."""
    from markdown_it import MarkdownIt

    rendered = MarkdownIt("commonmark", {"html": False}).enable("table").render(text)
    rendered = rendered.replace("<table>", '<div class="table-wrap"><table>').replace(
        "</table>", "</table></div>"
    )
    return f'<div class="markdown">{rendered}</div>'
