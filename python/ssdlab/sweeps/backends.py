"""Layer: Python, sweeps. One job: execute a list of jobs somewhere and hand back each
`Attempt` as it finishes, with the job's index: on local cores (a process pool) or on Ray.

Both keep only a few jobs in flight per worker (two per process or CPU), so that a grid of
thousands of cells costs no memory up front and a crash touches only the cells that were running.
Ray is imported only when the ray backend is asked for: it is an optional extra
(`pip install ssdlab[ray]`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import logging
import multiprocessing
import os
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ssdlab.config import workload_patterns, workload_specs
from ssdlab.errors import ConfigError, SsdlabError
from ssdlab.sweeps.cells import error_text
from ssdlab.sweeps.job import Job
from ssdlab.sweeps.lifetime import ParentWatch, watch_parent
from ssdlab.sweeps.outcome import Attempt, Worker, execute

BACKENDS = ("local", "ray")
#: Jobs queued per process (or Ray CPU) beyond the one it runs, so none waits between jobs.
QUEUED_PER_WORKER = 1
#: How long a worker told to stop (SIGTERM) may take before it is killed.
JOIN_TIMEOUT_S = 10.0
RAY_MISSING = "Ray is not installed: pip install ssdlab[ray]"

Finished = Iterator[tuple[int, Attempt]]


def check_backend(backend: str, address: str | None = None, ship_traces: bool = False) -> None:
    """Refuse an unknown backend, Ray's options without Ray, or Ray when it is not installed
    (one line, before anything runs)."""
    if backend not in BACKENDS:
        raise ConfigError(
            f"unknown backend {backend!r}; known: {', '.join(BACKENDS)}", problems=[("backend", backend)]
        )
    if backend == "local" and (address is not None or ship_traces):
        raise ConfigError(
            "--address and --ship-traces are for --backend ray", problems=[("backend", backend)]
        )
    if backend == "ray":
        _import_ray()


@contextmanager
def session(
    backend: str, processes: int | None = None, address: str | None = None, ship_traces: bool = False
) -> Iterator[Callable[[Worker, Sequence[Job]], Finished]]:
    """Ready a backend (Ray started or reached here, before any progress display) and yield
    `run(worker, jobs)`, which executes `worker(job)` for every job and yields (index, Attempt)
    as each finishes. `processes`: local processes, or the CPUs of a Ray instance started here
    (default: every core). `address` and `ship_traces` are Ray's."""
    check_backend(backend, address, ship_traces)
    if backend == "local":
        yield lambda worker, jobs: run_local(worker, jobs, processes)
        return
    ray = _import_ray()
    with _ray_instance(ray, processes, address):
        yield lambda worker, jobs: run_ray(ray, worker, jobs, ship_traces)


def _end_processes(executor: ProcessPoolExecutor) -> None:
    """Shut a pool down and end every worker process of it at once, waiting until each has
    exited. For a broken pool, and for a sweep that stops (^C, SIGTERM, an error) with cells
    still running: their results would be thrown away, and a worker left to finish its cell
    keeps its process, and the interpreter's exit (which joins the pool's manager thread), for
    that long. The pool's manager thread terminates the workers it knows of and then joins them
    all; a worker started on demand by a submit that raced a break is joined but never told to
    stop, so the interpreter's exit would wait forever (seen in CI: a worker blocked in its call
    queue's get). There is no public handle on the workers; `_processes` is where CPython
    3.11-3.13 keeps them, and `shutdown` sets it to None: so they are listed before it (workers
    are only started by `submit`, on this same thread, so none can appear in between)."""
    processes = list((getattr(executor, "_processes", None) or {}).values())
    executor.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        if process.is_alive():
            process.terminate()
    for process in processes:
        process.join(timeout=JOIN_TIMEOUT_S)
        if process.is_alive():  # SIGTERM blocked or ignored by the worker's code: no more asking
            process.kill()
            process.join()


class _Pool:
    """A forkserver process pool that is replaced when a process of it dies (which breaks it).
    Its workers exit when this process ends, however it ends (`lifetime.ParentWatch`)."""

    def __init__(self, processes: int) -> None:
        # forkserver, not fork: the progress display runs a thread, and forking a process with
        # threads can copy a held lock into the child.
        self.context = multiprocessing.get_context("forkserver")
        self.processes = processes
        self.watch = ParentWatch(self.context)
        self.executor = self._new()

    def _new(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(
            max_workers=self.processes,
            mp_context=self.context,
            initializer=watch_parent,
            initargs=self.watch.initargs,
        )

    def renew(self, broken: ProcessPoolExecutor) -> None:
        """Replace the pool if `broken` is still the current one, ending its processes."""
        if broken is self.executor:
            _end_processes(broken)
            self.executor = self._new()

    def submit(self, worker: Worker, job: Job) -> tuple[Future[Attempt], ProcessPoolExecutor]:
        try:
            return self.executor.submit(execute, worker, job), self.executor
        except BrokenProcessPool:  # broken since the last look
            self.renew(self.executor)
            return self.executor.submit(execute, worker, job), self.executor

    def close(self, finished: bool) -> None:
        """Shut the pool down: `finished`, after its last job (its workers exit as they are told);
        else with jobs still running (stopped), ending its workers at once."""
        try:
            if finished:
                self.executor.shutdown(wait=True)
            else:
                _end_processes(self.executor)
        finally:
            self.watch.close()


def run_local(worker: Worker, jobs: Sequence[Job], processes: int | None = None) -> Finished:
    """A process pool over `processes` cores (default: all); with one process, the jobs run in
    the calling process, one after the other (no pool: simplest to debug).

    A process that dies (killed, out of memory, a crash in native code) breaks the whole pool,
    and every job in it with it, although only one was at fault. So the jobs of a broken pool
    are run again, each alone in a new pool: the one at fault fails (its process died again),
    the others finish."""
    processes = max(1, min(processes or os.cpu_count() or 1, len(jobs) or 1))
    if processes == 1:
        for index, job in enumerate(jobs):
            yield index, execute(worker, job)
        return
    waiting = list(enumerate(jobs))[::-1]
    suspects: list[int] = []
    in_flight: dict[Future[Attempt], tuple[int, float, ProcessPoolExecutor, bool]] = {}
    pool = _Pool(processes)
    finished = False
    try:
        while waiting or suspects or in_flight:
            if suspects and not in_flight:
                index = suspects.pop()
                future, executor = pool.submit(worker, jobs[index])
                in_flight[future] = (index, time.perf_counter(), executor, True)
            while not suspects and waiting and len(in_flight) < processes * (1 + QUEUED_PER_WORKER):
                index, job = waiting.pop()
                future, executor = pool.submit(worker, job)
                in_flight[future] = (index, time.perf_counter(), executor, False)
            done, _ = wait(in_flight, return_when=FIRST_COMPLETED)
            for future in done:
                index, submitted, executor, alone = in_flight.pop(future)
                try:
                    attempt = future.result()
                except BrokenProcessPool:
                    pool.renew(executor)
                    if not alone:
                        suspects.append(index)
                        continue
                    reason = "its worker process died (killed, out of memory or a crash), twice, the second time running it alone"
                    attempt = Attempt("failed", reason, time.perf_counter() - submitted, None)
                yield index, attempt
        finished = True
    finally:
        pool.close(finished)


def _absolute(job: Job) -> Job:
    """The job with its file paths absolute: a Ray worker runs in a directory of its own. A
    workload that is a built-in's name stays a name (a built-in wins over a file, as in
    `ssdlab run --workload`)."""

    def absolute(path: str | None) -> str | None:
        return str(Path(path).resolve()) if path and Path(path).exists() else path

    setup = job.setup
    builtin = setup.workload is not None and setup.workload in {*workload_patterns(), *workload_specs()}
    absolute_setup = dataclasses.replace(
        setup,
        trace=absolute(setup.trace),
        workload=setup.workload if builtin else absolute(setup.workload),
        config_files=tuple(absolute(f) or f for f in setup.config_files),
    )
    return dataclasses.replace(job, setup=absolute_setup)


def local_trace(name: str, digest: str, shipped: list[Any]) -> Path:
    """The shipped trace as a file on this machine: cached under the temporary directory by
    content digest, so each machine writes each trace once (`shipped` holds the Ray reference
    of its bytes, in a list so that Ray does not fetch them unless the file is missing)."""
    path = Path(tempfile.gettempdir()) / "ssdlab-traces" / digest / name
    if not path.is_file():
        import ray

        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(f".{name}.{os.getpid()}.partial")
        partial.write_bytes(ray.get(shipped[0]))
        os.replace(partial, path)  # atomic: another worker never reads half a trace
    return path


def _ray_execute(worker: Worker, job: Job, shipped_trace: tuple[str, str, list[Any]] | None) -> Attempt:
    """A Ray task: write the shipped trace locally if there is one, then run the job."""
    if shipped_trace is not None:
        job = dataclasses.replace(
            job, setup=dataclasses.replace(job.setup, trace=str(local_trace(*shipped_trace)))
        )
    return execute(worker, job)


def _import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise SsdlabError(RAY_MISSING) from None
    return ray


@contextmanager
def _ray_instance(ray: Any, processes: int | None, address: str | None) -> Iterator[None]:
    """The Ray instance already initialised in this process if there is one (left running);
    else a connection to `address`, or a local instance of `processes` CPUs, shut down after."""
    if ray.is_initialized():
        yield
        return
    # Quiet: Ray's start-up notices would scroll the progress bar away; errors still show.
    options: dict[str, Any] = {"logging_level": logging.ERROR, "log_to_driver": False}
    try:
        if address is not None:
            ray.init(address=address, **options)
        else:
            ray.init(num_cpus=processes or os.cpu_count() or 1, include_dashboard=False, **options)
    except (ConnectionError, RuntimeError, ValueError) as e:
        where = f"the Ray cluster at {address}" if address else "a local Ray instance"
        raise SsdlabError(f"cannot start or reach {where}: {e}") from None
    try:
        yield
    finally:
        ray.shutdown()


def run_ray(ray: Any, worker: Worker, jobs: Sequence[Job], ship_traces: bool = False) -> Finished:
    """Plain Ray tasks, one per job, collected with `ray.wait` as they finish, on the Ray
    instance this process is connected to. With `ship_traces`, each distinct trace file's bytes
    go to the object store once (`ray.put`) and each machine writes them to a local file;
    otherwise workers read traces at their paths (a shared file system)."""
    in_flight: dict[Any, tuple[int, float]] = {}
    try:
        # One retry: a task whose worker or node died once may be unlucky; twice, it is the cell.
        task = ray.remote(num_cpus=1, max_retries=1)(_ray_execute)
        shipped: dict[str, tuple[str, str, list[Any]]] = {}
        cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
        waiting = list(enumerate(jobs))[::-1]
        while waiting or in_flight:
            while waiting and len(in_flight) < cpus * (1 + QUEUED_PER_WORKER):
                index, job = waiting.pop()
                job = _absolute(job)
                trace = None
                path = job.setup.trace
                if ship_traces and path and Path(path).is_file():
                    if path not in shipped:
                        data = Path(path).read_bytes()
                        digest = hashlib.sha256(data).hexdigest()
                        shipped[path] = (Path(path).name, digest, [ray.put(data)])
                    trace = shipped[path]
                in_flight[task.remote(worker, job, trace)] = (index, time.perf_counter())
            ready, _ = ray.wait(list(in_flight), num_returns=1)
            for ref in ready:
                index, submitted = in_flight.pop(ref)
                try:
                    attempt = ray.get(ref)
                except Exception as e:  # the task itself died (a worker crash, a lost node)
                    attempt = Attempt(
                        "failed", f"Ray task failed: {error_text(e)}", time.perf_counter() - submitted, None
                    )
                yield index, attempt
    finally:
        for ref in in_flight:
            ray.cancel(ref, force=True)
