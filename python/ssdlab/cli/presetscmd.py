"""`ssdlab presets`: the built-in device presets, workload patterns and bundled traces."""

from __future__ import annotations

import tomllib

import click

from ssdlab._console import fmt_bytes, new_table
from ssdlab.cli.common import console
from ssdlab.config import preset_toml, workload_patterns, workload_spec_toml, workload_specs
from ssdlab.config import presets as preset_names
from ssdlab.data import TRACES


@click.command()
@click.option("--show", metavar="NAME", default=None, help="Print one preset's TOML (with its source notes).")
def presets(show: str | None) -> None:
    """List device presets (with their source tables), workload patterns and bundled traces."""
    if show:
        console.print(preset_toml(show), markup=False, highlight=False)
        return
    # Geometry as bare numbers under one header, sources in a second table: one line per preset
    # in 80 columns, where a geometry string and a citation side by side would wrap.
    table = new_table("device presets")
    table.add_column("name", no_wrap=True)
    table.add_column("cell", no_wrap=True)
    table.add_column("page", justify="right", no_wrap=True)
    table.add_column("raw", justify="right", no_wrap=True)
    table.add_column("ch x chip x die x plane x block x page", overflow="fold")
    sources = new_table("preset sources", show_header=False)
    sources.add_column("name", no_wrap=True)
    sources.add_column("source", overflow="fold")
    for name in preset_names():
        d = tomllib.loads(preset_toml(name))["device"]
        shape = [
            d["channels"],
            d["chips_per_channel"],
            d.get("dies_per_chip", 1),
            d.get("planes_per_die", 1),
            d["blocks_per_plane"],
            d["pages_per_block"],
        ]
        raw_bytes = d["page_bytes"]
        for n in shape:
            raw_bytes *= n
        table.add_row(
            name,
            d["cell"].upper(),
            f"{d['page_bytes'] // 1024} KiB",
            fmt_bytes(raw_bytes),
            " x ".join(str(n) for n in shape),
        )
        sources.add_row(name, d.get("source", ""))
    console.print(table)
    console.print(sources)
    console.print("workload patterns: " + ", ".join(workload_patterns()), highlight=False)
    specs = new_table("workload specs (--workload NAME; the papers' traces from their statistics)")
    specs.add_column("name", no_wrap=True)
    specs.add_column("source", overflow="fold")
    for name in workload_specs():
        specs.add_row(name, tomllib.loads(workload_spec_toml(name)).get("source", ""))
    console.print(specs)
    traces = new_table("bundled real traces (--trace NAME; provenance in ssdlab/data/traces/README.md)")
    traces.add_column("name", no_wrap=True)
    traces.add_column("origin", overflow="fold")
    for t in TRACES.values():
        traces.add_row(t.name, t.origin)
    console.print(traces)
