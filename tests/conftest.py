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


GOLDEN = Path(__file__).resolve().parent / "experiments" / "golden"
UPDATE_GOLDEN = "SSDLAB_UPDATE_GOLDEN"


@pytest.fixture(scope="session")
def golden_runs():
    """Check a reproduction's runs.csv against tests/experiments/golden/<name>.csv, every figure
    exactly (both go through the same CSV writer and reader). The goldens were written before the
    reproductions moved onto the sweep engine, so this is the proof that the move changed no
    result; a change that is meant to move a figure rewrites them with SSDLAB_UPDATE_GOLDEN=1
    (refused in CI) and says why in its commit. Columns holding paths (which depend on where the
    traces are) or wall times are left out (`ignore`); long text columns (a scheduler's JSON report) are compared by
    their SHA-256, so that the goldens stay small."""
    import hashlib

    import pandas as pd

    def check(runs_csv: Path, name: str, ignore: tuple[str, ...] = (), digests: tuple[str, ...] = ()) -> None:
        produced = pd.read_csv(runs_csv).drop(columns=list(ignore))
        for column in digests:
            produced[column] = [hashlib.sha256(str(v).encode()).hexdigest()[:16] for v in produced[column]]
        golden = GOLDEN / f"{name}.csv"
        if os.environ.get(UPDATE_GOLDEN):
            golden.parent.mkdir(exist_ok=True)
            produced.to_csv(golden, index=False)
        expected = pd.read_csv(golden)
        # A figure added since the golden was written is not a changed result: the golden's
        # columns must all be there, each equal.
        missing = [c for c in expected.columns if c not in produced.columns]
        assert not missing, f"{runs_csv}: columns of the golden are gone: {missing}"
        pd.testing.assert_frame_equal(produced[list(expected.columns)], expected, check_exact=True)

    return check


@pytest.fixture
def rerun_runs_nothing(monkeypatch):
    """`check(out, rerun)`: a reproduction's second pass into `out` (`rerun(runner)`, in this
    process so that a run would reach the patched `Job.run`) runs none of its runs, every one
    being kept in OUT/cells by the first, and writes the same runs.csv."""
    from ssdlab.experiments.common import Job, Runner

    def never(job):
        raise AssertionError(f"{job.labels} ran again")

    def check(out: Path, rerun) -> None:
        before = (out / "runs.csv").read_bytes()
        monkeypatch.setattr(Job, "run", never)
        rerun(Runner(processes=1))
        assert (out / "runs.csv").read_bytes() == before

    return check


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """End any worker process a test left alive. A stray pool worker makes the interpreter's
    exit wait for it forever (a CI run hung so after its summary until the 5,400 s limit); the
    sweep tests assert that none is left, so a leak still fails a test, but it can no longer
    hang the run."""
    import multiprocessing

    for process in multiprocessing.active_children():
        process.terminate()
        process.join(timeout=10)
