"""Writers sharing one run through the Python API: threads on one `Memory`, processes each
with their own, retries of the same message. Every message is stored once, gets one id,
lands in exactly one episode, and no writer sees an error for a message that was stored.
(The issue's sizes, 2 x 500 and 4 x 250, run in `benchmarks/bench_api.py`.)"""

from __future__ import annotations

import fcntl
import os
import sqlite3
import threading
import time

import pytest

from nemori_ui import Memory
from nemori_ui.core.errors import InputError
from nemori_ui.core.run_lock import lock_path
from nemori_ui.core.store import runs
from tests.memory_writers import check_run, message, processes, threads

W = 10
WHOLE = {"duplicate_texts": 0, "ids_in_order": True, "idx_in_order": True,
         "grouped_once": True, "in_one_active_episode": True}


def test_two_threads_on_one_memory_store_every_message_once(tmp_path):
    with Memory(home=tmp_path, window=W) as memory:
        seen = threads(memory, 2, 60)
        memory.flush()
        run_id = memory.run_id
    assert [s["errors"] for s in seen] == [[], []]
    ids = [i for s in seen for i in s["ids"]]
    assert len(ids) == len(set(ids)) == 120
    assert check_run(tmp_path, run_id) == {"messages": 120, **WHOLE}


def test_four_processes_on_one_run_store_every_message_once(tmp_path):
    with Memory(home=tmp_path, window=W) as memory:
        run_id = memory.run_id
    seen = processes(tmp_path, run_id, 4, 30)
    assert [s["errors"] for s in seen] == [[]] * 4
    ids = [i for s in seen for i in s["ids"]]
    assert len(ids) == len(set(ids)) == 120
    with Memory(home=tmp_path, run_id=run_id) as memory:
        assert memory.unprocessed == 0            # every closed window was processed
        memory.flush()
    assert check_run(tmp_path, run_id) == {"messages": 120, **WHOLE}


def test_a_retried_add_stores_nothing_twice(tmp_path):
    with Memory(home=tmp_path, window=W) as memory:
        first = memory.add([message("A", 0), message("A", 1)])
        again = memory.add([message("A", 1), message("A", 2), message("A", 2)])
        assert first.message_ids == ["m0001", "m0002"]
        assert again.message_ids == ["m0002", "m0003", "m0003"]
        assert [m.text for m in memory.pending_messages] == [
            message("A", i)["text"] for i in range(3)]
        changed = {**message("A", 1), "text": "something else entirely"}
        with pytest.raises(InputError, match="names message m0002") as caught:
            memory.add([message("A", 3), changed])
        assert caught.value.field == "messages[1].id"
        assert memory.pending == 3                   # nothing of the refused call stored


def test_an_add_waits_for_a_writer_holding_the_database(tmp_path):
    with Memory(home=tmp_path, window=W) as memory:
        other = sqlite3.connect(memory.store.path, isolation_level=None, check_same_thread=False)
        other.execute("BEGIN IMMEDIATE")             # another process mid-transaction
        threading.Timer(1.0, lambda: other.execute("COMMIT")).start()
        started = time.monotonic()
        assert memory.add(message("A", 0)).message_ids == ["m0001"]
        assert time.monotonic() - started >= 0.9
        other.close()


def test_a_second_processor_waits_its_turn_instead_of_being_refused(tmp_path):
    with Memory(home=tmp_path, window=W) as memory:
        runs.claim(memory.store, memory.run_id)      # as if another live process ran it
        runs.set_status(memory.store, memory.run_id, "running")
        path = lock_path(memory.store.path, memory.run_id)
        path.parent.mkdir(parents=True, exist_ok=True)
        held = os.open(path, os.O_RDWR | os.O_CREAT)
        fcntl.flock(held, fcntl.LOCK_EX)             # another process processing the run
        threading.Timer(1.0, lambda: os.close(held)).start()
        for i in range(W - 1):
            memory.add(message("A", i))
        started = time.monotonic()
        closing = memory.add(message("A", W - 1))
        assert time.monotonic() - started >= 0.9     # it waited for the lock ...
        assert (closing.windows_processed, closing.error) == (1, None)   # ... then processed


def test_a_processor_that_cannot_get_its_turn_keeps_the_message(tmp_path):
    with Memory(home=tmp_path, window=2, wait_s=0.3) as memory:
        path = lock_path(memory.store.path, memory.run_id)
        path.parent.mkdir(parents=True, exist_ok=True)
        held = os.open(path, os.O_RDWR | os.O_CREAT)
        fcntl.flock(held, fcntl.LOCK_EX)
        memory.add(message("A", 0))
        added = memory.add(message("A", 1))           # closes a window it cannot process
        assert added.message_ids == ["m0002"] and added.windows_processed == 0
        assert added.unprocessed == 2 and added.error is None
        os.close(held)
        assert memory.wait() and memory.unprocessed == 0
