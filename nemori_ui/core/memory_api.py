"""`Memory`: the pipeline for a program that receives messages as they come (an agent).

A Memory is one run in a home folder's store, so everything it does can be inspected in the
app while it is being filled. Messages are buffered and processed a window at a time, exactly
as a `run` windows a transcript; a partial window stays pending until it fills or `flush()`
closes it. Search needs no LLM; `answer` asks the run's backend (or the offline engine).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from pydantic import BaseModel, ValidationError

from .clients import build_clients
from .config import PipelineConfig
from .errors import InputError
from .models import Conversation, Message
from .pipeline.append import add_messages, renumber
from .pipeline.runner import Progress, run_windows
from .pipeline.windows import pending_count
from .retrieval import Answered, Retrieval, answer_question, load_memory, retrieve
from .store import appends, open_store, records, runs
from .transcripts.fields import message_problem


class Added(BaseModel):
    """What one `add` or `flush` did."""
    message_ids: list[str]        # the ids the added messages were given
    windows_processed: int        # windows closed and processed by this call
    pending: int                  # messages now waiting in the buffer


def to_message(item: Message | Mapping[str, Any], position: int) -> Message:
    """A message from a Message or a dict: {speaker, text} or the chat form {role, content},
    with optional timestamp (datetime or ISO 8601 text) and session."""
    if isinstance(item, Message):
        return _checked(item, position)
    if not isinstance(item, Mapping):
        raise InputError(f"message {position}: expected a dict or a Message, "
                         f"got {type(item).__name__}")
    text = item.get("text", item.get("content"))
    if not isinstance(text, str):
        raise InputError(f"message {position}: needs a 'text' (or 'content') string")
    speaker = item.get("speaker") or item.get("name") or item.get("role")
    if not isinstance(speaker, str) or not speaker.strip():
        raise InputError(f"message {position}: needs a 'speaker' (or 'role')")
    role = item.get("role") if item.get("role") in ("user", "assistant", "system") else "user"
    try:
        message = Message(id="", speaker=speaker.strip(), role=role, text=text,
                          timestamp=item.get("timestamp"), session=item.get("session") or 0,
                          source_ref=item.get("source_ref"))
    except ValidationError as exc:
        err = exc.errors()[0]
        raise InputError(f"message {position}: {err['msg']}",
                         field=str(err["loc"][0]) if err["loc"] else None) from None
    return _checked(message, position)


def _checked(message: Message, position: int) -> Message:
    """The message, unless its speaker or text holds what a transcript file may not either."""
    problem = message_problem(message.speaker, message.text)
    if problem:
        raise InputError(f"message {position}: {problem}")
    return message


class Memory:
    """Open run `run_id` of the store in `home` (default: $NEMORI_HOME or ~/.nemori_ui), or
    create a new run with `settings` (the `run` command's: window, tau, backend, model,
    embedder, variant, ...). `api_key` and `base_url` reach the backend, never the store."""

    def __init__(self, home: str | Path | None = None, run_id: str | None = None, *,
                 name: str | None = None, conversation: str = "memory",
                 api_key: str | None = None, base_url: str | None = None,
                 notice: Callable[[str], None] | None = None,
                 progress: Callable[[Progress], None] | None = None, **settings):
        from .llm.redact import strip_url_credentials
        self.store = open_store(home)
        self._progress = progress
        if base_url:
            settings["base_url"] = strip_url_credentials(base_url)
        if run_id is None:
            config = _config(settings)
        else:
            config = runs.get_run(self.store, run_id).config
            _check_same(run_id, config, settings)
        self.config = config
        self.clients = build_clients(config, self.store, api_key=api_key, base_url=base_url,
                                     notice=notice)
        if run_id is None:
            run_id = runs.create_run(self.store, Conversation(id=conversation, messages=[]),
                                     config, source="python", fmt="api",
                                     decider=self.clients.decider.label, windows_total=0,
                                     name=name or f"{conversation} · live · w={config.window}")
            runs.set_status(self.store, run_id, "done")
        self.run_id = run_id
        self._state = None
        self._state_at: tuple | None = None

    # -- filling -------------------------------------------------------------------------
    def add(self, messages: Message | Mapping | Iterable[Message | Mapping]) -> Added:
        """Store the messages as the run's next ones and process every window they fill."""
        items = [messages] if isinstance(messages, (Message, Mapping)) else list(messages)
        parsed = [to_message(item, i) for i, item in enumerate(items, start=1)]
        if not parsed:
            return Added(message_ids=[], windows_processed=0, pending=self.pending)
        existing = records.load_messages(self.store, self.run_id)
        session = max((m.session for m in existing), default=1)
        parsed = [m if m.session else m.model_copy(update={"session": session}) for m in parsed]
        numbered = renumber(parsed, first_idx=len(existing))
        add_messages(self.store, self.run_id, numbered, source="python")
        return self._process([m.id for m in numbered], flush=False)

    def flush(self) -> Added:
        """Close the pending partial window and process it, as the official library's flush."""
        return self._process([], flush=True)

    def _process(self, ids: list[str], *, flush: bool) -> Added:
        before = runs.get_run(self.store, self.run_id).windows_done
        run_windows(self.store, self.run_id, self.clients, progress=self._progress, flush=flush)
        after = runs.get_run(self.store, self.run_id).windows_done
        return Added(message_ids=ids, windows_processed=after - before, pending=self.pending)

    @property
    def pending(self) -> int:
        """Messages waiting in the buffer for their window to fill."""
        n = self.store.query("SELECT count(*) FROM messages WHERE run_id = ?",
                             (self.run_id,))[0][0]
        return pending_count(n, self.config.window, appends.load_cuts(self.store, self.run_id))

    @property
    def pending_messages(self) -> list[Message]:
        messages = records.load_messages(self.store, self.run_id)
        return messages[len(messages) - self.pending:]

    # -- reading -------------------------------------------------------------------------
    def search(self, query: str, k: int | None = None, m: int | None = None) -> Retrieval:
        """The top-k narratives, top-m memories (m = 2k unless given) and the raw messages of
        the best episodes, each with its score. Pending messages are not in memory yet."""
        config = self.config if k is None else self.config.model_copy(update={"k": k})
        state, messages = self._memory()
        vec = self.clients.embedder.embed([query])[0]
        return retrieve(query, vec, state, messages, config, m=m)

    def answer(self, question: str, k: int | None = None, m: int | None = None) -> Answered:
        """Retrieve, then answer; the answer's call is recorded as an Ask of this run."""
        config = self.config if k is None else self.config.model_copy(update={"k": k})
        state, messages = self._memory()
        return answer_question(question, self.clients.decider, self.clients.embedder, state,
                               messages, config, run_id=self.run_id, m=m)

    def _memory(self):
        """The run's memory as stored, reloaded only when a window was saved since (by this
        object or another process writing the same run)."""
        info = runs.get_run(self.store, self.run_id)
        key = (info.windows_done, info.updated_at)
        if self._state_at != key:
            self._state = load_memory(self.store, self.run_id, self.clients.embedder,
                                      runs.config_of(self.store, self.run_id))
            self._state_at = key
        return self._state

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> "Memory":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _config(settings: dict) -> PipelineConfig:
    try:
        return PipelineConfig(**settings)
    except ValidationError as exc:
        problems = [f"{err['loc'][0] if err['loc'] else 'settings'}={err.get('input')!r}: "
                    f"{err['msg']}" for err in exc.errors()]
        raise InputError("; ".join(problems)) from None


def _check_same(run_id: str, config: PipelineConfig, settings: dict) -> None:
    """An existing run keeps the settings it was built with: asking for others is an error,
    not a silent switch."""
    differ = [f"{key}={value!r} (the run has {getattr(config, key, None)!r})"
              for key, value in settings.items() if getattr(config, key, None) != value]
    if differ:
        raise InputError(f"run {run_id} was built with other settings: {', '.join(differ)}; "
                         "open it without them, or create a new Memory")
