"""Renamed config tables (`[gc.qtc]`, `[cache.fsp]`, `[scheduler]`): the old names load to the
configuration the new ones give, with a `ConfigDeprecationWarning` naming both keys and where the
old one was written; the CLI prints it to stderr as `warning: <file>:<line>: ...`."""

from __future__ import annotations

import tomllib

import pytest

import ssdlab
from ssdlab.cli import main
from ssdlab.config import renamed_tables
from ssdlab.errors import ConfigDeprecationWarning, ConfigError
from ssdlab.sweeps.keys import config_keys, unknown_key_reason

OLD = "seed = 3\n\n[gc.qtc]\nunseen_copies = 1\n[cache.fsp]\nalpha = 0.5\n"
NEW = "seed = 3\n\n[gc.rlgc_qtc]\nunseen_copies = 1\n[cache.page_type_eviction]\nalpha = 0.5\n"


def test_the_renames_are_listed():
    assert renamed_tables() == {
        "scheduler": "transaction_scheduler",
        "gc.qtc": "gc.rlgc_qtc",
        "cache.fsp": "cache.page_type_eviction",
    }


def test_old_names_resolve_as_the_new_ones_and_warn(tmp_path):
    old, new = tmp_path / "old.toml", tmp_path / "new.toml"
    old.write_text(OLD)
    new.write_text(NEW)
    with pytest.warns(ConfigDeprecationWarning) as caught:
        from_old = ssdlab.resolve("tiny", config_files=[old], overrides=["scheduler.policy=priority"])
    from_new = ssdlab.resolve("tiny", config_files=[new], overrides=["transaction_scheduler.policy=priority"])
    assert from_old == from_new
    resolved = tomllib.loads(from_old)
    assert resolved["gc"]["rlgc_qtc"]["unseen_copies"] == 1 and "qtc" not in resolved["gc"]
    assert resolved["transaction_scheduler"]["policy"] == "priority" and "scheduler" not in resolved
    found = [(w.message.path, w.message.line, w.message.key, w.message.replacement) for w in caught]
    assert found == [
        (str(old), 3, "gc.qtc", "gc.rlgc_qtc"),
        (str(old), 5, "cache.fsp", "cache.page_type_eviction"),
        ("--set", None, "scheduler.policy", "transaction_scheduler.policy"),
    ]
    assert str(caught[0].message).startswith(f"{old}:3: `gc.qtc` is a deprecated name: write `gc.rlgc_qtc`")
    assert all(w.filename == __file__ for w in caught), "warned at the caller"


def test_a_simulation_warns_too():
    with pytest.warns(ConfigDeprecationWarning, match=r"gc\.qtc\.max_copies"):
        ssdlab.Simulation(preset="tiny", workload="randwrite", overrides=["gc.qtc.max_copies=3"])


def test_both_names_are_an_error():
    with pytest.raises(ConfigError, match=r"keep only `gc\.rlgc_qtc`"):
        ssdlab.resolve("tiny", overrides=["gc.qtc.max_copies=3", "gc.rlgc_qtc.unseen_copies=1"])


def test_sweep_keys_accept_old_names():
    known = config_keys()
    assert unknown_key_reason("cache.fsp.alpha", known) is None
    assert unknown_key_reason("cache.page_type_eviction.alpha", known) is None
    assert unknown_key_reason("cache.fsp.alpah", known) is not None


def test_the_cli_prints_the_warning_to_stderr(tmp_path, capsys):
    old = tmp_path / "old.toml"
    old.write_text(OLD)
    main(["config", "show", "--preset", "tiny", "--config", str(old)])
    out, err = capsys.readouterr()
    assert f"warning: {old}:3: `gc.qtc` is a deprecated name: write `gc.rlgc_qtc`" in err
    assert f"warning: {old}:5: `cache.fsp`" in err
    assert "[gc.rlgc_qtc]" in out and "[gc.qtc]" not in out
