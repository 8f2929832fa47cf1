"""Configuration layers that never silently override, and errors that point at their cause
(issue 45): the order of the layers, the notes on what a later layer changed, `config show`'s
origins, unknown keys with their place and a suggestion, one problem per mistake, page-size
bounds, hints per error kind and command, and `overrides` as a dict."""

from __future__ import annotations

import gzip
import tomllib

import pytest

import ssdlab
from ssdlab.cli import main
from ssdlab.config import resolve_explained
from ssdlab.errors import ConfigError, TraceFormatError


def cli(capsys, *args: str) -> tuple[int, str, str]:
    """Run the CLI as a user does (`main`: errors printed, exit code): (code, stdout, stderr)."""
    try:
        main(list(args))
        code = 0
    except SystemExit as exit:
        code = int(exit.code or 0)
    out, err = capsys.readouterr()
    return code, out, " ".join(err.split())  # rich wraps long lines


@pytest.fixture
def my_toml(tmp_path):
    path = tmp_path / "my.toml"
    path.write_text("# my experiment\n[workload]\ncount = 30000\n")
    return path


def test_a_config_file_wins_over_the_workload_pattern_and_says_so(capsys, my_toml):
    code, out, err = cli(capsys, "config", "show", "-c", str(my_toml), "--workload", "randwrite")
    assert code == 0, err
    assert tomllib.loads(out)["workload"]["count"] == 30000
    assert f"note: workload.count: 200000 (from workload:randwrite:6) -> 30000 (from {my_toml}:3)" in err
    assert err.count("note: workload.count") == 1


def test_set_wins_over_a_file_and_each_key_is_noted_once(capsys, my_toml):
    code, out, err = cli(
        capsys, "config", "show", "-c", str(my_toml), "--workload", "randwrite", "--set", "workload.count=7"
    )
    assert code == 0, err
    assert tomllib.loads(out)["workload"]["count"] == 7
    expected = (
        f"workload.count: 200000 (from workload:randwrite:6) -> 30000 (from {my_toml}:3) -> 7 (from --set)"
    )
    assert f"note: {expected}" in err
    assert err.count("note:") == 1, err


def test_run_prints_the_override_once_and_runs_the_files_count(capsys, tmp_path):
    mine = tmp_path / "my.toml"
    mine.write_text("[workload]\ncount = 300\n")
    out = tmp_path / "r.json"
    code, _, err = cli(capsys, "run", "-c", str(mine), "--workload", "randread", "-q", "--out", str(out))
    assert code == 0, err
    assert "note: workload.count: 200000 (from workload:randread:" in err and f"-> 300 (from {mine}:2)" in err
    assert ssdlab.Report.load(out)["workload"]["requests"] == 300


def test_a_trace_with_a_workload_pattern_is_refused_unless_asked_for(capsys, tmp_path):
    trace = tmp_path / "t.csv"
    trace.write_text("128166372003061629,hm,0,Write,0,4096,100\n128166372003061729,hm,0,Read,0,4096,100\n")
    code, out, err = cli(capsys, "config", "show", "--trace", str(trace), "--workload", "randwrite")
    assert code == 2 and not out
    assert "a trace together with the workload 'randwrite'" in err
    for key in ("warmup.fill", "warmup.random_writes", "workload.count"):
        assert key in err
    assert "--trace-with-workload" in err
    code, out, err = cli(
        capsys, "config", "show", "--trace", str(trace), "--workload", "randwrite", "--trace-with-workload"
    )
    assert code == 0, err
    resolved = tomllib.loads(out)
    assert resolved["workload"]["kind"] == "trace" and resolved["warmup"]["fill"] is True
    with pytest.raises(ConfigError, match="trace_with_workload=True"):
        ssdlab.resolve(trace=trace, workload="randwrite")


def test_config_show_gives_each_keys_origin(capsys, my_toml):
    code, out, err = cli(
        capsys, "config", "show", "-c", str(my_toml), "--workload", "randwrite", "--set", "gc.victim=fifo"
    )
    assert code == 0, err

    def origin(key: str) -> str:
        line = next(line for line in out.splitlines() if line.startswith(f"{key} ="))
        return line.rsplit("# ", 1)[1]

    assert origin("channels") == "preset:tiny:5"
    assert origin("count") == f"{my_toml}:3"
    assert origin("bs") == "workload:randwrite:4"
    assert origin("victim") == "--set"
    assert origin("seed") == "default"
    code, plain, _ = cli(capsys, "config", "show", "--no-origins")
    assert code == 0 and "# default" not in plain


def test_an_unknown_key_in_a_file_names_its_line_and_a_suggestion(capsys, tmp_path):
    typo = tmp_path / "typo.toml"
    typo.write_text("seed = 1\n\n[gc]\nvictimm = 'fifo'\n")
    code, _, err = cli(capsys, "config", "show", "-c", str(typo))
    assert code == 2
    assert f"gc.victimm: unknown key (from {typo}:4); did you mean `gc.victim`?" in err


def test_channels_zero_is_one_problem(capsys, tmp_path):
    zero = tmp_path / "zero.toml"
    zero.write_text("[device]\nchannels = 0\n")
    code, _, err = cli(capsys, "config", "show", "-c", str(zero))
    assert code == 2
    assert f"error: device.channels: must be at least 1 (from {zero}:2)" in err
    assert "configuration problems" not in err and "spare blocks" not in err


def test_a_type_error_and_a_value_error_are_listed_together(capsys):
    code, _, err = cli(
        capsys, "config", "show", "--set", "device.channels=two", "--set", "device.utilization=2"
    )
    assert code == 2
    assert "2 configuration problems" in err
    assert 'device.channels: expected a non-negative integer (u32), got "two"' in err
    assert "device.utilization: 2 is outside (0, 1] (from --set)" in err


@pytest.mark.parametrize("page_bytes", ["1099511627776", "1000"])
def test_a_page_size_no_nand_has_is_refused(capsys, page_bytes):
    code, _, err = cli(capsys, "config", "show", "--set", f"device.page_bytes={page_bytes}")
    assert code == 2
    assert f"device.page_bytes: {page_bytes} is not a NAND page: a multiple of 512 from 512 to 65536" in err


@pytest.fixture
def traces(tmp_path):
    """One trace per kind of trace error (the flashnet layout: time_ms devno offset size type)."""
    good = [f"{i * 0.5:.3f} 0 {i * 4096} 4096 {i % 2}" for i in range(2000)]
    bad = tmp_path / "bad_line.trace"
    bad.write_text("\n".join([*good[:50], "25.0 0 notanumber 4096 0", *good[50:]]) + "\n")
    truncated = tmp_path / "truncated.trace.gz"
    truncated.write_bytes(gzip.compress(("\n".join(good * 20) + "\n").encode())[:4000])
    empty = tmp_path / "empty.trace"
    empty.write_text("")
    late = tmp_path / "late.trace"
    late.write_text("\n".join(good[1000:] + good[:1000]) + "\n")
    return {"bad_line": bad, "corrupt": truncated, "empty": empty, "out_of_order": late}


def test_trace_errors_carry_their_kind(traces):
    for kind, path in traces.items():
        with pytest.raises(TraceFormatError) as info:
            ssdlab.trace.stats(path)
        assert info.value.kind == kind, (path, info.value)


@pytest.mark.parametrize(
    ("kind", "run_hint", "stats_hint"),
    [
        ("bad_line", "--set workload.trace.on_bad_line=skip", "-O on_bad_line=skip"),
        ("out_of_order", "--set workload.trace.on_out_of_order=clamp", "-O on_out_of_order=clamp"),
        ("corrupt", "gzip -t", "gzip -t"),
        ("empty", "holds no requests", "holds no requests"),
    ],
)
def test_a_trace_errors_hint_fits_its_kind_and_the_command(capsys, traces, kind, run_hint, stats_hint):
    path = str(traces[kind])
    code, _, err = cli(capsys, "run", "--trace", path, "-q")
    assert code == 2
    hint = err[err.index("hint:") :]
    assert run_hint in hint
    if kind != "bad_line":
        assert "on_bad_line" not in hint, "skipping cannot help"
    for command in (("trace", "stats"), ("trace", "fit")):
        code, _, err = cli(capsys, *command, path, *(("-o", path + ".toml") if command[1] == "fit" else ()))
        assert code == 2
        hint = err[err.index("hint:") :]
        assert stats_hint in hint and "--set" not in hint, (command, hint)


def test_overrides_as_a_dict_are_written_as_toml():
    text = ssdlab.resolve(
        overrides={
            "gc.victim": "fifo",
            "seed": 7,
            "device.utilization": 0.5,
            "verify": True,
            "report.request_log": 'a "quoted"\npath',
        }
    )
    resolved = tomllib.loads(text)
    assert resolved["gc"]["victim"] == "fifo" and resolved["seed"] == 7 and resolved["verify"] is True
    assert resolved["device"]["utilization"] == 0.5
    assert resolved["report"]["request_log"] == 'a "quoted"\npath'
    sim = ssdlab.Simulation(workload="randwrite", overrides={"workload.count": 100})
    assert [str(o) for o in sim.overridden] == [
        "workload.count: 200000 (from workload:randwrite:6) -> 100 (from --set)"
    ]
    assert sim.overridden[0].old == "200000" and sim.overridden[0].new == "100"


def test_overrides_as_a_bare_string_are_refused():
    with pytest.raises(TypeError, match=r"not a single string: write \['workload.count=100'\]"):
        ssdlab.run(workload="randwrite", overrides="workload.count=100")
    with pytest.raises(ConfigError, match="seed: NoneType None has no TOML form"):
        ssdlab.resolve(overrides={"seed": None})


def test_resolve_explained_without_overrides_lists_nothing():
    resolved = resolve_explained(origins=False)
    assert resolved.overridden == [] and "  # " not in resolved.toml
