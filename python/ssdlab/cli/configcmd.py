"""`ssdlab config show`: the fully resolved configuration, every key; `ssdlab config schema`: the
JSON Schema of a config file."""

from __future__ import annotations

import click

from ssdlab.cli.common import config_options, console
from ssdlab.config import resolve, schema_json


@click.group()
def config() -> None:
    """Inspect configurations."""


@config.command()
@config_options
def show(
    preset: str,
    workload: str | None,
    trace: str | None,
    trace_format: str | None,
    config_files: tuple[str, ...],
    overrides: tuple[str, ...],
) -> None:
    """Print the resolved configuration (preset + files + --set), validated, with every key."""
    text = resolve(preset, workload, trace, overrides, config_files, trace_format)
    console.print(text, markup=False, highlight=False, end="")


@config.command()
def schema() -> None:
    """Print the JSON Schema of a config file (docs/config.schema.json): for editors and CI.

    \b
    Taplo / Even Better TOML read it from a first line `#:schema path/to/config.schema.json`.
    """
    # Plain echo: the console would wrap long lines and break the JSON.
    click.echo(schema_json())
