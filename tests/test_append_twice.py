"""Nothing appended twice: messages a run already holds are skipped, saying so.

An append re-run after it finished, or after it was killed past its last progress line, the
run's own transcript, a chat export that has grown since: each holds messages the run has.
They are not stored again, the memory stays that of the whole transcript, and the check is
made in the same transaction as the write, so a concurrent append of the same file cannot
slip in between. Uses the A / B split of the bundled sample from test_append.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
from pathlib import Path

from nemori_ui.core.clients import build_clients
from nemori_ui.core.models import Message
from nemori_ui.core.pipeline.append import append_transcript, renumber
from nemori_ui.core.pipeline.held import held_prefix, parts_of
from nemori_ui.core.store import appends, open_store, records, runs
from nemori_ui.core.transcripts import load_transcript
from tests.conftest import ROOT
from tests.test_append import W, cli, comparable, document, only_run, parts, whole  # noqa: F401


def started(home: Path, a: Path) -> str:
    cli(home, "run", str(a), "--window", W)
    return only_run(home)


def test_run_a_append_b_twice_then_a_holds_a_and_b_once(whole, parts, tmp_path):
    a, b = parts
    run_id = started(tmp_path, a)
    cli(tmp_path, "append", run_id, str(b))
    again = cli(tmp_path, "append", run_id, str(b), "--json")
    assert "already holds the 30 messages" in again.stderr
    assert "m0066-m0095, append 1 from b.txt" in again.stderr
    said = json.loads(again.stdout)
    assert said["append"] is None and said["held"]["count"] == 30
    own = cli(tmp_path, "append", run_id, str(a))
    assert "nothing appended" in own.stdout
    assert "already holds the 65 messages" in own.stderr and "its transcript a.txt" in own.stderr
    doc = document(tmp_path)
    assert len(doc["messages"]) == 95                 # exactly A + B
    assert comparable(doc) == comparable(whole)       # every episode and memory version once
    store = open_store(tmp_path)
    assert [r.count for r in appends.load_appends(store, run_id)] == [30]
    store.close()


def test_an_append_killed_after_its_last_progress_line_is_not_stored_again(whole, parts,
                                                                           tmp_path):
    a, b = parts
    run_id = started(tmp_path, a)
    proc = subprocess.Popen([sys.executable, "-m", "nemori_ui", "append", run_id, str(b),
                             "--home", str(tmp_path)], cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    try:
        for line in proc.stderr:
            if line.startswith("progress: 8/8 windows done"):
                proc.send_signal(signal.SIGKILL)     # it may have exited already: same state
                break
    finally:
        proc.stderr.close()
        proc.wait(timeout=60)
    again = cli(tmp_path, "append", run_id, str(b))
    assert "nothing appended" in again.stdout
    doc = document(tmp_path)
    assert len(doc["messages"]) == 95
    assert len(doc["episodes"]) == len(whole["episodes"])    # no second version of any
    assert comparable(doc) == comparable(whole)


def test_a_grown_export_appends_only_its_new_messages(parts, tmp_path):
    a, b = parts
    run_id = started(tmp_path, a)
    cli(tmp_path, "append", run_id, str(b))
    grown = tmp_path / "grown.txt"
    grown.write_text(a.read_text() + b.read_text()
                     + "[2024-05-30 21:00] Maya: The race is in ten days now.\n"
                       "[2024-05-30 21:01] Jonas: You will do great.\n")
    out = cli(tmp_path, "append", run_id, str(grown))
    assert "the first 95 messages" in out.stderr and "appending the other 2" in out.stderr
    doc = document(tmp_path)
    assert [m["text"] for m in doc["messages"][95:]] == ["The race is in ten days now.",
                                                         "You will do great."]
    # the chat went on in its last session, as the file says: not a session of its own
    assert doc["messages"][95]["session"] == doc["messages"][94]["session"]
    assert len(doc["messages"]) == 97


def test_a_file_that_repeats_the_run_then_goes_elsewhere_is_refused(parts, tmp_path):
    a, b = parts
    run_id = started(tmp_path, a)
    cli(tmp_path, "append", run_id, str(b))
    other = tmp_path / "other.txt"
    other.write_text(a.read_text() + "[2024-06-01 09:00] Maya: Something else entirely.\n")
    bad = cli(tmp_path, "append", run_id, str(other), check=False)
    assert bad.returncode == 2
    assert "other.txt" in bad.stderr and "first 65 messages are already in run" in bad.stderr
    assert "differs from the run's m0066" in bad.stderr
    assert len(document(tmp_path)["messages"]) == 95


def test_the_check_is_made_in_the_transaction_that_writes(parts, tmp_path):
    """Another process appends B and has not committed yet when this append of B starts:
    this one waits for the write lock, then sees B held. A check read before the lock would
    have passed and stored B a second time."""
    a, b = parts
    run_id = started(tmp_path, a)
    incoming = load_transcript(b).conversations[0].messages
    other = open_store(tmp_path)
    mine = open_store(tmp_path)
    asking = threading.Event()
    mine.conn.set_trace_callback(lambda sql: sql.startswith("BEGIN IMMEDIATE") and asking.set())
    clients = build_clients(runs.get_run(mine, run_id).config, mine)
    done: dict = {}

    def append_b():
        done["it"] = append_transcript(mine, run_id, incoming, clients, source=str(b))

    other.conn.execute("BEGIN IMMEDIATE")
    existing = records.load_messages(other, run_id)
    appends.write_append(other.conn, run_id, existing,
                         renumber(incoming, first_idx=len(existing), ref_prefix="b.txt"),
                         source=str(b), first_window=5, given_hash="other")
    worker = threading.Thread(target=append_b)
    worker.start()
    assert asking.wait(60), "the append never asked for the write lock"
    other.conn.execute("COMMIT")
    worker.join(120)
    mine.conn.set_trace_callback(None)
    assert done["it"].record is None and done["it"].held.count == 30
    assert len(records.load_messages(mine, run_id)) == 95
    other.close()
    mine.close()


def said(*texts: str, speaker: str = "Maya") -> list[Message]:
    return [Message(id=f"m{i:04d}", speaker=speaker, text=t) for i, t in enumerate(texts, 1)]


STORED = said("ok", "I moved to Porto.", "ok", "I work at the port.")


def test_a_common_line_alone_is_not_taken_for_held_content():
    # a run fed one message at a time: every message is a part of its own
    live = parts_of(STORED, "python", [(i + 1, i, 1, "python", f"h{i}") for i in range(4)])
    assert held_prefix(STORED, live, said("ok", "I sing alto.")).count == 0
    assert held_prefix(STORED, live, said("ok")).count == 0
    # two lines are: the run holds them from a part's start, then goes elsewhere
    assert held_prefix(STORED, live, said("ok", "I moved to Porto.", "bye")).diverges


def test_held_content_starts_where_a_part_starts():
    whole = parts_of(STORED, "a.txt", [])
    assert held_prefix(STORED, whole, said("ok", "I sing alto.")).count == 0
    assert held_prefix(STORED, whole, said("ok", "I moved to Porto.")).count == 2
    grown = held_prefix(STORED, whole, said(*[m.text for m in STORED], "new"))
    assert (grown.count, grown.diverges) == (4, False)
    # the middle of a part is no anchor, and who said it counts
    assert held_prefix(STORED, whole, said("ok", "I work at the port.")).count == 0
    assert held_prefix(STORED, whole, said("ok", "I moved to Porto.", speaker="Jonas")).count == 0


def test_a_one_message_part_given_again_unchanged_is_held():
    one = said("ok")
    stored = STORED + renumber(one, first_idx=4)
    found = parts_of(stored, "a.txt", [(1, 4, 1, "b.txt", runs.content_hash(one))])
    assert held_prefix(stored, found, one).count == 1
    assert held_prefix(stored, found, said("ok", speaker="Jonas")).count == 0


def test_parts_of_a_run_name_its_transcript_and_appends():
    stored = said(*[f"line {i}" for i in range(95)])
    found = parts_of(stored, "a.txt", [(1, 65, 30, "b.txt", "h1")])
    assert [(p.start, p.count, p.label, p.seq) for p in found] == [
        (0, 65, "its transcript a.txt", None), (65, 30, "append 1 from b.txt", 1)]
    assert found[0].hash == runs.content_hash(stored[:65]) and found[1].hash == "h1"
    assert [p.start for p in parts_of(stored[:3], "python",
                                      [(1, 0, 2, "python", "x"), (2, 2, 1, "python", "y")])
            ] == [0, 2]
