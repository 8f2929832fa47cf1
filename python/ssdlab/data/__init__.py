"""Layer: Python, package data. Real block traces shipped inside the package, so that `make run`,
examples and tests work on a machine without ../shared/traces. Each is listed in `TRACES` and
described, with its provenance, in `traces/README.md` beside the files.

Commands that take `--trace` accept a bundled trace's name in place of a path
(`ssdlab compare --trace msr_cut10k_rw20_80_105`); in Python, pass `trace_path(name)`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ssdlab.errors import ConfigError

TRACES_DIR = Path(__file__).resolve().parent / "traces"


@dataclass(frozen=True)
class BundledTrace:
    """One bundled trace: its name, file (under `traces/`), reader format and a one-line origin."""

    name: str
    file: str
    format: str
    origin: str


TRACES: dict[str, BundledTrace] = {
    t.name: t
    for t in [
        BundledTrace(
            name="msr_cut10k_rw20_80_105",
            file="msr_cut10k_rw20_80_105.trace.gz",
            format="flashnet",
            origin=(
                "MSR Cambridge (Narayanan et al., FAST'08; SNIA IOTTA): a 10,000-request window "
                "(80% writes, 243 s) cut by the FlashNet/Heimdall project (UChicago UCARE)"
            ),
        ),
    ]
}


def traces() -> list[str]:
    """Names of the bundled traces."""
    return list(TRACES)


def trace_path(name: str) -> Path:
    """The file of the bundled trace `name`; ConfigError naming the bundled traces if unknown."""
    trace = TRACES.get(name)
    if trace is None:
        raise ConfigError(
            f"'{name}' is not a bundled trace; bundled: {', '.join(TRACES)}", problems=[("trace", name)]
        )
    return TRACES_DIR / trace.file


def resolve_trace(value: str) -> str:
    """`value` itself if it names an existing file (a file always wins), else the path of the
    bundled trace of that name, else `value` unchanged (the reader then reports the missing file)."""
    if Path(value).exists() or value not in TRACES:
        return value
    return str(trace_path(value))
