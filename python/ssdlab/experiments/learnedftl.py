"""Reproduction of Wang et al., "LearnedFTL: A Learning-based Page-level FTL for Improving Random
Reads in Flash-based SSDs", HPCA 2024, Sec. 2.3 and 4: Fig. 14 (FIO throughput, CMT and model hit
ratios, WAF), Fig. 15 (GC count), Fig. 3(c) (TPFTL's CMT hit ratio as the CMT grows) and Fig. 20
(P99 / P99.9 on real traces).

The FTLs, each on the preset `femu-learnedftl` (the paper's FEMU drive):

* DFTL and TPFTL with FEMU's line-by-line allocation (the paper: "FEMU's default greedy dynamic
  allocation strategy"), the ideal page mapping likewise;
* LearnedFTL with group-based allocation and group GC (Sec. 3.3), which trains the models.

The set-up is Sec. 4.2: 4 KiB requests from 64 closed-loop jobs (`psync`, one request each).
Reads follow 10 minutes of simulated random-write warm-up, timed like the measured run; the
paper then reads for 5 minutes, here for `read_requests` requests (the steady state, in far less
wall time). Writes run 10 minutes of simulated time from the empty drive. Sequential jobs each
read or write their own 1/64 of the space (fio's `offset_increment`). A host read of a page the
warm-up never wrote costs nothing in every FTL (`ftl.unwritten_reads = "free"`: FEMU returns at
once for an unmapped page). Traces follow the same warm-up, addresses packed (`fold =
"compact"`), WebSearch re-rated 64x as the paper does.
"""

from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pandas as pd

import ssdlab
from ssdlab._console import console
from ssdlab.experiments.common import (
    Job,
    Runner,
    print_frame,
    run_jobs,
    verified,
    write_tables,
    write_verdicts,
)

PRESET = "femu-learnedftl"

FTLS: dict[str, tuple[str, ...]] = {
    "DFTL": ("ftl.mapping=dftl", "ftl.placement=line"),
    "TPFTL": ("ftl.mapping=tpftl", "ftl.placement=line"),
    "LearnedFTL": ("ftl.mapping=learned", "ftl.placement=group", "gc.victim=group"),
    "ideal": ("ftl.mapping=page", "ftl.placement=line"),
}

#: Sec. 4.2: "4KB I/O size and psync I/O engine with 64 threads".
JOBS = 64
PATTERNS = ("randread", "seqread", "randwrite", "seqwrite", "seqwrite_split")
#: fio's `rw` for each pattern. `seqwrite_split` is not the paper's: the stress case of 64
#: sequential streams, each on its own 64th of the space (see `_fio`).
FIO_RW = {
    "randread": "randread",
    "seqread": "read",
    "randwrite": "randwrite",
    "seqwrite": "write",
    "seqwrite_split": "write",
}

#: Sec. 2.3, Fig. 3(c): the CMT as a share of the whole mapping table.
CMT_SHARES = (0.02, 0.10, 0.50)

#: Fig. 20's traces as ../shared/traces holds them (WebSearch re-rated 64x, Sec. 4.4), and the
#: other read-heavy real traces there (the paper's WebSearch1-3 and Systor are not all here).
DEFAULT_TRACES: dict[str, float] = {
    "umass/websearch_small.disksim_ns.txt.gz": 64.0,
    "systor17/systor17-traces-sample.csv.gz": 1.0,
    "ms_production/msnfs_150k.disksim_ms.txt.gz": 1.0,
    "cloudphysics/cloudPhysicsIO.us.csv.gz": 1.0,
}
QUICK_TRACES = ("umass/websearch_small.disksim_ns.txt.gz",)

#: The paper's figures, for docs/experiments/learnedftl.md and the printed comparison.
PAPER = {
    "randread LearnedFTL / TPFTL": 1.4,
    "randread LearnedFTL / DFTL": 1.5,
    "randread LearnedFTL / ideal": 0.892,
    "seqread LearnedFTL / ideal": 0.968,
    "randwrite LearnedFTL / TPFTL": 1.2,
    "randwrite LearnedFTL / DFTL": 1.4,
    "randread model hit ratio": 0.555,
    "TPFTL randread CMT hit ratio at 2/10/50 %": "0.01 / 0.05 / 0.259",
    "trace P99 TPFTL / LearnedFTL (mean)": 4.8,
}

SECOND_NS = 1_000_000_000


@dataclass(frozen=True)
class Settings:
    """One size of the experiment: the paper's or the CI-sized `--quick` one."""

    #: Overrides that shrink the preset's drive (none: the paper's 32 GiB).
    device: tuple[str, ...] = ()
    #: Simulated time of the random-write warm-up before reads and traces (Sec. 4.2: 10 min).
    warmup_ns: int = 600 * SECOND_NS
    #: Requests measured per read run (the paper reads for 5 minutes).
    read_requests: int = 1_000_000
    #: Simulated time of each write run from the empty drive (Sec. 4.2: 10 min).
    write_ns: int = 600 * SECOND_NS
    #: Requests replayed per trace at most (the whole trace if shorter).
    trace_requests: int | None = None
    seeds: int = 1


#: CI-sized: 16 chips x 128 blocks x 256 pages (2 GiB; a line is still 8 translation pages, a
#: group one line), the GC trigger kept at 3 lines, the CMT kept at the paper's share of the
#: table (64 KiB of a 16x larger table), warm-up long enough for group GC to train models.
QUICK = Settings(
    device=(
        "device.channels=4",
        "device.chips_per_channel=4",
        "device.blocks_per_plane=128",
        "device.pages_per_block=256",
        "gc.trigger_free_blocks=48",
        "ftl.dftl.cmt_bytes=4096",
        "ftl.tpftl.cmt_bytes=4096",
        "ftl.learned.cmt_bytes=4096",
    ),
    warmup_ns=60 * SECOND_NS,
    read_requests=100_000,
    write_ns=20 * SECOND_NS,
    trace_requests=20_000,
)


def _resolved(settings: Settings) -> dict[str, Any]:
    return tomllib.loads(ssdlab.resolve(PRESET, overrides=list(settings.device)))


def logical_pages(settings: Settings) -> int:
    """The drive's logical pages: what the mapping table covers."""
    dev = _resolved(settings)["device"]
    planes = dev["channels"] * dev["chips_per_channel"] * dev["dies_per_chip"] * dev["planes_per_die"]
    physical = planes * dev["blocks_per_plane"] * dev["pages_per_block"]
    return math.floor(physical / (1 + dev["overprovisioning"]) * dev["utilization"])


def _used_pages(settings: Settings) -> int:
    """The pages the workload may address, as the core counts them (config/validate.rs:
    physical x (1 - overprovisioning), then x utilization, each floored): the jobs' regions must
    fit in them."""
    dev = _resolved(settings)["device"]
    planes = dev["channels"] * dev["chips_per_channel"] * dev["dies_per_chip"] * dev["planes_per_die"]
    physical = planes * dev["blocks_per_plane"] * dev["pages_per_block"]
    return math.floor(math.floor(physical * (1 - dev["overprovisioning"])) * dev["utilization"])


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


def fio_jobs(settings: Settings, ftls: dict[str, tuple[str, ...]] = FTLS) -> list[Job]:
    """Fig. 14 and 15: every FTL under the four FIO patterns."""
    jobs = []
    for seed in range(settings.seeds):
        for pattern in PATTERNS:
            for ftl, keys in ftls.items():
                labels = {"figure": "fig14", "workload": pattern, "ftl": ftl, "seed": seed}
                overrides = (*_common(settings, seed), *keys, *_fio(pattern, settings))
                jobs.append(Job(labels, PRESET, overrides=overrides))
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
            jobs.append(Job(labels, PRESET, overrides=overrides))
    return jobs


def trace_jobs(traces: dict[Path, float], settings: Settings) -> list[Job]:
    """Fig. 20: TPFTL, LearnedFTL and ideal on each trace after the warm-up."""
    jobs = []
    for seed in range(settings.seeds):
        for trace, speedup in traces.items():
            for ftl in ("TPFTL", "LearnedFTL", "ideal"):
                labels = {"figure": "fig20", "workload": trace.name, "ftl": ftl, "seed": seed}
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
                jobs.append(Job(labels, PRESET, str(trace), None, overrides))
    return jobs


def _worker(job: Job) -> dict[str, Any]:
    report = job.run()
    m = report["policies"]["mapping_report"] or {}
    lat = report.latency
    gc = report["gc"]
    return {
        **job.labels,
        "iops": report["throughput"]["iops"],
        "mb_per_s": report["throughput"]["mb_per_s"],
        "requests": report["workload"]["requests"],
        "span_s": report["workload"]["span_ns"] / 1e9,
        "read_p99_us": lat.loc["read"]["p99"],
        "read_p99_9_us": lat.loc["read"]["p99_9"],
        "all_p99_us": lat.loc["all"]["p99"],
        "all_p99_9_us": lat.loc["all"]["p99_9"],
        "write_p99_us": lat.loc["write"]["p99"],
        "cmt_hit_ratio": m.get("cmt_hit_ratio"),
        "read_cmt_hit_ratio": m.get("read_cmt_hit_ratio"),
        "model_hit_ratio": m.get("model_hit_ratio"),
        "double_reads": m.get("double_reads"),
        "translation_reads": report["mapping"]["translation_reads"],
        "translation_writes": report["mapping"]["translation_writes"],
        "trainings": m.get("trainings"),
        "cmt_bytes": m.get("cmt_bytes"),
        "dram_bytes": report["mapping"]["dram_bytes"],
        "waf": report.waf,
        # Issue #33: WAF split into what GC moved and what translation pages cost (the rest is
        # the host's own pages, 1 per page written).
        "waf_gc": report["waf_by_source"]["gc"],
        "waf_mapping": report["waf_by_source"]["mapping"],
        "erased_blocks": report["wear"]["erases"],
        "gc_invocations": gc["foreground_invocations"],
        "line_collections": gc["line_collections"],
        "lines_collected": gc["lines_collected"],
        "pages_copied": gc["pages_copied"],
        "warmup_requests": report["warmup"]["timed_requests"],
        "warmup_programs": report["warmup"]["timed_programs"],
        "verified": report["verify"]["final_scan_passed"] if report["verify"] else None,
    }


def _ratio(frame: pd.DataFrame, num: str, den: str) -> pd.Series:
    return frame[num] / frame[den]


def tables(runs: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Means over seeds: Fig. 14(a)-(c), Fig. 15, Fig. 3(c), Fig. 20 and the ratios the paper
    quotes."""
    out: dict[str, pd.DataFrame] = {}
    fio = runs[runs["figure"] == "fig14"]
    if not fio.empty:
        order = [f for f in FTLS if f in set(fio["ftl"])]

        def pivot(col: str) -> pd.DataFrame:
            return fio.pivot_table(index="workload", columns="ftl", values=col, aggfunc="mean").reindex(
                columns=order
            )

        iops = pivot("iops")
        out["Fig. 14(a): throughput (KIOPS)"] = iops / 1e3
        if {"LearnedFTL", "TPFTL", "DFTL", "ideal"} <= set(order):
            out["Fig. 14(a): LearnedFTL's throughput relative to"] = pd.DataFrame(
                {
                    "TPFTL": _ratio(iops, "LearnedFTL", "TPFTL"),
                    "DFTL": _ratio(iops, "LearnedFTL", "DFTL"),
                    "ideal": _ratio(iops, "LearnedFTL", "ideal"),
                }
            )
        out["Fig. 14(b): CMT hit ratio (all lookups; reads only in the read runs)"] = pivot("cmt_hit_ratio")
        out["Fig. 14(b): model hit ratio of host reads"] = pivot("model_hit_ratio")
        out["Fig. 14(c): WAF (flash programs / host pages written)"] = pivot("waf")
        out["Fig. 14(c): WAF from GC / from translation pages"] = (
            pivot("waf_gc").round(3).astype(str) + " / " + pivot("waf_mapping").round(3).astype(str)
        )
        out["translation reads / writes (thousands)"] = (
            (pivot("translation_reads") / 1e3).round(1).astype(str)
            + " / "
            + (pivot("translation_writes") / 1e3).round(1).astype(str)
        )
        out["Fig. 15: GC count (blocks erased)"] = pivot("erased_blocks")
        out["Fig. 15: line (group) collections"] = pivot("line_collections")
        out["warm-up: random writes in the timed warm-up (millions)"] = pivot("warmup_requests") / 1e6
    cmt = runs[runs["figure"] == "fig3c"]
    if not cmt.empty:
        out["Fig. 3(c): TPFTL's randread CMT hit ratio by CMT size (share of the table)"] = cmt.pivot_table(
            index="cmt_share", values=["read_cmt_hit_ratio", "iops"], aggfunc="mean"
        )
    tr = runs[runs["figure"] == "fig20"]
    if not tr.empty:
        order = [f for f in ("TPFTL", "LearnedFTL", "ideal") if f in set(tr["ftl"])]
        for col, label in (("all_p99_us", "P99"), ("all_p99_9_us", "P99.9")):
            p = tr.pivot_table(index="workload", columns="ftl", values=col, aggfunc="mean")[order]
            if {"TPFTL", "LearnedFTL"} <= set(order):
                p["TPFTL / LearnedFTL"] = _ratio(p, "TPFTL", "LearnedFTL")
            out[f"Fig. 20: {label} latency (us)"] = p
        out["Fig. 20: model hit ratio of host reads"] = tr.pivot_table(
            index="workload", columns="ftl", values="model_hit_ratio", aggfunc="mean"
        )
    return out


def plots(runs: pd.DataFrame, out: Path) -> None:
    import matplotlib.pyplot as plt

    from ssdlab.plots import save_figure

    fio = runs[runs["figure"] == "fig14"]
    if not fio.empty:
        order = [f for f in FTLS if f in set(fio["ftl"])]
        fig, axes = plt.subplots(1, 4, figsize=(17, 4))
        specs = (
            ("iops", "throughput (IOPS)", "Fig. 14(a)"),
            ("cmt_hit_ratio", "CMT hit ratio", "Fig. 14(b)"),
            ("waf", "WAF", "Fig. 14(c)"),
            ("erased_blocks", "blocks erased", "Fig. 15"),
        )
        for ax, (col, ylabel, title) in zip(axes, specs, strict=True):
            table = fio.pivot_table(index="workload", columns="ftl", values=col, aggfunc="mean").reindex(
                columns=order
            )
            table.reindex([p for p in PATTERNS if p in table.index]).plot.bar(ax=ax, rot=0)
            ax.set(ylabel=ylabel, title=title, xlabel="")
            ax.grid(True, axis="y", alpha=0.3)
            ax.legend(fontsize=7)
        save_figure(fig, out / "fig14_fig15.png")
    tr = runs[runs["figure"] == "fig20"]
    if not tr.empty:
        fig, axes = plt.subplots(1, 2, figsize=(11, 4))
        for ax, (col, label) in zip(axes, (("all_p99_us", "P99"), ("all_p99_9_us", "P99.9")), strict=True):
            table = tr.pivot_table(index="workload", columns="ftl", values=col, aggfunc="mean")
            table.plot.bar(ax=ax, rot=10, logy=True)
            ax.set(ylabel=f"{label} latency (us)", title=f"Fig. 20: {label}", xlabel="")
            ax.grid(True, axis="y", alpha=0.3)
            ax.legend(fontsize=7)
        save_figure(fig, out / "fig20.png")


def paper_table(result: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Our figure beside each of the paper's headlines (`PAPER`), taken from the tables (NaN or
    "-" where the grid did not run it: a --quick grid, or Fig. 20 without traces)."""

    def cell(title: str, row: str, col: str) -> float:
        table = result.get(title)
        if table is None or row not in table.index or col not in table.columns:
            return math.nan
        return float(table.loc[row, col])

    relative = "Fig. 14(a): LearnedFTL's throughput relative to"
    p99 = result.get("Fig. 20: P99 latency (us)")
    cmt = result.get("Fig. 3(c): TPFTL's randread CMT hit ratio by CMT size (share of the table)")
    ours = {
        "randread LearnedFTL / TPFTL": cell(relative, "randread", "TPFTL"),
        "randread LearnedFTL / DFTL": cell(relative, "randread", "DFTL"),
        "randread LearnedFTL / ideal": cell(relative, "randread", "ideal"),
        "seqread LearnedFTL / ideal": cell(relative, "seqread", "ideal"),
        "randwrite LearnedFTL / TPFTL": cell(relative, "randwrite", "TPFTL"),
        "randwrite LearnedFTL / DFTL": cell(relative, "randwrite", "DFTL"),
        "randread model hit ratio": cell(
            "Fig. 14(b): model hit ratio of host reads", "randread", "LearnedFTL"
        ),
        "TPFTL randread CMT hit ratio at 2/10/50 %": " / ".join(
            f"{cmt.loc[share, 'read_cmt_hit_ratio']:.3g}" if cmt is not None and share in cmt.index else "-"
            for share in CMT_SHARES
        ),
        "trace P99 TPFTL / LearnedFTL (mean)": float(p99["TPFTL / LearnedFTL"].mean())
        if p99 is not None and "TPFTL / LearnedFTL" in p99
        else math.nan,
    }
    return pd.DataFrame({"ours": pd.Series(ours, dtype=object), "paper": pd.Series(PAPER, dtype=object)})


def reproduce(
    traces: list[Path] | None,
    out: Path,
    seeds: int = 1,
    runner: Runner | None = None,
    shared_traces: Path | None = None,
    quick: bool = False,
    verify: bool = False,
) -> dict[str, pd.DataFrame]:
    """Run the reproduction; `quick` is the CI-sized drive and durations (`QUICK`), `verify`
    checks every mapping at the end of every run (and fails the run on a lost page), `runner`
    says where the grid runs (local processes by default; finished runs are kept in `out/cells`
    and reused)."""
    out.mkdir(parents=True, exist_ok=True)
    settings = replace(QUICK if quick else Settings(), seeds=seeds)
    if traces:
        trace_map = {Path(t): 1.0 for t in traces}
    elif shared_traces is not None and shared_traces.is_dir():
        names = QUICK_TRACES if quick else tuple(DEFAULT_TRACES)
        trace_map = {shared_traces / rel: DEFAULT_TRACES[rel] for rel in names}
    else:
        console.print("no --trace given and ../shared/traces is not present: Fig. 20 is skipped")
        trace_map = {}
    jobs = fio_jobs(settings) + cmt_jobs(settings) + trace_jobs(trace_map, settings)
    if verify:
        jobs = verified(jobs)
    console.print(
        f"{len(jobs)} runs on {PRESET} ({logical_pages(settings):,} logical pages; "
        f"warm-up {settings.warmup_ns / SECOND_NS:g} s simulated before reads and traces)"
    )
    runs = pd.DataFrame(run_jobs(jobs, _worker, (runner or Runner()).under(out)))
    runs.insert(0, "preset", PRESET)
    runs.insert(1, "trace", [j.trace or "" for j in jobs])
    runs.to_csv(out / "runs.csv", index=False)
    result = tables(runs)
    ours_vs_paper = paper_table(result)
    write_tables(
        out / "tables.md",
        {**result, "The paper's figures beside ours": ours_vs_paper},
        f"Preset {PRESET}, overrides {' '.join(settings.device) or '(none)'}",
    )
    write_verdicts(out / "verdicts.csv", ours_vs_paper)
    plots(runs, out)
    for title, table in result.items():
        print_frame(title, table)
    print_frame("The paper's figures beside ours", ours_vs_paper)
    console.print(f"\nresults: {out}/ (runs.csv, tables.md, verdicts.csv, fig14_fig15.png, fig20.png)")
    return result
