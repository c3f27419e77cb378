"""The v1 order of the semantic stages: a window's episodes predicted from the store before it."""

from __future__ import annotations

from nemori_ui.core.store import open_store, records

from .conftest import run_sample


def _evoked_from_own_window(store, run_id) -> tuple[int, int]:
    """(anticipations, evoked memories made in the same window as the anticipation)."""
    window_of = {m.id: m.window for m in records.load_memories(store, run_id)}
    events = [e for e in records.load_events(store, run_id) if e.stage == "anticipate"]
    same = sum(window_of[m.id] == e.window for e in events for m in e.payload.evoked
               if m.passed)
    return len(events), same


def test_window_order_predicts_every_episode_from_the_store_before_its_window(tmp_path):
    store = open_store(tmp_path / "home")
    sequential = run_sample(store)
    window = run_sample(store, semantic_order="window")
    # sequentially an episode sees what the window's earlier episodes taught ...
    assert _evoked_from_own_window(store, sequential)[1] > 0
    # ... in window order none does, and every episode is still predicted and distilled
    asked, same = _evoked_from_own_window(store, window)
    assert asked and same == 0
    distilled = {e.payload.episode_id for e in records.load_events(store, window)
                 if e.stage == "distill"}
    active = {e.id for e in records.load_episodes(store, window) if e.status == "active"}
    assert active <= distilled


def test_window_order_records_events_in_episode_order(tmp_path):
    store = open_store(tmp_path / "home")
    run_id = run_sample(store, semantic_order="window", concurrency=4)
    events = records.load_events(store, run_id)
    for w in {e.window for e in events}:
        mine = [e for e in events if e.window == w]
        assert [e.seq for e in mine] == sorted(e.seq for e in mine)
        order = [e.payload.episode_id for e in mine if e.stage == "distill"]
        assert order == sorted(order)
