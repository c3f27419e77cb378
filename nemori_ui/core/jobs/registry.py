"""Background jobs: runs that belong to the serving process, not to the page that started them.

A page's script is stopped whenever its visitor navigates, reloads or closes the tab; a run
executed inside it would stop too. A job runs the same work on a worker thread of the process
instead, and pages only watch it: its windows are committed to the store as they finish, so any
page (in any tab) reads the same progress, and a job whose process died reads "interrupted"
from the store's owner check, ready to be resumed.

Sweeps, what-if re-runs and evaluations are jobs too (`JobRegistry.submit`): their work gets
the job itself, says how far it is with `job.step(fraction, text)` (where a cancel request takes
effect) and returns its result, which the job keeps for the page that asked.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from ..progress import Progress


class Cancelled(BaseException):
    """Raised inside a job's work when it is cancelled. A BaseException, as a Ctrl-C is: the
    runner then records the run as interrupted (resumable), not failed."""


@dataclass
class Job:
    key: str                                   # one live job per key; a run's is its id
    kind: str                                  # "run", "resume", "whatif", "sweep", "eval"
    label: str = ""
    started: float = field(default_factory=time.time)
    progress: Progress | None = None           # a run's last report
    fraction: float = 0.0                      # any job's share done, and what it is doing
    text: str = "starting"
    result: Any = None
    error: str | None = None
    cancelled: bool = False
    finished: bool = False
    _cancel: threading.Event = field(default_factory=threading.Event, repr=False)
    _thread: threading.Thread | None = field(default=None, repr=False)

    @property
    def alive(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    @property
    def stopping(self) -> bool:
        """Cancel was asked for and the work has not reached its next step yet."""
        return self._cancel.is_set() and self.alive

    def report(self, progress: Progress) -> None:
        """A run's progress callback; where a cancel request takes effect."""
        self.progress = progress
        self.check()

    def step(self, fraction: float, text: str) -> None:
        """Any job's progress; where a cancel request takes effect."""
        self.fraction, self.text = max(0.0, min(1.0, fraction)), text
        self.check()

    def check(self) -> None:
        if self._cancel.is_set():
            raise Cancelled()

    def wait(self, timeout: float | None = None) -> bool:
        if self._thread is not None:
            self._thread.join(timeout)
        return not self.alive


class JobRegistry:
    """The jobs of this process, by key (a run's job by the run's id). One registry per
    server (the UI keeps it as a shared resource), so every tab and every page sees the same
    jobs."""

    def __init__(self):
        self._jobs: dict[str, Job] = {}
        self._lock = threading.Lock()

    def start(self, run_id: str, work: Callable[[Callable[[Progress], None]], None], *,
              kind: str = "run") -> Job:
        """Run `work(progress)` on a worker thread, unless a job of this run is already alive
        (then that job is returned: a second tab pressing Resume must not run it twice)."""
        return self.submit(run_id, lambda job: work(job.report), kind=kind, label=run_id)

    def submit(self, key: str, work: Callable[[Job], Any], *, kind: str, label: str = "") -> Job:
        """Run `work(job)` on a worker thread and keep what it returns as `job.result`; a job
        of the same key that is still alive is returned instead of starting another."""
        with self._lock:
            current = self._jobs.get(key)
            if current is not None and current.alive:
                return current
            job = Job(key=key, kind=kind, label=label or key)
            job._thread = threading.Thread(target=self._work, args=(job, work), daemon=True,
                                           name=f"nemori-job-{key}")
            self._jobs[key] = job
            job._thread.start()
            return job

    @staticmethod
    def _work(job: Job, work) -> None:
        try:
            job.result = work(job)
        except Cancelled:
            job.cancelled = True
        except BaseException as exc:  # noqa: BLE001 - the store says failed; keep why for the page
            job.error = f"{type(exc).__name__}: {exc}"
        finally:
            job.finished = True

    def get(self, key: str) -> Job | None:
        return self._jobs.get(key)

    def cancel(self, key: str) -> bool:
        """Ask a live job to stop at its next step; False when no live job has this key."""
        job = self._jobs.get(key)
        if job is None or not job.alive:
            return False
        job._cancel.set()
        return True

    def alive(self, kinds: tuple[str, ...] | None = None) -> list[Job]:
        return [j for j in list(self._jobs.values())
                if j.alive and (kinds is None or j.kind in kinds)]

    def of_kind(self, *kinds: str) -> list[Job]:
        """This process's jobs of these kinds, alive or ended, newest first."""
        found = [j for j in list(self._jobs.values()) if j.kind in kinds]
        return sorted(found, key=lambda j: j.started, reverse=True)
