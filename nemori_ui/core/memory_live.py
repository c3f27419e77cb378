"""A run as a `Memory` holds it in memory while it is filled: its messages, its memory state
with the FAISS indexes and the episodes' lines, all kept up to date in place.

An add appends to what is held; a processed window adds its own episodes and memories. The
store stays the truth that other processes write too: each add learns the run's message count
inside its write transaction, and each processing turn (under the run lock) compares the
run's progress with what is held, reading the run again only when another process moved it.
"""

from __future__ import annotations

import threading
import time
from itertools import islice
from typing import Callable

from .config import PipelineConfig
from .errors import RunTaken
from .llm.sink import call_context
from .memory_lines import LiveLines
from .models import RUN_KIND, Message
from .pipeline.runner import Clients, Progress, process_window
from .pipeline.state import MemoryState
from .run_lock import run_lock
from .store import Store
from .store import appends, records, runs
from .store.stream import COUNT_SQL, StreamWrite, message_count
from .window_spans import pending_count, window_count, window_spans


class LiveRun:
    def __init__(self, store: Store, run_id: str, clients: Clients, config: PipelineConfig, *,
                 progress: Callable[[Progress], None] | None = None):
        self.store, self.run_id, self.clients, self.config = store, run_id, clients, config
        self.progress = progress or (lambda p: None)
        self.tail_lock = threading.Lock()     # messages and cuts: held for microseconds
        self.state_lock = threading.RLock()   # memory state: held while a window is processed
        self.messages: list[Message] = []
        self.by_id: dict[str, Message] = {}
        self.cuts: list[int] = []
        self._spans: tuple[tuple, list[tuple[int, int]]] = ((0, ()), [])
        self.windows_done = 0
        self.state: MemoryState | None = None
        self.processing = False
        self._read_messages()
        self.reload_state()

    # -- what is held ------------------------------------------------------------------
    def _read_messages(self) -> None:
        """The run's messages this object does not hold yet (added by another process)."""
        with self.tail_lock:
            rows = self.store.query("SELECT * FROM messages WHERE run_id = ? AND idx >= ? "
                                    "ORDER BY idx", (self.run_id, len(self.messages)))
            for r in rows:
                m = Message(id=r["id"], speaker=r["speaker"], role=r["role"], text=r["text"],
                            timestamp=r["timestamp"], session=r["session"],
                            source_ref=r["source_ref"])
                self.messages.append(m)
                self.by_id[m.id] = m
            self.cuts = appends.load_cuts(self.store, self.run_id)

    def reload_state(self) -> None:
        """The memory state as stored (when the object opens, and after another process
        saved windows)."""
        with self.state_lock:
            info = runs.get_run(self.store, self.run_id)
            state = MemoryState.restore(
                self.clients.embedder.dim, records.load_episodes(self.store, self.run_id),
                records.load_memories(self.store, self.run_id), index_kind=self.config.index)
            if self.config.episode_match == "narrative+messages":
                state.lines = LiveLines(state.dim, self.clients.embedder)
                state.lines.add(state.active_episodes(), self.by_id)
            self.state, self.windows_done = state, info.windows_done

    def took(self, write: StreamWrite) -> None:
        """An add of this object committed `write`."""
        with self.tail_lock:
            in_order = write.first == len(self.messages)
            if in_order:
                self.messages.extend(write.stored)
                self.by_id.update((m.id, m) for m in write.stored)
                self.cuts = write.cuts
        if not in_order:
            self._read_messages()

    def spans(self) -> list[tuple[int, int]]:
        """The closed windows (read, not changed, by callers): recounted only when a message
        or a cut came, not on every search."""
        with self.tail_lock:
            key = (len(self.messages), tuple(self.cuts))
            if self._spans[0] != key:
                self._spans = key, self._recount(key)
            return self._spans[1]

    def _recount(self, key: tuple[int, tuple[int, ...]]) -> list[tuple[int, int]]:
        """The closed windows for `key`: only those after the last one known, when the
        messages only grew and no cut came before its end (an add's case)."""
        (n_was, cuts_was), known = self._spans
        end = known[-1][1] if known else 0
        grown = n_was <= key[0] and set(cuts_was) <= set(key[1]) and \
            all(c >= end for c in set(key[1]) - set(cuts_was))
        if not grown:
            known, end = [], 0
        return known + window_spans(key[0], self.config.window, list(key[1]), flush=False,
                                    start=end)

    def pending(self) -> int:
        """Messages in the buffer: after the last closed window."""
        with self.tail_lock:
            return pending_count(len(self.messages), self.config.window, self.cuts)

    def unprocessed(self) -> int:
        """Messages held that are not in memory yet: the buffer and the closed windows
        waiting to be processed."""
        spans = self.spans()
        done = min(self.windows_done, len(spans))
        with self.tail_lock:
            return len(self.messages) - (spans[done - 1][1] if done else 0)

    def waiting_windows(self) -> int:
        return max(len(self.spans()) - self.windows_done, 0)

    # -- processing --------------------------------------------------------------------
    def process(self, *, flush: bool, timeout_s: float) -> int | None:
        """Process every closed window not yet in memory (with `flush`, the buffer too) in
        one turn of the run lock; windows closed meanwhile by any writer are taken in the same
        turn. The number this call processed; None when the turn did not come in time."""
        with run_lock(self.store.path, self.run_id, timeout_s=timeout_s) as held:
            if not held:
                return None
            self.processing = True
            try:
                return self._turn(flush)
            finally:
                self.processing = False

    def _turn(self, flush: bool) -> int:
        done = 0
        started = time.perf_counter()
        claimed = False
        while True:
            self.catch_up()
            if flush:
                self._cut()
            spans = self.spans()
            if self.windows_done >= len(spans):
                break
            if not claimed:
                self.clients.drain_calls()   # calls made before belong to no window
                runs.claim(self.store, self.run_id)
                claimed = True
            try:
                self._window(self.windows_done, spans[self.windows_done])
                done += 1
            except RunTaken:
                self.reload_state()           # another process saved it: take its result
            except BaseException as exc:
                self._failed(exc, started)
                raise
        if claimed:
            runs.set_status(self.store, self.run_id, "done",
                            add_seconds=time.perf_counter() - started)
        return done

    def catch_up(self) -> None:
        """Read what other processes added or processed since this object last looked (one
        small query when nothing changed)."""
        n, cuts, windows_done = self.store.query(
            f"SELECT ({COUNT_SQL}), "
            "(SELECT count(*) FROM window_cuts WHERE run_id = ?1), windows_done "
            "FROM runs WHERE id = ?1", (self.run_id,))[0]
        if n != len(self.messages) or cuts != len(self.cuts):
            self._read_messages()
        with self.state_lock:        # a window this process is saving counts once saved
            if windows_done != self.windows_done and \
                    runs.get_run(self.store, self.run_id).windows_done != self.windows_done:
                self.reload_state()

    def _cut(self) -> None:
        """Close the buffer here (recorded, so later messages start a new window)."""
        with self.store.tx() as conn:
            n = message_count(conn, self.run_id)
            cuts = [r[0] for r in conn.execute(
                "SELECT at FROM window_cuts WHERE run_id = ?", (self.run_id,))]
            if pending_count(n, self.config.window, cuts):
                conn.execute("INSERT OR IGNORE INTO window_cuts VALUES (?, ?)", (self.run_id, n))
                spans = window_count(n, self.config.window, cuts + [n])
                conn.execute("UPDATE runs SET windows_total = max(windows_total, ?) WHERE id = ?",
                             (spans, self.run_id))
        self.catch_up()

    def _window(self, w: int, span: tuple[int, int]) -> None:
        with self.tail_lock:
            window = self.messages[span[0]:span[1]]
        with self.state_lock:
            state = self.state
            before = len(state.episodes)
            try:
                with call_context(RUN_KIND, run_id=self.run_id, window=w):
                    process_window(self.store, self.run_id, w, window, self.by_id, state,
                                   self.clients, self.config, self._reporter(w))
            except BaseException:
                self.reload_state()     # the state holds half a window: take the stored one
                raise
            self.windows_done = w + 1
            if state.lines is not None:
                new = list(islice(state.episodes.values(), before, None))
                for e in new:
                    for old in e.supersedes:
                        state.lines.drop(old)
                state.lines.add(new, self.by_id)

    def _reporter(self, w: int) -> Callable:
        total = len(self.spans())
        return lambda stage, i=0, n=0: self.progress(Progress(
            self.run_id, w, total, stage, i, n, self.clients.llm_totals()))

    def _failed(self, exc: BaseException, started: float) -> None:
        try:
            records.save_calls(self.store, self.run_id, self.windows_done,
                               self.clients.drain_calls())
            status = "failed" if isinstance(exc, Exception) else "interrupted"
            runs.set_status(self.store, self.run_id, status,
                            error=f"{type(exc).__name__}: {exc}" if status == "failed" else None,
                            add_seconds=time.perf_counter() - started)
        except Exception:  # noqa: BLE001 - never hide the error that stopped the window
            pass
