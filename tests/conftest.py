"""Shared fixtures: where the real traces live (../shared/traces beside the repository)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
TRACES = REPO.parent / "shared" / "traces"


@pytest.fixture
def traces() -> Path:
    """The shared real traces; skipped only outside CI when the folder is absent (.ci/run fails
    in CI without it)."""
    if not TRACES.is_dir():
        if os.environ.get("CI"):
            pytest.fail(f"{TRACES} is missing in CI")
        pytest.skip(f"{TRACES} not present")
    return TRACES
