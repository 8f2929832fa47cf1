"""`ssdlab trace convert --to` (and `trace synth --to`): a synthetic trace and a real one written
in every format ssdlab writes and read back with `trace stats`; `ssdlab.trace.read` against
`trace stats` on a shared trace."""

from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner

from ssdlab import trace as ssdlab_trace
from ssdlab.cli import cli, main

FORMATS = ["binary", "msr", "disksim", "disksim_ns", "blkparse-text"]


@pytest.mark.parametrize("to", FORMATS)
def test_a_synthetic_trace_converts_and_reads_back_with_trace_stats(tmp_path, to):
    runner = CliRunner()
    out = tmp_path / f"ali.{to}"
    # A built-in spec is a source like a trace: drawn, then written.
    result = runner.invoke(
        cli, ["trace", "convert", "fsp-ali735", str(out), "--to", to, "--requests", "3000"]
    )
    assert result.exit_code == 0 and "3,000 records written" in result.output, result.output
    binary = tmp_path / "ali.sstr"
    assert (
        runner.invoke(
            cli, ["trace", "synth", "fsp-ali735", "-o", str(binary), "--requests", "3000"]
        ).exit_code
        == 0
    )
    a, b = ssdlab_trace.stats(str(binary)), ssdlab_trace.stats(str(out))
    # 8 KiB requests on 8 KiB pages: every format holds them exactly (MSR's times to 100 ns).
    for key in ("requests", "reads", "writes", "bytes_read", "bytes_written", "footprint_pages"):
        assert a[key] == b[key], (to, key)
    assert abs(a["time_span_ns"] - b["time_span_ns"]) <= 100
    result = runner.invoke(cli, ["trace", "stats", str(out)])
    assert result.exit_code == 0 and "3,000" in result.output, result.output


def test_a_real_trace_with_trims_and_devices_converts_to_each_format(traces, tmp_path):
    # The YCSB blkparse excerpt: reads of one NVMe device (259,2). Its device comes back from
    # each format that has one.
    source = traces / "blkparse" / "snia_ycsb_rocksdb_ssdtrace_first10k_lines.blkparse.txt.gz"
    original = ssdlab_trace.read(source)
    for to, fmt in (("msr", "msr"), ("disksim_ns", "disksim_ns"), ("blkparse", "blkparse")):
        out = tmp_path / f"ycsb.{to}"
        converted = ssdlab_trace.convert(source, out, to=to)
        assert converted.records == len(original) == 1694
        back = ssdlab_trace.read(out, format=fmt)
        assert (back["device"] == original["device"]).all(), to
        assert (back["offset_bytes"] == original["offset_bytes"]).all(), to
        assert (back["size_bytes"] == original["size_bytes"]).all(), to


def test_trims_are_counted_where_the_format_has_none(tmp_path):
    trace = tmp_path / "t.blkparse"
    trace.write_text(
        "  8,0    0        1     0.000001000   697  D   W 2048 + 8 [x]\n"
        "  8,0    0        2     0.000002000   697  D  DS 4096 + 2048 [fstrim]\n"
        "  8,0    0        3     0.000003000   697  D   R 2049 + 3 [x]\n"
    )
    runner = CliRunner()
    result = runner.invoke(cli, ["trace", "convert", str(trace), str(tmp_path / "t.csv"), "--to", "msr"])
    said = " ".join(result.output.split())
    assert (
        result.exit_code == 0 and "2 records written" in said and "1 trims skipped (msr has no trim)" in said
    ), said
    result = runner.invoke(cli, ["trace", "convert", str(trace), str(tmp_path / "t.bp"), "--to", "blkparse"])
    said = " ".join(result.output.split())
    assert "3 records written" in said and "skipped" not in said and "widened" not in said, said
    back = ssdlab_trace.read(tmp_path / "t.bp", devices="merge")
    assert list(back["op"]) == ["write", "trim", "read"]


def test_bad_convert_arguments_are_named(tmp_path, capsys):
    def run(*args: str) -> tuple[int, str]:
        with pytest.raises(SystemExit) as info:
            main(list(args))
        return int(info.value.code or 0), capsys.readouterr().err.replace("\n", " ")

    code, err = run("trace", "convert", "fsp-ali735", str(tmp_path / "x"), "--to", "spc")
    assert code == 2 and "'spc' is not one of" in err, err
    code, err = run("trace", "convert", "fsp-ali735", str(tmp_path / "x"), "-O", "device=1")
    assert code == 2 and "is a workload spec" in err, err


def test_read_matches_trace_stats_on_a_shared_trace(traces):
    path = traces / "ms_production" / "tpcc_small.disksim_ns.txt"
    stats = ssdlab_trace.stats(path)
    frame = ssdlab_trace.read(path)
    assert list(frame.columns) == ["arrival_ns", "op", "offset_bytes", "size_bytes", "device"]
    assert len(frame) == stats["requests"] == 6999
    assert frame["arrival_ns"].iloc[0] == stats["first_time_ns"]
    assert (frame["op"] == "read").sum() == stats["reads"]
    assert int(frame.loc[frame["op"] == "write", "size_bytes"].sum()) == stats["bytes_written"]
    assert frame["size_bytes"].dtype == np.uint64 and frame["device"].dtype == np.uint32
    # The first line, "938513000 4 264719034 16 0", in the device's own addresses.
    first = ssdlab_trace.read(path, devices="merge", limit=1)
    assert len(first) == 1
    row = first.iloc[0]
    assert (row["arrival_ns"], row["op"], row["offset_bytes"], row["size_bytes"], row["device"]) == (
        938_513_000,
        "write",
        264_719_034 * 512,
        8192,
        4,
    )
    # A format without a device column has no device column.
    cloud = ssdlab_trace.read(traces / "cloudphysics" / "cloudPhysicsIO.us.csv.gz", limit=10)
    assert "device" not in cloud.columns and len(cloud) == 10
