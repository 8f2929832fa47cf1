"""`ssdlab config show`: the fully resolved configuration, every key with where its value came
from; `ssdlab config schema`: the JSON Schema of a config file."""

from __future__ import annotations

import click

from ssdlab.cli.common import config_options, note_overridden
from ssdlab.config import resolve_explained, schema_json


@click.group()
def config() -> None:
    """Inspect configurations."""


@config.command()
@config_options
@click.option("--no-origins", is_flag=True, help="Leave out the `# origin` comments.")
def show(
    preset: str,
    workload: str | None,
    trace: str | None,
    trace_with_workload: bool,
    trace_format: str | None,
    config_files: tuple[str, ...],
    overrides: tuple[str, ...],
    no_origins: bool,
) -> None:
    """Print the resolved configuration (preset + workload + files + --set), validated, with
    every key and, as a comment beside it, where its value came from: `preset:NAME:LINE`,
    `workload:NAME:LINE`, `FILE:LINE`, `--set` or `default`. The output is a valid config file.
    Keys a later layer overrode are printed as notes on stderr."""
    resolved = resolve_explained(
        preset, workload, trace, overrides, config_files, trace_format, trace_with_workload, not no_origins
    )
    note_overridden(resolved.overridden)
    # Plain echo: the console would wrap long lines (a comment would fold onto a line of its own).
    click.echo(resolved.toml, nl=False)


@config.command()
def schema() -> None:
    """Print the JSON Schema of a config file (docs/config.schema.json): for editors and CI.

    \b
    Taplo / Even Better TOML read it from a first line `#:schema path/to/config.schema.json`.
    """
    # Plain echo: the console would wrap long lines and break the JSON.
    click.echo(schema_json())
