"""Tests aimed at one-line mistakes the rest of the suite let through: each names the slip it
catches (a loop stopping one short, a cache key missing a part, >= for >, any for all...)."""

from __future__ import annotations

import json
from datetime import datetime, timedelta

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from nemori_ui.core.config import PipelineConfig
from nemori_ui.core.eval import qa
from nemori_ui.core.eval.ablations import Found
from nemori_ui.core.eval.conversation import _answer_one
from nemori_ui.core.llm import LLMGateway, MemoryResponseCache, ScriptedBackend
from nemori_ui.core.llm.openai_backend import OpenAIChatBackend
from nemori_ui.core.models import Episode, Message, SemanticMemory
from nemori_ui.core.deciders.offline import OfflineDecider
from nemori_ui.core.pipeline.bundle import StageContext
from nemori_ui.core.pipeline.decisions import ConsolidationDecision, Insight
from nemori_ui.core.pipeline.episodic import repair_partition
from nemori_ui.core.pipeline.events import EventLog
from nemori_ui.core.pipeline.runner import Clients
from nemori_ui.core.pipeline.consolidation import consolidate
from nemori_ui.core.pipeline.semantic import evoke
from nemori_ui.core.stage_events import (ConsolidateEvent, ConsolidatePayload, DistillEvent,
                                         DistillPayload)
from nemori_ui.core.pipeline.state import MemoryState
from nemori_ui.core.deciders.llm import LLMDecider
from nemori_ui.core.store import open_store, records
from nemori_ui.core.store.runs import create_run
from nemori_ui.core.transcripts import parse_transcript
from nemori_ui.core.tuning.qa_recall import evidence_recall
from nemori_ui.core.views.prediction import surprise_table
from nemori_ui.core.views.run_data import load_run_data
from tests.fakes import HashEmbedder, ScriptedDecider
from tests.openai_server import OpenAIServer, ServerReply

T0 = datetime(2023, 5, 8, 13, 56)


# -- repair_partition: every index in exactly one episode, whatever the model said ----------

model_groups = st.lists(st.lists(st.one_of(st.integers(-3, 30), st.just(True), st.none(),
                                           st.text(max_size=2)), max_size=12), max_size=8)


@settings(max_examples=400, deadline=None)
@given(groups=model_groups, n=st.integers(1, 25))
def test_repair_places_every_index_in_exactly_one_group(groups, n):
    repaired, notes = repair_partition(groups, n)
    placed = [i for g in repaired for i in g]
    assert sorted(placed) == list(range(1, n + 1)), (groups, n, repaired)
    assert all(g for g in repaired), "no empty episode"
    assert all(g == sorted(g) for g in repaired)
    plain = all(type(i) is int for g in groups for i in g)
    if plain and sorted(i for g in groups for i in g) == list(range(1, n + 1)):
        assert notes == [], "a valid partition needs no repair"


@pytest.mark.parametrize("n", [1, 2, 7])
def test_the_last_index_is_never_dropped(n):
    repaired, notes = repair_partition([[1]], n)
    assert repaired == [list(range(1, n + 1))]
    assert len(notes) == n - 1


# -- the response cache key holds the model and the server ------------------------------------

REPLY = {"topics": ["x"]}


def gateway(url: str, model: str, cache) -> LLMGateway:
    backend = OpenAIChatBackend(model, api_key="sk-test-key", base_url=url)
    return LLMGateway(backend, cache, timeout_s=5.0, backoff_base_s=0.01)


class Reply(__import__("pydantic").BaseModel):
    topics: list[str]


def test_a_second_model_or_server_is_never_served_the_first_ones_answer():
    msgs = [{"role": "user", "content": "segment: hello / hi"}]
    cache = MemoryResponseCache()
    with OpenAIServer() as one, OpenAIServer() as two:
        one.responder = two.responder = lambda body: ServerReply(content=json.dumps(REPLY))
        assert not gateway(one.url, "model-a", cache).complete("p", msgs, Reply).record.cached
        again = gateway(one.url, "model-a", cache).complete("p", msgs, Reply)
        assert again.record.cached and len(one.chat_requests) == 1
        other_model = gateway(one.url, "model-b", cache).complete("p", msgs, Reply)
        assert not other_model.record.cached and len(one.chat_requests) == 2
        other_server = gateway(two.url, "model-a", cache).complete("p", msgs, Reply)
        assert not other_server.record.cached and len(two.chat_requests) == 1


# -- τ: strictly greater, and only under native management ------------------------------------

def memory(state: MemoryState, emb: HashEmbedder, text: str) -> SemanticMemory:
    m = SemanticMemory(id=state.next_memory_id(), text=text,
                       embedding=emb.embed([text])[0].tolist())
    state.add_memory(m)
    return m


def episode_about(emb: HashEmbedder, text: str) -> Episode:
    return Episode(id="ep9999", cue=text, narrative=text, message_ids=["m0001"],
                   embedding=emb.embed([text])[0].tolist())


@pytest.fixture
def known():
    emb, state = HashEmbedder(), MemoryState(64)
    close = memory(state, emb, "maya drinks coffee every morning at home")
    far = memory(state, emb, "pixel is a grey cat")
    ep = episode_about(emb, "maya drinks coffee every morning")
    scores = {m.id: s for m, s in state.search_memories(np.asarray(ep.embedding, np.float32), 10)}
    return state, ep, close, far, scores


def test_a_score_equal_to_tau_does_not_pass(known):
    state, ep, close, _, scores = known
    passed, listing = evoke(state, ep, PipelineConfig(tau=scores[close.id]))
    assert passed == [] and not any(r.passed for r in listing)


@pytest.mark.parametrize("management", ["naive", "summary"])
def test_tau_does_not_filter_naive_or_summary_management(known, management):
    state, ep, close, far, scores = known
    config = PipelineConfig(tau=1.0, management=management)   # nothing scores above 1
    passed, listing = evoke(state, ep, config)
    assert {m.id for m, _ in passed} == {close.id, far.id}
    assert all(r.passed for r in listing)


# -- evidence recall: a question counts only when ALL its evidence was retrieved --------------

LOCOMO = json.dumps([{"sample_id": "s1", "conversation": {
    "speaker_a": "Ana", "speaker_b": "Ben",
    "session_1": [{"speaker": "Ana", "dia_id": "D1:1", "text": "I adopted a beagle named Rex."}],
    "session_1_date_time": "1:56 pm on 8 May, 2023",
    "session_2": [{"speaker": "Ben", "dia_id": "D2:1", "text": "Porto is lovely in spring."}],
    "session_2_date_time": "1:56 pm on 9 May, 2023"},
    "qa": [{"question": "adopted beagle named rex", "answer": "Rex", "category": 4,
            "evidence": ["D1:1", "D2:1"]}]}])


def test_sweep_recall_needs_every_evidence_turn(tmp_path):
    emb, store = HashEmbedder(), open_store(tmp_path / "home")
    conv = parse_transcript(LOCOMO, source="l.json").conversations[0]
    run_id = create_run(store, conv, PipelineConfig(), source="l.json", fmt="locomo",
                        decider="test", windows_total=1)
    episodes = [Episode(id="ep0001", cue="rex", narrative="adopted beagle named rex",
                        message_ids=["m0001"],
                        embedding=emb.embed(["adopted beagle named rex"])[0].tolist()),
                Episode(id="ep0002", cue="porto", narrative="porto spring",
                        message_ids=["m0002"], embedding=emb.embed(["porto spring"])[0].tolist())]
    records.save_window(store, run_id, 0, episodes=episodes, memories=[], events=[], calls=[])
    # k=1 retrieves the Rex episode only: one of the two evidence turns
    assert evidence_recall(store, run_id, conv, emb, k=1).recall_at_k == 0.0
    assert evidence_recall(store, run_id, conv, emb, k=2).recall_at_k == 1.0


def test_eval_recall_needs_every_evidence_turn():
    emb = HashEmbedder()
    conv = parse_transcript(LOCOMO, source="l.json").conversations[0]
    [item] = qa.locomo_items(conv).items
    clients = Clients(decider=OfflineDecider(emb), embedder=emb)
    by_id = {m.id: m for m in conv.messages}

    def answer(retrieved):
        system = lambda question, vec: Found(context="Ana: I adopted a beagle named Rex.",  # noqa: E731
                                             context_tokens=8, message_ids=retrieved, rows={})
        return _answer_one(item, system, clients, None, "locomo", by_id, {})[0]

    half = answer(["m0001"])
    assert (half.recall, half.evidence_share) == (0.0, 0.5)
    whole = answer(["m0001", "m0002"])
    assert (whole.recall, whole.evidence_share) == (1.0, 1.0)


# -- consolidation: a merge reply without merged text keeps what the targets held -------------

def test_a_merge_without_merged_text_keeps_the_targets_text():
    emb, state = HashEmbedder(), MemoryState(64)
    target = memory(state, emb, "Maya works at Finch Labs")
    ep = episode_about(emb, "maya finch labs")
    decider = ScriptedDecider().enqueue(
        "consolidate", ConsolidationDecision(action="merge", targets=[1], merged_text=None))
    insight = Insight(text="Maya leads the data team at Finch Labs",
                      source_message_ids=["m0001"])
    log = EventLog(0, 0)
    config = PipelineConfig(consolidation="always")     # the reply is the test, not the gate
    consolidate(StageContext(decider, emb, state, config, log), ep, [insight])
    [active] = state.active_memories()
    assert active.id != target.id and active.origin == "merge"
    assert "Maya works at Finch Labs" in active.text
    assert "Maya leads the data team at Finch Labs" in active.text
    assert "merged text" in log.events[-1].payload.repair


# -- distillation: a cited line 0 is no line, not the last message ----------------------------

def test_a_cited_line_0_is_not_read_as_the_last_message():
    messages = [Message(id=f"m{i:04d}", speaker="Ana", text=t, timestamp=T0 + timedelta(minutes=i))
                for i, t in enumerate(["I adopted Rex.", "He is a beagle.", "I moved to Porto."],
                                      start=1)]
    backend = ScriptedBackend("gpt-4o-mini")
    gw = LLMGateway(backend, None, temperature=0.3, sleep=lambda s: None)
    decider = LLMDecider(gw, PipelineConfig(backend="openai"), fallback=OfflineDecider(HashEmbedder()))
    backend.enqueue({"insights": [{"text": "Ana adopted Rex.", "lines": [0]},
                                  {"text": "Rex is a beagle.", "lines": [2, 0]},
                                  {"text": "Ana lives in Porto.", "lines": [-1, 3]}]},
                    prompt="distill")
    out = decider.distill(messages, "Ana has a pet.")
    assert [i.source_message_ids for i in out.insights] == [
        ["m0001", "m0002", "m0003"],     # nothing valid cited: the whole episode
        ["m0002"],
        ["m0003"]]


# -- surprise: an insight merged into an identical memory taught nothing ----------------------

def test_surprise_leaves_out_unchanged_merges(tmp_path):
    store = open_store(tmp_path / "home")
    conv = parse_transcript(b"Ana: one\nBen: two\nAna: three\nBen: four\n", source="s.txt"
                            ).conversations[0]
    run_id = create_run(store, conv, PipelineConfig(), source="s.txt", fmt="text",
                        decider="test", windows_total=1)
    ids = [m.id for m in conv.messages]
    ep = Episode(id="ep0001", cue="c", narrative="n", message_ids=ids, embedding=[1.0] + [0.0] * 63)
    events = [
        DistillEvent(window=0, seq=0, message_ids=ids,
                     payload=DistillPayload(episode_id="ep0001", mode="prediction-error",
                                            raw_messages=4, insights=[{"text": "a"}, {"text": "b"}])),
        ConsolidateEvent(window=0, seq=1, payload=ConsolidatePayload(
            episode_id="ep0001", action="merge", insight="a", unchanged=True)),
        ConsolidateEvent(window=0, seq=2, payload=ConsolidatePayload(
            episode_id="ep0001", action="new", insight="b")),
    ]
    records.save_window(store, run_id, 0, episodes=[ep], memories=[], events=events, calls=[])
    row = surprise_table(load_run_data(store, run_id)).iloc[0]
    assert (row["insights"], row["surprise"]) == (1, 0.25)
