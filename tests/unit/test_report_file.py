"""A saved report keeps its latency histograms, so that a report read back from disk (by
`ssdlab report`, for one) draws the same exact CDF as the run that wrote it."""

from __future__ import annotations

import json

import ssdlab
from ssdlab.experiments import compare as experiment
from ssdlab.report import Report

MIXED = ["workload.count=2000", "warmup.fill=true"]


def test_saved_report_round_trips_its_histograms(tmp_path):
    report = ssdlab.run(preset="tiny", workload="randrw", overrides=MIXED)
    assert report.histograms["read"] and report.histograms["write"]
    path = tmp_path / "r.json"
    report.save(path)
    loaded = Report.load(path)
    assert loaded.raw == report.raw, "the core's report is unchanged: the histograms sit beside it"
    # `all` is not written; merged again on load, it is the core's own `all`, pair for pair.
    assert "all" not in json.loads(path.read_text())["latency_histograms"]
    assert loaded.histograms == report.histograms
    assert loaded.latency_cdf("write").equals(report.latency_cdf("write"))
    # Saving what was loaded writes the same bytes (a report file is reproducible).
    loaded.save(tmp_path / "again.json")
    assert (tmp_path / "again.json").read_bytes() == path.read_bytes()


def test_histograms_are_one_line_each_so_the_file_stays_small(tmp_path):
    report = ssdlab.run(preset="tiny", workload="randrw", overrides=MIXED)
    path = tmp_path / "r.json"
    report.save(path)
    lines = path.read_text().splitlines()
    write_line = next(ln for ln in lines if ln.lstrip().startswith('"write": [['))
    pairs = json.loads(write_line.split(": ", 1)[1].rstrip(","))
    assert [tuple(p) for p in pairs] == report.histograms["write"]


def test_a_report_saved_without_histograms_still_loads(tmp_path):
    """Files written before histograms were saved (the core's report alone) load as before, with
    no histograms, and `latency_cdf` is empty rather than wrong."""
    report = ssdlab.run(preset="tiny", workload="randwrite", overrides=MIXED)
    path = tmp_path / "old.json"
    path.write_text(json.dumps(report.raw, indent=2) + "\n")
    loaded = Report.load(path)
    assert loaded.raw == report.raw
    assert loaded.histograms == {}
    assert loaded.latency_cdf("write").empty


def test_compare_saves_reports_with_their_histograms(tmp_path):
    setup = experiment.Setup(preset="tiny", workload="randwrite", overrides=("workload.count=1000",))
    comparison = experiment.compare(
        setup, [experiment.Vary.parse("gc.victim=greedy,fifo")], seeds=1, processes=1
    )
    written = experiment.write_outputs(comparison, tmp_path)
    saved = sorted(written["reports"].glob("*.json"))
    assert [p.name for p in saved] == ["fifo_seed0.json", "greedy_seed0.json"]
    for path in saved:
        report = Report.load(path)
        pooled = comparison.tails[report["config"]["gc"]["victim"]]
        assert report.histograms["write"] == pooled  # one seed: the pooled tail is this run's
        assert sum(c for _, c in report.histograms["write"]) == 1000
