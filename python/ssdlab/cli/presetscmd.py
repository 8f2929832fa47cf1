"""`ssdlab presets`: the built-in device presets and workload patterns."""

from __future__ import annotations

import tomllib

import click
from rich.table import Table

from ssdlab.cli.common import console
from ssdlab.config import preset_toml, workload_patterns
from ssdlab.config import presets as preset_names


@click.command()
@click.option("--show", metavar="NAME", default=None, help="Print one preset's TOML (with its source notes).")
def presets(show: str | None) -> None:
    """List device presets (with their source tables) and workload patterns."""
    if show:
        console.print(preset_toml(show), markup=False, highlight=False)
        return
    table = Table(title="device presets")
    for col in ("name", "geometry", "cell", "capacity", "source"):
        table.add_column(col)
    for name in preset_names():
        d = tomllib.loads(preset_toml(name))["device"]
        planes = (
            d["channels"] * d["chips_per_channel"] * d.get("dies_per_chip", 1) * d.get("planes_per_die", 1)
        )
        raw = planes * d["blocks_per_plane"] * d["pages_per_block"] * d["page_bytes"]
        geometry = (
            f"{d['channels']}ch x {d['chips_per_channel']}chip x {d.get('dies_per_chip', 1)}die x "
            f"{d.get('planes_per_die', 1)}pl x {d['blocks_per_plane']}blk x {d['pages_per_block']}pg x "
            f"{d['page_bytes'] // 1024}KiB"
        )
        table.add_row(name, geometry, d["cell"], f"{raw / 2**30:.1f} GiB", d.get("source", ""))
    console.print(table)
    console.print("workload patterns: " + ", ".join(workload_patterns()))
