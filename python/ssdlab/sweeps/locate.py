"""Layer: Python, sweeps. One job: find the line of a key in a TOML text, so that a grid file's
problems can name their line. `tomllib` parses without positions, and the grid's structure is
shallow (top-level keys, `[tables]`, `[[arrays of tables]]`), so a line scanner that knows where
multi-line values and strings start and end is enough, and spares a dependency.

A key is addressed by its table (`""` for the top level, `"axes"`, or `"exclude#2"` for the
second `[[exclude]]`) and its dotted name, quoted or bare alike (`"gc.scheduler"` and
`gc.scheduler` are the same name here).
"""

from __future__ import annotations

import re

_BARE = r"[A-Za-z0-9_-]+"
_PART = rf"(?:{_BARE}|\"(?:[^\"\\]|\\.)*\"|'[^']*')"
_KEY = re.compile(rf"^\s*({_PART}(?:\s*\.\s*{_PART})*)\s*=")
_ARRAY_TABLE = re.compile(rf"^\s*\[\[\s*({_PART}(?:\s*\.\s*{_PART})*)\s*\]\]\s*(?:#.*)?$")
_TABLE = re.compile(rf"^\s*\[\s*({_PART}(?:\s*\.\s*{_PART})*)\s*\]\s*(?:#.*)?$")


def _dotted(key: str) -> str:
    """`gc . "scheduler"` -> `gc.scheduler`; a quoted part keeps its dots."""
    parts = re.findall(_PART, key)
    return ".".join(p[1:-1] if p[0] in "\"'" else p for p in parts)


def _brackets(line: str, in_string: str) -> tuple[int, str]:
    """The change of bracket depth over `line` (outside strings and comments), and the
    multi-line string (`\"\"\"` or `'''`) still open at its end, if any."""
    depth, i, quote = 0, 0, in_string
    while i < len(line):
        if quote:
            if line.startswith(quote, i):
                i += len(quote)
                quote = ""
                continue
            i += 2 if quote == '"' and line[i] == "\\" else 1
            continue
        ch = line[i]
        if ch == "#":
            break
        for opener in ('"""', "'''", '"', "'"):
            if line.startswith(opener, i):
                quote = opener
                i += len(opener)
                break
        else:
            depth += ch in "[{"
            depth -= ch in "]}"
            i += 1
    # A single-quoted string never spans lines (TOML): only triple quotes stay open.
    return depth, quote if len(quote) == 3 else ""


def key_lines(text: str) -> dict[tuple[str, str], int]:
    """Every key of `text` with its 1-based line: {(table, dotted key): line}. Tables are
    listed too, under the key `""` (`("axes", "")` is the line of `[axes]`)."""
    lines: dict[tuple[str, str], int] = {}
    table = ""
    counts: dict[str, int] = {}
    depth, in_string = 0, ""
    for number, line in enumerate(text.splitlines(), start=1):
        if depth == 0 and not in_string:
            header = _ARRAY_TABLE.match(line)
            if header:
                name = _dotted(header.group(1))
                counts[name] = counts.get(name, 0) + 1
                table = f"{name}#{counts[name]}"
                lines.setdefault((table, ""), number)
                continue
            header = _TABLE.match(line)
            if header:
                table = _dotted(header.group(1))
                lines.setdefault((table, ""), number)
                continue
            key = _KEY.match(line)
            if key:
                lines.setdefault((table, _dotted(key.group(1))), number)
        change, in_string = _brackets(line, in_string)
        depth = max(0, depth + change)
    return lines


def line_of(lines: dict[tuple[str, str], int], table: str, key: str = "") -> int | None:
    """The line of `key` in `table`, else of the key's first dotted part (a key written as a
    nested table, `[axes.gc]`), else of the table's header, else None."""
    if (table, key) in lines:
        return lines[(table, key)]
    parts = key.split(".")
    for n in range(len(parts) - 1, 0, -1):
        prefix = ".".join(parts[:n])
        rest = ".".join(parts[n:])
        nested = f"{table}.{prefix}" if table else prefix
        if (nested, rest) in lines:
            return lines[(nested, rest)]
        if (table, prefix) in lines:
            return lines[(table, prefix)]
    return lines.get((table, ""))
