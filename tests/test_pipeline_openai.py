"""The whole pipeline through the real `openai` SDK against the local HTTP test server."""

from __future__ import annotations

from collections import Counter
from datetime import datetime, timedelta

import pytest

from nemori_ui.core.clients import RunEnvironment, build_clients
from nemori_ui.core.config import PipelineConfig
from nemori_ui.core.llm import OpenAIChatBackend
from nemori_ui.core.models import Conversation, Message
from nemori_ui.core.pipeline.runner import STAGES, run_windows, start_run
from nemori_ui.core.store import open_store, records, runs
from tests.fakes import HASH_GATE, HashEmbedder
from tests.llm_responder import prompt_of, respond
from tests.openai_server import ServerReply

S1, S2 = datetime(2024, 3, 4, 18, 0), datetime(2024, 3, 9, 10, 0)
TEXTS = [
    # session 1
    "I booked flights to Lisbon for the marathon weekend in April.",
    "Nice, which race is it?", "The Lisbon half marathon, my first one.", "How long have you trained?",
    "Since January, three runs a week with my running club.", "Do you run alone on Sundays?",
    "No, the club meets by the river at seven.", "That sounds like a good routine.",
    "My knee started hurting after the marathon training yesterday.", "Did you see a doctor?",
    "Still worried about the marathon training plan, the physio said rest for a week.",
    "Rest is wise before April.", "I will swim instead on Tuesday and Thursday.",
    "Good idea, swimming keeps the fitness.", "My sister Clara might come to Lisbon too.",
    "She would love the old town.",
    # session 2, five days later
    "Clara confirmed she is coming to Lisbon with me.", "Great news, where will you stay?",
    "A small apartment in Alfama near the castle.", "Alfama is beautiful in spring.",
    "I also started a pottery class on Wednesday evenings.", "What do you make there?",
    "Bowls mostly, the teacher is called Marta.", "Send me a photo of the first bowl.",
    "I booked flights to Lisbon for the marathon weekend, finally confirmed for Clara too.",
    "You must be excited.", "My knee feels better after the swimming.", "Glad to hear it.",
    "The pottery class has an exhibition in May.", "I will come and see your bowls.",
]
CONV = Conversation(id="fixture", speakers=["Ana", "Ben"], messages=[
    Message(id=f"m{i + 1:04d}", speaker="Ana" if i % 2 == 0 else "Ben", text=t,
            session=1 if i < 16 else 2,
            timestamp=(S1 + timedelta(minutes=i)) if i < 16 else (S2 + timedelta(minutes=i - 16)))
    for i, t in enumerate(TEXTS)])
CONFIG = PipelineConfig(backend="openai", model="test-model", window=10,
                        consolidation_gate=HASH_GATE)
PRE_SEMANTIC = ("partition", "narrate", "select", "integrate")


@pytest.fixture
def store(tmp_path):
    s = open_store(tmp_path / "home")
    yield s
    s.conn.close()


@pytest.fixture
def server(openai_server):
    openai_server.responder = respond
    return openai_server


def run(store, server, config=CONFIG) -> str:
    backend = OpenAIChatBackend(config.model, api_key="test-key", base_url=server.url)
    clients = build_clients(config, store, RunEnvironment(backend=backend, embedder=HashEmbedder()))
    run_id = start_run(store, CONV, config, clients, source="fixture.json", fmt="chat",
                       resume=False)
    run_windows(store, run_id, clients)
    assert runs.get_run(store, run_id).status == "done"
    assert clients.decider.label == "openai:test-model"
    return run_id


def requests_by_prompt(server) -> Counter:
    return Counter(prompt_of(r.body) for r in server.chat_requests)


def test_whole_pipeline_over_http(store, server):
    run_id = run(store, server)
    assert not server.errors
    episodes = records.load_episodes(store, run_id)
    active = [e for e in episodes if e.status == "active"]
    placed = Counter(mid for e in active for mid in e.message_ids)
    assert sorted(placed) == [m.id for m in CONV.messages] and set(placed.values()) == {1}

    events = records.load_events(store, run_id)
    calls = {c.id: c for c in records.load_calls(store, run_id)}
    for stage in STAGES:
        assert any(e.call_ids for e in events if e.stage == stage), stage
    cited = Counter(cid for e in events for cid in e.call_ids)
    # each call belongs to one decision, but an episode's consolidation call to each of its
    # insights' decisions; and every stored call belongs to some decision
    assert all(calls[cid].prompt_name == "consolidate_episode" for cid, n in cited.items()
               if n > 1)
    assert set(cited) == set(calls)
    for e in events:
        assert not e.payload.fallback, e
        for cid in e.call_ids:
            assert calls[cid].status == "ok" and calls[cid].backend == "openai"
    # every stage was decided by the model, including a merge on each side
    by_prompt = Counter(c.prompt_name for c in calls.values())
    assert set(by_prompt) == {"partition", "narrate", "select", "integrate", "anticipate",
                              "distill", "consolidate_episode"}
    assert by_prompt["partition"] == 3
    actions = Counter(e.payload.action for e in events if e.stage == "consolidate")
    assert actions["merge"] >= 1 and actions["new"] >= 1
    assert sum(by_prompt.values()) == len(server.chat_requests)
    # structured output went over the wire with the prompt's strict schema
    formats = {r.body["response_format"]["json_schema"]["name"] for r in server.chat_requests}
    assert formats == set(by_prompt)
    assert all(r.body["response_format"]["json_schema"]["strict"] for r in server.chat_requests)


def test_same_inputs_make_no_new_request(store, server):
    first = run(store, server)
    sent = len(server.chat_requests)
    second = run(store, server)
    assert second != first and len(server.chat_requests) == sent
    calls = records.load_calls(store, second)
    assert calls and all(c.cached for c in calls)
    strip = lambda evs: [(e.stage, e.payload) for e in evs]  # noqa: E731
    assert strip(records.load_events(store, second)) == strip(records.load_events(store, first))


def test_changing_tau_reissues_only_semantic_calls(store, server):
    run(store, server)
    before = requests_by_prompt(server)
    run(store, server, CONFIG.model_copy(update={"tau": -1.0}))   # every memory is evoked
    after = requests_by_prompt(server)
    assert all(after[p] == before[p] for p in PRE_SEMANTIC), (before, after)
    assert after["anticipate"] > before["anticipate"]
    assert after["distill"] >= before["distill"]


def test_invalid_json_for_one_distill_call_is_recorded_and_survived(store, server):
    seen = {"distill": 0}

    def flaky(body):
        if prompt_of(body) == "distill":
            seen["distill"] += 1
            if seen["distill"] <= 2:       # the first distill call and its repair request
                return ServerReply(content="Sure! The insights are: {not json")
        return respond(body)

    server.responder = flaky
    run_id = run(store, server)
    calls = records.load_calls(store, run_id)
    failed = [c for c in calls if c.status == "failed"]
    assert [c.prompt_name for c in failed] == ["distill"]
    assert failed[0].attempts == 2 and "not valid JSON" in failed[0].error
    event = next(e for e in records.load_events(store, run_id, "distill")
                 if failed[0].id in e.call_ids)
    assert event.payload.fallback == \
        f"LLM call failed ({failed[0].error}); offline engine decided"
    assert event.call_ids == [failed[0].id]
    others = [e for e in records.load_events(store, run_id) if e.seq != event.seq]
    assert not any(e.payload.fallback for e in others)
    # the failure is not cached: the next run asks again and gets a good reply
    run_again = run(store, server)
    assert all(c.status == "ok" for c in records.load_calls(store, run_again))


def test_json_object_mode_puts_the_schema_in_the_prompt(store, server):
    config = CONFIG.model_copy(update={"structured_output": "json_object"})
    run_id = run(store, server, config)
    assert all(r.body["response_format"] == {"type": "json_object"} for r in server.chat_requests)
    assert all("JSON schema" in r.messages[0]["content"] for r in server.chat_requests)
    assert all(c.status == "ok" for c in records.load_calls(store, run_id))
