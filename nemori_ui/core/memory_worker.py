"""Windows processed on a thread of their own (`Memory(..., background=True)`): an add stores
its messages and returns; the worker turns closed windows into memory behind it, and
`wait()` / `flush()` block until it has caught up.

A failure of the worker is kept and raised by the next `wait()` or `flush()`, never by an add
(its messages were stored); the windows stay waiting and the next add or wait retries them.
"""

from __future__ import annotations

import threading

from .memory_live import LiveRun


class Worker:
    def __init__(self, live: LiveRun, *, turn_timeout_s: float):
        self.live, self.turn_timeout_s = live, turn_timeout_s
        self._cv = threading.Condition()
        self._wanted = self._done = 0     # turns asked for, turns finished
        self._flush = False
        self._closing = False
        self.error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name=f"nemori-{live.run_id}",
                                        daemon=True)
        self._thread.start()

    def kick(self, *, flush: bool = False) -> int:
        """Ask for a turn; the number to wait for."""
        with self._cv:
            self._wanted += 1
            self._flush |= flush
            self._cv.notify_all()
            return self._wanted

    def wait(self, turn: int, timeout_s: float | None = None) -> bool:
        """Block until turn `turn` finished; False on timeout. Raises what the worker met."""
        with self._cv:
            finished = self._cv.wait_for(lambda: self._done >= turn, timeout_s)
            error, self.error = self.error, None
        if error is not None:
            raise error
        return finished

    @property
    def busy(self) -> bool:
        with self._cv:
            return self._done < self._wanted

    def _run(self) -> None:
        while True:
            with self._cv:
                self._cv.wait_for(lambda: self._done < self._wanted or self._closing)
                if self._done >= self._wanted:
                    return
                turn, flush, self._flush = self._wanted, self._flush, False
            try:
                # another processor holds the run: wait for it, however long it takes
                while self.live.process(flush=flush, timeout_s=self.turn_timeout_s) is None:
                    if self._closing:
                        break
            except BaseException as exc:  # noqa: BLE001 - handed to the next wait()
                with self._cv:
                    self.error = exc
            with self._cv:
                self._done = max(self._done, turn)
                self._cv.notify_all()

    def close(self, timeout_s: float | None = None) -> None:
        """Finish the turns asked for, then stop."""
        with self._cv:
            self._closing = True
            self._cv.notify_all()
        self._thread.join(timeout_s)
