"""The `ssdlab` command line: run simulations, list presets, show resolved configs, bench.

Input problems print `file:line: reason` plus a hint and exit with status 2;
SSDLAB_DEBUG=1 shows the Python traceback.

Start-up is kept short (`ssdlab --help` in well under a second): the command modules import
pandas, numpy, matplotlib and the simulation API inside the commands that use them, never at
module level (tests/cli/test_startup.py checks it).
"""

from __future__ import annotations

import os
import sys
import warnings

import click
from rich.markup import escape

from ssdlab.cli.bench import bench
from ssdlab.cli.common import console_err
from ssdlab.cli.compare import compare
from ssdlab.cli.configcmd import config
from ssdlab.cli.presetscmd import presets
from ssdlab.cli.report import report
from ssdlab.cli.reproduce import reproduce
from ssdlab.cli.run import run
from ssdlab.cli.sweep import sweep
from ssdlab.cli.tracecmd import trace
from ssdlab.errors import ConfigDeprecationWarning, ConfigError, SsdlabError, SsdlabIOError, TraceFormatError

INPUT_ERRORS = (ConfigError, TraceFormatError, SsdlabIOError)


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(package_name="ssdlab", prog_name="ssdlab")
def cli() -> None:
    """ssdlab: a trace-driven SSD simulator and laboratory for learned FTL policies.

    \b
    Examples:
      ssdlab run --preset kang-3d-128gb --workload onoff --out report.json
      ssdlab compare --trace msr_cut10k_rw20_80_105 --vary gc.scheduler=greedy,lazy_rtgc
      ssdlab sweep docs/examples/sweep_gc.toml -o results/sweep_gc
      ssdlab run --preset tiny --trace hm_0.csv --set device.utilization=0.85
      ssdlab config show --preset tiny --set gc.victim=fifo
      ssdlab presets
      ssdlab trace stats ../shared/traces/msr/*.csv
    """


cli.add_command(run)
cli.add_command(compare)
cli.add_command(sweep)
cli.add_command(presets)
cli.add_command(config)
cli.add_command(bench)
cli.add_command(trace)
cli.add_command(reproduce)
cli.add_command(report)


#: Commands whose reader options are `-O KEY=VALUE` (the others take `--set workload.trace.KEY=VALUE`).
_TRACE_COMMANDS = ("trace stats", "trace fit", "trace convert", "trace detect", "trace synth")


def _command(argv: list[str] | None) -> str:
    """The command a command line ran, as `trace stats` (the groups and command named, options
    skipped)."""
    args = sys.argv[1:] if argv is None else argv
    path: list[str] = []
    group: click.Command = cli
    for arg in args:
        if not isinstance(group, click.Group):
            break
        sub = group.commands.get(arg)
        if sub is None:
            if arg.startswith("-"):
                continue
            break
        path.append(arg)
        group = sub
    return " ".join(path)


def _reader_option(command: str, key: str, value: str) -> str:
    """How `command` takes reader option `key`: `-O key=value` or `--set workload.trace.key=value`."""
    if command in _TRACE_COMMANDS:
        return f"-O {key}={value}"
    return f"--set workload.trace.{key}={value}"


def _trace_hint(err: SsdlabError, command: str) -> str:
    """What helps a trace error of its kind, in the syntax of `command`."""
    kind = getattr(err, "kind", None)
    if kind == "bad_line":
        return (
            f"hint: skip unreadable lines with {_reader_option(command, 'on_bad_line', 'skip')} (the "
            "report counts them), or name the format with --format if it was detected wrongly"
        )
    if kind == "format":
        return (
            "hint: name the format with --format (docs/traces.md shows each with a sample line), or "
            "describe the columns with --format generic and a column mapping (docs/traces.md, generic)"
        )
    if kind == "empty":
        return "hint: the file holds no requests: check the path, and that a download or copy finished"
    if kind == "corrupt":
        return (
            "hint: the file ends early or is damaged (an interrupted download or copy?): check it "
            "with `gzip -t` or `zstd -t` and fetch it again; skipping lines cannot help"
        )
    if kind == "out_of_order":
        return (
            f"hint: sort over a wider window with {_reader_option(command, 'reorder_window', '65536')}, "
            f"or replay late requests at the last time with {_reader_option(command, 'on_out_of_order', 'clamp')}"
        )
    return ""


def _hint(err: SsdlabError, command: str = "") -> str:
    """A hint that fits the error's kind and the command that met it (empty if none helps)."""
    if isinstance(err, TraceFormatError):
        return _trace_hint(err, command)
    if isinstance(err, ConfigError):
        if command in _TRACE_COMMANDS:
            return "hint: reader options are -O KEY=VALUE (docs/traces.md lists them)"
        return "hint: `ssdlab config show` prints every key with its resolved value and where it came from"
    return ""


def _show_warning(message, category, filename, lineno, file=None, line=None):  # type: ignore[no-untyped-def]
    """Deprecated config names as `warning: <file>:<line>: ...` on stderr; other warnings as
    Python shows them."""
    if issubclass(category, ConfigDeprecationWarning):
        sys.stderr.write(f"warning: {message}\n")
    else:
        _python_show_warning(message, category, filename, lineno, file, line)


_python_show_warning = warnings.showwarning


def main(argv: list[str] | None = None) -> None:
    """Entry point: maps ssdlab errors to clean messages and exit codes; config warnings go to
    stderr, each once."""
    with warnings.catch_warnings():
        warnings.showwarning = _show_warning
        warnings.simplefilter("default", ConfigDeprecationWarning)
        _main(argv)


def _main(argv: list[str] | None) -> None:
    try:
        cli.main(args=argv, prog_name="ssdlab", standalone_mode=False)
    except click.exceptions.Abort:
        console_err.print("aborted")
        sys.exit(130)
    except click.ClickException as e:
        e.show()
        sys.exit(2)
    except SsdlabError as e:
        if os.environ.get("SSDLAB_DEBUG") == "1":
            raise
        # The message is text, not markup: a grid's `[axes]` must print as written.
        console_err.print(f"[bold red]error:[/] {escape(e.message)}", highlight=False, markup=True)
        hint = _hint(e, _command(argv))
        if hint:
            console_err.print(hint, highlight=False, markup=False)
        sys.exit(2 if isinstance(e, INPUT_ERRORS) else 1)
