"""The grid file: what it may say, and every bad input as one error naming the file, the line and
the key, before anything runs (`ssdlab.sweeps.grid`, `ssdlab.sweeps.locate`)."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest

import ssdlab
from ssdlab.data import trace_path
from ssdlab.sweeps.grid import load_grid, toml_literal
from ssdlab.sweeps.locate import key_lines

BUNDLED = "msr_cut10k_rw20_80_105"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip())
    return path


def test_a_grid_gives_its_base_axes_seeds_and_excludes_with_paths_relative_to_the_grid(tmp_path):
    shutil.copy(trace_path(BUNDLED), tmp_path / "traces.gz")
    write(tmp_path / "extra.toml", "[gc]\nvictim = 'fifo'\n")
    grid = load_grid(
        write(
            tmp_path / "grids" / "g.toml",
            """
            seeds = [3, 5]
            [base]
            preset = "tiny"
            trace = "../traces.gz"
            config = ["../extra.toml"]
            set = ["workload.trace.max_requests=100"]
            [axes]
            "gc.scheduler" = ["greedy", "rlgc"]
            device.utilization = [0.5, 0.7]
            [axes.workload]
            fold = ["modulo", "compact"]
            [[exclude]]
            gc.scheduler = "greedy"
            "device.utilization" = 0.5
            """,
        )
    )
    assert grid.seeds == (3, 5)
    assert grid.base.preset == "tiny"
    assert grid.base.trace == str((tmp_path / "traces.gz").resolve())
    assert grid.base.config_files == (str((tmp_path / "extra.toml").resolve()),)
    assert grid.base.overrides == ("workload.trace.max_requests=100",)
    # Quoted, bare dotted and nested-table keys are the same dotted axis names, in file order.
    assert grid.axis_keys == ["gc.scheduler", "device.utilization", "workload.fold"]
    assert grid.axes[0].arguments == ('gc.scheduler="greedy"', 'gc.scheduler="rlgc"')
    assert grid.axes[1].values == (0.5, 0.7)
    assert grid.excludes == ({"gc.scheduler": "greedy", "device.utilization": 0.5},)


def test_defaults_are_one_seed_and_the_tiny_preset_and_traces_may_be_bundled_names(tmp_path):
    grid = load_grid(write(tmp_path / "g.toml", f'[axes]\ntrace = ["{BUNDLED}"]\n'))
    assert grid.seeds == (0,)
    assert grid.base.preset == "tiny"
    assert grid.axes[0].arguments == (str(trace_path(BUNDLED)),)
    assert grid.excludes == ()


@pytest.mark.parametrize(
    ("value", "literal"),
    [
        ("greedy", '"greedy"'),
        (True, "true"),
        (3, "3"),
        (0.5, "0.5"),
        (float("inf"), "inf"),
        ([1, 2], "[1, 2]"),
        ({"ops": "writes"}, '{ "ops" = "writes" }'),
    ],
)
def test_axis_values_become_toml_overrides(value, literal):
    assert toml_literal(value) == literal


# (grid text, line of the problem, key named, words of the reason)
BAD_GRIDS = [
    ("seeds = 2\ncolour = 'red'\n", 2, "colour", "unknown key"),
    ("[base]\npreset = 'tiny'\nworkloads = 'randwrite'\n", 3, "[base] workloads", "unknown key"),
    ("seeds = 'three'\n", 1, "seeds", "got a string"),
    ("seeds = 0\n", 1, "seeds", "at least 1 seed"),
    ("seeds = [1, 1]\n", 1, "seeds", "repeats a seed"),
    ("[base]\npreset = 7\n", 2, "[base] preset", "expected a string"),
    ("[base]\nset = 'gc.victim=fifo'\n", None, None, None),  # one string is a list of one: fine
    ("[base]\nset = [1, 2]\n", 2, "[base] set", "expected a list of strings"),
    ("[base]\nset = ['seed=3']\n", 2, "[base] set", "top-level `seeds`"),
    ("[base]\npreset = 'tinyy'\n", 2, "[base] preset", "unknown preset 'tinyy'"),
    ("[base]\ntrace = 'no/such.csv'\n", 2, "[base] trace", "no such trace file"),
    ("[base]\nconfig = ['no.toml']\n", 2, "[base] config", "no such config file"),
    ("[base]\nworkload = 'nope'\n", 2, "[base] workload", "neither a workload file nor a built-in"),
    ("[axes]\n'gc.scheduler' = []\n", 2, "[axes] gc.scheduler", "at least one value"),
    ("[axes]\n'gc.scheduler' = 'greedy'\n", 2, "[axes] gc.scheduler", "expected a list of values"),
    ("[axes]\n'gc.scheduler' = ['a', 'a']\n", 2, "[axes] gc.scheduler", 'repeats the value "a"'),
    ("[axes]\ngc.shceduler = ['greedy']\n", 2, "[axes] gc.shceduler", "did you mean gc.scheduler"),
    ("[axes]\ntrace = ['x.csv']\n", 2, "[axes] trace", "no such trace file"),
    ("[axes]\npreset = ['tiny', 3]\n", 2, "[axes] preset", "expected a list of strings"),
    ("[axes]\nseed = [1, 2]\n", 2, "[axes] seed", "top-level `seeds`"),
    ("[axes]\nverify = [true]\n", 2, "[axes] verify", "a column of the results table"),
    ("[base]\npreset = 'tiny'\n[axes]\npreset = ['tiny']\n", 4, "[axes] preset", "both in [base] and in [axes]"),
    ("[axes]\n'gc.victim' = ['fifo']\n[[exclude]]\n'gc.scheduler' = 'rlgc'\n", 4, "[[exclude]] #1 gc.scheduler", "not an axis"),
    ("[axes]\n'gc.victim' = ['fifo']\n[[exclude]]\n'gc.victim' = 'greedy'\n", 4, "[[exclude]] #1 gc.victim", "not a value of this axis"),
    ("[axes]\n'gc.victim' = ['fifo']\n[[exclude]]\n", 3, "[[exclude]] #1", "would leave out every cell"),
    ("[axes\n'gc.victim' = ['fifo']\n", 1, "", "TOML syntax"),
    ("seeds = [18446744073709551616]\n[base]\npreset = 'tiny'\n", 1, "seeds", "seed 18446744073709551616 is out of range: a seed is at most 2^63 - 1"),
    ("seeds = [9223372036854775807]\n[base]\npreset = 'tiny'\n", None, None, None),  # the largest: fine
    ("seeds = 100000000000\n[base]\npreset = 'tiny'\n", 1, "seeds", "100000000000 seeds: at most 1,000,000"),
    ("[base]\npreset = 'tiny'\n[axes]\n'workload.count' = [1, 18446744073709551616]\n", 4, "[axes] workload.count", "18446744073709551616 is out of range: TOML's integers are 64-bit"),
    ("[axes]\n'device.timing.read_ns' = [[1, -9223372036854775809]]\n", 2, "[axes] device.timing.read_ns", "-9223372036854775809 is out of range"),
]  # fmt: skip


@pytest.mark.parametrize(("text", "line", "key", "reason"), BAD_GRIDS)
def test_every_bad_input_names_the_grid_file_line_and_key(tmp_path, text, line, key, reason):
    path = write(tmp_path / "bad.toml", text)
    if line is None:
        load_grid(path)
        return
    with pytest.raises(ssdlab.ConfigError) as info:
        load_grid(path)
    error = info.value
    assert error.path == str(path) and error.line == line
    assert error.message.startswith(f"{path}:{line}: {key}")
    assert reason in error.message


def test_several_problems_come_as_one_error_in_line_order(tmp_path):
    path = write(
        tmp_path / "bad.toml",
        """
        [axes]
        "device.timing.read_ns" = [
          [1, 2, 3],
          [4, 5, 6]
        ]
        "gc.victim" = []
        [base]
        trace = "missing.csv"
        """,
    )
    with pytest.raises(ssdlab.ConfigError) as info:
        load_grid(path)
    lines = info.value.message.splitlines()
    assert lines[0] == f"2 problems in grid file {path}:"
    # The multi-line array's rows are not mistaken for table headers: the lines are exact.
    assert lines[1].startswith(f"  {path}:6: [axes] gc.victim: an axis needs at least one value")
    assert lines[2].startswith(f"  {path}:8: [base] trace: no such trace file")
    assert [key for key, _ in info.value.problems] == ["gc.victim", "trace"]


@pytest.mark.parametrize("text", ["", "# only a comment\n", "seeds = 3\n", "[base]\n[axes]\n"])
def test_a_grid_that_says_nothing_to_run_is_refused_not_run_with_the_defaults(tmp_path, text):
    path = tmp_path / "empty.toml"
    path.write_text(text)
    with pytest.raises(ssdlab.ConfigError) as info:
        load_grid(path)
    assert info.value.message.startswith(f"{path}: the grid says nothing to run (no [base] key, no [axes])")


def test_a_grid_file_that_is_not_utf8_names_its_line_and_column(tmp_path):
    path = tmp_path / "latin1.toml"
    path.write_bytes("[base]\npreset = 'tiny'\n# café\n".encode("latin-1"))
    with pytest.raises(ssdlab.ConfigError) as info:
        load_grid(path)
    assert info.value.line == 3
    assert info.value.message == f"{path}:3: not UTF-8 text (byte 0xe9 at column 6); TOML files are UTF-8"


@pytest.mark.parametrize(
    ("grid_text", "line", "key"),
    [
        ("[base]\nworkload = 'w.toml'\n", 2, "[base] workload"),
        ("[base]\npreset = 'tiny'\n[axes]\nworkload = ['randwrite', 'w.toml']\n", 4, "[axes] workload"),
        ("[base]\nconfig = ['w.toml']\n", 2, "[base] config"),
    ],
)
def test_a_workload_or_config_file_that_is_not_utf8_names_both_files_and_lines(
    tmp_path, grid_text, line, key
):
    named = tmp_path / "w.toml"
    named.write_bytes("[workload]\nkind = 'synthetic'\n# café\n".encode("latin-1"))
    path = write(tmp_path / "g.toml", grid_text)
    with pytest.raises(ssdlab.ConfigError) as info:
        load_grid(path)
    assert info.value.message == (
        f"{path}:{line}: {key}: {named}:3: not UTF-8 text (byte 0xe9 at column 6); TOML files are UTF-8"
    )


def test_a_missing_grid_file_is_a_config_error(tmp_path):
    with pytest.raises(ssdlab.ConfigError, match="no such grid file"):
        load_grid(tmp_path / "absent.toml")


def test_key_lines_skip_strings_and_multi_line_values():
    text = textwrap.dedent(
        """
        seeds = 1  # [not a table]
        [base]
        set = [
          "a=[1]",
          "[axes]",
        ]
        note = '''
        [fake]
        key = 1
        '''
        [[exclude]]
        x = 1
        [[exclude]]
        'y.z' = 2
        """
    )
    lines = key_lines(text)
    assert lines[("", "seeds")] == 2
    assert lines[("base", "set")] == 4
    assert ("axes", "") not in lines and ("fake", "") not in lines and ("base", "key") not in lines
    assert lines[("exclude#1", "x")] == 13
    assert lines[("exclude#2", "y.z")] == 15
