"""The command line: commands, outputs, error messages and exit codes."""

from __future__ import annotations

import json
import tomllib

import pytest
from click.testing import CliRunner

import ssdlab
from ssdlab.cli import cli, main


def invoke(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_help_lists_commands():
    result = invoke("--help")
    assert result.exit_code == 0
    for command in ("run", "compare", "presets", "config", "bench", "trace", "reproduce"):
        assert command in result.output


def test_presets_lists_every_preset_with_its_source():
    result = invoke("presets")
    assert result.exit_code == 0
    names = ssdlab.presets()
    assert {"tiny", "kang-3d-128gb", "kang-3d-512gb", "bench-16gib"} <= set(names)
    output = " ".join(result.output.split())  # a long source may wrap onto a second line
    for name in names:
        source = tomllib.loads(ssdlab.preset_toml(name))["device"]["source"]
        assert f"{name} {source}" in output
    assert "Table 2" in invoke("presets", "--show", "kang-3d-128gb").output


def test_config_show_prints_the_resolved_override():
    result = invoke("config", "show", "--preset", "tiny", "--set", "gc.victim=fifo", "--set", "seed=7")
    assert result.exit_code == 0
    assert 'victim = "fifo"' in result.output and "seed = 7" in result.output


def test_run_writes_report_and_plots(tmp_path):
    out = tmp_path / "r.json"
    result = invoke(
        "run", "--preset", "tiny", "--workload", "randwrite", "--set", "workload.count=2000",
        "--out", str(out), "--plots", str(tmp_path / "plots"), "--requests-parquet", str(tmp_path / "req.parquet"),
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text())
    assert report["workload"]["requests"] == 2000
    assert (tmp_path / "plots" / "write_latency_tail.png").exists()
    assert (tmp_path / "req.parquet").exists()
    assert "WAF" in result.output


def test_bad_config_exits_2_with_every_problem(capsys):
    with pytest.raises(SystemExit) as info:
        main(["run", "--set", "device.utilization=2", "--set", "workload.iodepth=0", "-q"])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "device.utilization" in err and "workload.iodepth" in err
    assert "hint:" in err


def test_bad_argument_exits_2(capsys):
    with pytest.raises(SystemExit) as info:
        main(["run", "--set", "novalue"])
    assert info.value.code == 2
    with pytest.raises(SystemExit) as info:
        main(["run", "--no-such-flag"])
    assert info.value.code == 2


def test_bad_trace_line_names_file_and_line(tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_text(
        "128166372003061629,wdev,1,Write,2850816,4096,1000\n128166372003061630,wdev,1,Write,oops,4096,1000\n"
    )
    with pytest.raises(SystemExit) as info:
        main(["run", "--trace", str(bad), "-q"])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert f"{bad}:2" in err.replace("\n", "")


def test_msr_trace_replays_end_to_end(traces, tmp_path):
    out = tmp_path / "r.json"
    trace = traces / "msr" / "hm_0.sample1000.csv"
    result = invoke("run", "--preset", "tiny", "--trace", str(trace), "--verify", "--out", str(out), "-q")
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text())
    assert report["workload"]["requests"] == 1000
    assert report["workload"]["reads"] == 508
    assert report["verify"]["final_scan_passed"]


def test_umass_websearch_replays_with_speedup(traces, tmp_path):
    out = tmp_path / "r.json"
    trace = traces / "umass" / "websearch_small.disksim_ns.txt.gz"
    result = invoke(
        "run", "--preset", "bench-16gib", "--trace", str(trace), "--set", "workload.speedup=64",
        "--set", "workload.count=5000", "--out", str(out), "-q",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text())
    assert report["workload"]["requests"] == 5000
    assert report["workload"]["reads"] >= 4990


def test_every_bench_scenario_resolves_on_its_preset():
    from ssdlab.cli.bench import PRESETS, SCENARIOS, WARMUP_TIMED

    for name, overrides in SCENARIOS.items():
        resolved = tomllib.loads(ssdlab.resolve(PRESETS.get(name, "bench-16gib"), overrides=overrides))
        if name.endswith("write_learned"):  # writes on the paper's allocation; reads on dynamic
            assert resolved["ftl"]["mapping"] == "learned" and resolved["ftl"]["placement"] == "group", name
        if name in WARMUP_TIMED:
            assert resolved["warmup"]["fill"], name
    # The like-for-like base of LearnedFTL's writes: the same drive, placement and GC victim.
    base = {k for k in SCENARIOS["randwrite_group"] if not k.startswith("ftl.mapping")}
    assert base <= set(SCENARIOS["randwrite_learned"])


def test_bench_times_the_fill_scenario_on_its_warm_up():
    result = invoke("bench", "-s", "fill_512gib")
    assert result.exit_code == 0, result.output
    row = next(line for line in result.output.splitlines() if "fill_512gib" in line)
    # Requests are the pages the fill wrote: 128 planes x 4096 blocks x 256 pages less the spare.
    pages = int(row.split()[1].replace(",", ""))
    assert 100_000_000 < pages < 128 * 4096 * 256, row


@pytest.mark.parametrize(
    ("env_id", "setup"), [("ssdlab/GcScheduling-v0", "default"), ("ssdlab/SlcCache-v0", "light")]
)
def test_bench_env_times_every_way_of_stepping_an_environment_resets_included(env_id, setup):
    # Wide enough that no row name folds.
    result = CliRunner(env={"COLUMNS": "200"}).invoke(
        cli,
        ["bench", "--env", "--env-id", env_id, "--env-setup", setup, "--envs", "2", "--decisions", "400"],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    names = (
        "one env (gym.make)",
        "one env, shared warm-up",
        "SyncVectorEnv of 2, shared warm-up",
        "AsyncVectorEnv of 2, shared warm-up",
        "native vector env of 2 ",
        "native vector env of 2, shared warm-up, ",
    )
    rows = {name: line for line in result.output.splitlines() for name in names if line.startswith(name)}
    assert len(rows) == len(names), result.output
    for name, line in rows.items():
        episodes, per_s, _, alone, ratio, reset_ms = line.split()[-6:]
        assert int(episodes.replace(",", "")) >= 1 and float(per_s.replace(",", "")) > 0, line
        if name.startswith("one env"):
            # Resets take time: the steps alone run faster than with them.
            assert float(alone.replace(",", "")) > float(per_s.replace(",", "")) and float(reset_ms) > 0, line
            assert 0 < float(ratio) < 1, line
        else:
            assert (alone, ratio, reset_ms) == ("-", "-", "-"), line
    assert env_id in result.output and f"{setup} setup" in result.output


@pytest.mark.parametrize("option", ["--workload", "--config"])
def test_a_toml_file_that_is_not_utf8_is_an_error_at_its_line(tmp_path, capsys, option):
    latin1 = tmp_path / "latin1.toml"
    latin1.write_bytes(b'[workload]\nrw = "randwrite"\n# caf\xe9\n')
    with pytest.raises(SystemExit) as info:
        main(["run", option, str(latin1), "-q"])
    assert info.value.code == 2
    err = " ".join(capsys.readouterr().err.split())
    assert f"{latin1}:3: not UTF-8 text (byte e9 at column 6)" in err
    assert "Traceback" not in err


def test_an_integer_from_2_pow_63_up_is_named_as_beyond_toml(tmp_path, capsys):
    big = tmp_path / "big.toml"
    big.write_text("[workload]\ncount = 9223372036854775808\n")
    for args in (["--config", str(big)], ["--set", "workload.count=9223372036854775808"]):
        with pytest.raises(SystemExit) as info:
            main(["run", *args, "-q"])
        assert info.value.code == 2
        err = " ".join(capsys.readouterr().err.split())
        assert "9223372036854775808 is outside TOML's integers" in err, err
        assert "u64" not in err and "too large to fit" not in err


def test_an_out_path_that_cannot_be_written_is_refused_before_the_run(tmp_path, capsys):
    blocker = tmp_path / "a_file"
    blocker.write_text("")
    result = CliRunner().invoke(cli, ["run", "-w", "randwrite", "-q", "--out", str(blocker / "r.json")])
    assert result.exit_code == 2, result.output
    output = " ".join(result.output.split())
    assert (
        "Invalid value for --out: cannot write" in output and "a_file: is a file, not a directory" in output
    )
    out = tmp_path / "new" / "dir" / "r.json"
    result = invoke("run", "--set", "workload.count=200", "-q", "--out", str(out))
    assert result.exit_code == 0 and json.loads(out.read_text())["workload"]["requests"] == 200
    assert [p.name for p in out.parent.iterdir()] == ["r.json"], "no probe file left behind"


def test_skipped_trace_lines_are_counted_on_the_terminal_and_in_the_report(tmp_path, capsys):
    events = (
        "  8,0    3        1     0.000000000   697  D   W 223490 + 8 [k]\n"
        "  8;0    3        2     0.000001000   697  D   W 300000 + 8 [k]\n"
        "junk line\n"
        "  8,0    3        3     0.000002000   697  D   W 400000 + 8 [k]\n"
    )
    trace = tmp_path / "cr.blkparse"
    trace.write_bytes(events.replace("\n", "\r").encode())  # CR-only line ends
    out = tmp_path / "r.json"
    main_args = [
        "run",
        "-q",
        "--trace",
        str(trace),
        "--set",
        'workload.trace.on_bad_line="skip"',
        "-o",
        str(out),
    ]
    main(main_args)  # returns on success
    err = " ".join(capsys.readouterr().err.split())
    assert f"warning: {trace}: 2 unreadable lines skipped (invalid 2)" in err
    assert f'{trace}:2: device (column 1, major,minor) field "8;0"' in err and f"{trace}:3:" in err
    report = json.loads(out.read_text())
    info_ = report["workload"]["trace"]
    assert report["workload"]["requests"] == 2
    assert (info_["line_ends"], info_["skipped_lines"], [s["line"] for s in info_["first_skipped"]]) == (
        "cr",
        2,
        [2, 3],
    )
    main(["trace", "stats", str(trace), "-O", "on_bad_line=skip"])
    assert f"warning: {trace}: 2 unreadable lines skipped" in " ".join(capsys.readouterr().err.split())
