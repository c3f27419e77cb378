"""Continuing a run with more messages gives the memory the whole transcript would have given.

The bundled sample is split after its third session (65 messages, five windows of 13): A is
sessions 1-3, B sessions 4-5 with their headings. `run A` then `append RUN B` must store the
same messages, episodes, memories and events as `run A+B`, also when the append is killed
and continued, and every message must sit in exactly one raw episode.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from nemori_ui.core.export import run_document
from nemori_ui.core.pipeline.windows import pending_count, window_spans
from nemori_ui.core.store import appends, open_store, runs
from tests.cli_runner import Done, copy_home, run_cli
from tests.conftest import ROOT, SAMPLE
from tests.test_kill_resume import progress

W = "13"
SPLIT_LINE = 69          # "## Session 4" starts B
COMPARED = ("episodes", "semantic", "events")


def cli(home: Path, *args: str, check: bool = True) -> Done:
    done = run_cli(*args, "--home", str(home))
    if check:
        assert done.returncode == 0, done.stderr
    return done


@pytest.fixture(scope="module")
def parts(tmp_path_factory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("parts")
    lines = SAMPLE.read_text().splitlines(keepends=True)
    a, b = folder / "a.txt", folder / "b.txt"
    a.write_text("".join(lines[:SPLIT_LINE - 1]))
    b.write_text("".join(lines[SPLIT_LINE - 1:]))
    return a, b


def document(home: Path) -> dict:
    store = open_store(home)
    try:
        [info] = runs.list_runs(store)
        assert info.status == "done" and info.windows_done == info.windows_total
        return run_document(store, info.id)
    finally:
        store.close()


def comparable(doc: dict) -> dict:
    """What the memory holds. Source references name the file a message came from, so they
    differ by design (b.txt line 3 is line 71 of the whole)."""
    out = {key: doc[key] for key in COMPARED}
    out["messages"] = [{k: v for k, v in m.items() if k != "source_ref"} for m in doc["messages"]]
    return out


@pytest.fixture(scope="module")
def whole(tmp_path_factory) -> dict:
    home = tmp_path_factory.mktemp("whole")
    cli(home, "run", str(SAMPLE), "--window", W)
    return document(home)


@pytest.fixture(scope="module")
def run_a(parts, tmp_path_factory) -> Path:
    """A home holding the finished run of A, which the tests copy and append to."""
    home = tmp_path_factory.mktemp("run-a")
    cli(home, "run", str(parts[0]), "--window", W)
    return home


def only_run(home: Path) -> str:
    store = open_store(home)
    try:
        [info] = runs.list_runs(store)
        return info.id
    finally:
        store.close()


def test_run_then_append_equals_run_of_the_whole(whole, parts, run_a, tmp_path):
    b = parts[1]
    home = copy_home(run_a, tmp_path / "home")
    run_id = only_run(home)
    out = cli(home, "append", run_id, str(b))
    assert "appended 30 messages" in out.stdout and "m0066" in out.stdout
    doc = document(home)
    assert comparable(doc) == comparable(whole)
    assert [m["session"] for m in doc["messages"][65:]] == [4] * 15 + [5] * 15
    assert doc["messages"][65]["source_ref"] == "b.txt: line 2"
    store = open_store(home)
    [record] = appends.load_appends(store, run_id)
    assert (record.first_idx, record.count, record.first_window) == (65, 30, 5)
    store.close()
    # exactly one raw episode per message
    partitioned = [mid for e in doc["events"] if e["stage"] == "partition"
                   for group in e["payload"]["groups"] for mid in group]
    assert sorted(partitioned) == [m["id"] for m in doc["messages"]]


def test_append_killed_and_continued_equals_run_of_the_whole(whole, parts, run_a, tmp_path):
    b = parts[1]
    home = copy_home(run_a, tmp_path / "home")
    run_id = only_run(home)
    proc = subprocess.Popen([sys.executable, "-m", "nemori_ui", "append", run_id, str(b),
                             "--home", str(home)], cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 90
    try:
        while (progress(home) or 0) < 6:       # killed inside the append's second window
            assert proc.poll() is None, "the append ended before it could be killed"
            assert time.monotonic() < deadline, "the append made no progress"
            time.sleep(0.003)
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    again = cli(home, "append", run_id, str(b))
    assert "continuing append 1" in again.stderr
    doc = document(home)
    assert len(doc["messages"]) == 95            # not added twice
    assert comparable(doc) == comparable(whole)


@pytest.fixture(scope="module")
def run_a_w20(parts, tmp_path_factory) -> Path:
    home = tmp_path_factory.mktemp("run-a-w20")
    cli(home, "run", str(parts[0]), "--window", "20")  # 65 = 3 × 20 + a closed window of 5
    return home


@pytest.mark.parametrize("stored_before_cuts", [False, True])
def test_appending_after_a_partial_last_window_starts_a_new_window(parts, run_a_w20, tmp_path,
                                                                   stored_before_cuts):
    b = parts[1]
    home = copy_home(run_a_w20, tmp_path / "home")
    run_id = only_run(home)
    if stored_before_cuts:                             # a run finished before cuts were kept
        store = open_store(home)
        with store.tx() as conn:
            conn.execute("DELETE FROM window_cuts")
        store.close()
    cli(home, "append", run_id, str(b))
    doc = document(home)
    windows = [e["payload"]["window_message_ids"] for e in doc["events"]
               if e["stage"] == "partition"]
    assert [len(w) for w in windows] == [20, 20, 20, 5, 20, 10]
    partitioned = [mid for e in doc["events"] if e["stage"] == "partition"
                   for group in e["payload"]["groups"] for mid in group]
    assert sorted(partitioned) == [m["id"] for m in doc["messages"]]


def test_append_to_an_unknown_run_or_an_empty_file_says_what_is_wrong(parts, run_a, tmp_path):
    a, _ = parts
    bad = cli(tmp_path, "append", "no-such-run", str(a), check=False)
    assert bad.returncode == 2 and "no-such-run" in bad.stderr
    home = copy_home(run_a, tmp_path / "home")
    empty = home / "empty.txt"
    empty.write_text("")
    out = cli(home, "append", only_run(home), str(empty), check=False)
    assert out.returncode == 2 and "empty.txt" in out.stderr
    assert len(document(home)["messages"]) == 65


@pytest.mark.parametrize("n, w, cuts, flush, spans", [
    (10, 4, [], True, [(0, 4), (4, 8), (8, 10)]),
    (10, 4, [], False, [(0, 4), (4, 8)]),
    (10, 4, [6], False, [(0, 4), (4, 6), (6, 10)]),
    (10, 4, [10], False, [(0, 4), (4, 8), (8, 10)]),
    (8, 4, [8], False, [(0, 4), (4, 8)]),
    (0, 4, [], True, []),
])
def test_window_spans(n, w, cuts, flush, spans):
    assert window_spans(n, w, cuts, flush=flush) == spans
    closed = window_spans(n, w, cuts, flush=False)
    assert pending_count(n, w, cuts) == n - (closed[-1][1] if closed else 0)
