"""Generates docs/config.schema.json, docs/config.md, docs/cli.md and
docs/workload-spec.schema.json from the code, so they cannot drift: `python -m ssdlab._docgen`
writes them and `python -m ssdlab._docgen --check` (run by the tests) fails when any is stale.

The configuration reference is rendered from the JSON Schema the core derives from its config
types (`ssdlab.config.schema_json()`): every key with its type, unit, default, allowed values, doc
comment and the paper sections the doc comment cites. A new config type needs only
`#[derive(JsonSchema)]` and doc comments to appear here.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import click

from ssdlab import config

DOCS = Path(__file__).resolve().parents[2] / "docs"

Schema = dict[str, Any]

# Units by key-name suffix, most specific first (STYLE.md: units go in the names).
_UNIT_SUFFIXES = [
    ("_bytes_per_s", "bytes/s"),
    ("_ns", "ns"),
    ("_us", "µs"),
    ("_bytes", "bytes"),
    ("_pages", "pages"),
    ("_blocks", "blocks"),
    ("_copies_per_step", "pages"),
    ("_copies", "pages"),
    ("_iops", "requests/s"),
    ("_fraction", "fraction"),
    ("_percentiles", "%"),
    ("_decisions", "decisions"),
    ("_lines", "lines"),
]
# Units a doc comment states in words, when the name has no suffix.
_UNIT_WORDS = [
    (re.compile(r"^(The )?[Ff]raction\b"), "fraction"),
    (re.compile(r"^(The )?[Pp]ercentage\b"), "%"),
    (re.compile(r"\bin requests per second\b"), "requests/s"),
    (re.compile(r"\bprobability\b"), "probability"),
]
# "Sec. 5.2", "Table 3", "Tables 11-12", "Fig. 6", "Eq. 2", "footnote 3", optionally after the
# paper's short name ("RLGC Sec. 5.2").
_CITATION = re.compile(
    r"(?:\b(?P<paper>[A-Z][A-Za-z'-]*[A-Z0-9])\s+)?"
    r"(?P<where>(?:Sec\.|Section|Tables?|Figs?\.|Figure|Eqs?\.|[Ff]ootnote|Algorithm)\s+\d+(?:\.\d+)*(?:-\d+)?)"
)


class _Reference:
    """The config schema, walked into Markdown."""

    def __init__(self, root: Schema) -> None:
        self.root = root
        self.out: list[str] = []

    def resolve(self, schema: Schema) -> Schema:
        """Follow `$ref` and one-element `allOf` wrappers to the schema that says the type."""
        for _ in range(32):
            if "$ref" in schema:
                target: Any = self.root
                for part in schema["$ref"].lstrip("#/").split("/"):
                    target = target[part]
                schema = target
            elif len(schema.get("allOf", [])) == 1:
                schema = schema["allOf"][0]
            else:
                break
        return schema

    def is_table(self, schema: Schema) -> bool:
        return "properties" in self.resolve(schema)

    def description(self, schema: Schema) -> str:
        text = schema.get("description") or self.resolve(schema).get("description") or ""
        return _prose(text)

    # --- one key ------------------------------------------------------------------------------

    def type_text(self, schema: Schema, plural: bool = False) -> str:
        schema = self.resolve(schema)
        if _variants(schema):
            return "strings" if plural else "string (see values)"
        options = schema.get("anyOf") or schema.get("oneOf")
        if options:
            return " or ".join(self.type_text(o, plural) for o in options)
        kind = schema.get("type")
        if kind == "integer":
            width = {"uint32": "u32", "uint64": "u64", "uint": "usize", "int32": "i32", "int64": "i64"}
            name = "integers" if plural else "integer"
            if schema.get("minimum") == 0:
                name += " ≥ 0"
            fmt = width.get(schema.get("format", ""))
            return f"{name} ({fmt})" if fmt else name
        if kind == "number":
            return "floats" if plural else "float"
        if kind == "boolean":
            return "booleans" if plural else "boolean"
        if kind == "string":
            examples = ", ".join(f"`{json.dumps(e)}`" for e in schema.get("examples", []))
            name = "strings" if plural else "string"
            return f"{name} (e.g. {examples})" if examples else name
        if kind == "array":
            return "array of " + self.type_text(schema.get("items", {}), plural=True)
        return "value"

    def unit(self, key: str, schema: Schema, description: str) -> str:
        name = "_" + key.rsplit(".", 1)[-1]
        for suffix, unit in _UNIT_SUFFIXES:
            if name.endswith(suffix):
                return unit
        refs = [schema.get("$ref", "")] + [s.get("$ref", "") for s in schema.get("allOf", [])]
        if "#/definitions/ByteSize" in refs:
            return "bytes"
        for pattern, unit in _UNIT_WORDS:
            if pattern.search(description):
                return unit
        return ""

    def default_text(self, schema: Schema, required: bool) -> str:
        if required:
            return "**required**"
        default = schema.get("default", self.resolve(schema).get("default"))
        if default is None:
            return "unset"
        return f"`{json.dumps(default, separators=(', ', ': '), ensure_ascii=False)}`"

    # --- one table ----------------------------------------------------------------------------

    def table(self, path: str, schema: Schema, required: bool) -> None:
        resolved = self.resolve(schema)
        properties: dict[str, Schema] = resolved.get("properties", {})
        required_keys = set(resolved.get("required", []))
        leaves = {k: v for k, v in properties.items() if not self.is_table(v)}
        tables = {k: v for k, v in properties.items() if self.is_table(v)}

        title = f"`[{path}]`" if path else "Top-level keys"
        self.out += [f'<a id="{path or "top"}"></a>', "", f"## {title}", ""]
        doc = _prose(resolved.get("description") or schema.get("description") or "")
        doc = re.sub(r"^`\[[^\]]+\]`:\s*", "", doc)
        if doc:
            self.out += [doc[0].upper() + doc[1:], ""]
        if path and required:
            self.out += ["This table is required (a device preset gives it).", ""]
        elif path and required_keys:
            self.out += ["This table is optional; when given, its required keys must be set.", ""]
        if leaves:
            self.out += ["| key | type | unit | default | description | paper |", "|---|---|---|---|---|---|"]
            enums: list[tuple[str, Schema]] = []
            for key, prop in leaves.items():
                dotted = f"{path}.{key}" if path else key
                description = self.description(prop)
                cells = [
                    f"`{dotted}`",
                    self.type_text(prop),
                    self.unit(dotted, prop, description),
                    self.default_text(prop, key in required_keys),
                    description,
                    _citations(description),
                ]
                self.out.append("| " + " | ".join(_cell(c) for c in cells) + " |")
                if _variants(self.resolve(prop)):
                    enums.append((dotted, prop))
            self.out.append("")
            for dotted, prop in enums:
                self.values(dotted, prop)
        for key, prop in tables.items():
            self.table(f"{path}.{key}" if path else key, prop, key in required_keys)

    def values(self, dotted: str, schema: Schema) -> None:
        resolved = self.resolve(schema)
        default = schema.get("default", resolved.get("default"))
        self.out += [f"Values of `{dotted}`:", ""]
        for values, description in _variants(resolved):
            aliases = "".join(f" (or `{json.dumps(alias)}`)" for alias in values[1:])
            mark = " (default)" if default in values else ""
            text = f": {_prose(description)}" if description else ""
            self.out.append(f"- `{json.dumps(values[0])}`{aliases}{mark}{text}")
        self.out.append("")


def _prose(text: str) -> str:
    """A doc comment as one Markdown paragraph (paragraph breaks kept as `<br>`)."""
    paragraphs = [" ".join(p.split()) for p in text.split("\n\n")]
    return "<br>".join(p for p in paragraphs if p)


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _variants(schema: Schema) -> list[tuple[list[Any], str]]:
    """(values, description) of each value of an enum schema, a value's serde aliases with it;
    [] if it is not an enum."""
    if "oneOf" not in schema and "enum" in schema:
        # A plain list of ids (a policy registry's, injected by the core's catalog): each is its
        # own value; the schema's description is the key's, not the values'.
        return [([value], "") for value in schema["enum"]]
    options = schema.get("oneOf", [])
    found: list[tuple[list[Any], str]] = []
    for option in options:
        if "enum" not in option:
            return []
        if "description" in option:
            found.append((list(option["enum"]), option["description"]))
        else:
            found += [([value], "") for value in option["enum"]]
    return found


def _citations(description: str) -> str:
    seen: list[str] = []
    for match in _CITATION.finditer(description):
        paper = match.group("paper")
        where = match.group("where")
        cite = f"{paper} {where}" if paper and paper.isupper() else where
        if cite not in seen:
            seen.append(cite)
    return ", ".join(seen)


def config_schema_json() -> str:
    return config.schema_json() + "\n"


def config_md(schema: Schema) -> str:
    presets = ", ".join(f"`{p}`" for p in config.presets())
    patterns = ", ".join(f"`{w}`" for w in config.workload_patterns())
    reference = _Reference(schema)
    reference.table("", schema, required=True)
    tables = [line for line in reference.out if line.startswith("## `[")]
    contents = "\n".join(f"- [{t[3:]}](#{t[5:-2]})" for t in tables)
    body = "\n".join(reference.out).rstrip()
    return f"""# Configuration reference

<!-- generated by `python -m ssdlab._docgen` from the config types; do not edit by hand -->

A run's configuration is TOML, merged in order, each layer over the ones before: a device preset
(`--preset`), a built-in workload pattern or spec (`--workload NAME`) or a trace (`--trace`; both
together only with `--trace-with-workload`), config files (`--config`, and `--workload FILE`),
and `--set key=value` overrides (values are TOML: `7`, `0.85`, `true`, `[1, 2]`; a bare word is a
string). Each key a later layer changes is printed once on stderr (`note: workload.count: 200000
(from workload:randwrite:6) -> 30000 (from my.toml:2)`). Every problem of a configuration is
reported at once, each as `key: reason` with where the value was written: unknown keys (with the
keys they may have meant), values of the wrong type (`gc.trigger_free_blocks: expected a
non-negative integer (u32), got -3 (from my.toml:4)`), missing required keys, NaN or infinite
numbers, and values out of range; what follows from another problem (the spare blocks of a device
of 0 channels) is left out.

Device presets: {presets}. Workload patterns: {patterns}.
`ssdlab presets --show NAME` prints a preset with the notes citing its source table, and
`ssdlab config show` the resolved configuration, every key with its value and where it came
from.

**Reading this page.** Each table below lists its keys with their type, unit, default and
meaning. Units are in the key names (`_ns` nanoseconds, `_bytes` bytes, `_pages` pages, `_blocks`
blocks); sizes such as `workload.bs` also accept fio-style strings (`"4k"`, `"128KiB"`, `"1m"`).
A default is what a key is when no layer sets it (presets set most device keys); "unset" keys are
optional and mean what their description says when absent. The paper column lists the sections
of the source paper the description cites; the table's description names the paper. Policies
are described in [policies/](policies/), trace reader options in [traces.md](traces.md).

**Editor validation.** [config.schema.json](config.schema.json) is the JSON Schema (draft 07) of a
config file, generated from the same types (`ssdlab config schema` prints it). With Taplo or the
Even Better TOML extension, a first line `#:schema ../docs/config.schema.json` (a path relative to
the TOML file, here one in `configs/`, or a URL) gives completion, hover docs and validation while
editing.

{contents}

{body}
"""


def cli_md() -> str:
    from ssdlab.cli import cli

    out = [
        "# Command-line reference",
        "",
        "<!-- generated by `python -m ssdlab._docgen`; do not edit by hand -->",
        "",
    ]

    def walk(cmd: click.Command, path: list[str]) -> None:
        ctx = click.Context(
            cmd,
            info_name=" ".join(path),
            terminal_width=100,
            max_content_width=100,
            help_option_names=["-h", "--help"],
        )
        out.extend([f"## `{' '.join(path)}`", "", "```text", cmd.get_help(ctx).rstrip(), "```", ""])
        if isinstance(cmd, click.Group):
            for name in sorted(cmd.commands):
                walk(cmd.commands[name], [*path, name])

    walk(cli, ["ssdlab"])
    return "\n".join(out)


def generate() -> dict[str, str]:
    """Every generated file's name (under docs/) and text."""
    # Help text wraps at the terminal width; pin it so the output never depends on where it runs.
    saved = click.formatting.FORCED_WIDTH
    click.formatting.FORCED_WIDTH = 100
    try:
        schema_text = config_schema_json()
        return {
            "config.schema.json": schema_text,
            "config.md": config_md(json.loads(schema_text)),
            "cli.md": cli_md(),
            "workload-spec.schema.json": config.workload_spec_schema_json() + "\n",
        }
    finally:
        click.formatting.FORCED_WIDTH = saved


def main(argv: list[str]) -> int:
    docs = generate()
    stale = [
        name
        for name, text in docs.items()
        if not (DOCS / name).is_file() or (DOCS / name).read_text() != text
    ]
    if "--check" in argv:
        for name in stale:
            print(f"docs/{name} is stale: run `python -m ssdlab._docgen`", file=sys.stderr)
        return 1 if stale else 0
    for name, text in docs.items():
        (DOCS / name).write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
