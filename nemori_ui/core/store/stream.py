"""Messages added to a run one call at a time by programs sharing it (the Python API).

Every add is one write transaction (`BEGIN IMMEDIATE`): the run's message count is read, the
ids are given and the rows written before any other writer, thread or process, may read the
count again, so two writers can never take the same id. A writer that finds the database
busy waits its turn (the store's busy timeout). Only what an add needs is read: the count,
the last message's session, the cuts and the caller's ids it names, never the run's messages.

A caller may give each message its own id (`key`): a key the run holds already is the same
message sent again (a retry after a timeout, say), so it is answered with the stored id and
not stored twice.
"""

from __future__ import annotations

import hashlib
import sqlite3

from pydantic import BaseModel

from ..errors import InputError
from ..models import Message
from ..window_spans import tail_processed, window_count
from .appends import insert_messages, record_append
from .db import now_iso
from .runs import content_hash


class Incoming(BaseModel):
    """A message to add, before it has its place in the run."""
    message: Message              # its id is ignored: the run gives the next one
    key: str | None = None        # the caller's own id for it, if any
    position: int = 1             # its place in the call, for error messages


class StreamWrite(BaseModel):
    """What one add stored."""
    ids: list[str]                # the run's id of each incoming message, in order
    stored: list[Message]         # the messages written now (not those held already)
    first: int                    # the run's message count before them
    cuts: list[int]               # the run's window cuts after the add
    windows_done: int


def _held_keys(conn: sqlite3.Connection, run_id: str, keys: list[str]) -> dict[str, tuple]:
    found: dict[str, tuple] = {}
    for start in range(0, len(keys), 500):   # SQLite caps bound parameters per statement
        chunk = keys[start:start + 500]
        rows = conn.execute(
            "SELECT k.key, k.message_id, m.speaker, m.text FROM message_keys k JOIN messages m "
            "ON m.run_id = k.run_id AND m.id = k.message_id WHERE k.run_id = ? AND k.key IN "
            f"({','.join('?' * len(chunk))})", (run_id, *chunk)).fetchall()
        found.update({r[0]: (r[1], r[2], r[3]) for r in rows})
    return found


def _same_or_refuse(item: Incoming, held: tuple) -> str:
    message_id, speaker, text = held
    if (speaker, text) != (item.message.speaker, item.message.text):
        raise InputError(f"id {item.key!r} names message {message_id} of this run, which says "
                         f"something else ({speaker}: {text[:60]!r}); a retry must send the same "
                         "message, a new message needs a new id",
                         field=f"messages[{item.position - 1}].id")
    return message_id


def _chained_hash(old: str | None, new: list[Message]) -> str:
    """The run's content hash after `new`, from the hash before them: no add reads the run's
    messages. (A run the API fills is never matched against a transcript file by hash.)"""
    return hashlib.sha256(f"{old or ''}:{content_hash(new)}".encode()).hexdigest()[:32]


# The index's last entry: count(*) would walk every message of the run (0.7 ms at 10,000).
COUNT_SQL = "SELECT coalesce(max(idx), -1) + 1 FROM messages WHERE run_id = ?1"


def message_count(conn: sqlite3.Connection, run_id: str) -> int:
    return conn.execute(COUNT_SQL, (run_id,)).fetchone()[0]


def write_stream(conn: sqlite3.Connection, run_id: str, items: list[Incoming], *, window: int,
                 source: str) -> StreamWrite:
    """Within the caller's write transaction: store `items` as the run's next messages (those
    whose key the run holds are not stored again) and record the append."""
    n = message_count(conn, run_id)
    last = conn.execute("SELECT session FROM messages WHERE run_id = ? AND idx = ?",
                        (run_id, n - 1)).fetchone()
    windows_done, old_hash = conn.execute(
        "SELECT windows_done, content_hash FROM runs WHERE id = ?", (run_id,)).fetchone()
    cuts = [r[0] for r in conn.execute(
        "SELECT at FROM window_cuts WHERE run_id = ? ORDER BY at", (run_id,))]
    held = _held_keys(conn, run_id, list({i.key for i in items if i.key is not None}))
    session = last[0] if last else 1
    ids: list[str] = []
    new: list[Message] = []
    new_keys: dict[str, str] = {}
    for item in items:
        if item.key is not None and item.key in held:
            ids.append(_same_or_refuse(item, held[item.key]))
            continue
        if item.key is not None and item.key in new_keys:     # twice in one call
            ids.append(new_keys[item.key])
            continue
        m = item.message
        message = m.model_copy(update={"id": f"m{n + len(new) + 1:04d}",
                                       "session": m.session or session})
        new.append(message)
        ids.append(message.id)
        if item.key is not None:
            new_keys[item.key] = message.id
    if new:
        if tail_processed(n, window, cuts, windows_done):
            conn.execute("INSERT OR IGNORE INTO window_cuts VALUES (?, ?)", (run_id, n))
            cuts = sorted(set(cuts) | {n})
        first_window = window_count(n, window, cuts)
        insert_messages(conn, run_id, n, new)
        conn.executemany("INSERT INTO message_keys VALUES (?, ?, ?)",
                         [(run_id, key, mid) for key, mid in new_keys.items()])
        record_append(conn, run_id, n, len(new), source=source, first_window=first_window,
                      given_hash=content_hash(new))
        total = window_count(n + len(new), window, cuts)
        conn.execute("UPDATE runs SET content_hash = ?, updated_at = ?, "
                     "windows_total = max(windows_total, ?) WHERE id = ?",
                     (_chained_hash(old_hash, new), now_iso(), total, run_id))
    return StreamWrite(ids=ids, stored=new, first=n, cuts=cuts, windows_done=windows_done)
