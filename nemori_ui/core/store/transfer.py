"""Rows of a store, lifted out of one SQLite database and landed in another.

A worker builds its memory in a store of its own and hands back the rows it wrote; the driver
lands them in the home's store. The rows are the tables' own, column by column, so what lands
is exactly what the same work would have written there directly, and nothing needs a shared
disk. Both sides run the same code, so both stores have the same schema.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from .db import Store

# a run's own tables, children first (the order a run's rows are cleared in)
RUN_TABLES = ("window_cuts", "appends", "llm_calls", "events", "memories", "episodes",
              "messages")
Cell = str | int | float | bytes | None


class TableRows(BaseModel):
    table: str
    columns: list[str]
    rows: list[list[Cell]] = Field(default_factory=list)


class RunRows(BaseModel):
    """Everything stored of one run: its row in `runs` and its rows in every run table."""
    run_id: str
    tables: list[TableRows]


class StoreRows(BaseModel):
    """What one task wrote: whole runs, calls made outside runs, cache entries."""
    runs: list[RunRows] = Field(default_factory=list)
    call_log: TableRows | None = None
    llm_cache: TableRows | None = None
    vector_cache: TableRows | None = None

    def size(self) -> int:
        tables = [t for r in self.runs for t in r.tables] + \
            [t for t in (self.call_log, self.llm_cache, self.vector_cache) if t]
        return sum(len(t.rows) for t in tables)


def select(store: Store, table: str, where: str = "1", params: tuple = ()) -> TableRows:
    with store._lock:
        cur = store.conn.execute(f'SELECT * FROM "{table}" WHERE {where} ORDER BY rowid', params)
        columns = [d[0] for d in cur.description]
        rows = [list(r) for r in cur.fetchall()]
    return TableRows(table=table, columns=columns, rows=rows)


def run_rows(store: Store, run_id: str) -> RunRows:
    tables = [select(store, "runs", "id = ?", (run_id,))]
    tables += [select(store, t, "run_id = ?", (run_id,)) for t in reversed(RUN_TABLES)]
    if not tables[0].rows:
        raise KeyError(f"no run '{run_id}' in {store.path}")
    return RunRows(run_id=run_id, tables=tables)


def cache_entries(store: Store, keys: list[str]) -> TableRows:
    """The response cache's entries under these keys (those it has)."""
    found = TableRows(table="llm_cache", columns=["key", "entry", "created_at"])
    unique = sorted({k for k in keys if k})
    for start in range(0, len(unique), 500):   # SQLite caps the parameters of one statement
        chunk = unique[start:start + 500]
        part = select(store, "llm_cache", f"key IN ({','.join('?' * len(chunk))})", tuple(chunk))
        found.columns = part.columns
        found.rows.extend(part.rows)
    return found


def everything_but(store: Store, runs_known: set[str], keys_known: set[str],
                   vectors_known: set[str] = frozenset()) -> StoreRows:
    """All a task store holds apart from what it was seeded with or borrowed from the home:
    the task's own work."""
    ids = [r["id"] for r in store.query("SELECT id FROM runs ORDER BY rowid")]
    cache = select(store, "llm_cache")
    cache.rows = [r for r in cache.rows if r[0] not in keys_known]
    vectors = select(store, "vector_cache")
    key = vectors.columns.index("key")
    vectors.rows = [r for r in vectors.rows if r[key] not in vectors_known]
    return StoreRows(runs=[run_rows(store, i) for i in ids if i not in runs_known],
                     call_log=select(store, "call_log"), llm_cache=cache, vector_cache=vectors)


def _insert(conn, rows: TableRows, verb: str) -> None:
    if rows.rows:
        cols = ", ".join(f'"{c}"' for c in rows.columns)
        marks = ", ".join("?" * len(rows.columns))
        conn.executemany(f'{verb} INTO "{rows.table}" ({cols}) VALUES ({marks})', rows.rows)


def land(store: Store, rows: StoreRows) -> None:
    """Write a task's rows into `store` in one transaction. A run already there (an interrupted
    run the task continued) is replaced whole, so no row of it is left twice or stale."""
    with store.tx() as conn:
        for run in rows.runs:
            for table in RUN_TABLES:
                conn.execute(f'DELETE FROM "{table}" WHERE run_id = ?', (run.run_id,))
            conn.execute("DELETE FROM runs WHERE id = ?", (run.run_id,))
            for table in run.tables:
                _insert(conn, table, "INSERT")
        if rows.call_log:
            _insert(conn, rows.call_log, "INSERT OR REPLACE")
        if rows.llm_cache:
            _insert(conn, rows.llm_cache, "INSERT OR REPLACE")
        if rows.vector_cache:
            _insert(conn, rows.vector_cache, "INSERT OR IGNORE")
