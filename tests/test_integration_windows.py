"""On the LLM path integration is asked once per window at most, as the official code does:
only a window's first episode may continue an earlier window's episode, and only episodes of
earlier windows are its candidates."""

from __future__ import annotations

from nemori_ui.core.config import PipelineConfig
from nemori_ui.core.store import open_store, records
from tests.llm_responder import prompt_of, respond
from tests.test_pipeline_openai import run


def test_one_select_per_window_and_never_a_same_window_candidate(openai_server, isolated_home):
    openai_server.responder = respond
    store = open_store(isolated_home)
    run_id = run(store, openai_server, PipelineConfig(backend="openai", model="test-model",
                                                      window=6))
    selects = [r for r in openai_server.chat_requests if prompt_of(r.body) == "select"]
    events = records.load_events(store, run_id, "integrate")
    windows = {e.window for e in events}
    assert len(windows) > 1 and len(events) > len(windows)      # several episodes a window
    assert len(selects) <= len(windows) - 1                     # never in the first window
    episodes = {e.id: e for e in records.load_episodes(store, run_id)}
    first = {}
    for ev in events:
        first.setdefault(ev.window, ev.payload.episode_id)
        if ev.payload.episode_id != first[ev.window]:
            assert ev.payload.skipped == "not the first episode of its window"
            assert not ev.call_ids
        for c in ev.payload.candidates:
            assert episodes[c.id].window < ev.window
