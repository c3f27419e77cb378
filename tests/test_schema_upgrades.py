"""A home database of every earlier schema (1 to 6) is upgraded when opened, and keeps all it held.

The old files are built from the history in `store/migrations.py`: the migrations up to that
version, applied as the release that shipped them applied them, then filled with the rows a
real run and evaluation wrote, cut to the columns that schema had. Opening one with today's
code must run the later migrations, end with today's tables, keep every row, and serve the
run and the evaluation as they were; a run its old process left "running" resumes.
"""

from __future__ import annotations

import shutil
import sqlite3
from datetime import datetime
from pathlib import Path

import pytest

from nemori_ui.cli import main
from nemori_ui.core.clients import build_clients
from nemori_ui.core.config import PipelineConfig
from nemori_ui.core.eval import results
from nemori_ui.core.export import run_document
from nemori_ui.core.models import LLMCallRecord
from nemori_ui.core.pipeline.append import append_transcript
from nemori_ui.core.pipeline.runner import run_windows, start_run
from nemori_ui.core.store import appends, call_log, open_store, records, runs
from nemori_ui.core.store.caches import SqliteResponseCache
from nemori_ui.core.store.db import DB_NAME
from nemori_ui.core.store.migrations import MIGRATIONS
from nemori_ui.core.transcripts import load_transcript, parse_transcript
from tests.conftest import ROOT, SAMPLE

NEWEST = max(v for v, _ in MIGRATIONS)
OLD = [v for v, _ in MIGRATIONS if v < NEWEST]
SMALL = ROOT / "tests" / "fixtures" / "transcripts" / "locomo_small.json"
ADDED_LATER = {"content_hash": 3, "owner": 3, "questions_json": 5}   # runs' columns, by version


def call(call_id: str, kind: str, run_id: str) -> LLMCallRecord:
    return LLMCallRecord(id=call_id, prompt_name="answer", backend="openai", model="gpt-4o-mini",
                         messages=[{"role": "user", "content": "Where does Maya work?"}],
                         response_text="At the bakery.", input_tokens=12, output_tokens=4,
                         created_at=datetime(2024, 5, 1, 12), context={"kind": kind,
                                                                      "run_id": run_id})


@pytest.fixture(scope="module")
def today(tmp_path_factory) -> Path:
    """A home written by today's code: an evaluation with its memory, an unfinished run of
    the sample, window and outside calls, a cached reply."""
    home = tmp_path_factory.mktemp("today")
    assert main(["eval", "locomo", str(SMALL), "--home", str(home)]) == 0
    store = open_store(home)
    config = PipelineConfig(window=13)
    clients = build_clients(config, store)
    conv = load_transcript(SAMPLE).conversations[0]
    run_id = start_run(store, conv, config, clients, source=str(SAMPLE), fmt="text")
    run_windows(store, run_id, clients, stop_after=2)
    records.save_calls(store, run_id, 2, [call("c-window", "run", run_id)])
    call_log.save_calls(store, [call("c-ask", "ask", run_id)])
    SqliteResponseCache(store).put("k1", {"text": "At the bakery."})
    with store.tx() as conn:      # its process was killed: the row still says running
        conn.execute("UPDATE runs SET status = 'running' WHERE id = ?", (run_id,))
    store.close()
    return home


def columns(db: sqlite3.Connection, table: str) -> list[str]:
    return [row[1] for row in db.execute(f"PRAGMA table_info({table})")]


def tables(db: sqlite3.Connection) -> list[str]:
    return [row[0] for row in db.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name != 'schema_migrations' "
        "ORDER BY name")]


def old_home(today: Path, version: int, home: Path) -> Path:
    """A home as a release at schema `version` left it, holding today's rows."""
    home.mkdir()
    db = sqlite3.connect(home / DB_NAME, isolation_level=None)
    db.execute("BEGIN")
    db.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, "
               "applied_at TEXT NOT NULL)")
    for v, sql in MIGRATIONS:
        if v <= version:
            for statement in filter(str.strip, sql.split(";")):
                db.execute(statement)
            db.execute("INSERT INTO schema_migrations VALUES (?, '2024-01-01T00:00:00+00:00')",
                       (v,))
    db.execute("ATTACH DATABASE ? AS today", (str(today / DB_NAME),))
    for table in tables(db):
        kept = ", ".join(f'"{c}"' for c in columns(db, table))
        db.execute(f"INSERT INTO main.{table} ({kept}) SELECT {kept} FROM today.{table} "
                   "ORDER BY rowid")
    db.execute("COMMIT")
    db.execute("DETACH DATABASE today")
    db.close()
    return home


def snapshot(path: Path) -> dict[str, list[tuple]]:
    db = sqlite3.connect(path)
    try:
        return {t: db.execute(f"SELECT * FROM {t} ORDER BY rowid").fetchall() for t in tables(db)}
    finally:
        db.close()


@pytest.mark.parametrize("version", OLD)
def test_an_old_database_is_upgraded_and_keeps_everything(today, version, tmp_path):
    home = old_home(today, version, tmp_path / f"v{version}")
    before = snapshot(home / DB_NAME)
    assert ("appends" in before) == (version >= 6) and ("eval_runs" in before) == (version >= 2)

    store = open_store(home)          # the upgrade
    assert store.schema_version == NEWEST
    assert [r[0] for r in store.conn.execute("SELECT version FROM schema_migrations "
                                             "ORDER BY version")] == list(range(1, NEWEST + 1))
    fresh = open_store(tmp_path / "fresh")
    assert tables(store.conn) == tables(fresh.conn)
    for table in tables(fresh.conn):
        assert columns(store.conn, table) == columns(fresh.conn, table), table
    fresh.close()

    # every row kept as it was; columns added since are empty
    for table, rows in before.items():
        now = store.conn.execute(f"SELECT * FROM {table} ORDER BY rowid").fetchall()
        assert [tuple(r)[:len(rows[0])] for r in now] == rows, table
    for column, since in ADDED_LATER.items():
        if since > version:
            assert {r[0] for r in store.conn.execute(f"SELECT {column} FROM runs")} == {None}

    # and served as today's code serves what it wrote
    source = open_store(today)
    for info in runs.list_runs(source):
        old, new = run_document(source, info.id), run_document(store, info.id)
        for doc in (old, new):
            for column, since in ADDED_LATER.items():
                if since > version:
                    doc["run"].pop(column, None)
        if version < 3 and old["run"]["status"] == "running":
            # no owner was kept: a run an old release left running reads interrupted
            assert new["run"].pop("status") == "interrupted"
            old["run"].pop("status")
        assert new == old
        assert runs.stored_hash(store, info.id) == runs.content_hash(
            records.load_messages(source, info.id))
        assert appends.load_appends(store, info.id) == []
    asked = runs.list_runs(source)[0].id
    assert call_log.calls_of_run(store, asked) == (
        call_log.calls_of_run(source, asked) if version >= 4 else [])
    if version >= 2:
        [evaluated] = results.list_evals(source)
        assert results.get_eval(store, evaluated.id) == evaluated
        assert results.load_questions(store, evaluated.id) == \
            results.load_questions(source, evaluated.id)
    source.close()
    store.close()


@pytest.mark.parametrize("version", [1, 3])
def test_an_upgraded_run_left_running_resumes_and_takes_appends(today, version, tmp_path):
    home = old_home(today, version, tmp_path / f"v{version}")
    store = open_store(home)
    unfinished = next(r for r in runs.list_runs(store) if r.conversation_id != "conv-mini")
    if version >= 3:     # today's rows name this process as the owner: make it a gone one
        with store.tx() as conn:
            conn.execute("UPDATE runs SET owner = NULL WHERE id = ?", (unfinished.id,))
    # no owner (none was kept before schema 3): the old release's process is long gone
    assert runs.get_run(store, unfinished.id).status == "interrupted"
    clients = build_clients(unfinished.config, store)
    run_windows(store, unfinished.id, clients)
    done = runs.get_run(store, unfinished.id)
    assert done.status == "done" and done.windows_done == done.windows_total == 8
    more = parse_transcript(b"Maya: The race went well.\nJonas: Well done!\n",
                            source="more.txt").conversations[0].messages
    added = append_transcript(store, unfinished.id, more, clients, source="more.txt")
    assert added.record is not None and added.record.first_message_id == "m0096"
    assert len(records.load_messages(store, unfinished.id)) == 97
    store.close()


def test_the_old_files_are_built_at_their_version(today, tmp_path):
    """What the tests above open really is each old schema, not today's."""
    for version in OLD:
        home = old_home(today, version, tmp_path / f"v{version}")
        db = sqlite3.connect(home / DB_NAME)
        assert db.execute("SELECT max(version) FROM schema_migrations").fetchone()[0] == version
        has = set(columns(db, "runs"))
        assert {c for c, since in ADDED_LATER.items() if since <= version} <= has
        assert not {c for c, since in ADDED_LATER.items() if since > version} & has
        db.close()
        shutil.rmtree(home)
