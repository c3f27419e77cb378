"""One window through every stage, as the run loop and the Python API's live writer both call
it: it commits the window with the run's progress, updates the memory it is handed in place,
says each stage as it starts, and refuses a window another writer saved first."""

from __future__ import annotations

import pytest

from nemori_ui.core.clients import build_clients
from nemori_ui.core.config import PipelineConfig
from nemori_ui.core.errors import RunTaken
from nemori_ui.core.pipeline.runner import process_window, start_run
from nemori_ui.core.pipeline.state import MemoryState
from nemori_ui.core.pipeline.windows import stored_windows
from nemori_ui.core.store import open_store, records, runs
from nemori_ui.core.transcripts import load_transcript
from tests.conftest import SAMPLE


def test_a_window_is_committed_with_the_run_s_progress_and_only_once(tmp_path):
    store = open_store(tmp_path / "home")
    transcript = load_transcript(SAMPLE)
    config = PipelineConfig()
    clients = build_clients(config, store)
    run_id = start_run(store, transcript.conversations[0], config, clients, source=str(SAMPLE),
                       fmt=transcript.format)
    messages = records.load_messages(store, run_id)
    window = stored_windows(store, run_id, messages, config.window, flush=True)[0]
    by_id = {m.id: m for m in messages}
    state = MemoryState.restore(clients.embedder.dim, [], [], index_kind=config.index)
    heard: list[str] = []

    def process() -> None:
        process_window(store, run_id, 0, window, by_id, state, clients, config,
                       lambda stage, i=0, n=0: heard.append(stage))

    process()
    assert runs.get_run(store, run_id).windows_done == 1
    stored = records.load_episodes(store, run_id)
    assert stored and {e.id for e in stored} == set(state.episodes)
    assert {m for e in stored for m in e.message_ids} <= {m.id for m in window}
    assert heard[:2] == ["partition", "narrate"] and "integrate" in heard
    with pytest.raises(RunTaken):
        process()
    store.conn.close()
