"""The process is stopping: every call in flight is cut off and recorded as interrupted.

A signal handler sets this flag and raises KeyboardInterrupt in the main thread; the threads
that wait for a reply (a window's narratives go out side by side) see the flag within a tenth
of a second. It is a plain flag, not an Event, because a handler that took a lock could
deadlock with the very thread it interrupted.
"""

from __future__ import annotations

import time

from .protocol import CallInterrupted

POLL_S = 0.1
_requested = False


def request() -> None:
    global _requested
    _requested = True


def clear() -> None:
    global _requested
    _requested = False


def requested() -> bool:
    return _requested


def check() -> None:
    if _requested:
        raise CallInterrupted("the process is stopping")


def pause(seconds: float) -> None:
    """time.sleep that ends early, with CallInterrupted, when the process is stopping."""
    end = time.monotonic() + max(0.0, seconds)
    while True:
        check()
        left = end - time.monotonic()
        if left <= 0:
            return
        time.sleep(min(POLL_S, left))
