"""What the Overview and Partitions read from SQL equals what loading the run whole gave, and a
run read a page of messages at a time gives every message exactly once."""

from __future__ import annotations

from collections import Counter

import pandas as pd
import pytest

from nemori_ui.core.clients import RunEnvironment, build_clients
from nemori_ui.core.config import PipelineConfig
from nemori_ui.core.llm import OpenAIChatBackend
from nemori_ui.core.pipeline.runner import run_windows, start_run
from nemori_ui.core.store import open_store, page_reads, records
from nemori_ui.core.run_figures import run_figures
from nemori_ui.core.transcripts import parse_transcript
from nemori_ui.core.views import episodes as ev
from nemori_ui.core.views import partitions as pv
from nemori_ui.core.views.run_data import load_run_data
from tests.fakes import HashEmbedder
from tests.llm_responder import respond
from tests.openai_server import OpenAIServer
from tests.test_run_health import SMALL


def loaded_counts(store, run_id: str) -> dict:
    """The headline figures as they were computed before: from every record, in Python."""
    episodes = records.load_episodes(store, run_id, with_vectors=False)
    memories = records.load_memories(store, run_id, with_vectors=False)
    events = records.load_events(store, run_id)
    calls = records.load_calls(store, run_id)
    live = [c for c in calls if not c.cached]
    decisions = Counter(e.payload.action for e in events if e.stage == "consolidate")
    return {
        "messages": len(records.load_messages(store, run_id)),
        "raw_episodes": sum(e.stage == "narrate" for e in events),
        "episodes": sum(e.status == "active" for e in episodes),
        "integrated": sum(e.stage == "integrate" and e.payload.choice != -1 for e in events),
        "insights": sum(len(e.payload.insights) for e in events if e.stage == "distill"),
        "predicted": sum(c.kind == "predicted" for e in events if e.stage == "distill"
                         for c in e.payload.covered),
        "semantic_memories": sum(m.status == "active" for m in memories),
        "decisions": {k: decisions.get(k, 0) for k in ("new", "merge", "conflict")},
        "llm": {"calls": len(live), "cached": len(calls) - len(live),
                "failed": sum(c.status == "failed" for c in calls),
                "input_tokens": sum(c.input_tokens for c in live),
                "output_tokens": sum(c.output_tokens for c in live)}}


@pytest.fixture(scope="module")
def model_runs(tmp_path_factory):
    """The same small transcript twice through a local model server into one store: the
    first run's calls are made, the second's answered from the response cache."""
    server = OpenAIServer().start()
    server.responder = respond
    store = open_store(tmp_path_factory.mktemp("model-runs"))
    conv = parse_transcript(SMALL, source="small.txt").conversations[0]
    config = PipelineConfig(backend="openai", model="test-model", window=2)
    ids = []
    for _ in range(2):
        backend = OpenAIChatBackend(config.model, api_key="test-key", base_url=server.url)
        clients = build_clients(config, store,
                                RunEnvironment(backend=backend, embedder=HashEmbedder()))
        run_id = start_run(store, conv, config, clients, source="small.txt", fmt="text",
                           resume=False)
        run_windows(store, run_id, clients)
        ids.append(run_id)
    server.stop()
    return store, ids


def test_counts_from_sql_equal_those_from_loaded_records(sample_run, model_runs):
    store, run_id = sample_run
    sample = loaded_counts(store, run_id)
    assert sample["integrated"] and sample["insights"] and sample["decisions"]["merge"]
    assert page_reads.run_counts(store, run_id).model_dump() == sample
    summary = run_figures(store, run_id)
    assert {k: v for k, v in summary.model_dump().items() if k in sample} == sample
    model_store, (made, cached) = model_runs
    for rid in (made, cached):
        assert page_reads.run_counts(model_store, rid).model_dump() == \
            loaded_counts(model_store, rid)
    made_llm = page_reads.llm_totals(model_store, made)
    cached_llm = page_reads.llm_totals(model_store, cached)
    assert made_llm.calls and made_llm.input_tokens and made_llm.output_tokens
    assert cached_llm.cached and not cached_llm.input_tokens


def test_a_run_without_records_counts_zero(sample_run):
    store, _ = sample_run
    counts = page_reads.run_counts(store, "no-such-run")
    assert counts.messages == counts.insights == counts.llm.calls == 0


def test_partitions_read_from_the_store_equal_those_of_the_loaded_run(sample_run):
    store, run_id = sample_run
    data = load_run_data(store, run_id)
    loaded = pv.partition_source(data)
    stored = pv.stored_partition_source(store, run_id, data.info.config.window)
    assert stored.message_ids == loaded.message_ids
    assert stored.raw_of == loaded.raw_of and stored.successor == loaded.successor
    pd.testing.assert_frame_equal(pv.window_table(stored), pv.window_table(data))
    pd.testing.assert_frame_equal(pv.cuts_table(stored), pv.cuts_table(data))
    whole = pv.message_frame(data)
    figures = pv.partition_figures(stored)
    assert figures.raw_episodes == whole.loc[whole.raw_episode != "", "raw_episode"].nunique()
    assert figures.episodes == whole.loc[whole.episode != "", "episode"].nunique()
    assert figures.partitioned and figures.episodes < figures.raw_episodes   # one merge
    for e in data.episodes:
        assert ev.head_label(stored.episode_by_id, e.id) == ev.episode_label(data, e.id)
        told = page_reads.messages_by_id(store, run_id, e.message_ids)
        pd.testing.assert_frame_equal(ev.message_table(told), ev.episode_messages(data, e.id))


@pytest.mark.parametrize("limit", [1, 7, 20, 1000])
def test_pages_of_messages_hold_every_message_once_in_order(sample_run, limit):
    store, run_id = sample_run
    data = load_run_data(store, run_id, with_vectors=False)
    src = pv.stored_partition_source(store, run_id, data.info.config.window)
    pages = [pv.message_page(store, run_id, src, offset, limit)
             for offset in range(0, len(data.messages), limit)]
    assert all(0 < len(p) <= limit for p in pages)
    joined = pd.concat(pages, ignore_index=True)
    assert list(joined["message"]) == [m.id for m in data.messages]   # each once, in order
    pd.testing.assert_frame_equal(joined, pv.message_frame(data))
    past = pv.message_page(store, run_id, src, len(data.messages), limit)
    assert past.empty and list(past.columns) == pv.MESSAGE_COLUMNS


def test_a_page_holds_only_the_messages_its_source_knows(sample_run):
    store, run_id = sample_run
    data = load_run_data(store, run_id, with_vectors=False)
    src = pv.stored_partition_source(store, run_id, data.info.config.window)
    src.message_ids = src.message_ids[:30]      # as read before 65 more messages came
    assert list(pv.message_page(store, run_id, src, 20, 50)["pos"]) == list(range(21, 31))
