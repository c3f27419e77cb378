"""Continue a stored run with more messages, as if they had come at the end of its transcript.

The new messages take the next ids, join the buffer after the run's last window, and are
windowed and processed by the same runner; a window already processed is never reopened (a
partial last window that was closed stays closed, see `windows`). Each append is recorded with
where it started.
"""

from __future__ import annotations

from pathlib import PurePath
from typing import Callable

from ..errors import InputError
from ..models import Message
from ..store import Store
from ..store import appends, records, runs
from ..store.appends import AppendRecord
from ..store.owner import this_process
from .runner import Clients, Progress, run_windows
from .windows import pending_count, window_spans


def renumber(messages: list[Message], *, first_idx: int, session_offset: int = 0,
             ref_prefix: str | None = None) -> list[Message]:
    """The messages as the run's next ones: ids continue the run's, sessions shift by
    `session_offset`, and each source reference names the file it came from."""
    out = []
    for i, m in enumerate(messages):
        ref = f"{ref_prefix}: {m.source_ref}" if ref_prefix and m.source_ref else m.source_ref
        out.append(m.model_copy(update={"id": f"m{first_idx + i + 1:04d}",
                                        "session": m.session + session_offset,
                                        "source_ref": ref}))
    return out


def following_sessions(existing: list[Message], incoming: list[Message]) -> int:
    """The session offset that makes a transcript's sessions follow the run's: its first
    session becomes the one after the run's last, as its session headings would number it
    had it been written at the end of the original file."""
    if not existing or not incoming:
        return 0
    return max(m.session for m in existing) - min(m.session for m in incoming) + 1


def close_processed_tail(store: Store, run_id: str, n: int, window: int) -> None:
    """A run whose partial last window was already processed (a finished `run`, or one stored
    before cuts were recorded) keeps that window closed: record the cut, so that added
    messages start a new window instead of joining one that will never be processed again."""
    info = runs.get_run(store, run_id)
    cuts = appends.load_cuts(store, run_id)
    if pending_count(n, window, cuts) and info.windows_done > len(
            window_spans(n, window, cuts, flush=False)):
        appends.add_cut(store, run_id, n)


def add_messages(store: Store, run_id: str, messages: list[Message], *, source: str,
                 given_hash: str | None = None) -> AppendRecord:
    """Store `messages` (already numbered by `renumber`) as the run's next ones and record the
    append. Nothing is processed here: `run_windows` does that."""
    if not messages:
        raise InputError("nothing to append: no messages", file=source)
    info = runs.get_run(store, run_id)
    # this process may add while its own worker processes earlier windows (the Live page):
    # that worker windowed the messages it loaded, and later ones wait for the next pass
    if info.status == "running" and info.owner != this_process():
        raise InputError(f"run {run_id} is running in another process ({info.owner}); add "
                         "to it once that process has stopped")
    existing = records.load_messages(store, run_id)
    expected = f"m{len(existing) + 1:04d}"
    if messages[0].id != expected:
        raise ValueError(f"appended messages must start at id {expected}, not {messages[0].id}")
    close_processed_tail(store, run_id, len(existing), info.config.window)
    first_window = len(window_spans(len(existing), info.config.window,
                                    appends.load_cuts(store, run_id), flush=False))
    return appends.store_messages(store, run_id, messages, source=source,
                                  first_window=first_window,
                                  given_hash=given_hash or runs.content_hash(messages))


def append_transcript(store: Store, run_id: str, incoming: list[Message], clients: Clients, *,
                      source: str, flush: bool = True,
                      progress: Callable[[Progress], None] | None = None) -> AppendRecord:
    """Append a transcript's messages to a run and process them. Its sessions follow the
    run's; with `flush` (the command line) a partial last window is processed too."""
    existing = records.load_messages(store, run_id)
    numbered = renumber(incoming, first_idx=len(existing),
                        session_offset=following_sessions(existing, incoming),
                        ref_prefix=PurePath(source).name)
    record = add_messages(store, run_id, numbered, source=source,
                          given_hash=runs.content_hash(incoming))
    run_windows(store, run_id, clients, progress=progress, flush=flush)
    return record


def unfinished_append(store: Store, run_id: str, incoming: list[Message]) -> AppendRecord | None:
    """The run's last append, when it holds exactly `incoming` and the run did not finish
    processing it (killed or failed): continuing it must not add the messages twice."""
    info = runs.get_run(store, run_id)
    done = appends.load_appends(store, run_id)
    if done and info.status in runs.RESUMABLE and \
            done[-1].content_hash == runs.content_hash(incoming):
        return done[-1]
    return None
