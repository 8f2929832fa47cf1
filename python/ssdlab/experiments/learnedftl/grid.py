"""The LearnedFTL reproduction's grid: the fio runs under each accounting, the CMT sweep, Fig.
20's traces and the stress case."""

from __future__ import annotations

import math
from pathlib import Path

from ssdlab.experiments.common import Job
from ssdlab.experiments.learnedftl.settings import (
    ACCOUNTINGS,
    ARTIFACT_FTLS,
    ARTIFACT_PATTERNS,
    CMT_SHARES,
    FIO_RW,
    FTLS,
    JOBS,
    PATTERNS,
    PRESET,
    Settings,
    _planes,
    _resolved,
    _used_pages,
    logical_pages,
)
from ssdlab.setup import Setup


def artifact_overrides(ftl: str, settings: Settings) -> tuple[str, ...]:
    """The authors' FEMU code's accounting (issue #33; implementation notes A1-A3):

    * every FTL's CMT holds `cmt_entries` entries, counted in entries (their code), without the
      paper's equal-DRAM top-up: 8-byte entries, no node overhead for TPFTL's cache;
    * DFTL and TPFTL collect lines in the foreground at or below `artifact_gc_lines[0]` free
      lines and, after every request, in the background at or below `artifact_gc_lines[1]`
      (`gc.background = "between_requests"`, a line with at least 1/8 invalid pages);
    * LearnedFTL's translation-page programs take no time (`translation_program_time = "none"`);
      its GC stays as the preset has it (3 free lines, its own code's threshold).
    """
    entry = _resolved(settings)["ftl"]["translation_entry_bytes"]
    cmt = settings.cmt_entries * entry
    out: tuple[str, ...] = (
        "ftl.equal_dram=false",
        f"ftl.dftl.cmt_bytes={cmt}",
        f"ftl.tpftl.cmt_bytes={cmt}",
        f"ftl.learned.cmt_bytes={cmt}",
        f"ftl.tpftl.entry_bytes={entry}",
        "ftl.tpftl.node_bytes=0",
    )
    if ftl == "LearnedFTL":
        return (*out, "ftl.learned.translation_program_time=none")
    planes = _planes(settings)
    foreground, background = settings.artifact_gc_lines
    # Free blocks come in whole lines: "below n x planes + 1" is "at most n free lines".
    return (
        *out,
        f"gc.trigger_free_blocks={foreground * planes + 1}",
        "gc.background=between_requests",
        f"gc.background_free_blocks={background * planes + 1}",
    )


def _common(settings: Settings, seed: int) -> tuple[str, ...]:
    return (*settings.device, "ftl.unwritten_reads=free", f"seed={seed}")


def _warmup(settings: Settings) -> tuple[str, ...]:
    """Sec. 4.2's random-write warm-up: 64 jobs for `warmup_ns` of simulated time."""
    return (f"warmup.timed_random_writes_ns={settings.warmup_ns}", f"warmup.timed_queue_depth={JOBS}")


def _fio(pattern: str, settings: Settings) -> tuple[str, ...]:
    """A closed-loop FIO job of 64 threads, one 4 KiB request outstanding each."""
    out = (
        "workload.kind=synthetic",
        f"workload.rw={FIO_RW[pattern]}",
        "workload.bs=4k",
        f"workload.numjobs={JOBS}",
    )
    if pattern == "seqwrite_split":
        # The stress case: each thread on its own 64th of the space (fio's offset_increment and
        # size), 64 sequential streams that no group's line sees in order.
        page = _resolved(settings)["device"]["page_bytes"]
        share = _used_pages(settings) // JOBS * page
        out = (*out, f"workload.offset_increment={share}", f"workload.size={share}")
    elif pattern.startswith("seq"):
        # As fio runs 64 sequential jobs by default (issue #33): every thread from the same
        # offset over the whole space, each with its own cursor advancing on its own completions.
        out = (*out, "workload.offset_increment=0")
    if pattern.endswith("read"):
        return (*out, f"workload.count={settings.read_requests}", *_warmup(settings))
    return (*out, f"workload.duration_ns={settings.write_ns}")


def fio_jobs(
    settings: Settings, ftls: dict[str, tuple[str, ...]] = FTLS, accounting: str = "paper"
) -> list[Job]:
    """Fig. 14 and 15: every FTL under the FIO patterns, in one accounting (`ACCOUNTINGS`;
    `artifact`: the artifact's FTLs and the paper's four patterns)."""
    if accounting not in ACCOUNTINGS:
        raise ValueError(f"accounting {accounting!r}: one of {ACCOUNTINGS}")
    artifact = accounting == "artifact"
    jobs = []
    for seed in range(settings.seeds):
        for pattern in ARTIFACT_PATTERNS if artifact else PATTERNS:
            for ftl, keys in ftls.items():
                if artifact and ftl not in ARTIFACT_FTLS:
                    continue
                labels = {
                    "figure": "fig14",
                    "workload": pattern,
                    "ftl": ftl,
                    "seed": seed,
                    "accounting": accounting,
                }
                extra = artifact_overrides(ftl, settings) if artifact else ()
                overrides = (*_common(settings, seed), *keys, *extra, *_fio(pattern, settings))
                jobs.append(Job(labels, Setup(PRESET, overrides=overrides)))
    return jobs


#: The stress case's minimum-gain guard on LearnedFTL's group victim
#: (`gc.group.min_invalid_fraction`): FEMU's background-GC bar, 1/8 of the pages invalid.
STRESS_GUARD = 0.125


def stress_jobs(settings: Settings) -> list[Job]:
    """The stress case `seqwrite_split` per pass (issue #33): each FTL's first drive write alone
    (as many 4 KiB writes as the workload addresses: `workload.count` instead of the duration),
    whose difference from the full run (Fig. 14's `seqwrite_split` row) is the remainder, the
    simulation being deterministic; and LearnedFTL with the minimum-gain guard on its group
    victim, full and first pass."""
    first = f"workload.count={_used_pages(settings)}"
    jobs = []
    for seed in range(settings.seeds):
        for ftl, keys in FTLS.items():
            guards = (0.0, STRESS_GUARD) if ftl == "LearnedFTL" else (0.0,)
            for guard in guards:
                extra = (f"gc.group.min_invalid_fraction={guard}",) if guard else ()
                for span in ("first", "all") if guard else ("first",):
                    labels = {
                        "figure": "stress",
                        "workload": "seqwrite_split",
                        "ftl": ftl,
                        "seed": seed,
                        "accounting": "paper",
                        "guard": guard,
                        "span": span,
                    }
                    fio = _fio("seqwrite_split", settings)
                    if span == "first":
                        fio = (*[o for o in fio if not o.startswith("workload.duration_ns=")], first)
                    overrides = (*_common(settings, seed), *keys, *extra, *fio)
                    jobs.append(Job(labels, Setup(PRESET, overrides=overrides)))
    return jobs


def cmt_jobs(settings: Settings) -> list[Job]:
    """Fig. 3(c): TPFTL under random reads with the CMT at 2, 10 and 50 % of the table (its own
    bytes only: no model DRAM added)."""
    entry = _resolved(settings)["ftl"]["translation_entry_bytes"]
    table = logical_pages(settings) * entry
    jobs = []
    for seed in range(settings.seeds):
        for share in CMT_SHARES:
            labels = {
                "figure": "fig3c",
                "workload": "randread",
                "ftl": "TPFTL",
                "cmt_share": share,
                "seed": seed,
                "accounting": "paper",
            }
            # This figure's cache size replaces the drive's.
            common = [o for o in _common(settings, seed) if not o.startswith("ftl.tpftl.cmt_bytes=")]
            overrides = (
                *common,
                *FTLS["TPFTL"],
                "ftl.equal_dram=false",
                f"ftl.tpftl.cmt_bytes={math.ceil(share * table)}",
                *_fio("randread", settings),
            )
            jobs.append(Job(labels, Setup(PRESET, overrides=overrides)))
    return jobs


def trace_jobs(traces: dict[Path, float], settings: Settings) -> list[Job]:
    """Fig. 20: TPFTL, LearnedFTL and ideal on each trace after the warm-up."""
    jobs = []
    for seed in range(settings.seeds):
        for trace, speedup in traces.items():
            for ftl in ("TPFTL", "LearnedFTL", "ideal"):
                labels = {
                    "figure": "fig20",
                    "workload": trace.name,
                    "ftl": ftl,
                    "seed": seed,
                    "accounting": "paper",
                }
                overrides = (
                    *_common(settings, seed),
                    *FTLS[ftl],
                    "workload.kind=trace",
                    "workload.fold=compact",
                    f"workload.speedup={speedup}",
                    *_warmup(settings),
                )
                if settings.trace_requests:
                    overrides = (*overrides, f"workload.count={settings.trace_requests}")
                jobs.append(Job(labels, Setup(PRESET, trace=str(trace), overrides=overrides)))
    return jobs
