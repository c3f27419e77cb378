"""A run killed with SIGKILL at random points resumes to exactly what an uninterrupted run gives.

The command line runs the offline engine on the bundled sample in windows of 8 messages (ten
windows). The test watches the run's progress in the database and kills the process a little
after a chosen window was committed, so the kill lands anywhere in the next window: between
stages, inside a write. Running the same command again resumes the unfinished run. The export
(episodes, memories, events, messages) must equal that of a run never interrupted.
"""

from __future__ import annotations

import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from nemori_ui.core.export import run_document
from nemori_ui.core.store import open_store, runs
from nemori_ui.core.store.db import DB_NAME
from tests.conftest import ROOT, SAMPLE

SEED = 1337
WINDOWS = 12
COMPARED = ("messages", "episodes", "semantic", "events")


def command(home: Path) -> list[str]:
    return [sys.executable, "-m", "nemori_ui", "run", str(SAMPLE), "--window", "8",
            "--home", str(home)]


def finish(home: Path) -> None:
    done = subprocess.run(command(home), cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def progress(home: Path) -> int | None:
    """Windows committed so far, or None before the run exists (read-only, never blocks it)."""
    try:
        with sqlite3.connect(f"file:{home / DB_NAME}?mode=ro", uri=True, timeout=0.05) as db:
            row = db.execute("SELECT windows_done FROM runs").fetchone()
    except sqlite3.Error:
        return None
    return None if row is None else row[0]


def kill_after(home: Path, windows: int, extra_s: float) -> int:
    """Start the run, SIGKILL it `extra_s` after `windows` windows were committed; returns the
    windows committed when it died."""
    proc = subprocess.Popen(command(home), cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    try:
        while (done := progress(home)) is None or done < windows:
            assert proc.poll() is None, f"the run ended before window {windows} was committed"
            assert time.monotonic() < deadline, "the run made no progress"
            time.sleep(0.003)
        time.sleep(extra_s)
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL, "the run finished before it could be killed"
    return progress(home) or 0


def exported(home: Path) -> dict:
    store = open_store(home)
    try:
        [info] = runs.list_runs(store)      # resumed, never started over beside the first
        assert info.status == "done" and info.windows_done == info.windows_total == WINDOWS
        doc = run_document(store, info.id)
    finally:
        store.close()
    return {key: doc[key] for key in COMPARED}


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory) -> dict:
    home = tmp_path_factory.mktemp("whole")
    finish(home)
    return exported(home)


def test_killed_repeatedly_at_random_points_resumes_to_the_same_run(uninterrupted, tmp_path):
    rng = random.Random(SEED)
    points = sorted(rng.sample(range(1, WINDOWS - 1), 3))
    seen = []
    for windows in points:
        seen.append(kill_after(tmp_path, windows, rng.uniform(0.0, 0.04)))
    assert seen == sorted(seen) and seen[-1] < WINDOWS, seen
    finish(tmp_path)
    assert exported(tmp_path) == uninterrupted


def test_killed_in_its_first_window_resumes_to_the_same_run(uninterrupted, tmp_path):
    assert kill_after(tmp_path, 0, random.Random(SEED).uniform(0.0, 0.03)) == 0
    finish(tmp_path)
    assert exported(tmp_path) == uninterrupted
