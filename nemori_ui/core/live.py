"""Live memory: a run fed one message at a time, typed or played from a transcript, whose
windows are processed in the background as they fill.

A `LiveFeed` is the one place in a process that adds messages to its run and processes them.
A message is stored the moment it is given (so nothing typed is lost if the server stops); a
worker job processes every window that is full (or closed by `flush`) and, while a script
plays, appends its next message each interval. Pages only read the store and the feed, so a
page can be left and rejoined while the feed goes on. Appending and windowing go through the
same core path as `append` on the command line. What it is fed, a typed message or a played
transcript, is checked and dated in `live_input`.
"""

from __future__ import annotations

import threading
import time
from typing import Callable

import numpy as np

from .config import PipelineConfig
from .jobs import Job, JobRegistry
from .live_input import TYPED, Script, played_so_far
from .models import Conversation, Message
from .pipeline.append import add_messages, following_sessions, renumber
from .pipeline.runner import Clients, Progress, run_windows
from .store import Store
from .store import appends, records, runs
from .window_spans import pending_count, window_count

IDLE_S = 0.5          # how long an idle worker waits for a play tick before looking again


def new_live_run(store: Store, config: PipelineConfig, clients: Clients, *,
                 name: str | None = None) -> str:
    """An empty run to feed live; it holds nothing until the first message is added."""
    run_id = runs.create_run(store, Conversation(id="live", messages=[]), config,
                             source="live", fmt="live", decider=clients.decider.label,
                             windows_total=0,
                             name=name or f"live · {config.variant} · w={config.window}")
    runs.set_status(store, run_id, "done")
    return run_id


class LiveFeed:
    """Feeds run `run_id` of `store`. `jobs` is the server's registry, shared with ordinary
    runs, so a live run is never processed by two jobs at once."""

    def __init__(self, store: Store, run_id: str, clients: Clients, jobs: JobRegistry):
        self.store, self.run_id, self.clients, self.jobs = store, run_id, clients, jobs
        self.script: Script | None = None
        self.interval_s = 2.0
        self.playing = False
        self.error: str | None = None
        # orders adding messages and closing windows against the worker's decision to stop
        self._lock = threading.RLock()
        self._wake = threading.Event()
        self._stopping = False
        self._next_at = 0.0
        # the first window would otherwise pay for reading the engine's labelled examples
        self.warmed = threading.Event()
        threading.Thread(target=_warm, args=(clients, self.warmed), daemon=True,
                         name=f"nemori-live-warm-{run_id}").start()

    # -- what the page asks for ---------------------------------------------------------
    def add(self, message: Message, *, new_session: bool = False, source: str = TYPED) -> str:
        """Store one message as the run's next and process any window it fills; its id."""
        with self._lock:
            stored = self._store(message, new_session=new_session, source=source)
            self._ensure_worker()
        return stored.id

    def load_script(self, messages: list[Message], source: str) -> None:
        """Play `messages` next, from the start or from where an earlier play of `source`
        stopped; their sessions follow the run's."""
        with self._lock:
            existing = records.load_messages(self.store, self.run_id)
            position, offset = played_so_far(existing, messages, source)
            self.script = Script(messages, source,
                                 following_sessions(existing, messages) if offset is None
                                 else offset)
            self.script.position = position
            self.playing = False

    def step(self) -> str | None:
        """Add the script's next message now; None when the script is over (or not loaded)."""
        with self._lock:
            added = self._add_from_script()
            if added:
                self._ensure_worker()
            return added

    def play(self, interval_s: float) -> None:
        """Add the script's next message every `interval_s` seconds until it ends or pauses."""
        with self._lock:
            self.interval_s = max(0.05, float(interval_s))
            if self.script is None or self.script.done:
                return
            self.playing = True
            self._next_at = time.monotonic()
            self._ensure_worker()
            self._wake.set()

    def pause(self) -> None:
        with self._lock:
            self.playing = False
            self._wake.set()

    def flush(self) -> bool:
        """Close the partial window in the buffer so it is processed now; False if empty."""
        with self._lock:
            n = self._count()
            if not pending_count(n, self.config.window, appends.load_cuts(self.store,
                                                                          self.run_id)):
                return False
            appends.add_cut(self.store, self.run_id, n)
            self._ensure_worker()
            return True

    # -- what the page reads ------------------------------------------------------------
    @property
    def config(self) -> PipelineConfig:
        return runs.get_run(self.store, self.run_id).config

    @property
    def job(self) -> Job | None:
        job = self.jobs.get(self.run_id)
        return job if job is not None and job.kind == "live" else None

    @property
    def busy(self) -> bool:
        job = self.job
        return job is not None and job.alive

    @property
    def progress(self) -> Progress | None:
        job = self.job
        return job.progress if job is not None and job.alive else None

    # -- the worker -----------------------------------------------------------------------
    def _count(self) -> int:
        return self.store.query("SELECT count(*) FROM messages WHERE run_id = ?",
                                (self.run_id,))[0][0]

    def _store(self, message: Message, *, new_session: bool, source: str) -> Message:
        existing = records.load_messages(self.store, self.run_id)
        last = max((m.session for m in existing), default=1)
        session = last + 1 if new_session and existing else last
        numbered = renumber([message.model_copy(update={"session": session})],
                            first_idx=len(existing))
        add_messages(self.store, self.run_id, numbered, source=source)
        return numbered[0]

    def _add_from_script(self) -> str | None:
        script = self.script
        if script is None or script.done:
            self.playing = False
            return None
        m = script.next_message
        existing = records.load_messages(self.store, self.run_id)
        numbered = renumber([m], first_idx=len(existing), session_offset=script.session_offset,
                            ref_prefix=script.source)
        add_messages(self.store, self.run_id, numbered, source=f"live: {script.source}")
        script.position += 1
        if script.done:
            self.playing = False
        return numbered[0].id

    def _full_window_waits(self) -> bool:
        info = runs.get_run(self.store, self.run_id)
        return info.windows_done < _closed_windows(self.store, self.run_id, info.config.window)

    def _ensure_worker(self) -> None:
        """Start the worker unless one is running that will see what was just added (called
        with the lock held, so a worker cannot decide to stop in between)."""
        job = self.jobs.get(self.run_id)
        if job is not None and job.alive:
            if job.kind != "live":
                return          # an append from the Run page: the next add wakes a worker
            if not self._stopping:
                self._wake.set()
                return
            job.wait(5)         # it has decided to stop and holds nothing: let it go
        self._stopping = False
        self.error = None
        self.jobs.start(self.run_id, self._work, kind="live")

    def _work(self, report: Callable[[Progress], None]) -> None:
        try:
            while True:
                with self._lock:
                    if self.playing and time.monotonic() >= self._next_at:
                        self._add_from_script()
                        self._next_at = time.monotonic() + self.interval_s
                    process = self._full_window_waits()
                    if not process and not self.playing:
                        self._stopping = True
                        return
                if process:
                    # the windows full now; what is added meanwhile waits for the next pass
                    run_windows(self.store, self.run_id, self.clients, progress=report,
                                flush=False)
                    continue
                self._wake.clear()
                self._wake.wait(min(IDLE_S, max(0.0, self._next_at - time.monotonic())))
        except BaseException as exc:
            self.playing = False
            self.error = f"{type(exc).__name__}: {exc}"
            raise


def _warm(clients: Clients, done: threading.Event) -> None:
    """Embed what the offline engine compares every clause with, before the first window."""
    classifier = getattr(clients.decider, "classifier", None) or \
        getattr(getattr(clients.decider, "fallback", None), "classifier", None)
    try:
        if classifier is not None:
            classifier.scores(np.zeros((1, clients.embedder.dim), dtype=np.float32))
        clients.embedder.embed(["warming up"])
    except Exception:  # noqa: BLE001 - only a head start: the first window does it otherwise
        pass
    finally:
        done.set()


def _closed_windows(store: Store, run_id: str, window: int) -> int:
    n = store.query("SELECT count(*) FROM messages WHERE run_id = ?", (run_id,))[0][0]
    return window_count(n, window, appends.load_cuts(store, run_id))


class LiveFeeds:
    """The feeds of this process, one per run (the UI keeps one instance per server)."""

    def __init__(self, jobs: JobRegistry):
        self.jobs = jobs
        self._feeds: dict[str, LiveFeed] = {}
        self._lock = threading.Lock()

    def get(self, run_id: str) -> LiveFeed | None:
        return self._feeds.get(run_id)

    def open(self, store: Store, run_id: str, make_clients: Callable[[], Clients]) -> LiveFeed:
        """The run's feed, created (with clients from `make_clients`) on first use."""
        with self._lock:
            feed = self._feeds.get(run_id)
            if feed is None:
                feed = LiveFeed(store, run_id, make_clients(), self.jobs)
                self._feeds[run_id] = feed
            return feed
