"""The Python API: runs, reports, configuration errors, determinism."""

from __future__ import annotations

import json
import math
import tomllib

import pandas as pd
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ssdlab
from ssdlab import plots

SMALL = ["workload.count=3000", "warmup.fill=true"]


def tiny_device() -> dict:
    """The `tiny` preset's [device] table, read from its TOML (not from a report)."""
    return tomllib.loads(ssdlab.preset_toml("tiny"))["device"]


def test_run_returns_a_complete_report():
    report = ssdlab.run(preset="tiny", workload="randwrite", overrides=SMALL)
    assert report["schema"] == "ssdlab-report/1"
    assert report["workload"]["requests"] == 3000
    assert report.waf >= 1.0
    assert report["config"]["device"]["channels"] == 2
    assert report["git_revision"]
    lat = report.latency
    assert list(lat.index) == ["read", "write", "trim", "all"]
    assert lat.loc["write", "count"] == 3000
    assert lat.loc["write", "p50"] <= lat.loc["write", "p99"] <= lat.loc["write", "max"]
    # Free blocks can never exceed the blocks the filled logical space leaves over: tiny has
    # 2 x 2 x 64 = 256 blocks of 96 pages, 12.5% over-provisioned, so 224 blocks hold data.
    d = tiny_device()
    blocks = d["channels"] * d["chips_per_channel"] * d["planes_per_die"] * d["blocks_per_plane"]
    logical_pages = int(blocks * d["pages_per_block"] * (1 - d["overprovisioning"]))
    spare_blocks = blocks - math.ceil(logical_pages / d["pages_per_block"])
    assert (blocks, spare_blocks) == (256, 32)
    ts = report.time_series("free_blocks")
    assert list(ts.columns) == ["time_s", "free_blocks"]
    assert len(ts) > 100
    assert ts["free_blocks"].between(0, spare_blocks).all()
    assert ts["time_s"].is_monotonic_increasing
    assert ts["time_s"].iloc[0] >= 0 and ts["time_s"].iloc[-1] <= report["workload"]["span_ns"] / 1e9
    cdf = report.latency_cdf("write")
    assert cdf["cdf"].iloc[-1] == pytest.approx(1.0)
    assert cdf["latency_us"].is_monotonic_increasing


def test_same_seed_gives_identical_reports_and_other_seed_differs():
    args = {"preset": "tiny", "workload": "randrw", "overrides": ["workload.count=4000"]}
    a = ssdlab.run(**args).raw
    b = ssdlab.run(**args).raw
    c = ssdlab.run(**{**args, "overrides": [*args["overrides"], "seed=99"]}).raw
    assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    assert a["latency"] != c["latency"]


def test_config_errors_list_every_problem_with_attributes():
    with pytest.raises(ssdlab.ConfigError) as info:
        ssdlab.run(preset="tiny", overrides=["gc.victimm=fifo", "device.colour=red"])
    keys = {key for key, _ in info.value.problems}
    assert {"gc.victimm", "device.colour"} <= keys
    with pytest.raises(ssdlab.ConfigError) as info:
        ssdlab.run(preset="tiny", overrides=["device.utilization=1.5", "workload.iodepth=0", "bogus=1"])
    keys = {key for key, _ in info.value.problems}
    assert {"device.utilization", "workload.iodepth", "bogus"} <= keys
    assert isinstance(info.value, ValueError)


def test_unknown_preset_and_workload_are_config_errors():
    with pytest.raises(ssdlab.ConfigError):
        ssdlab.run(preset="nope")
    with pytest.raises(ssdlab.ConfigError):
        ssdlab.run(preset="tiny", workload="not-a-pattern")


def test_resolved_config_has_every_key():
    text = ssdlab.resolve("tiny", overrides=["gc.victim=fifo"])
    cfg = tomllib.loads(text)
    assert cfg["gc"]["victim"] == "fifo"
    assert {"seed", "verify", "device", "ftl", "gc", "workload", "warmup", "report"} <= set(cfg)
    assert "timing" in cfg["device"] and "trace" in cfg["workload"]


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(min_value=0, max_value=2**63 - 1),
    victim=st.sampled_from(["greedy", "fifo", "cost_benefit"]),
    utilization=st.floats(min_value=0.05, max_value=1.0),
    iodepth=st.integers(min_value=1, max_value=256),
)
def test_config_round_trips_through_resolve(tmp_path_factory, seed, victim, utilization, iodepth):
    overrides = [
        f"seed={seed}",
        f"gc.victim={victim}",
        f"device.utilization={utilization!r}",
        f"workload.iodepth={iodepth}",
    ]
    cfg = tomllib.loads(ssdlab.resolve("tiny", overrides=overrides))
    assert cfg["seed"] == seed and cfg["gc"]["victim"] == victim
    assert cfg["device"]["utilization"] == utilization and cfg["workload"]["iodepth"] == iodepth
    # The resolved config is complete: resolving it alone, without a preset, is a fixed point.
    path = tmp_path_factory.mktemp("cfg") / "resolved.toml"
    path.write_text(ssdlab.resolve("tiny", overrides=overrides))
    assert tomllib.loads(ssdlab.resolve(None, config_files=[path])) == cfg


def test_per_request_log_to_parquet(tmp_path):
    report = ssdlab.run(preset="tiny", workload="randrw", overrides=["workload.count=2000"], request_log=True)
    assert report.requests is not None and len(report.requests) == 2000
    out = tmp_path / "requests.parquet"
    report.write_requests_parquet(out)
    table = pq.read_table(out)
    assert table.num_rows == 2000
    assert set(table.column_names) == {"arrival_ns", "latency_ns", "op", "offset_bytes", "size_bytes"}
    frame = table.to_pandas()
    # The log agrees with the report's own counters and percentiles, computed in the core.
    reads = frame[frame["op"] == "read"]
    assert len(reads) == report["workload"]["reads"]
    assert (frame["size_bytes"] == 4096).all()  # randrw's bs = 4k
    assert reads["latency_ns"].max() == report["latency"]["read"]["max_ns"]
    assert frame["latency_ns"].max() == report["latency"]["all"]["max_ns"]
    completion_ns = frame["arrival_ns"] + frame["latency_ns"]
    assert completion_ns.max() - frame["arrival_ns"].min() == report["workload"]["span_ns"]


def test_qd1_reads_on_an_idle_drive_take_command_plus_tr_plus_transfer():
    """At queue depth 1 nothing queues and reads trigger no GC, so every read takes exactly the
    command, the array read of its page type (LSB/CSB/MSB) and one page transfer on the channel,
    all from the preset's timing table."""
    report = ssdlab.run(
        preset="tiny",
        workload="randread",
        overrides=["workload.count=3000", "workload.iodepth=1"],
        request_log=True,
    )
    d = tiny_device()
    t = d["timing"]
    transfer_ns = math.ceil(d["page_bytes"] * 1e9 / t["channel_bytes_per_s"])
    expected = [t["command_ns"] + read_ns + transfer_ns for read_ns in t["read_ns"]]
    assert expected == [61_240, 81_240, 101_240]
    assert report.requests is not None
    observed = report.requests["latency_ns"].value_counts().to_dict()
    by_type = report["device"]["counters"]["reads_by_page_type"]
    assert observed == {lat: n for lat, n in zip(expected, by_type, strict=True) if n}
    lat = report.latency.loc["read"]
    mean_us = sum(e * n for e, n in zip(expected, by_type, strict=True)) / sum(by_type) / 1e3
    assert lat["mean"] == pytest.approx(mean_us, rel=1e-9)
    assert lat["max"] == expected[-1] / 1e3 and lat["count"] == 3000


def test_a_latency_row_without_requests_is_missing_not_zero():
    writes = ssdlab.run(preset="tiny", workload="randwrite", overrides=SMALL)
    assert writes["latency"]["read"]["count"] == 0  # the core's JSON keeps the empty row
    read_row = writes.latency.loc["read"]
    assert read_row["count"] == 0
    assert read_row.drop("count").isna().all()
    assert not writes.latency.loc["write"].isna().any()
    s = writes.summary()
    assert math.isnan(s["read_p99_us"]) and math.isnan(s["read_p99_99_us"])
    assert s["write_p99_us"] == writes["latency"]["write"]["p99_ns"] / 1e3
    reads = ssdlab.run(preset="tiny", workload="randread", overrides=["workload.count=500"])
    assert reads["waf"] == 0.0  # the core writes 0 for a run without host writes ...
    assert math.isnan(reads.summary()["waf"])  # ... which the summary shows as missing
    assert reads.latency.loc["write"].drop("count").isna().all()


def test_plots_write_pngs(tmp_path):
    report = ssdlab.run(preset="tiny", workload="randwrite", overrides=SMALL)
    plots.latency_cdf({"tiny": report}, "write", tail=True, path=tmp_path / "cdf.png")
    plots.time_series({"tiny": report}, "free_blocks", path=tmp_path / "ts.png")
    table = pd.DataFrame({"a": [1.0, 2.0], "b": [2.0, 2.0]}, index=["w1", "w2"])
    plots.normalized_bars(table, baseline="b", path=tmp_path / "bars.png")
    for name in ("cdf.png", "ts.png", "bars.png"):
        assert (tmp_path / name).stat().st_size > 1000


def test_report_save_and_load(tmp_path):
    report = ssdlab.run(preset="tiny", workload="randwrite", overrides=SMALL)
    path = tmp_path / "r.json"
    report.save(path)
    on_disk = json.loads(path.read_text())
    assert set(on_disk.pop("latency_histograms")) == {"read", "write", "trim"}  # see test_report_file.py
    assert on_disk == report.raw
    loaded = ssdlab.Report.load(path)
    assert loaded.raw == on_disk
    # The loaded report's summary against figures read from the file itself.
    s = loaded.summary()
    assert s["requests"] == 3000
    assert s["write_p99_us"] == on_disk["latency"]["write"]["p99_ns"] / 1e3
    assert s["write_p99_99_us"] == on_disk["latency"]["write"]["p99_99_ns"] / 1e3
    assert s["waf"] == on_disk["waf"] > 1.0
    assert s["erases"] == on_disk["wear"]["erases"] > 0
    assert math.isnan(s["read_p99_us"])  # a write-only run


def test_verify_mode_checks_every_page_read():
    """Verify checks each page a host read touches: 8 KiB reads on 4 KiB pages are two checks
    each, counted against the read requests the workload side reports."""
    report = ssdlab.run(preset="tiny", workload="randrw", overrides=[*SMALL, "verify=true", "workload.bs=8k"])
    verify = report["verify"]
    assert verify["enabled"] and verify["final_scan_passed"]
    reads = report["workload"]["reads"]
    assert 0 < reads < 3000
    assert verify["reads_checked"] == 2 * reads


def test_learning_diagnostics_of_an_agent_and_its_random_control(tmp_path):
    """The `learning` section as a DataFrame and a learning curve, for RLGC and its control."""
    base = [
        "gc.scheduler=rlgc",
        "gc.trigger_free_blocks=12",
        "gc.rlgc.zero_interval=same_arrival",
        "gc.rlgc.reward_sample_every=500",
        "workload.count=20000",
        "warmup.fill=true",
        "warmup.random_writes=0.5",
    ]
    learned = ssdlab.run(preset="tiny", workload="randwrite", overrides=base)
    control = ssdlab.run(
        preset="tiny", workload="randwrite", overrides=[*base, "gc.rlgc.random_control=true"]
    )
    frame = learned.learning
    assert list(frame.index) == ["gc"]
    row = frame.loc["gc"]
    assert row["policy"] == "rlgc" and not row["control"]
    assert row["decisions"] == row["exploitations"] + row["explorations"] > 1000
    assert sum(row["action_histogram"]) == row["decisions"]
    assert 0 < row["states_visited"] <= row["n_states"] == 68
    assert row["q_spread_mean"] > 0
    c = control.learning.loc["gc"]
    assert c["control"] and c["exploitations"] == 0 and c["explorations"] == c["decisions"]
    curve = learned.learning_curve("gc")
    assert list(curve["decisions"][:2]) == [500, 1000]
    assert curve["window_rewards"].sum() <= row["rewards"]
    assert curve["mean_reward"].iloc[-1] == pytest.approx(row["mean_reward"], abs=0.05)
    with pytest.raises(KeyError, match="points with an agent: gc"):
        learned.learning_curve("region")
    assert ssdlab.run(preset="tiny", workload="randwrite", overrides=SMALL).learning.empty
    path = tmp_path / "curve.png"
    plots.learning_curves({"RLGC": curve, "RLGC control": control.learning_curve("gc")}, path=path)
    assert path.stat().st_size > 0
    with pytest.raises(ssdlab.ConfigError, match=r"gc\.rlgc\.random_control"):
        ssdlab.run(preset="tiny", workload="randwrite", overrides=[*SMALL, "gc.rlgc.random_control=true"])
