"""Configuration errors name the key, what it accepts and the bad value, all problems at once,
through the Python API and the CLI."""

from __future__ import annotations

import pytest

import ssdlab
from ssdlab.cli import main


def _one_line(text: str) -> str:
    """Undo the console's line wrapping."""
    return " ".join(text.split())


def test_type_errors_unknown_keys_and_value_checks_come_together():
    with pytest.raises(ssdlab.ConfigError) as info:
        ssdlab.resolve(
            "tiny",
            overrides=[
                "gc.trigger_free_blocks=-3",
                "workload.hot_fraction=nan",
                "workload.iodepth=deep",
                "gc.victimm=fifo",
                "device.utilization=2",
            ],
        )
    problems = dict(info.value.problems)
    assert problems["gc.trigger_free_blocks"] == "expected a non-negative integer (u32), got -3 (from --set)"
    assert problems["workload.hot_fraction"].startswith("must be a finite number, got nan")
    assert problems["workload.iodepth"].startswith('expected a non-negative integer (u32), got "deep"')
    assert problems["gc.victimm"].startswith("unknown key")
    assert "outside (0, 1]" in problems["device.utilization"]
    assert len(problems) == 5


def test_a_bad_value_in_a_config_file_names_file_and_line(tmp_path):
    conf = tmp_path / "gc.toml"
    conf.write_text("[gc]\nvictim = 'fifo'\ntrigger_free_blocks = 'many'\n")
    with pytest.raises(ssdlab.ConfigError) as info:
        ssdlab.resolve("tiny", config_files=[conf])
    (key, reason), *_ = info.value.problems
    assert key == "gc.trigger_free_blocks"
    assert reason == f'expected a non-negative integer (u32), got "many" (from {conf}:3)'


def test_cli_prints_key_and_reason_for_a_type_error_and_exits_2(capsys):
    with pytest.raises(SystemExit) as info:
        main(["run", "--set", "gc.trigger_free_blocks=-3", "--set", "workload.rate_iops=inf", "-q"])
    assert info.value.code == 2
    err = _one_line(capsys.readouterr().err)
    assert "gc.trigger_free_blocks: expected a non-negative integer (u32), got -3" in err
    assert "workload.rate_iops: must be a finite number, got inf" in err
    assert "hint:" in err
