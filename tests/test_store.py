"""The run store: migrations, two writers at once, and clear errors for a broken database."""

from __future__ import annotations

import sqlite3
import subprocess
import sys

import pytest

from nemori_ui.core.config import PipelineConfig
from nemori_ui.core.errors import StoreError
from nemori_ui.core.models import Conversation, Message
from nemori_ui.core.store import open_store, runs
from nemori_ui.core.store.caches import SqliteResponseCache, SqliteVectorCache
from nemori_ui.core.store.db import DB_NAME
from nemori_ui.core.store.migrations import MIGRATIONS

from tests.conftest import ROOT


def conversation(n=3):
    return Conversation(id="c1", messages=[Message(id=f"m{i}", speaker="A", text=f"t{i}")
                                           for i in range(n)])


def test_migrations_are_numbered_and_applied_once(tmp_path):
    store = open_store(tmp_path)
    assert store.schema_version == max(v for v, _ in MIGRATIONS)
    store.close()
    again = open_store(tmp_path)
    rows = again.query("SELECT version FROM schema_migrations")
    assert [r[0] for r in rows] == [v for v, _ in MIGRATIONS]


def test_a_newer_schema_is_refused_without_touching_it(tmp_path):
    store = open_store(tmp_path)
    with store.tx() as conn:
        conn.execute("INSERT INTO schema_migrations VALUES (999, 'future')")
    store.close()
    with pytest.raises(StoreError, match="newer version"):
        open_store(tmp_path)


def test_a_corrupt_database_gives_a_clear_error_and_is_left_alone(tmp_path):
    bad = tmp_path / DB_NAME
    bad.write_bytes(b"this is not sqlite at all" * 100)
    before = bad.read_bytes()
    with pytest.raises(StoreError, match="not a Nemori database or is corrupt"):
        open_store(tmp_path)
    assert bad.read_bytes() == before


def test_a_locked_database_gives_a_clear_error_and_loses_nothing(tmp_path):
    store = open_store(tmp_path)
    run_id = runs.create_run(store, conversation(), PipelineConfig(), source="s", fmt="text",
                             decider="x", windows_total=1)
    other = sqlite3.connect(tmp_path / DB_NAME, timeout=0.1)
    other.execute("BEGIN EXCLUSIVE")
    store.conn.execute("PRAGMA busy_timeout=200")
    with pytest.raises(StoreError, match="locked by another process"):
        runs.rename_run(store, run_id, "renamed")
    other.rollback()
    other.close()
    assert runs.get_run(store, run_id).name != "renamed"
    runs.rename_run(store, run_id, "renamed")
    assert runs.get_run(store, run_id).name == "renamed"


WRITER = """
import sys
from nemori_ui.core.config import PipelineConfig
from nemori_ui.core.models import Conversation, Message
from nemori_ui.core.store import open_store, runs
store = open_store(sys.argv[1])
conv = Conversation(id=sys.argv[2], messages=[Message(id=f"m{i}", speaker="A", text="x") for i in range(50)])
for _ in range(20):
    runs.create_run(store, conv, PipelineConfig(), source="s", fmt="text", decider="x", windows_total=1)
"""


def test_two_processes_write_runs_to_one_home(tmp_path):
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path), name], cwd=ROOT,
                              stderr=subprocess.PIPE, text=True) for name in ("a", "b")]
    for p in procs:
        assert p.wait(timeout=120) == 0, p.stderr.read()
    store = open_store(tmp_path)
    listed = runs.list_runs(store)
    assert len(listed) == 40
    counts = store.query("SELECT run_id, count(*) FROM messages GROUP BY run_id")
    assert len(counts) == 40 and all(r[1] == 50 for r in counts)


def test_caches_round_trip(tmp_path):
    import numpy as np
    store = open_store(tmp_path)
    cache = SqliteResponseCache(store)
    assert cache.get("k") is None
    cache.put("k", {"response_text": "{}", "parsed": {}, "input_tokens": 3, "output_tokens": 1})
    assert cache.get("k")["input_tokens"] == 3
    vectors = SqliteVectorCache(store)
    vec = np.arange(4, dtype=np.float32)
    vectors.put_many("ns", {"a": vec})
    assert np.array_equal(vectors.get_many("ns", ["a", "b"])["a"], vec)
    assert vectors.get_many("other", ["a"]) == {}


def test_delete_removes_everything_of_one_run_only(tmp_path):
    store = open_store(tmp_path)
    keep = runs.create_run(store, conversation(), PipelineConfig(), source="s", fmt="t", decider="x",
                           windows_total=1)
    drop = runs.create_run(store, conversation(), PipelineConfig(), source="s", fmt="t", decider="x",
                           windows_total=1)
    runs.delete_run(store, drop)
    assert [r.id for r in runs.list_runs(store)] == [keep]
    assert store.query("SELECT count(*) FROM messages")[0][0] == 3


def test_the_newest_run_comes_first_even_within_one_second(tmp_path, monkeypatch):
    """Run ids end in random hex, so within one second only the insertion order says which
    run is newest; the pages' default run depends on it."""
    from nemori_ui.core.store import db
    monkeypatch.setattr(runs, "now_iso", lambda: "2026-01-01T00:00:00+00:00")
    monkeypatch.setattr(db, "now_iso", lambda: "2026-01-01T00:00:00+00:00")
    store = open_store(tmp_path)
    made = [runs.create_run(store, conversation(), PipelineConfig(), source="x.txt", fmt="chat",
                            decider="offline", windows_total=1) for _ in range(12)]
    assert [r.id for r in runs.list_runs(store)] == made[::-1]
