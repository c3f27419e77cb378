"""The Python API as an agent uses it: messages arrive a few at a time, memory is searched
after each batch, a partial window waits in the buffer until it fills or is flushed, and the
run it fills is an ordinary run of the store that the app's views load."""

from __future__ import annotations

import pytest

from nemori_ui import Memory
from nemori_ui.core.errors import InputError
from nemori_ui.core.export import run_document
from nemori_ui.core.store import open_store, runs
from nemori_ui.core.transcripts import load_transcript
from nemori_ui.core.views.run_data import load_run_data
from tests.conftest import SAMPLE

W = 8


@pytest.fixture(scope="module")
def sample_messages():
    return load_transcript(SAMPLE).conversations[0].messages


def chat_form(m) -> dict:
    return {"speaker": m.speaker, "text": m.text, "timestamp": m.timestamp.isoformat(),
            "session": m.session}


def test_an_agent_loop_fills_searches_and_flushes(sample_messages, tmp_path):
    memory = Memory(home=tmp_path, window=W)
    batches = [sample_messages[i:i + 3] for i in range(0, 36, 3)]       # 36 = 4 windows + 4
    seen_windows = 0
    for n, batch in enumerate(batches, start=1):
        added = memory.add([chat_form(m) for m in batch])
        assert added.message_ids == [f"m{i:04d}" for i in range(3 * n - 2, 3 * n + 1)]
        stored = 3 * n
        assert added.pending == stored % W                  # a partial window waits
        seen_windows += added.windows_processed
        assert seen_windows == stored // W
        found = memory.search("Where does Maya work?", k=3, m=4)
        assert len(found.episodes) <= 3 and len(found.semantic) <= 4
        if seen_windows:
            assert found.episodes and all(e.score > 0 for e in found.episodes)
            assert found.raw and all(r.message_id <= f"m{8 * seen_windows:04d}"
                                     for r in found.raw)
        else:
            assert not found.episodes and not found.semantic
    assert [m.id for m in memory.pending_messages] == ["m0033", "m0034", "m0035", "m0036"]
    flushed = memory.flush()
    assert (flushed.windows_processed, flushed.pending) == (1, 0)
    assert memory.flush().windows_processed == 0                # nothing left to close
    # later messages start a new window after the flushed one, never reopen it
    memory.add([chat_form(m) for m in sample_messages[36:36 + W]])
    assert memory.pending == 0
    answered = memory.answer("What did Maya sign up for?")
    assert answered.answer and answered.source == "offline engine"

    data = load_run_data(memory.store, memory.run_id)
    assert len(data.messages) == 44 and data.info.windows_done == data.info.windows_total == 6
    partitioned = sorted(mid for e in data.events if e.stage == "partition"
                         for group in e.payload.groups for mid in group)
    assert partitioned == [m.id for m in data.messages]          # each message in one episode
    assert [len(e.payload.window_message_ids) for e in data.events
            if e.stage == "partition"] == [8, 8, 8, 8, 4, 8]
    memory.close()


def test_reopened_memory_continues_the_same_run(sample_messages, tmp_path):
    with Memory(home=tmp_path, window=W, name="agent") as first:
        first.add([chat_form(m) for m in sample_messages[:10]])
        run_id = first.run_id
    with Memory(home=tmp_path, run_id=run_id) as again:
        assert again.pending == 2 and again.config.window == W
        assert again.add([chat_form(m) for m in sample_messages[10:16]]).windows_processed == 1
    store = open_store(tmp_path)
    assert [r.id for r in runs.list_runs(store)] == [run_id]
    store.close()
    with pytest.raises(InputError, match="window=20"):
        Memory(home=tmp_path, run_id=run_id, window=20)


def test_added_in_batches_equals_a_run_of_the_same_messages(sample_messages, tmp_path):
    """Buffering is windowing: 3 messages at a time give the memory a whole run gives."""
    from tests.conftest import run_sample
    whole_store = open_store(tmp_path / "whole")
    whole = run_document(whole_store, run_sample(whole_store, window=W))
    with Memory(home=tmp_path / "api", window=W) as memory:
        for i in range(0, len(sample_messages), 3):
            memory.add([chat_form(m) for m in sample_messages[i:i + 3]])
        memory.flush()
        doc = run_document(memory.store, memory.run_id)
    for key in ("episodes", "semantic", "events"):
        assert doc[key] == whole[key], key


def test_bad_messages_say_which_and_store_nothing(tmp_path):
    with Memory(home=tmp_path) as memory:
        with pytest.raises(InputError, match="message 2: needs a 'text'"):
            memory.add([{"speaker": "Ann", "text": "hi"}, {"speaker": "Bob"}])
        with pytest.raises(InputError, match="message 1: needs a 'speaker'"):
            memory.add({"text": "no one said this"})
        assert memory.add({"role": "user", "content": "chat form works"}).message_ids == ["m0001"]
        assert [m.text for m in memory.pending_messages] == ["chat form works"]


@pytest.mark.parametrize("name", ["overview", "partitions", "episodes", "prediction_error",
                                  "knowledge", "timeline", "ask", "calls"])
def test_the_app_renders_a_memory_an_agent_is_filling(sample_messages, tmp_path, monkeypatch,
                                                      name):
    from streamlit.testing.v1 import AppTest
    from tests.conftest import ROOT
    monkeypatch.setenv("NEMORI_HOME", str(tmp_path))
    with Memory(home=tmp_path, window=W) as memory:
        for i in range(0, 21, 3):                   # two windows done, five messages pending
            memory.add([chat_form(m) for m in sample_messages[i:i + 3]])
        run_id = memory.run_id
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.switch_page(f"pages/{name}.py")
    at.session_state["run_id"] = run_id
    at.run()
    assert not at.exception, at.exception


def test_resuming_a_memory_from_the_command_line_keeps_its_buffer_pending(sample_messages,
                                                                          tmp_path):
    import subprocess
    import sys
    from tests.conftest import ROOT
    with Memory(home=tmp_path, window=W) as memory:
        memory.add([chat_form(m) for m in sample_messages[:10]])
        runs.set_status(memory.store, memory.run_id, "interrupted")     # as if it was killed
        run_id = memory.run_id
    done = subprocess.run([sys.executable, "-m", "nemori_ui", "resume", run_id, "--home",
                           str(tmp_path)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    with Memory(home=tmp_path, run_id=run_id) as again:
        assert again.pending == 2
        assert runs.get_run(again.store, run_id).windows_done == 1
