"""Messages added to a stored run, and where windows were closed early."""

from __future__ import annotations

import sqlite3

from pydantic import BaseModel

from ..models import Message
from .db import Store, now_iso
from .runs import content_hash


class AppendRecord(BaseModel):
    seq: int                  # 1 for the first append to a run
    first_idx: int            # position of its first message in the run (0-based)
    count: int
    first_window: int         # the window its first message falls in
    source: str
    content_hash: str
    created_at: str

    @property
    def first_message_id(self) -> str | None:
        return None if not self.count else f"m{self.first_idx + 1:04d}"


def write_append(conn: sqlite3.Connection, run_id: str, existing: list[Message],
                 messages: list[Message], *, source: str, first_window: int, given_hash: str,
                 cut_at: int | None = None) -> AppendRecord:
    """Add `messages` after the run's `existing` ones and record the append, inside the
    caller's transaction (`store.tx()`), so that what the caller checked against `existing`
    still holds when the rows are written. `given_hash`: of the messages as they were given,
    before renumbering; `cut_at`: a window closed early to record first. The run's content
    hash becomes that of all its messages, so a later `run` of the original file alone does
    not take this run for its own unfinished one."""
    first = len(existing)
    if cut_at is not None:
        conn.execute("INSERT OR IGNORE INTO window_cuts VALUES (?, ?)", (run_id, cut_at))
    insert_messages(conn, run_id, first, messages)
    record = record_append(conn, run_id, first, len(messages), source=source,
                           first_window=first_window, given_hash=given_hash)
    conn.execute("UPDATE runs SET content_hash = ?, updated_at = ? WHERE id = ?",
                 (content_hash(existing + messages), now_iso(), run_id))
    return record


def insert_messages(conn: sqlite3.Connection, run_id: str, first: int,
                    messages: list[Message]) -> None:
    """The rows of `messages` at positions `first`, `first + 1`, ... of the run."""
    conn.executemany(
        "INSERT INTO messages VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [(run_id, m.id, first + i, m.speaker, m.role, m.text,
          m.timestamp.isoformat() if m.timestamp else None, m.session, m.source_ref)
         for i, m in enumerate(messages)])


def record_append(conn: sqlite3.Connection, run_id: str, first: int, count: int, *,
                  source: str, first_window: int, given_hash: str) -> AppendRecord:
    seq = conn.execute("SELECT coalesce(max(seq), 0) + 1 FROM appends WHERE run_id = ?",
                       (run_id,)).fetchone()[0]
    record = AppendRecord(seq=seq, first_idx=first, count=count, first_window=first_window,
                          source=source, content_hash=given_hash, created_at=now_iso())
    conn.execute("INSERT INTO appends VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                 (run_id, record.seq, record.first_idx, record.count, record.first_window,
                  record.source, record.content_hash, record.created_at))
    return record


def load_appends(store: Store, run_id: str) -> list[AppendRecord]:
    rows = store.query("SELECT * FROM appends WHERE run_id = ? ORDER BY seq", (run_id,))
    return [AppendRecord(**{k: r[k] for k in AppendRecord.model_fields}) for r in rows]


def load_cuts(store: Store, run_id: str) -> list[int]:
    return [r["at"] for r in store.query(
        "SELECT at FROM window_cuts WHERE run_id = ? ORDER BY at", (run_id,))]


def add_cut(store: Store, run_id: str, at: int) -> None:
    with store.tx() as conn:
        conn.execute("INSERT OR IGNORE INTO window_cuts VALUES (?, ?)", (run_id, at))


def set_windows_total(store: Store, run_id: str, total: int) -> None:
    with store.tx() as conn:
        conn.execute("UPDATE runs SET windows_total = ? WHERE id = ? AND windows_total != ?",
                     (total, run_id, total))
