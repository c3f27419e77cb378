"""One processor of a run's windows at a time, across the threads and processes sharing it.

Adding messages needs no lock of its own (each add is one SQLite write transaction); turning
closed windows into memory does: the windows must be processed in order, each against the
memory the one before left. The lock is a thread lock (threads of one process queue in
order) and an advisory lock on a file beside the database (processes, even two `Memory`
objects of one process), which the system releases when its holder dies, so a killed
process never leaves a run locked. A caller waits at most `timeout_s` for its turn.
"""

from __future__ import annotations

import fcntl
import os
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

_THREAD_LOCKS: dict[tuple[str, str], threading.Lock] = {}
_REGISTRY = threading.Lock()


def _thread_lock(key: tuple[str, str]) -> threading.Lock:
    with _REGISTRY:
        return _THREAD_LOCKS.setdefault(key, threading.Lock())


def lock_path(db_path: Path, run_id: str) -> Path:
    return Path(db_path).parent / "locks" / f"{run_id}.lock"


@contextmanager
def run_lock(db_path: Path, run_id: str, *, timeout_s: float) -> Iterator[bool]:
    """Hold the run's lock; yields False (holding nothing) when the turn did not come within
    `timeout_s`."""
    path = lock_path(db_path, run_id)
    lock = _thread_lock((str(path), run_id))
    deadline = time.monotonic() + timeout_s
    if not lock.acquire(timeout=max(timeout_s, 0)):
        yield False
        return
    fd = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        delay = 0.002
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() + delay > deadline:
                    os.close(fd)
                    fd = None
                    break
                time.sleep(delay)
                delay = min(delay * 2, 0.05)
        yield fd is not None
    finally:
        if fd is not None:
            os.close(fd)          # releases the file lock
        lock.release()
