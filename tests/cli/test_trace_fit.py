"""`ssdlab trace fit` / `trace synth` and workload specs as `--workload`: a real trace fitted,
drawn ten times longer, compared with the original; the papers' built-in specs run; bad specs and
bad arguments get clear errors."""

from __future__ import annotations

import json
import tomllib

import pytest
from click.testing import CliRunner

from ssdlab import trace as ssdlab_trace
from ssdlab.cli import cli, main


def _stats(path: str) -> dict:
    return ssdlab_trace.stats(path)


def test_fit_then_synth_keeps_the_traces_figures_at_ten_times_its_length(traces, tmp_path):
    trace = traces / "msr" / "msr_cut10k_thpt_rand_1006.trace"
    spec, out = tmp_path / "spec.toml", tmp_path / "synth.sstr"
    runner = CliRunner()
    result = runner.invoke(cli, ["trace", "fit", str(trace), "-o", str(spec), "--requests", "100000"])
    assert result.exit_code == 0, result.output
    fitted = tomllib.loads(spec.read_text())
    assert fitted["length"]["requests"] == 100_000
    result = runner.invoke(cli, ["trace", "synth", str(spec), "-o", str(out), "--seed", "3"])
    assert result.exit_code == 0 and "100,000 records" in result.output, result.output
    a, b = _stats(str(trace)), _stats(str(out))
    assert b["requests"] == 100_000
    assert abs(a["read_ratio"] - b["read_ratio"]) < 0.01
    assert abs(a["mean_read_bytes"] / b["mean_read_bytes"] - 1) < 0.05
    assert abs(a["mean_write_bytes"] / b["mean_write_bytes"] - 1) < 0.05
    # Ten times the requests over the same footprint: the footprint does not grow past it.
    assert 0.8 * a["footprint_bytes"] <= b["footprint_bytes"] <= 1.1 * a["footprint_bytes"]
    # Side by side, as a user compares them.
    result = runner.invoke(cli, ["trace", "stats", str(trace), str(out)])
    assert result.exit_code == 0 and "re-read share" in result.output, result.output


def test_fit_scales_the_address_space_and_the_footprints(traces, tmp_path):
    trace = traces / "msr" / "hm_0.sample1000.csv"
    small, large = tmp_path / "small.toml", tmp_path / "large.toml"
    runner = CliRunner()
    assert runner.invoke(cli, ["trace", "fit", str(trace), "-o", str(small)]).exit_code == 0
    result = runner.invoke(cli, ["trace", "fit", str(trace), "-o", str(large), "--address-space", "128g"])
    assert result.exit_code == 0, result.output
    s, big = tomllib.loads(small.read_text()), tomllib.loads(large.read_text())
    assert big["address_space"] == 128 << 30
    scale = big["address_space"] / s["address_space"]
    assert abs(big["write"]["footprint"] / s["write"]["footprint"] / scale - 1) < 0.01
    assert "re-reads" in result.output  # hm_0's excerpt re-reads nothing it wrote: named, not fitted


def test_a_builtin_spec_and_a_spec_file_run_as_workloads(tmp_path):
    runner = CliRunner()
    out = tmp_path / "r.json"
    args = ["run", "--workload", "fsp-ali735", "--set", "workload.count=5000", "--set", "verify=true"]
    result = runner.invoke(cli, [*args, "--out", str(out)])
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text())
    assert report["workload"]["requests"] == 5000 and report["verify"]["final_scan_passed"]
    spec = tmp_path / "w.toml"
    spec.write_text("address_space = '64m'\nread_ratio = 0.25\n[length]\nrequests = 3000\n")
    result = runner.invoke(cli, ["run", "--workload", str(spec), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert json.loads(out.read_text())["workload"]["requests"] == 3000
    listing = runner.invoke(cli, ["presets"])
    assert "slc-ycsb-a" in listing.output and "Table 4" in listing.output


def _exit_code_and_err(capsys, *args: str) -> tuple[int, str]:
    with pytest.raises(SystemExit) as info:
        main(list(args))
    return int(info.value.code or 0), capsys.readouterr().err.replace("\n", " ")


def test_impossible_specs_and_short_traces_are_named(tmp_path, traces, capsys):
    spec = tmp_path / "bad.toml"
    spec.write_text(
        "address_space = '1g'\n[length]\nrequests = 10\n[read.popularity]\nkind = 'curve'\n"
        "curve = [[0.05, 1.5]]\n[write.sizes]\nbins = [{ size = '8k', weight = 0 }]\n"
    )
    code, err = _exit_code_and_err(capsys, "trace", "synth", str(spec), "-o", str(tmp_path / "x.sstr"))
    assert code == 2, err
    assert "read.popularity.curve[0]" in err and "bad.toml:6" in err
    assert "write.sizes.bins: the weights sum to 0" in err
    code, err = _exit_code_and_err(capsys, "run", "--workload", str(spec), "-q")
    assert code == 2 and "workload.spec" in err, err
    runner = CliRunner()
    # wdev_3 has 11 reads: the read figures are named as not fitted, the rest is.
    out = tmp_path / "wdev.toml"
    result = runner.invoke(cli, ["trace", "fit", str(traces / "msr" / "wdev_3.csv"), "-o", str(out)])
    assert result.exit_code == 0 and "read sizes" in result.output, result.output
    assert tomllib.loads(out.read_text())["write"]["popularity"]["kind"] == "curve"
    code, err = _exit_code_and_err(capsys, "trace", "fit", "x", "-o", str(out), "--address-space", "lots")
    assert code == 2 and "not a size" in err, err
    # Options the trace cannot be fitted with: named, exit 2, never an internal error.
    hm0 = str(traces / "msr" / "hm_0.sample1000.csv")
    code, err = _exit_code_and_err(capsys, "trace", "fit", hm0, "-o", str(out), "--page-bytes", "2097152")
    assert code == 2 and "page_bytes" in err and "internal" not in err, err
    code, err = _exit_code_and_err(capsys, "trace", "fit", hm0, "-o", str(out), "--address-space", "4k")
    assert code == 2 and "larger than address_space" in err and "internal" not in err, err


def test_fit_prints_the_comparison_and_names_what_it_cannot_fit(tmp_path, traces):
    """A trace the spec format cannot express: each 4 KiB write is followed by a 64 KiB read of
    it and the 15 pages written just before it, so every page a read touches was written in the
    last 30 requests (re-read share 99.6 %: the first reads reach 15 pages below the first
    write). A spec's re-read goes back to one write and reads on
    from its start, into pages not written yet: the fit names the share it cannot reach, the
    table marks it, and a closing warning names it."""
    lines = []
    for i in range(2000):
        lines.append(f"{(2 * i) * 10_000},h,0,Write,{(100 + i) * 4096},4096,1")
        lines.append(f"{(2 * i + 1) * 10_000},h,0,Read,{(100 + i - 15) * 4096},65536,1")
    trace = tmp_path / "backwards.csv"
    trace.write_text("\n".join(lines) + "\n")
    result = CliRunner().invoke(cli, ["trace", "fit", str(trace), "-o", str(tmp_path / "b.toml")])
    said = " ".join(result.output.split())
    assert result.exit_code == 0, result.output
    assert "fitted spec against the trace" in said and "re-read share 99.6%" in said, said
    assert "the spec at most about" in said, said
    assert "warning:" in said and "outside the 20% tolerance" in said and "re-read share (99.6% vs" in said, (
        said
    )
    # The same comparison from Python, judged against a tolerance given there.
    fitted = ssdlab_trace.fit(trace, tolerance=0.3)
    assert fitted.comparison["tolerance"] == 0.3 and "re-read share" in fitted.misses
    assert "re-read share" not in ssdlab_trace.fit(trace, tolerance=0.5).misses
    frame = fitted.comparison_frame()
    row = frame.set_index("figure").loc["re-read share"]
    assert row["original"] > 0.99 and row["fitted"] < 0.7 and not row["within"]
    # A trace the spec carries: no warning (the OLTP trace, re-reads included).
    tpcc = traces / "ms_production" / "tpcc_small.disksim_ns.txt"
    result = CliRunner().invoke(cli, ["trace", "fit", str(tpcc), "-o", str(tmp_path / "t.toml")])
    assert result.exit_code == 0 and "warning:" not in result.output, result.output
    assert ssdlab_trace.fit(tpcc).misses == []
