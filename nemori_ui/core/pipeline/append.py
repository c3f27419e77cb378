"""Continue a stored run with more messages, as if they had come at the end of its transcript.

The new messages take the next ids, join the buffer after the run's last window, and are
windowed and processed by the same runner; a window already processed is never reopened (a
partial last window that was closed stays closed, see `windows`). Each append is recorded with
where it started.
"""

from __future__ import annotations

from pathlib import PurePath
from typing import Callable

from pydantic import BaseModel

from ..errors import InputError
from ..models import Message
from ..store import Store
from ..store import appends, records, runs
from ..store.appends import AppendRecord
from ..store.owner import this_process
from ..window_spans import tail_processed, window_count
from .held import Held, Part, held_prefix, parts_of
from .runner import Clients, Progress, run_windows


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


class Appended(BaseModel):
    """What `append_transcript` did: the append it stored (None when the run held every
    message already), the leading messages it skipped because the run held them, and whether
    it went on processing windows an interrupted run had left."""
    record: AppendRecord | None
    held: Held = Held()
    continued: bool = False

    def notes(self, run_id: str, source: str) -> list[str]:
        """What a person should be told, one line each."""
        if not self.held.count:
            return []
        where = f"{self.held.run_ids()}, {self.held.part}"
        if self.record is None and self.continued:
            what = (f"append {self.held.seq} of these messages to run {run_id}"
                    if self.held.seq else f"run {run_id}")
            return [f"continuing {what}, which was interrupted: it holds these messages "
                    f"already ({where}), none is added again"]
        if self.record is None:
            return [f"run {run_id} already holds the {self.held.count} messages of {source} "
                    f"({where}): nothing appended"]
        return [f"the first {self.held.count} messages of {source} are already in run "
                f"{run_id} ({where}): skipped; appending the other {self.record.count}"]


def _closed_tail(info: runs.RunInfo, n: int, cuts: list[int]) -> int | None:
    """The cut to record before adding, where the run's processed partial tail must stay
    closed (`tail_processed`)."""
    return n if tail_processed(n, info.config.window, cuts, info.windows_done) else None


def _write(store: Store, conn, run_id: str, existing: list[Message], messages: list[Message], *,
           source: str, given_hash: str) -> AppendRecord:
    """Within the caller's transaction: check the run may be added to, close a processed
    partial tail and store `messages` (numbered by `renumber`) after `existing`."""
    info = runs.get_run(store, run_id)
    # this process may add while its own worker processes earlier windows (the Live page):
    # that worker windowed the messages it loaded, and later ones wait for the next pass
    if info.status == "running" and info.owner != this_process():
        raise InputError(f"run {run_id} is running in another process ({info.owner}); add "
                         "to it once that process has stopped")
    expected = f"m{len(existing) + 1:04d}"
    if messages[0].id != expected:
        raise ValueError(f"appended messages must start at id {expected}, not {messages[0].id}")
    cuts = appends.load_cuts(store, run_id)
    cut = _closed_tail(info, len(existing), cuts)
    first_window = window_count(len(existing), info.config.window,
                                cuts + ([cut] if cut is not None else []))
    return appends.write_append(conn, run_id, existing, messages, source=source,
                                first_window=first_window, given_hash=given_hash, cut_at=cut)


def add_messages(store: Store, run_id: str, messages: list[Message], *, source: str,
                 given_hash: str | None = None) -> AppendRecord:
    """Store `messages` (already numbered by `renumber`) as the run's next ones and record the
    append. Nothing is processed here: `run_windows` does that. A message stream (the Live
    page, the Python API) may say the same thing twice: nothing is compared here."""
    if not messages:
        raise InputError("nothing to append: no messages", file=source)
    with store.tx() as conn:
        existing = records.load_messages(store, run_id)
        return _write(store, conn, run_id, existing, messages, source=source,
                      given_hash=given_hash or runs.content_hash(messages))


def run_parts(store: Store, run_id: str, stored: list[Message]) -> list[Part]:
    info = runs.get_run(store, run_id)
    return parts_of(stored, PurePath(info.source).name or info.source,
                    [(a.seq, a.first_idx, a.count, PurePath(a.source).name or a.source,
                      a.content_hash) for a in appends.load_appends(store, run_id)])


def _sessions_after(existing: list[Message], incoming: list[Message], held: Held) -> int:
    """The session offset of the new messages: aligned with the held ones when some were
    held (a chat that went on in the same session stays in it), else following the run's."""
    if not held.count:
        return following_sessions(existing, incoming)
    return existing[held.at + held.count - 1].session - incoming[held.count - 1].session


def append_transcript(store: Store, run_id: str, incoming: list[Message], clients: Clients, *,
                      source: str, flush: bool = True,
                      progress: Callable[[Progress], None] | None = None) -> Appended:
    """Append a transcript's messages to a run and process them. Its sessions follow the
    run's; with `flush` (the command line) a partial last window is processed too.

    Leading messages the run holds already are skipped (see `held`): a re-run of an append,
    finished or killed, stores nothing twice and continues what was left unprocessed. The
    check and the write are one transaction, so two appends of the same file cannot both
    pass it."""
    if not incoming:
        raise InputError("nothing to append: no messages", file=source)
    with store.tx() as conn:
        existing = records.load_messages(store, run_id)
        held = held_prefix(existing, run_parts(store, run_id, existing), incoming)
        if held.diverges:
            raise InputError(
                f"its first {held.count} messages are already in run {run_id} "
                f"({held.run_ids()}, {held.part}), but its message {held.count + 1} differs from "
                f"the run's m{held.at + held.count + 1:04d}; nothing was appended: append a file "
                "of the new messages only", file=source)
        new = incoming[held.count:]
        record = None
        if new:
            numbered = renumber(new, first_idx=len(existing),
                                session_offset=_sessions_after(existing, incoming, held),
                                ref_prefix=PurePath(source).name)
            record = _write(store, conn, run_id, existing, numbered, source=source,
                            given_hash=runs.content_hash(new))
    status = runs.get_run(store, run_id).status
    continued = record is None and status in runs.RESUMABLE
    if record is not None or continued:
        run_windows(store, run_id, clients, progress=progress, flush=flush)
    return Appended(record=record, held=held, continued=continued)


def unfinished_append(store: Store, run_id: str, incoming: list[Message]) -> AppendRecord | None:
    """The run's last append, when the run holds every message of `incoming` and did not
    finish processing them (killed or failed): continuing it must not add the messages twice.
    (`append_transcript` makes the same check again, atomically, before it writes.)"""
    info = runs.get_run(store, run_id)
    done = appends.load_appends(store, run_id)
    if not done or info.status not in runs.RESUMABLE:
        return None
    existing = records.load_messages(store, run_id)
    held = held_prefix(existing, run_parts(store, run_id, existing), incoming)
    return done[-1] if held.count == len(incoming) and not held.diverges else None
