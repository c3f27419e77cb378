"""The whole pipeline through the real `openai` SDK against a server that misbehaves at a rate.

Every kind of fault the local server knows is injected at random (seeded, so a failing run can
be replayed), and partitions come back with indices missing or repeated. The run must finish,
place every message in exactly one episode, and account for every fault it met: each request
the server saw is an attempt on some call record, each retried failure is written on its
record, each invalid reply made a call "repaired" or "failed", and each failed call is cited by
the decision the offline engine took over, with the reason.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter

import pytest

from nemori_ui.core.clients import RunEnvironment, build_clients
from nemori_ui.core.config import PipelineConfig
from nemori_ui.core.llm import OpenAIChatBackend
from nemori_ui.core.pipeline.runner import run_windows, start_run
from nemori_ui.core.stage_events import fallback_reasons
from nemori_ui.core.store import open_store, records, runs
from nemori_ui.core.transcripts import load_transcript
from tests.conftest import SAMPLE
from tests.fakes import HASH_GATE, HashEmbedder
from tests.llm_responder import damaged_partition, prompt_of, respond, user_text
from tests.openai_server import OpenAIServer, ServerReply

TRANSIENT = {"429": "HTTP 429", "500": "HTTP 500", "timeout": "timed out",
             "drop": "connection error", "empty_choices": "no choices"}
CONTENT = ("invalid_json", "schema_violation")
RATE = 0.2
SEED = 20240304
CLIENT_TIMEOUT = 1.0      # the gateway's per-request timeout in this test ...
SERVER_STALL = 2.0        # ... and how long a "timeout" fault keeps the client waiting


def draw(text: str, n: int) -> int:
    return int(hashlib.sha256(f"{SEED}:{text}".encode()).hexdigest(), 16) % n


def damage_of(text: str) -> str | None:
    """Which windows get a careless partition: a third each missing, repeated, intact."""
    return (None, "missing", "repeated")[draw(text, 3)]


def hopeless(body: dict) -> bool:
    """Requests the model never answers usably, even when asked to repair: an eighth of the
    narrations and consolidations. Faults at a rate rarely hit a call and its repair both."""
    return prompt_of(body) in ("narrate", "consolidate", "consolidate_episode") and draw(user_text(body), 8) == 0


def careless(body: dict) -> dict | ServerReply:
    if hopeless(body):
        return ServerReply(content="I would rather write prose than JSON.")
    if prompt_of(body) == "partition" and damage_of(user_text(body)):
        return damaged_partition(user_text(body), damage_of(user_text(body)))
    return respond(body)


@pytest.fixture(scope="module")
def faulty_run(tmp_path_factory):
    """One faulty run that every test here examines (it takes a few seconds)."""
    server = OpenAIServer().start()
    server.responder = careless
    server.timeout_sleep = SERVER_STALL
    server.fault_rate(RATE, [*TRANSIENT, *CONTENT], seed=SEED)
    store = open_store(tmp_path_factory.mktemp("faults-home"))
    conv = load_transcript(SAMPLE).conversations[0]
    config = PipelineConfig(backend="openai", model="test-model", window=10,
                            consolidation_gate=HASH_GATE)
    backend = OpenAIChatBackend(config.model, api_key="test-key", base_url=server.url)
    clients = build_clients(config, store, RunEnvironment(backend=backend, embedder=HashEmbedder()))
    gateway = clients.decider.gateway
    # the retry policy is the gateway's own; only its clock is shortened for the test
    gateway.timeout_s, gateway.backoff_base_s, gateway.backoff_max_s = CLIENT_TIMEOUT, 0.01, 0.05
    run_id = start_run(store, conv, config, clients, source=str(SAMPLE), fmt="text")
    run_windows(store, run_id, clients)
    yield server, store, run_id, conv
    store.close()
    server.stop()


def test_the_run_completes_with_every_message_in_one_episode(faulty_run):
    server, store, run_id, conv = faulty_run
    info = runs.get_run(store, run_id)
    assert (info.status, info.windows_done) == ("done", info.windows_total), info.error
    assert not server.errors
    # every kind of fault was met, and plenty of them
    assert set(server.injected) == {*TRANSIENT, *CONTENT}, server.injected
    assert sum(server.injected.values()) >= 30, server.injected
    active = [e for e in records.load_episodes(store, run_id) if e.status == "active"]
    placed = Counter(mid for e in active for mid in e.message_ids)
    assert sorted(placed) == [m.id for m in conv.messages] and set(placed.values()) == {1}


def test_every_request_and_every_fault_is_on_a_call_record(faulty_run):
    server, store, run_id, _ = faulty_run
    calls = records.load_calls(store, run_id)
    assert sum(c.attempts for c in calls) == len(server.chat_requests)
    notes = " ".join(c.error or "" for c in calls)
    for kind, words in TRANSIENT.items():
        seen = notes.count(words)
        # a slow machine may time out an answer that was not stalled: more, never fewer
        assert seen >= server.injected[kind] if kind == "timeout" else \
            seen == server.injected[kind], (kind, seen, server.injected)
    invalid = sum(1 for c in calls if c.status == "repaired") + \
        2 * sum(1 for c in calls if c.error and "after one repair attempt" in c.error)
    # the replies of hopeless requests that met no fault were unusable too
    unusable = sum(1 for r in server.chat_requests if r.fault is None and hopeless(r.body))
    assert invalid == sum(server.injected[k] for k in CONTENT) + unusable
    assert sum(c.status == "failed" for c in calls) >= 3


def test_every_failed_call_is_cited_by_the_decision_taken_without_it(faulty_run):
    _, store, run_id, _ = faulty_run
    calls = {c.id: c for c in records.load_calls(store, run_id)}
    events = records.load_events(store, run_id)
    cited = Counter(cid for e in events for cid in e.call_ids)
    assert set(cited) == set(calls), "a call no decision cites"
    # only a call asked about several insights at once is cited by each of their decisions
    assert all(calls[cid].prompt_name == "consolidate_episode" for cid, n in cited.items()
               if n > 1)
    for event in events:
        for cid in event.call_ids:
            call = calls[cid]
            if call.status != "failed":
                continue
            reasons = fallback_reasons(event.payload)
            assert any(call.error in r and "offline engine decided" in r
                       for r in reasons), (event.stage, event.payload, call.error)


def test_careless_partitions_are_repaired_and_the_repair_shown(faulty_run):
    _, store, run_id, _ = faulty_run
    calls = {c.id: c for c in records.load_calls(store, run_id)}
    damaged = 0
    for event in records.load_events(store, run_id, "partition"):
        p = event.payload
        assert sorted(i for g in p.groups for i in g) == sorted(p.window_message_ids)
        if p.fallback:
            continue
        call = calls[event.call_ids[0]]
        how = damage_of(user_text({"messages": call.messages}))
        repairs = " ".join(p.repairs)
        if how == "missing":
            assert re.search(r"added omitted index 2\b", repairs), p
        elif how == "repeated":
            assert "dropped repeated index" in repairs, p
        else:
            assert not p.repairs, p
        damaged += how is not None
    assert damaged >= 2
