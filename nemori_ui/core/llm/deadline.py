"""A request that ends by its deadline, or when the process stops, whatever the server does."""

from __future__ import annotations

import threading
import time
from typing import Any, Callable

from . import stopping


class Deadline(Exception):
    """No complete reply within the deadline."""


def within(deadline_s: float, fn: Callable[[], Any]) -> Any:
    """fn() or `Deadline` once `deadline_s` have passed, whatever the server sends meanwhile;
    `CallInterrupted` as soon as the process is stopping.

    The SDK's timeout bounds each wait for a byte, so a server that trickles a byte every few
    seconds would hold a call for ever; the request runs in a thread of its own and is left
    behind when the deadline passes (its own read timeout ends it once the server stops).
    """
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread
            box["error"] = exc

    worker = threading.Thread(target=run, name="llm-request", daemon=True)
    worker.start()
    end = time.monotonic() + deadline_s
    while worker.is_alive():
        stopping.check()
        left = end - time.monotonic()
        if left <= 0:
            raise Deadline
        worker.join(min(stopping.POLL_S, left))
    if "error" in box:
        raise box["error"]
    return box["value"]
