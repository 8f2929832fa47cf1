"""Inputs for the HTML report's tests, built once per session from real tiny runs."""

from __future__ import annotations

from pathlib import Path

import pytest

# Shared with tests/browser; tests/ is on the path (pytest puts the first directory above a
# test package there).
import report_builders


@pytest.fixture(scope="session")
def run_json(tmp_path_factory) -> Path:
    return report_builders.run_report(tmp_path_factory.mktemp("run") / "r.json")


@pytest.fixture(scope="session")
def compare_path(tmp_path_factory) -> Path:
    return report_builders.compare_dir(tmp_path_factory.mktemp("compare"))


@pytest.fixture(scope="session")
def sweep_path(tmp_path_factory) -> Path:
    """Two axes (one with an invalid value, whose cells fail) x two seeds."""
    return report_builders.sweep_dir(
        tmp_path_factory.mktemp("sweep"),
        {"gc.scheduler": ["greedy", "rlgc"], "device.utilization": [0.8, 1.0, 1.5]},
        seeds=2,
    )


@pytest.fixture(scope="session")
def reproduction_path(tmp_path_factory) -> Path:
    return report_builders.reproduction_dir(tmp_path_factory.mktemp("reproduction"))
