"""How many requests may be in flight at once, lowered when the server queues them.

A local server often serves one or two requests at a time; the rest wait in its queue, and
with a per-request deadline the queued ones time out before they are served. When a request
times out while others were in flight, the limit halves (never below one); each success after
that lets one more through again, up to the configured concurrency.
"""

from __future__ import annotations

import threading


class AdaptiveLimit:
    def __init__(self, limit: int):
        self.ceiling = max(1, int(limit))
        self.limit = self.ceiling
        self.in_flight = 0
        self.lowered = 0                    # how often the limit came down
        self._cond = threading.Condition()

    def set_ceiling(self, limit: int) -> None:
        with self._cond:
            self.ceiling = max(1, int(limit))
            self.limit = min(self.limit, self.ceiling)
            self._cond.notify_all()

    def __enter__(self) -> int:
        with self._cond:
            while self.in_flight >= self.limit:
                self._cond.wait()
            self.in_flight += 1
            return self.in_flight

    def __exit__(self, *exc) -> None:
        with self._cond:
            self.in_flight -= 1
            self._cond.notify_all()

    def queued_timeout(self, in_flight_then: int) -> bool:
        """A request timed out with `in_flight_then` requests in flight: lower the limit when
        the server was likely queueing. True when it was lowered."""
        with self._cond:
            if in_flight_then <= 1 or self.limit <= 1:
                return False
            self.limit = max(1, min(self.limit, in_flight_then) // 2)
            self.lowered += 1
            return True

    def succeeded(self) -> None:
        with self._cond:
            if self.limit < self.ceiling and self.lowered:
                self.limit += 1
                self._cond.notify_all()
