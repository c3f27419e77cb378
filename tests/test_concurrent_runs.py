"""Whole pipeline runs from two processes into one home at once, and a database held or broken.

Each run here is the offline engine on the bundled sample through the command line; what it
stores is compared with the same run made alone.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from nemori_ui.core.clients import build_clients
from nemori_ui.core.config import PipelineConfig
from nemori_ui.core.errors import RunTaken
from nemori_ui.core.export import run_document
from nemori_ui.core.pipeline.runner import run_windows, start_run
from nemori_ui.core.store import open_store, runs
from nemori_ui.core.store.db import DB_NAME
from nemori_ui.core.transcripts import load_transcript
from tests.conftest import ROOT, SAMPLE

COMPARED = ("messages", "episodes", "semantic", "events")


def command(home: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "nemori_ui", "run", str(SAMPLE), "--window", "8",
            "--home", str(home), *extra]


def start(home: Path, *extra: str) -> subprocess.Popen:
    return subprocess.Popen(command(home, *extra), cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def contents(home: Path) -> list[dict]:
    """Every run in the home, each checked complete, as its comparable export."""
    store = open_store(home)
    try:
        out = []
        for info in runs.list_runs(store):
            assert info.status == "done" and info.windows_done == info.windows_total, info
            doc = run_document(store, info.id)
            out.append({key: doc[key] for key in COMPARED})
        return out
    finally:
        store.close()


@pytest.fixture(scope="module")
def alone(tmp_path_factory) -> dict:
    home = tmp_path_factory.mktemp("alone")
    proc = start(home)
    assert proc.wait(timeout=120) == 0, proc.stderr.read()
    [doc] = contents(home)
    return doc


def test_two_processes_run_whole_pipelines_into_one_home(alone, tmp_path):
    procs = [start(tmp_path, "--fresh") for _ in range(2)]
    for proc in procs:
        assert proc.wait(timeout=120) == 0, proc.stderr.read()
    assert contents(tmp_path) == [alone, alone]


def test_the_same_run_resumed_by_two_processes_at_once_is_saved_once(alone, tmp_path):
    # The second process finds the first one's unfinished run and resumes it; both compute
    # the next window but only one may save it, and the other stops with a clear message.
    first = start(tmp_path)
    time.sleep(0.3)
    second = start(tmp_path)
    for proc in (first, second):
        code = proc.wait(timeout=120)
        err = proc.stderr.read()
        assert "Traceback" not in err, err
        assert code == 0 or (code == 2 and "being run by another process" in err), (code, err)
    stored = contents(tmp_path)
    assert stored and all(doc == alone for doc in stored)


def test_a_window_saved_by_another_process_first_is_not_saved_again(alone, tmp_path):
    """The race above, made deterministic: A is computing window 3 when B saves it."""
    transcript = load_transcript(SAMPLE)
    config = PipelineConfig(window=8)
    conv = transcript.conversations[0]
    store_a, store_b = open_store(tmp_path), open_store(tmp_path)   # two connections
    clients_a, clients_b = build_clients(config, store_a), build_clients(config, store_b)
    run_id = start_run(store_a, conv, config, clients_a, source=str(SAMPLE), fmt="text")
    run_windows(store_a, run_id, clients_a, stop_after=2)

    def meanwhile(p) -> None:
        if p.stage == "partition" and runs.get_run(store_b, run_id).windows_done == 2:
            assert start_run(store_b, conv, config, clients_b, source=str(SAMPLE),
                             fmt="text") == run_id
            run_windows(store_b, run_id, clients_b, stop_after=1)

    with pytest.raises(RunTaken, match="being run by another process, which saved window 3"):
        run_windows(store_a, run_id, clients_a, progress=meanwhile)
    assert runs.get_run(store_a, run_id).status != "failed"   # not A's to mark
    run_windows(store_b, run_id, clients_b)
    store_a.close()
    store_b.close()
    assert contents(tmp_path) == [alone]


def test_a_writer_holding_the_database_only_delays_a_run(alone, tmp_path):
    proc = start(tmp_path)
    deadline = time.monotonic() + 60
    while not (tmp_path / DB_NAME).exists() or not _windows_done(tmp_path):
        assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read()
        time.sleep(0.005)
    other = sqlite3.connect(tmp_path / DB_NAME, timeout=5)
    other.execute("BEGIN EXCLUSIVE")
    time.sleep(1.5)   # longer than a window takes: the run has to wait for the lock
    assert proc.poll() is None, "the run finished while the database was held"
    other.rollback()
    other.close()
    assert proc.wait(timeout=120) == 0, proc.stderr.read()
    assert contents(tmp_path) == [alone]


def _windows_done(home: Path) -> int:
    try:
        with sqlite3.connect(f"file:{home / DB_NAME}?mode=ro", uri=True, timeout=0.05) as db:
            row = db.execute("SELECT windows_done FROM runs").fetchone()
    except sqlite3.Error:
        return 0
    return row[0] if row else 0


def test_a_corrupt_database_stops_the_command_clearly_and_is_left_alone(tmp_path):
    bad = tmp_path / DB_NAME
    bad.write_bytes(b"SQLite format 3\x00" + b"\x13" * 5000)
    before = bad.read_bytes()
    done = subprocess.run(command(tmp_path), cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 2
    assert "not a Nemori database or is corrupt" in done.stderr and "Traceback" not in done.stderr
    assert str(bad) in done.stderr
    assert bad.read_bytes() == before
