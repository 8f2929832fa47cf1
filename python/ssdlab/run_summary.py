"""Layer: Python, above `report.py`. What a run's summary states about its experiment, from the
report: the drive (preset, raw, logical and used space), the workload and its footprint, the
warm-up (what, how much), requests folded and lines skipped; and a warning for each of those
that is not 0, naming what fits when requests were folded (a built-in preset, sized by the core
from its geometry, or the key to change). Plain text, no terminal markup: `ssdlab run` prints
it, and a notebook can too.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ssdlab._console import fmt_bytes, fmt_duration_ns, fmt_sig

if TYPE_CHECKING:
    from ssdlab.report import Report

#: `Simulation.drive_fit`: needed bytes -> (blocks per plane, utilization or None).
DriveFit = Callable[[int], tuple[int, float | None]]

#: The highest `device.utilization` a warning proposes: above it GC has too little spare room
#: for most presets' thresholds.
MAX_SUGGESTED_UTILIZATION = 0.95


@dataclass(frozen=True)
class Row:
    """One figure of the summary; `warn` when it is a figure that should have been 0."""

    figure: str
    value: str
    warn: bool = False


def _percent(part: int, whole: int) -> str:
    return f"{fmt_sig(100 * part / whole)} %" if whole else "-"


def drive_text(report: Report) -> str:
    """`tiny: 96.0 MiB raw, 84.0 MiB logical, 75.6 MiB used (90 %)`."""
    d = report["drive"]
    name = d["preset"] or "no preset"
    return (
        f"{name}: {fmt_bytes(d['raw_bytes'])} raw, {fmt_bytes(d['logical_bytes'])} logical, "
        f"{fmt_bytes(d['used_logical_bytes'])} used ({fmt_sig(100 * d['utilization'])} %)"
    )


def _footprint_bytes(report: Report) -> int | None:
    pages = report["workload"]["host"].get("footprint_pages")
    return None if pages is None else pages * report["config"]["device"]["page_bytes"]


def workload_text(report: Report) -> str:
    """The trace (its format, footprint and address span), the spec, or the synthetic pattern."""
    w = report["config"]["workload"]
    host = report["workload"]["host"]
    footprint = _footprint_bytes(report)
    space = []
    if footprint is not None:
        space.append(f"footprint {fmt_bytes(footprint)}")
    if w["kind"] != "synthetic":
        space.append(f"addresses up to {fmt_bytes(host['address_span_bytes'])}")
    if w["kind"] == "trace":
        info = report["workload"].get("trace") or {}
        head = f"trace {report.workload_name} ({info.get('format', w['trace']['format'])})"
    elif w["kind"] == "spec":
        head = f"spec {report.workload_name}"
    else:
        head = f"{w['rw']}, {fmt_bytes(w['bs'])} requests, iodepth {w['iodepth']}"
    return ", ".join([head, *space])


def warmup_text(report: Report) -> str:
    """What the warm-up did: `none`, or the untimed fill and random overwrites (pages, erases)
    and the timed random writes (requests, simulated time)."""
    cfg = report["config"]["warmup"]
    wu = report["warmup"]
    parts = []
    untimed = []
    if cfg["fill"]:
        untimed.append("fill")
    if cfg["random_writes"]:
        untimed.append(f"{fmt_sig(cfg['random_writes'])}x random overwrites")
    if untimed:
        parts.append(
            f"{' + '.join(untimed)} (untimed): {wu['pages_written']:,} pages, {wu['erases']:,} erases"
        )
    if cfg["timed_random_writes_ns"]:
        parts.append(
            f"timed random writes: {wu['timed_requests']:,} requests over "
            f"{fmt_duration_ns(wu['timed_span_ns'])} simulated"
        )
    return "; ".join(parts) if parts else "none (the drive starts empty)"


def experiment_rows(report: Report) -> list[Row]:
    """The rows that state the experiment: drive, workload, warm-up, requests folded and lines
    skipped (and requests of size 0 dropped, when there were)."""
    w = report["workload"]
    host = w["host"]
    requests = w["requests"] + host["zero_size_skipped"]
    rows = [
        Row("drive", drive_text(report)),
        Row("workload", workload_text(report)),
        Row("warm-up", warmup_text(report)),
        Row(
            "requests folded",
            f"{host['folded_requests']:,} ({_percent(host['folded_requests'], requests)})"
            if host["folded_requests"]
            else "0",
            warn=host["folded_requests"] > 0,
        ),
        Row("bad trace lines skipped", f"{w['skipped_records']:,}", warn=w["skipped_records"] > 0),
    ]
    if host["zero_size_skipped"]:
        rows.append(Row("requests of size 0 dropped", f"{host['zero_size_skipped']:,}", warn=True))
    return rows


def _sizes() -> list[dict[str, Any]]:
    from ssdlab.api import preset_sizes

    return preset_sizes()


def fit_advice(report: Report, drive_fit: DriveFit | None = None) -> str:
    """What would have held the workload without folding: `workload.fold = "compact"` when its
    footprint fits but its addresses do not, else the smallest built-in preset whose used
    logical space holds it, and (with `drive_fit`, the run's `Simulation.drive_fit`) the
    `device.blocks_per_plane` or `device.utilization` of this drive that would."""
    d = report["drive"]
    used = d["used_logical_bytes"]
    span = report["workload"]["host"]["address_span_bytes"]
    footprint = _footprint_bytes(report)
    modulo = report["config"]["workload"]["fold"] == "modulo"
    if modulo and footprint is not None and footprint <= used:
        return (
            f"its footprint ({fmt_bytes(footprint)}) fits but its addresses (up to {fmt_bytes(span)}) "
            "do not: --set workload.fold=compact packs the pages it touches at the front of the drive"
        )
    need = footprint if footprint is not None else span
    what = "footprint" if footprint is not None else "address span"

    def with_compact(space: int) -> str:
        return " with --set workload.fold=compact" if modulo and span > space else ""

    options = []
    fitting = [p for p in _sizes() if p["used_logical_bytes"] >= need]
    if fitting:
        p = fitting[0]
        options.append(
            f"--preset {p['name']} ({fmt_bytes(p['used_logical_bytes'])} used){with_compact(p['used_logical_bytes'])}"
        )
    if drive_fit is not None:
        blocks, utilization = drive_fit(need)
        if utilization is not None and d["utilization"] < utilization <= MAX_SUGGESTED_UTILIZATION:
            options.append(f"--set device.utilization={utilization:g}{with_compact(need)}")
        options.append(f"--set device.blocks_per_plane={blocks}{with_compact(need)}")
    if not options:
        return f"its {what} is {fmt_bytes(need)}, more than any built-in preset holds"
    return f"its {what} is {fmt_bytes(need)}; a drive that holds it: " + ", or ".join(options)


def warnings(report: Report, drive_fit: DriveFit | None = None) -> list[str]:
    """A sentence for each figure of `experiment_rows` that is not 0: folded requests (with
    `fit_advice`) and requests of size 0 dropped. Bad trace lines skipped have their own warning,
    with the first lines quoted (`cli.common.note_skipped_lines`)."""
    w = report["workload"]
    host = w["host"]
    out = []
    if host["folded_requests"]:
        requests = w["requests"] + host["zero_size_skipped"]
        out.append(
            f"{host['folded_requests']:,} of {requests:,} requests "
            f"({_percent(host['folded_requests'], requests)}) were folded into the drive's "
            f"{fmt_bytes(report['drive']['used_logical_bytes'])} of used logical space, onto other "
            f"addresses' data: {fit_advice(report, drive_fit)}"
        )
    if host["zero_size_skipped"]:
        out.append(f"{host['zero_size_skipped']:,} requests of size 0 were dropped (nothing to do)")
    return out
