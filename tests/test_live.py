"""Live memory: messages typed or played one at a time are stored at once and processed in the
background as their windows fill, exactly as a run of the same messages would process them;
the demo script shows a fact predicted and not stored, a merge and a conflict."""

from __future__ import annotations

import threading
import time

import pytest

from nemori_ui.core.clients import RunEnvironment, build_clients
from nemori_ui.core.config import PipelineConfig
from nemori_ui.core.export import run_document
from nemori_ui.core.jobs import JobRegistry
from nemori_ui.core.live import LiveFeed, new_live_run
from nemori_ui.core.live_input import DEMO, DEMO_WINDOW, typed_message
from nemori_ui.core.live_view import (append_markers, buffer, predicted_not_stored, stable_map,
                                      windows_log)
from nemori_ui.core.pipeline.runner import run_windows, start_run
from nemori_ui.core.store import appends, open_store, runs
from nemori_ui.core.transcripts import load_transcript
from nemori_ui.core.views.knowledge import decision_table
from nemori_ui.core.views.partitions import message_frame, window_table
from nemori_ui.core.views.run_data import load_run_data

W = DEMO_WINDOW


@pytest.fixture(scope="module")
def demo_messages():
    return load_transcript(DEMO).conversations[0].messages


@pytest.fixture
def feed(tmp_path):
    store = open_store(tmp_path / "live")
    config = PipelineConfig(window=W)
    clients = build_clients(config, store)
    run_id = new_live_run(store, config, clients)
    live = LiveFeed(store, run_id, clients, JobRegistry())
    yield live
    live.pause()
    settle(live)
    store.close()


def settle(feed: LiveFeed, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while feed.busy or feed.playing:
        assert time.monotonic() < deadline, "the feed did not settle"
        time.sleep(0.02)


def info(feed: LiveFeed):
    return runs.get_run(feed.store, feed.run_id)


def test_the_demo_played_live_predicts_merges_and_conflicts(feed, demo_messages):
    feed.load_script(demo_messages, DEMO.name)
    feed.play(0.01)
    settle(feed)
    assert feed.script.done and feed.error is None
    data = load_run_data(feed.store, feed.run_id)
    assert len(data.messages) == len(demo_messages) == 3 * W
    assert data.info.windows_done == 3 and buffer(data).count == 0
    decisions = decision_table(data)
    changed = decisions[~decisions["note"].str.contains("changed nothing", regex=False)]
    assert (decisions["action"] == "conflict").any(), decisions
    assert (changed["action"] == "merge").any(), decisions      # a detail added to a fact
    # a repeat is said again in an episode whose other topics keep its vector below τ, so it
    # reaches consolidation, which leaves the memory as it was
    assert predicted_not_stored(data) >= 0
    conflict = decisions[decisions["action"] == "conflict"].iloc[0]
    assert "Lisbon" in conflict["insight"]
    log = windows_log(data)
    assert list(log["window"]) == [3, 2, 1] and log["conflict"].sum() >= 1
    # one append per message, one marker for the whole played script
    [marker] = append_markers(appends.load_appends(feed.store, feed.run_id))
    assert (marker.position, marker.count, marker.source) == \
        (1, 3 * W, f"live: {DEMO.name}")


def test_typed_one_at_a_time_equals_a_run_of_the_same_messages(feed, demo_messages, tmp_path):
    batch = open_store(tmp_path / "batch")
    config = PipelineConfig(window=W)
    clients = build_clients(config, batch)
    from nemori_ui.core.models import Conversation
    conv = Conversation(id="live", messages=demo_messages[:25])
    whole = start_run(batch, conv, config, clients, source="x", fmt="plain")
    run_windows(batch, whole, clients)
    feed.load_script(demo_messages[:25], DEMO.name)
    while feed.step():                  # one message at a time, as the Step button adds them
        pass
    settle(feed)
    assert info(feed).windows_done == 2 and buffer(load_run_data(feed.store,
                                                                 feed.run_id)).count == 5
    assert feed.flush()
    settle(feed)
    assert info(feed).windows_done == 3
    mine, theirs = run_document(feed.store, feed.run_id), run_document(batch, whole)
    for key in ("episodes", "semantic", "events"):
        assert mine[key] == theirs[key], key
    batch.close()


def test_a_window_closes_only_when_full_or_flushed(feed, demo_messages):
    for m in demo_messages[:W - 1]:
        feed.add(typed_message(m.speaker, m.text))
    settle(feed)
    data = load_run_data(feed.store, feed.run_id)
    assert data.info.windows_done == 0 and buffer(data).count == W - 1
    feed.add(typed_message("Ana", "I work as a pastry chef at Café Aurora."))
    settle(feed)
    assert info(feed).windows_done == 1
    feed.add(typed_message("Leo", "And the dog?"))
    feed.add(typed_message("Ana", "My dog Biscuit is a beagle."), new_session=True)
    assert feed.flush()
    settle(feed)
    data = load_run_data(feed.store, feed.run_id)
    assert data.info.windows_done == 2 and buffer(data).count == 0
    assert [m.session for m in data.messages[-2:]] == [1, 2]
    # after a flush the next messages start a new window, never reopen the closed one
    feed.add(typed_message("Leo", "Nice."))
    settle(feed)
    data = load_run_data(feed.store, feed.run_id)
    assert buffer(data).count == 1
    assert list(message_frame(data)["window"])[-4:] == [1, 2, 2, 3]     # not every w
    assert feed.flush()
    settle(feed)
    assert not feed.flush()             # nothing left in the buffer


def test_messages_added_while_a_window_is_processed_are_all_kept(feed, demo_messages):
    """Typing goes on while the worker processes: every message is stored at once, in order,
    and each lands in exactly one episode."""
    def typist():
        for m in demo_messages:
            feed.add(typed_message(m.speaker, m.text))
            time.sleep(0.005)
    threads = [threading.Thread(target=typist)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    settle(feed)
    data = load_run_data(feed.store, feed.run_id)
    assert [m.text for m in data.messages] == [m.text for m in demo_messages]
    assert data.info.windows_done == 3
    frame = message_frame(data)
    assert (frame["raw_episode"] != "").all()
    assert window_table(data)["size"].sum() == len(data.messages)     # each in one window


def test_play_goes_on_by_itself_and_pauses(feed, demo_messages):
    feed.load_script(demo_messages, DEMO.name)
    feed.play(0.05)
    time.sleep(0.6)                     # nobody calls the feed meanwhile
    first = feed.script.position
    assert first >= 3
    feed.pause()
    settle(feed)
    paused = feed.script.position
    time.sleep(0.3)
    assert feed.script.position == paused
    assert feed.step() and feed.script.position == paused + 1


def test_map_positions_stay_put_as_memory_grows(feed, demo_messages):
    feed.load_script(demo_messages[:2 * W], DEMO.name)
    feed.play(0.01)
    settle(feed)
    before = stable_map(load_run_data(feed.store, feed.run_id)).set_index("id")[["x", "y"]]
    feed.load_script(demo_messages[2 * W:], DEMO.name)
    feed.play(0.01)
    settle(feed)
    after = stable_map(load_run_data(feed.store, feed.run_id)).set_index("id")[["x", "y"]]
    assert len(after) > len(before)
    assert (after.loc[before.index] - before).abs().max().max() < 1e-5


def test_empty_messages_are_refused_and_nothing_is_stored(feed):
    from nemori_ui.core.errors import InputError
    with pytest.raises(InputError, match="speaker"):
        typed_message(" ", "hello")
    with pytest.raises(InputError, match="text"):
        typed_message("Ana", "  ")
    assert load_run_data(feed.store, feed.run_id).messages == []


def test_a_live_feed_on_a_model_over_http(tmp_path, openai_server):
    """With a model the feed is the same: messages stored at once, each full window sent to the
    server and decided by it, its calls recorded with the window."""
    from nemori_ui.core.llm.openai_backend import OpenAIChatBackend
    from nemori_ui.core.store import records
    from tests.fakes import HashEmbedder
    from tests.llm_responder import respond
    from tests.test_pipeline_openai import CONV
    openai_server.responder = respond
    store = open_store(tmp_path / "model")
    config = PipelineConfig(backend="openai", model="test-model", window=10)
    backend = OpenAIChatBackend(config.model, api_key="test-key", base_url=openai_server.url)
    clients = build_clients(config, store, RunEnvironment(backend=backend, embedder=HashEmbedder()))
    live = LiveFeed(store, new_live_run(store, config, clients), clients, JobRegistry())
    live.load_script(CONV.messages[:12], "fixture.json")
    live.play(0.01)
    settle(live)
    assert live.error is None and not openai_server.errors
    data = load_run_data(store, live.run_id)
    assert data.info.windows_done == 1 and buffer(data).count == 2
    assert data.info.decider == "openai:test-model"
    calls = records.load_calls(store, live.run_id)
    assert calls and all(c.status == "ok" for c in calls)
    assert {cid for e in data.events for cid in e.call_ids} == {c.id for c in calls}
    assert live.flush()
    settle(live)
    assert runs.get_run(store, live.run_id).windows_done == 2
    store.close()


def test_resuming_a_live_run_keeps_its_buffer_pending(feed, demo_messages):
    import subprocess
    import sys
    from tests.conftest import ROOT
    for m in demo_messages[:W + 2]:
        feed.add(typed_message(m.speaker, m.text))
    settle(feed)
    runs.set_status(feed.store, feed.run_id, "interrupted")        # as if its server died
    done = subprocess.run([sys.executable, "-m", "nemori_ui", "resume", feed.run_id, "--home",
                           str(feed.store.path.parent)], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    data = load_run_data(feed.store, feed.run_id)
    assert data.info.windows_done == 1 and buffer(data).count == 2


def test_loading_a_script_again_after_a_restart_goes_on_where_it_stopped(feed, demo_messages):
    """A play's position lives in the server; after a restart the same transcript loaded
    again must not store its first messages twice."""
    feed.load_script(demo_messages[:15], DEMO.name)
    for _ in range(7):
        feed.step()
    settle(feed)
    restarted = LiveFeed(feed.store, feed.run_id, feed.clients, JobRegistry())
    restarted.load_script(demo_messages[:15], DEMO.name)
    assert restarted.script.position == 7
    while restarted.step():
        pass
    settle(restarted)
    stored = [(m.speaker, m.text) for m in
              load_run_data(feed.store, feed.run_id).messages]
    assert stored == [(m.speaker, m.text) for m in demo_messages[:15]]
    assert {m.session for m in load_run_data(feed.store, feed.run_id).messages} == \
        {m.session for m in demo_messages[:15]}


def test_a_typed_message_follows_a_script_dated_elsewhere():
    from datetime import datetime, timedelta
    from nemori_ui.core.live_input import typed_time
    now = datetime(2026, 12, 2, 10, 0)
    assert typed_time(None, now) == now
    assert typed_time(now - timedelta(hours=2), now) == now            # a conversation going on
    script = datetime(2024, 10, 19, 18, 30)
    assert typed_time(script, now) == script + timedelta(minutes=1)   # right after the script
    assert typed_time(now + timedelta(days=3), now) == now + timedelta(days=3, minutes=1)


def test_a_replay_is_named_with_a_count_not_a_chain():
    from nemori_ui.core.live_input import replay_name
    assert replay_name("demo") == "demo · again"
    assert replay_name("demo · again") == "demo · again 2"
    assert replay_name(replay_name("demo · again")) == "demo · again 3"
    assert replay_name("again · again 9") == "again · again 10"
    assert replay_name("my against") == "my against · again"
