"""One warm-up shared by the runs that differ only in their workload (`Simulation.warm_drive`,
`run_jobs(share_warmups=True)`): the same results as each run warming up alone, fewer warm-ups,
and a drive of another configuration refused."""

from __future__ import annotations

import json

import pytest

import ssdlab
from ssdlab.experiments.common import Job, Measured, Runner, run_jobs
from ssdlab.setup import Setup

WARMUP = ("warmup.fill=true", "warmup.timed_random_writes_ns=100000000", "warmup.timed_queue_depth=4")
READS = ("workload.rw=randread", "workload.count=3000")


def test_a_run_from_a_warm_drive_reports_what_it_reports_alone():
    base = (*WARMUP, "seed=3", "verify=true")
    drive = ssdlab.Simulation("tiny", overrides=(*base, *READS)).warm_drive()
    for workload in (READS, ("workload.rw=read", "workload.count=2000", "workload.bs=8k")):
        shared = ssdlab.run("tiny", overrides=(*base, *workload), warm_drive=drive)
        alone = ssdlab.run("tiny", overrides=(*base, *workload))
        assert shared.raw == alone.raw and shared.histograms == alone.histograms
        assert shared["warmup"]["timed_requests"] > 100


def test_a_warm_drive_of_another_configuration_is_refused():
    drive = ssdlab.Simulation("tiny", overrides=(*WARMUP, *READS)).warm_drive()
    with pytest.raises(ssdlab.ConfigError, match=r"another configuration \(differs in: gc\)"):
        ssdlab.run("tiny", overrides=(*WARMUP, *READS, "gc.victim=fifo"), warm_drive=drive)


def _worker(job: Job, run: Measured) -> dict:
    report = run.report
    return {"labels": job.labels, "report": json.dumps(report.raw, sort_keys=True)}


def _jobs() -> list[Job]:
    """Three workloads on one warmed drive, one on a drive of another seed, one without a warm-up."""
    jobs = [
        Job(
            {"n": n},
            Setup(
                "tiny", overrides=(*WARMUP, "seed=1", f"workload.count={1000 + n}", "workload.rw=randread")
            ),
        )
        for n in range(3)
    ]
    jobs.append(Job({"n": 3}, Setup("tiny", overrides=(*WARMUP, "seed=2", *READS))))
    jobs.append(Job({"n": 4}, Setup("tiny", overrides=("seed=1", *READS))))
    return jobs


def test_shared_warmups_give_the_results_of_separate_runs_in_job_order(tmp_path):
    alone = run_jobs(_jobs(), _worker, Runner(processes=1))
    shared = run_jobs(_jobs(), _worker, Runner(processes=1, out=tmp_path), share_warmups=True)
    assert shared == alone
    assert [r["labels"]["n"] for r in shared] == [0, 1, 2, 3, 4]
    # Three cells ran: the group of three, the other seed's, the one without a warm-up.
    assert len(list((tmp_path / "cells").glob("*.json"))) == 3
    # Resumed from the records, group included: the same results.
    assert run_jobs(_jobs(), _worker, Runner(processes=1, out=tmp_path), share_warmups=True) == alone


def test_shared_warmups_on_two_processes(tmp_path):
    assert run_jobs(_jobs(), _worker, Runner(processes=2), share_warmups=True) == run_jobs(
        _jobs(), _worker, Runner(processes=1)
    )
