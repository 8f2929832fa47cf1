"""What `ssdlab report` reads: each kind of input told apart and read, and bad input refused with
a message naming the file."""

from __future__ import annotations

import json
import shutil

import pyarrow.parquet as pq
import pytest

from ssdlab.errors import SsdlabIOError
from ssdlab.htmlreport import sources


def test_each_kind_is_told_apart(run_json, compare_path, sweep_path, reproduction_path):
    assert isinstance(sources.load(run_json), sources.RunInput)
    assert isinstance(sources.load(compare_path), sources.CompareInput)
    assert isinstance(sources.load(sweep_path), sources.SweepInput)
    assert isinstance(sources.load(reproduction_path), sources.ReproductionInput)


def test_compare_reads_every_run_with_its_histograms(compare_path):
    source = sources.load(compare_path)
    assert source.keys == ["gc.scheduler"]
    assert list(source.runs["variant"]) == ["greedy", "greedy", "rlgc", "rlgc"]
    for (_, row), report in zip(source.runs.iterrows(), source.reports, strict=True):
        assert report["seed"] == row["seed"]
        assert report["config"]["gc"]["scheduler"] == row["variant"]
        assert report.histograms["write"], "compare's saved reports carry their histograms"


def test_sweep_axes_are_the_columns_that_are_neither_bookkeeping_nor_figures(sweep_path):
    source = sources.load(sweep_path)
    assert source.axes == ["gc.scheduler", "device.utilization"]
    failed = source.results[source.results["status"] == "failed"]
    assert len(failed) == 4 and set(failed["device.utilization"]) == {1.5}
    assert all("utilization" in e for e in failed["error"])
    ok = source.results[source.results["status"] == "ok"]
    assert sorted(source.reports) == sorted(ok["cell_id"])
    assert "[axes]" in source.grid_text


def test_a_directory_without_results_is_a_clear_error(tmp_path):
    (tmp_path / "notes.txt").write_text("nothing here")
    with pytest.raises(SsdlabIOError, match="no results to report on"):
        sources.load(tmp_path)
    with pytest.raises(SsdlabIOError, match="no such file or directory"):
        sources.load(tmp_path / "absent")


def test_a_file_that_is_not_a_run_report_is_refused(tmp_path, compare_path):
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"hello": 1}))
    with pytest.raises(SsdlabIOError, match="not a run report"):
        sources.load(other)
    with pytest.raises(SsdlabIOError, match="give the directory"):
        sources.load(compare_path / "runs.csv")


def test_a_compare_whose_report_is_missing_names_it(tmp_path, compare_path):
    copy = shutil.copytree(compare_path, tmp_path / "cmp")
    (copy / "reports" / "rlgc_seed1.json").unlink()
    with pytest.raises(SsdlabIOError, match=r"runs.csv names reports/rlgc_seed1.json, which is missing"):
        sources.load(copy)


def test_sweep_results_of_another_schema_are_refused_not_misread(tmp_path, sweep_path):
    copy = shutil.copytree(sweep_path, tmp_path / "sweep")
    table = pq.read_table(copy / "results.parquet")
    for schema, shown in ((b"2", "schema 2"), (None, "schema none")):
        metadata = {k: v for k, v in (table.schema.metadata or {}).items() if k != sources.SWEEP_SCHEMA_KEY}
        if schema is not None:
            metadata[sources.SWEEP_SCHEMA_KEY] = schema
        pq.write_table(table.replace_schema_metadata(metadata), copy / "results.parquet")
        with pytest.raises(SsdlabIOError, match=f"{shown}; this ssdlab reads schema 1"):
            sources.load(copy)


def test_reproduction_reads_verdicts_tables_figures_runs_and_cells(reproduction_path):
    source = sources.load(reproduction_path)
    assert list(source.verdicts.columns) == ["headline", "paper", "ours", "ratio", "verdict"]
    assert "### Table 1" in source.tables_md
    assert [p.name for p in source.figures] == ["fig1_tails.png"]
    assert sorted(source.cells) == ["greedy", "rlgc"]
    assert len(source.runs) == 2 and source.sweep is None


def _figures_worker(job, run):
    """A reproduction's pick in small: the run's labels and a figure (module level, as the
    engine wants)."""
    return {**job.labels, "waf": run.figures["waf"]}


def test_a_reproductions_run_records_are_not_taken_for_reports(tmp_path):
    """A reproduction on the sweep engine keeps the engine's records under cells/ (its worker's
    figures), not run reports: the page reads the directory, says so, and names the version."""
    from ssdlab import __version__
    from ssdlab.experiments.common import Job, Runner, run_jobs
    from ssdlab.htmlreport import build_page
    from ssdlab.setup import Setup

    jobs = [Job({"policy": "greedy", "seed": 0}, Setup("tiny", "randrw", overrides=("workload.count=2000",)))]
    rows = run_jobs(jobs, _figures_worker, Runner(processes=1).under(tmp_path))
    assert len(list((tmp_path / "cells").glob("*.json"))) == 1
    (tmp_path / "runs.csv").write_text("policy,seed,waf\n" + f"greedy,0,{rows[0]['waf']}\n")
    (tmp_path / "verdicts.csv").write_text(
        "headline,paper,ours,ratio,verdict\nWAF (x),1.0,1.1,1.1,reproduced\n"
    )
    source = sources.load(tmp_path)
    assert source.cells == {} and source.record_versions == [__version__]
    page, kind = build_page(tmp_path)
    assert kind == "reproduction"
    assert "the sweep engine" in page.render() and __version__ in page.render()
