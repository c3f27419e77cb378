"""Opening the home database: location, connection settings, migrations, transactions."""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterator

from ..errors import StoreError
from .migrations import MIGRATIONS

DB_NAME = "nemori.db"


def default_home() -> Path:
    return Path(os.environ.get("NEMORI_HOME") or Path.home() / ".nemori_ui")


def now_iso() -> str:
    return datetime.now(timezone.utc).replace(microsecond=0).isoformat()


class Store:
    """One connection to the home database, shared by the threads of one process.

    Writes go through `tx()`, which takes an immediate (write) lock so that two processes
    writing runs to the same home wait for each other instead of failing half-way.
    """

    def __init__(self, path: Path, *, timeout_s: float = 30.0):
        self.path = Path(path)
        self._lock = threading.RLock()
        try:
            self.conn = sqlite3.connect(self.path, timeout=timeout_s, check_same_thread=False,
                                        isolation_level=None)
            self.conn.row_factory = sqlite3.Row
            self.conn.execute(f"PRAGMA busy_timeout={int(timeout_s * 1000)}")
            # Switching a new database to WAL while another process opens it can report "locked"
            # at once, without waiting on the busy timeout: so wait here instead.
            _patiently(lambda: self.conn.execute("PRAGMA journal_mode=WAL"), timeout_s)
            self.conn.execute("PRAGMA foreign_keys=ON")
            _patiently(self._migrate, timeout_s)
        except sqlite3.DatabaseError as exc:
            raise StoreError(_explain(self.path, exc)) from exc

    def _migrate(self) -> None:
        with self.tx() as conn:
            conn.execute("CREATE TABLE IF NOT EXISTS schema_migrations "
                         "(version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)")
            done = {row[0] for row in conn.execute("SELECT version FROM schema_migrations")}
            newest = max(v for v, _ in MIGRATIONS)
            if done and max(done) > newest:
                raise StoreError(f"{self.path}: written by a newer version of Nemori Inspector "
                                 f"(schema {max(done)} > {newest}); upgrade to open it")
            for version, sql in MIGRATIONS:
                if version not in done:
                    for statement in filter(str.strip, sql.split(";")):
                        conn.execute(statement)
                    conn.execute("INSERT INTO schema_migrations VALUES (?, ?)", (version, now_iso()))

    @property
    def schema_version(self) -> int:
        return self.conn.execute("SELECT max(version) FROM schema_migrations").fetchone()[0]

    @contextmanager
    def tx(self) -> Iterator[sqlite3.Connection]:
        """A write transaction: all or nothing, and never interleaved with another writer."""
        with self._lock:
            try:
                self.conn.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as exc:
                raise StoreError(_explain(self.path, exc)) from exc
            try:
                yield self.conn
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise
            else:
                try:
                    self.conn.execute("COMMIT")
                except sqlite3.DatabaseError as exc:
                    self.conn.execute("ROLLBACK")
                    raise StoreError(_explain(self.path, exc)) from exc

    def query(self, sql: str, params: tuple = ()) -> list[sqlite3.Row]:
        with self._lock:
            try:
                return self.conn.execute(sql, params).fetchall()
            except sqlite3.DatabaseError as exc:
                raise StoreError(_explain(self.path, exc)) from exc

    def close(self) -> None:
        with self._lock:
            self.conn.close()


def _patiently(step, timeout_s: float):
    """Run `step`, retrying while SQLite says the database is locked, up to `timeout_s`."""
    deadline = time.monotonic() + timeout_s
    delay = 0.01
    while True:
        try:
            return step()
        except (sqlite3.OperationalError, StoreError) as exc:
            if "locked" not in str(exc) or time.monotonic() + delay > deadline:
                raise
            time.sleep(delay)
            delay = min(delay * 2, 0.5)


def _explain(path: Path, exc: Exception) -> str:
    text = str(exc)
    if "locked" in text or "busy" in text:
        return (f"{path}: the database is locked by another process (waited and gave up); "
                "nothing was changed, try again when the other run finishes")
    if "not a database" in text or "malformed" in text or "corrupt" in text:
        return (f"{path}: the file is not a Nemori database or is corrupt ({text}); "
                "it was left untouched: move it aside or use another --home")
    return f"{path}: {text}"


def open_store(home: str | Path | None = None) -> Store:
    folder = Path(home) if home else default_home()
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StoreError(f"{folder}: cannot create the home folder ({exc.strerror})") from exc
    return Store(folder / DB_NAME)
