"""Layer: Python, sweeps. One job: one sweep at a time per results directory.

Two sweeps writing into one directory would run every cell twice and leave one grid's
`grid.toml` beside the other's table. A sweep holds an advisory lock on `DIR/sweep.lock` from
before it reads the directory until it has written its table; a second one refuses at once
(DirectoryRefused, naming the holder: pid, host, start, command) or, asked to wait, says so and
waits.

`fcntl.flock`, not a lock file's mere existence: the kernel drops the lock when its holder's last
descriptor closes, so a sweep killed by SIGKILL or a power cut never leaves a stale lock behind,
and nothing has to guess whether a recorded pid is still alive. It is what the `filelock`
package does on POSIX too; the sweep engine's local backend needs POSIX already (forkserver).
The descriptor is close-on-exec and the pool's processes are started by the forkserver, so no
child holds the lock after the sweep is gone. flock locks do not reach across NFS on every
system: run one sweep per directory there.
"""

from __future__ import annotations

import fcntl
import os
import socket
import sys
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ssdlab.sweeps.errors import DirectoryRefused, SweepWarning

LOCK_FILE = "sweep.lock"


def _holder_text() -> str:
    command = " ".join(sys.argv) if sys.argv and sys.argv[0] else "python"
    started = time.strftime("%Y-%m-%d %H:%M:%S %z")
    return f"pid {os.getpid()} on {socket.gethostname()}, since {started}: {command}\n"


def _holder(fd: int) -> str:
    """Who holds the lock, as its holder wrote it."""
    try:
        text = os.pread(fd, 4096, 0).decode(errors="replace").strip()
    except OSError:
        text = ""
    return text or "a sweep that has just started"


@contextmanager
def hold(out: Path, wait: bool = False) -> Iterator[None]:
    """Hold the lock of the results directory `out` (made if missing) while the block runs.
    If another process holds it: DirectoryRefused at once naming the holder, or with `wait`, a
    SweepWarning naming it, then wait until it is released."""
    path = out / LOCK_FILE
    try:
        out.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except OSError as e:
        raise DirectoryRefused(
            f"{out}: cannot be used as a results directory: {e.strerror or e}", path=str(out)
        ) from None
    held = False
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder(fd)
            if not wait:
                raise DirectoryRefused(
                    f"{out}: another sweep is writing into this directory ({holder}); refusing to run "
                    "beside it: wait for it with --wait, or use another directory",
                    path=str(path),
                ) from None
            warnings.warn(
                f"{out}: another sweep is writing into this directory ({holder}); waiting for it to end",
                SweepWarning,
                stacklevel=3,
            )
            fcntl.flock(fd, fcntl.LOCK_EX)
        held = True
        os.ftruncate(fd, 0)
        os.pwrite(fd, _holder_text().encode(), 0)
        yield
    finally:
        try:
            if held:
                os.ftruncate(fd, 0)  # while still held: the next holder writes its own line
        finally:
            os.close(fd)  # releases the lock
