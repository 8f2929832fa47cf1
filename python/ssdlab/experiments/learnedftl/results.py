"""What the LearnedFTL reproduction keeps of a run (`_worker`, its pick of the run's figures)."""

from __future__ import annotations

from typing import Any

from ssdlab.experiments.common import Job, Measured


def _worker(job: Job, run: Measured) -> dict[str, Any]:
    report, figures = run.report, run.figures
    m = report["policies"]["mapping_report"] or {}
    lat = report.latency
    gc = report["gc"]
    return {
        **job.labels,
        "iops": figures["iops"],
        "mb_per_s": figures["mb_per_s"],
        "requests": figures["requests"],
        "span_s": figures["simulated_span_s"],
        "read_p99_us": figures["read_p99_us"],
        "read_p99_9_us": figures["read_p99_9_us"],
        "all_p99_us": lat.loc["all"]["p99"],
        "all_p99_9_us": lat.loc["all"]["p99_9"],
        "write_p99_us": figures["write_p99_us"],
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
        "erased_blocks": figures["erases"],
        "gc_invocations": gc["foreground_invocations"],
        "line_collections": gc["line_collections"],
        "lines_collected": gc["lines_collected"],
        "pages_copied": figures["gc_pages_copied"],
        # gc.background = "between_requests" (the artifact's DFTL and TPFTL): one line each.
        "background_collections": gc["partial_steps"],
        "warmup_requests": report["warmup"]["timed_requests"],
        "warmup_programs": report["warmup"]["timed_programs"],
        "verified": report["verify"]["final_scan_passed"] if report["verify"]["enabled"] else None,
    }


# A kept run's id is salted with its pick's qualified name (`run_jobs`): the pick keeps the name
# it had before learnedftl.py became a package, so that runs kept before still resume.
_worker.__module__ = "ssdlab.experiments.learnedftl"
