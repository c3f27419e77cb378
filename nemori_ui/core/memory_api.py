"""`Memory`: the pipeline for a program that receives messages as they come (an agent).

A Memory is one run in a home folder's store, so everything it does can be inspected in the
app while it is being filled. Messages are buffered and processed a window at a time, exactly
as a `run` windows a transcript; a partial window stays pending until it fills or `flush()`
closes it. Search needs no LLM; `answer` asks the run's backend (or the offline engine).

One Memory may be shared by threads, and several processes may open the same run: every add
is one write transaction that gives the ids (see `store.stream`), and one processor at a time
turns closed windows into memory (see `run_lock`). What the run holds is kept in memory and
updated in place, so an add costs the same at the ten-thousandth message as at the first.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from .clients import RunEnvironment, build_clients
from .errors import InputError, StoreError
from .memory_input import (config_of, count_arg, home_path, id_arg, incoming, same_settings,
                           text_arg)
from .memory_items import chain, every, find
from .memory_live import LiveRun
from .memory_models import Added, Filters, Item, SearchResult
from .memory_search import query_vector, search as search_memory
from .memory_worker import Worker
from .models import Conversation, Message
from .pipeline.runner import Progress
from .retrieval import Answered, answer_question
from .store import runs, scopes
from .store.db import DB_NAME, Store
from .store.stream import write_stream

__all__ = ["Memory", "Added", "Filters", "Item", "SearchResult"]


class Memory:
    """Open run `run_id` of the store in `home` (default: $NEMORI_HOME or ~/.nemori_ui; `~`
    and environment variables are expanded), or create a new run with `settings` (the `run`
    command's: window, tau, backend, model, embedder, variant, ...; a name that is no setting
    is refused). `api_key` and `base_url` reach the backend, never the store.

    `user_id` / `agent_id` scope the memory as mem0 does: the run of that user and agent is
    opened, or created on first use (one run per pair, see `store.scopes`).
    `background=True`: an add returns once its messages are stored; closed windows are
    processed on a thread, and `wait()` or `flush()` block until that is done.
    `wait_s`: how long a writer waits for its turn on a busy database or run.
    """

    def __init__(self, home: str | Path | None = None, run_id: str | None = None, *,
                 user_id: str | None = None, agent_id: str | None = None,
                 name: str | None = None, conversation: str = "memory",
                 api_key: str | None = None, base_url: str | None = None,
                 background: bool = False, wait_s: float = 60.0,
                 notice: Callable[[str], None] | None = None,
                 progress: Callable[[Progress], None] | None = None, **settings):
        from .llm.redact import strip_url_credentials
        from .store.db import default_home
        folder = home_path(home) or default_home()
        for arg, value in (("run_id", run_id), ("user_id", user_id), ("agent_id", agent_id),
                           ("name", name)):
            if value is not None and (not isinstance(value, str) or not value.strip()):
                raise InputError(f"expected a non-empty string, got {value!r}", field=arg)
        if isinstance(wait_s, bool) or not isinstance(wait_s, (int, float)) or wait_s <= 0:
            raise InputError(f"expected a number of seconds above 0, got {wait_s!r}",
                             field="wait_s")
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"{folder}: cannot create the home folder ({exc.strerror})") from exc
        self.store = Store(folder / DB_NAME, timeout_s=wait_s)
        self.wait_s = float(wait_s)
        if base_url:
            settings["base_url"] = strip_url_credentials(base_url)
        scope = None if user_id is None and agent_id is None else (user_id or "", agent_id or "")
        run_id = self._scoped(run_id, scope)
        if run_id is None:
            self.config = config_of(settings)
        else:
            self.config = runs.get_run(self.store, run_id).config
            same_settings(run_id, self.config, settings)
        self.clients = build_clients(self.config, self.store,
                                     RunEnvironment(api_key=api_key, base_url=base_url,
                                                    notice=notice))
        if run_id is None:
            run_id = self._create(name, conversation, scope)
        self.run_id = run_id
        self.user_id, self.agent_id = scope or (None, None)
        self._live = LiveRun(self.store, run_id, self.clients, self.config, progress=progress)
        self._worker = Worker(self._live, turn_timeout_s=self.wait_s) if background else None

    def _scoped(self, run_id: str | None, scope: tuple[str, str] | None) -> str | None:
        """The run to open: `run_id` (which must exist, and be of `scope` if given), or the
        scope's run, or None for a new one."""
        if run_id is not None:
            try:
                runs.get_run(self.store, run_id)
            except KeyError:
                raise InputError(f"no run {run_id!r} in {self.store.path}",
                                 field="run_id") from None
            held = scopes.scope_of(self.store, run_id)
            if scope is not None and held != scope:
                raise InputError(f"run {run_id} is the memory of {held or 'no user or agent'}, "
                                 f"not of user_id={scope[0]!r}, agent_id={scope[1]!r}",
                                 field="user_id")
            return run_id
        return scopes.run_of(self.store, *scope) if scope else None

    def _create(self, name: str | None, conversation: str,
                scope: tuple[str, str] | None) -> str:
        label = f"{conversation} · live · w={self.config.window}"
        if scope:
            label = f"{scope[0] or '-'}/{scope[1] or '-'} · live · w={self.config.window}"
        run_id = runs.create_run(self.store, Conversation(id=conversation, messages=[]),
                                 self.config, source="python", fmt="api",
                                 decider=self.clients.decider.label, windows_total=0,
                                 name=name or label)
        runs.set_status(self.store, run_id, "done")
        if scope:
            holder = scopes.bind(self.store, run_id, *scope)
            if holder != run_id:           # another process created the scope's run first
                runs.delete_run(self.store, run_id)
                run_id = holder
        return run_id

    # -- filling -------------------------------------------------------------------------
    def add(self, messages: Message | dict | list[Message | dict]) -> Added:
        """Store the messages as the run's next ones and process every window they close
        (with `background`, leave that to the worker). A dict may carry the caller's own
        `id`: a message whose id the run holds is not stored again, and its stored id is
        returned. Once stored, a message is never reported as an error: a window that fails
        to process is said in `Added.error` and retried by the next add, flush or wait."""
        items = incoming(messages)
        if items:
            with self.store.tx() as conn:
                write = write_stream(conn, self.run_id, items, window=self.config.window,
                                     source="python")
            self._live.took(write)
            ids = write.ids
        else:
            ids = []
        processed, error = 0, None
        if self._live.waiting_windows():
            if self._worker is not None:
                self._worker.kick()
            else:
                try:
                    processed = self._live.process(flush=False, timeout_s=self.wait_s) or 0
                except Exception as exc:  # noqa: BLE001 - the messages are stored
                    error = f"{type(exc).__name__}: {exc}"
        return Added(message_ids=ids, windows_processed=processed, pending=self.pending,
                     unprocessed=self._live.unprocessed(), error=error)

    def flush(self) -> Added:
        """Close the pending partial window and process it, as the official library's flush;
        with `background`, wait until the worker has processed everything."""
        if self._worker is not None:
            before = self._live.windows_done
            self._wait(self._worker.kick(flush=True))
            processed = self._live.windows_done - before
        else:
            processed = self._live.process(flush=True, timeout_s=self.wait_s)
            if processed is None:
                raise StoreError(f"run {self.run_id}: another process kept processing it for "
                                 f"{self.wait_s:g} s; the buffer stays pending, try again")
        return Added(message_ids=[], windows_processed=processed, pending=self.pending,
                     unprocessed=self._live.unprocessed())

    def wait(self, timeout_s: float | None = None) -> bool:
        """Block until every closed window is processed (the buffer stays pending); False
        if `timeout_s` passed first. Raises what processing met since the last wait."""
        if self._worker is None:
            if self._live.waiting_windows():
                self._live.process(flush=False, timeout_s=timeout_s or self.wait_s)
            return not self._live.waiting_windows()
        return self._wait(self._worker.kick(), timeout_s)

    def _wait(self, turn: int, timeout_s: float | None = None) -> bool:
        return self._worker.wait(turn, timeout_s)

    @property
    def pending(self) -> int:
        """Messages waiting in the buffer for their window to fill."""
        return self._live.pending()

    @property
    def unprocessed(self) -> int:
        """Messages stored but not in memory yet: the buffer, and with `background` the
        closed windows the worker has not processed."""
        return self._live.unprocessed()

    @property
    def pending_messages(self) -> list[Message]:
        """The messages of the buffer, oldest first."""
        n = self.pending
        with self._live.tail_lock:
            return self._live.messages[len(self._live.messages) - n:]

    # -- reading -------------------------------------------------------------------------
    def search(self, query: str, k: int | None = None, m: int | None = None, *,
               filters: Filters | dict | None = None, speaker: str | None = None,
               since: Any = None, until: Any = None, kind: str | None = None) -> SearchResult:
        """The top-k narratives, top-m memories (m = 2k unless given) and the raw messages of
        the best episodes, each with its score. `filters` (or the keywords) keep only what was
        said by `speaker`, in `since`..`until`, of `kind` (message, episode, semantic).
        Messages not in memory yet are not searched: `pending` says how many."""
        text_arg(query, "query")
        count_arg(k, "k")
        count_arg(m, "m")
        direct = {"speaker": speaker, "since": since, "until": until, "kind": kind}
        wanted = None if filters is None and all(v is None for v in direct.values()) else \
            Filters.of(filters, **direct)
        vector = query_vector(self.clients.embedder, query)
        self._live.catch_up()
        with self._live.state_lock:
            return search_memory(query, vector, self._live.state, self._live.by_id,
                                 self.config, k=k, m=m, filters=wanted,
                                 pending=self._live.unprocessed(),
                                 processing=self._live.processing)

    def answer(self, question: str, k: int | None = None, m: int | None = None) -> Answered:
        """Retrieve, then answer; the answer's call is recorded as an Ask of this run."""
        text_arg(question, "question")
        count_arg(k, "k")
        count_arg(m, "m")
        config = self.config if k is None else self.config.model_copy(update={"k": k})
        self._live.catch_up()
        with self._live.state_lock:
            return answer_question(question, self.clients.decider, self.clients.embedder,
                                   self._live.state, self._live.by_id, config,
                                   run_id=self.run_id, m=m)

    def get(self, id: str) -> Item | None:
        """The message (m0001), episode (ep0001) or semantic memory (sm0001) `id`, whatever
        its status; None when the run holds no such entry."""
        item_id = id_arg(id)
        self._live.catch_up()
        with self._live.state_lock:
            return find(self._live.state, self._live.by_id, item_id)

    def get_all(self, filters: Filters | dict | None = None, **by) -> list[Item]:
        """Everything the run holds that passes `filters` (or the same as keywords: kind,
        speaker, since, until, include_superseded): active entries, unless asked otherwise."""
        wanted = Filters.of(filters, **by)
        self._live.catch_up()
        with self._live.state_lock:
            return every(self._live.state, self._live.by_id, wanted)

    def update(self, id: str, text: str) -> Item:
        """Rewrite episode or memory `id`: a new version saying `text` supersedes it (the old
        one stays, in `history`). Messages cannot be rewritten."""
        from .memory_edits import update
        return update(self._live, id_arg(id), text_arg(text, "text"), timeout_s=self.wait_s)

    def delete(self, id: str) -> Item:
        """Take episode or memory `id` out of memory (status `deleted`; the row stays for the
        history). Messages cannot be deleted."""
        from .memory_edits import delete
        return delete(self._live, id_arg(id), timeout_s=self.wait_s)

    def history(self, id: str) -> list[Item]:
        """The versions of an episode or memory, oldest first: what it superseded (a merge has
        two parents), itself, and what superseded it up to the current or deleted one."""
        item_id = id_arg(id)
        self._live.catch_up()
        with self._live.state_lock:
            return chain(self._live.state, self._live.by_id, item_id)

    def close(self) -> None:
        """Finish the background worker's turns, then close the store. Messages of the buffer
        stay stored and pending: the run can be reopened and continued."""
        if self._worker is not None:
            self._worker.close()
        self.store.close()

    def __enter__(self) -> "Memory":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
