"""A report's views for notebooks and tables: its one-line repr and HTML table, its time series
by name (every rate series), and the per-run figures of every results table."""

from __future__ import annotations

import math

import pytest

import ssdlab
from ssdlab._console import fmt_duration_us, fmt_sig
from ssdlab.report import RATE_SERIES, Report, run_figures

RANDRW = ["workload.rw=randrw", "workload.count=6000", "workload.iodepth=4", "warmup.fill=true",
          "warmup.random_writes=0.5", "report.sample_interval_ns=20000"]  # fmt: skip


@pytest.fixture(scope="module")
def report() -> Report:
    return ssdlab.run(preset="tiny", overrides=RANDRW)


def test_repr_is_one_line_with_preset_workload_requests_iops_write_p99_and_waf(report):
    s = report.summary()
    assert repr(report) == (
        f"<Report tiny, randrw: 6,000 requests, {fmt_sig(s['iops'])} IOPS, "
        f"write p99 {fmt_duration_us(s['write_p99_us'])}, WAF {fmt_sig(s['waf'])}>"
    )
    assert s["iops"] > 1000 and "," in fmt_sig(s["iops"])


def test_repr_html_is_a_small_table_of_the_same_figures(report):
    html = report._repr_html_()
    assert html.startswith("<table>") and html.endswith("</table>")
    for figure in ("preset", "workload", "requests", "IOPS", "MB/s", "write p50 / p99", "WAF"):
        assert f">{figure}</th>" in html
    assert ">6,000</td>" in html


def test_every_rate_series_is_a_dataframe_with_its_unit_in_its_name(report):
    assert set(RATE_SERIES) <= set(report.time_series_names)
    for name in RATE_SERIES:
        frame = report.time_series(name)
        assert list(frame.columns) == ["time_s", name], name
        assert len(frame) > 5, name
        assert frame["time_s"].is_monotonic_increasing
        assert frame["time_s"].equals(report.time_series("iops")["time_s"]), "one time axis"
        assert frame[name].notna().sum() > 5, name
    iops = report.time_series("iops")
    # The series' requests: the rate times each interval's length (the last to the run's end).
    interval_s = report["time_series"]["iops"]["interval_ns"] / 1e9
    lengths = [interval_s] * (len(iops) - 1) + [report["workload"]["span_ns"] / 1e9 - iops["time_s"].iloc[-1]]
    assert sum(iops["iops"] * lengths) == pytest.approx(6000)
    with pytest.raises(KeyError, match=r"no time series 'latency'.*free_blocks"):
        report.time_series("latency")


def test_a_write_only_run_has_a_read_latency_series_of_nan_not_zeros():
    r = ssdlab.run(preset="tiny", overrides=["workload.rw=randwrite", "workload.count=2000"])
    reads = r.time_series("read_latency_p99_us")
    assert len(reads) == len(r.time_series("iops")) and reads["read_latency_p99_us"].isna().all()
    assert all(v is None for v in r["time_series"]["read_latency_p99_us"]["values"]), "null in the JSON"
    assert r.time_series("write_latency_p99_us")["write_latency_p99_us"].notna().any()
    assert "write p99" in repr(r) and "IOPS" in repr(r)


def test_run_figures_have_throughput_and_medians(report):
    figures = run_figures(report)
    s = report.summary()
    assert figures["iops"] == s["iops"] > 0
    assert figures["mb_per_s"] == s["mb_per_s"] > 0
    lat = report.latency
    assert figures["read_p50_us"] == lat.loc["read", "p50"]
    assert figures["write_p50_us"] == lat.loc["write", "p50"]
    assert figures["write_p50_us"] <= figures["write_p99_us"]
    reads_only = ssdlab.run(preset="tiny", overrides=["workload.rw=randread", "workload.count=500"])
    assert math.isnan(run_figures(reads_only)["write_p50_us"])


def test_a_saved_report_keeps_its_views(report, tmp_path):
    report.save(tmp_path / "r.json")
    loaded = Report.load(tmp_path / "r.json")
    assert repr(loaded) == repr(report)
    assert loaded.time_series("waf").equals(report.time_series("waf"))
    assert loaded.preset == "tiny"
