"""Shared fixtures: where the real traces live (../shared/traces beside the repository)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
TRACES = REPO.parent / "shared" / "traces"
SKIP_VARIABLE = "SSDLAB_SKIP_SHARED_TRACES"


@pytest.fixture(scope="session")
def traces() -> Path:
    """The shared real traces. They sit beside every checkout (CI and every developer), so their
    absence fails the test: a test that quietly skips checks nothing. Whoever builds ssdlab away
    from them sets SSDLAB_SKIP_SHARED_TRACES=1, and the test is skipped with the reason."""
    if not TRACES.is_dir():
        if os.environ.get(SKIP_VARIABLE) == "1":
            pytest.skip(f"{TRACES} is absent and {SKIP_VARIABLE}=1")
        pytest.fail(
            f"{TRACES} is absent: the shared real traces belong in ../shared/traces beside the "
            f"checkout. Building away from them? Set {SKIP_VARIABLE}=1 to skip the tests that need them."
        )
    return TRACES
