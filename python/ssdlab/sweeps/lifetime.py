"""Layer: Python, sweeps. One job: no process of a sweep outlives it.

- SIGTERM (what `timeout`, batch schedulers and systemd send) takes the path of ^C: while cells
  run, it raises `Terminated`, a KeyboardInterrupt, in the sweep's main thread, so the backend
  ends its workers (or shuts Ray down), the records of the cells that finished stay, and a rerun
  resumes. Python's default for SIGTERM is to die at once, leaving the pool behind.
- A pool's worker exits when the sweep's process is gone, however it went (SIGKILL cannot be
  caught). A worker is a child of the forkserver, not of the sweep, and it holds the forkserver's
  "alive" pipe and the resource tracker's pipe open itself: left alone, the workers wait forever
  for work, the forkserver and the tracker for their pipes to close, all four reparented to init.
  So each worker watches a pipe whose only write end the sweep's process holds (`ParentWatch`):
  the kernel closes it when that process ends, the read returns end-of-file, and the worker
  exits; then the forkserver and the tracker see their pipes close and exit too. A pipe rather
  than Linux's PR_SET_PDEATHSIG: that signals on the death of the parent, which is the
  forkserver; a pipe also works where prctl does not exist.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from multiprocessing.connection import Connection
from typing import Any

#: The status of a worker that exits because its sweep is gone (EX_SOFTWARE is for bugs;
#: this is an abandoned worker, so the shell's "killed by SIGTERM").
ORPHAN_EXIT_STATUS = 128 + signal.SIGTERM


class Terminated(KeyboardInterrupt):
    """The sweep's process received SIGTERM while cells ran (handled as ^C is)."""


@contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """While the block runs, SIGTERM raises Terminated in the main thread; the handler that was
    there before comes back after. From another thread (where Python cannot set a handler) this
    does nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received: list[int] = []

    def terminated(signum: int, frame: Any) -> None:
        received.append(signum)
        raise Terminated("received SIGTERM")

    previous = signal.signal(signal.SIGTERM, terminated)
    try:
        yield
    except KeyboardInterrupt as e:
        # `ray.wait` runs signal handlers itself and turns what they raise into a plain
        # KeyboardInterrupt: it is still the SIGTERM.
        if received and not isinstance(e, Terminated):
            raise Terminated("received SIGTERM") from e
        raise
    finally:
        signal.signal(signal.SIGTERM, previous)


class ParentWatch:
    """The sweep's end of a pipe its pool's workers watch (`watch_parent` is their initializer
    and `initargs` its argument). `close()` (or the end of the sweep's process) makes every
    worker still alive exit."""

    def __init__(self, context: Any) -> None:
        self.read_end, self._write_end = context.Pipe(duplex=False)

    @property
    def initargs(self) -> tuple[Connection]:
        return (self.read_end,)

    def close(self) -> None:
        self._write_end.close()
        self.read_end.close()


def watch_parent(read_end: Connection) -> None:
    """A pool worker's initializer: a daemon thread that waits on the pipe and exits the process
    when the read returns (the sweep's process closed its end, or is gone). The simulation
    releases the GIL, so the thread runs at once even while a cell is simulating."""

    def watch() -> None:
        try:
            os.read(read_end.fileno(), 1)
        finally:
            os._exit(ORPHAN_EXIT_STATUS)

    threading.Thread(target=watch, name="ssdlab-watch-parent", daemon=True).start()
