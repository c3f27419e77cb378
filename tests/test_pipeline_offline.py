"""The offline engine end to end: the sample shows every mechanism, LoCoMo keeps every message."""

from __future__ import annotations

from collections import Counter

import pytest

from nemori_ui.core.clients import build_clients
from nemori_ui.core.config import PipelineConfig
from nemori_ui.core.export import run_document
from nemori_ui.core.deciders.offline import OFFLINE_LABEL
from nemori_ui.core.pipeline.runner import run_windows, start_run
from nemori_ui.core.store import open_store, records, runs
from nemori_ui.core.transcripts import load_transcript

from tests.conftest import SAMPLE


def assert_memory_invariants(store, run_id):
    messages = records.load_messages(store, run_id)
    episodes = records.load_episodes(store, run_id)
    memories = records.load_memories(store, run_id)
    active = [e for e in episodes if e.status == "active"]
    owners = Counter(mid for e in active for mid in e.message_ids)
    assert set(owners) == {m.id for m in messages}, "a message is in no active episode"
    assert max(owners.values()) == 1, "a message is in two active episodes"
    known = {m.id for m in messages}
    by_id = {e.id: e for e in episodes}
    for mem in memories:
        if mem.status == "active":
            assert mem.source_message_ids and set(mem.source_message_ids) <= known
            assert mem.source_episode_ids and set(mem.source_episode_ids) <= set(by_id)
        else:
            assert mem.superseded_by in {m.id for m in memories}
    for e in episodes:
        if e.status == "superseded":
            assert by_id[e.superseded_by].status in ("active", "superseded")


def test_sample_run_is_complete_and_labelled(sample_run):
    store, run_id = sample_run
    info = runs.get_run(store, run_id)
    assert info.status == "done" and info.decider == OFFLINE_LABEL
    assert info.windows_done == info.windows_total == 5
    assert_memory_invariants(store, run_id)


def test_sample_shows_integration_merge_and_conflict(sample_run):
    store, run_id = sample_run
    integrations = [e for e in records.load_events(store, run_id, "integrate") if e.payload.choice != -1]
    assert integrations, "no episode was integrated"
    merged = integrations[0].payload
    episodes = {e.id: e for e in records.load_episodes(store, run_id, with_vectors=False)}
    assert merged.target and episodes[merged.result_id].narrative
    actions = Counter(e.payload.action for e in records.load_events(store, run_id, "consolidate"))
    assert actions["merge"] >= 1 and actions["conflict"] >= 1 and actions["new"] >= 1
    conflict = next(e for e in records.load_events(store, run_id, "consolidate")
                    if e.payload.action == "conflict")
    memories = {m.id: m for m in records.load_memories(store, run_id)}
    replaced = memories[conflict.payload.targets[0]]
    assert replaced.status == "superseded" and replaced.superseded_by == conflict.payload.result_id
    assert "three cups of strong coffee" in replaced.text
    assert "doesn't drink coffee" in memories[conflict.payload.result_id].text


def test_sample_repeated_fact_is_predicted_and_not_stored_again(sample_run):
    store, run_id = sample_run
    memories = records.load_memories(store, run_id)
    skipped = [(e, c) for e in records.load_events(store, run_id, "distill")
               for c in e.payload.covered]
    assert skipped, "no statement was held by a prediction"
    event, covered = next((e, c) for e, c in skipped if "weather forecasting" in c.text)
    # the fact was learnt in the first session and is not learnt again in the second
    assert event.window > 0
    assert covered.text not in [i.text for i in event.payload.insights]
    about = [m for m in memories if "weather forecasting tools" in m.text]
    assert len(about) == 1 and about[0].window == 0


def test_every_event_links_to_what_it_involved(sample_run):
    store, run_id = sample_run
    events = records.load_events(store, run_id)
    assert {e.stage for e in events} == {"partition", "narrate", "integrate", "anticipate",
                                         "distill", "consolidate"}
    assert [e.seq for e in events] == list(range(len(events)))
    for e in events:
        if e.stage in ("narrate", "integrate", "distill"):
            assert e.episode_ids and e.message_ids
        if e.stage == "consolidate":
            assert e.memory_ids and e.message_ids


def test_locomo_conversation_keeps_every_message(locomo_path, tmp_path):
    store = open_store(tmp_path)
    conv = load_transcript(locomo_path).conversation("conv-30")
    config = PipelineConfig()
    clients = build_clients(config, store)
    run_id = start_run(store, conv, config, clients, source=str(locomo_path), fmt="locomo")
    run_windows(store, run_id, clients)
    assert len(records.load_messages(store, run_id)) == 369
    assert_memory_invariants(store, run_id)
    # a sweep's QA figure: the evidence of most questions is in the episodes retrieved for them
    from nemori_ui.core.tuning.qa_recall import evidence_recall
    recall = evidence_recall(store, run_id, conv, clients.embedder, k=10)
    assert recall.questions > 50 and 0.3 < recall.recall_at_k <= 1.0
    assert evidence_recall(store, run_id, conv.model_copy(update={"extra": {}}), clients.embedder) is None


def _comparable(doc):
    """A run's content without what differs between two runs of the same inputs."""
    return {
        "episodes": doc["episodes"],
        "semantic": doc["semantic"],
        "events": doc["events"],
    }


def test_interrupted_run_resumes_to_the_same_state(tmp_path):
    transcript = load_transcript(SAMPLE)
    conv, config = transcript.conversations[0], PipelineConfig(window=12)
    store = open_store(tmp_path / "a")
    clients = build_clients(config, store)
    whole = start_run(store, conv, config, clients, source="s", fmt="text")
    run_windows(store, whole, clients)

    store_b = open_store(tmp_path / "b")
    first = build_clients(config, store_b)
    part = start_run(store_b, conv, config, first, source="s", fmt="text")
    run_windows(store_b, part, first, stop_after=3)
    assert runs.get_run(store_b, part).status == "interrupted"
    # a new process: fresh clients, the run found again from its inputs
    again = build_clients(config, store_b)
    assert start_run(store_b, conv, config, again, source="s", fmt="text") == part
    run_windows(store_b, part, again)
    assert runs.get_run(store_b, part).status == "done"
    assert _comparable(run_document(store_b, part)) == _comparable(run_document(store, whole))


def test_a_failing_stage_marks_the_run_failed_and_keeps_finished_windows(tmp_path):
    transcript = load_transcript(SAMPLE)
    conv, config = transcript.conversations[0], PipelineConfig()
    store = open_store(tmp_path)
    clients = build_clients(config, store)
    run_id = start_run(store, conv, config, clients, source="s", fmt="text")
    original = clients.decider.consolidate
    calls = {"n": 0}

    def flaky(*args):
        calls["n"] += 1
        if calls["n"] == 25:
            raise RuntimeError("disk full")
        return original(*args)

    clients.decider.consolidate = flaky
    with pytest.raises(RuntimeError):
        run_windows(store, run_id, clients)
    info = runs.get_run(store, run_id)
    assert info.status == "failed" and "disk full" in info.error
    done = info.windows_done
    assert done >= 1
    assert {e.window for e in records.load_events(store, run_id)} == set(range(done))
