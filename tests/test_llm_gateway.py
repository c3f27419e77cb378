"""The LLM gateway and OpenAI backend against a real local HTTP server through the real SDK."""

from __future__ import annotations

import json
import logging
import time
from concurrent.futures import ThreadPoolExecutor

import openai
import pytest
from pydantic import BaseModel, Field

from nemori_ui.core.errors import LLMFailure
from nemori_ui.core.llm import LLMGateway, MemoryResponseCache, strict_schema
from nemori_ui.core.llm.tokens import estimate_tokens
from nemori_ui.core.llm.openai_backend import (PLACEHOLDER_KEY, MissingCredentials,
                                               OpenAIChatBackend, make_openai_client,
                                               resolve_openai_settings, retry_after_seconds)
from tests.openai_server import Fault, OpenAIServer, ServerReply, fake_embedding

KEY = "sk-test-DISTINCTIVE-7f3a9c1e55"
MSGS = [{"role": "system", "content": "You segment conversations."},
        {"role": "user", "content": "Messages 1-3: hello / hi / how was Paris?"}]


class Topic(BaseModel):
    title: str
    indices: list[int]


class Partition(BaseModel):
    topics: list[Topic]
    note: str = Field("", description="anything worth saying")


GOOD = {"topics": [{"title": "greeting", "indices": [1, 2]}, {"title": "Paris", "indices": [3]}],
        "note": ""}


def gateway_for(server: OpenAIServer, **kw) -> LLMGateway:
    backend = OpenAIChatBackend("test-model", api_key=KEY, base_url=server.url)
    kw.setdefault("backoff_base_s", 0.01)
    kw.setdefault("timeout_s", 5.0)
    return LLMGateway(backend, kw.pop("cache", MemoryResponseCache()), **kw)


# -- structured output ---------------------------------------------------------------------

def test_valid_structured_reply_uses_strict_json_schema(openai_server):
    openai_server.responder = lambda req: ServerReply(content=json.dumps(GOOD),
                                                      prompt_tokens=120, completion_tokens=30)
    gw = gateway_for(openai_server)
    res = gw.complete("partition window/1", MSGS, Partition)

    assert res.ok and res.value == Partition.model_validate(GOOD)
    rf = openai_server.chat_requests[0].response_format
    assert rf["type"] == "json_schema"
    assert rf["json_schema"]["name"] == "partition_window_1"
    assert rf["json_schema"]["strict"] is True
    schema = rf["json_schema"]["schema"]
    assert schema["additionalProperties"] is False and schema["required"] == ["topics", "note"]
    assert schema["$defs"]["Topic"]["additionalProperties"] is False
    rec = res.record
    assert (rec.status, rec.attempts, rec.cached) == ("ok", 1, False)
    assert (rec.input_tokens, rec.output_tokens) == (120, 30)
    assert rec.parsed == GOOD and rec.backend == "openai" and rec.model == "test-model"
    assert len(rec.id) == 12 and rec.created_at is not None and len(rec.cache_key) == 64
    assert openai_server.chat_requests[0].body["temperature"] == pytest.approx(0.2)


def test_code_fences_are_stripped(openai_server):
    openai_server.responder = lambda req: "```json\n" + json.dumps(GOOD) + "\n```"
    res = gateway_for(openai_server).complete("p", MSGS, Partition)
    assert res.record.status == "ok" and res.value.topics[1].title == "Paris"


def test_free_form_schema_falls_back_to_non_strict(openai_server):
    class Loose(BaseModel):
        counts: dict[str, int]

    assert strict_schema(Loose.model_json_schema()) is None
    openai_server.responder = lambda req: {"counts": {"a": 1}}
    res = gateway_for(openai_server).complete("loose", MSGS, Loose)
    assert res.ok and openai_server.chat_requests[0].response_format["json_schema"]["strict"] is False


# -- transient failures --------------------------------------------------------------------

def test_429_then_success_honours_retry_after(openai_server):
    openai_server.responder = lambda req: GOOD
    openai_server.fault(Fault("429", retry_after=0.05))
    slept: list[float] = []
    gw = gateway_for(openai_server, sleep=lambda s: (slept.append(s), time.sleep(s)))
    res = gw.complete("p", MSGS, Partition)
    assert len(openai_server.chat_requests) == 2
    assert (res.record.status, res.record.attempts) == ("ok", 2)
    assert slept == [pytest.approx(0.05)]


@pytest.mark.parametrize("fault", ["500", "drop", "empty_choices"])
def test_server_error_then_success(openai_server, fault):
    openai_server.responder = lambda req: GOOD
    openai_server.fault(fault)
    res = gateway_for(openai_server).complete("p", MSGS, Partition)
    assert len(openai_server.chat_requests) == 2
    assert (res.record.status, res.record.attempts, res.ok) == ("ok", 2, True)


def test_timeout_then_success(openai_server):
    openai_server.responder = lambda req: GOOD
    openai_server.fault(Fault("timeout", sleep=1.0))
    res = gateway_for(openai_server, timeout_s=0.3).complete("p", MSGS, Partition)
    assert (res.record.status, res.record.attempts) == ("ok", 2)
    assert res.record.latency_s >= 0.3


def test_retries_exhausted_is_a_recorded_failure(openai_server):
    openai_server.fault("500", "500", "500")
    res = gateway_for(openai_server, retries=2).complete("p", MSGS, Partition)
    assert res.value is None and not res.ok
    assert res.record.status == "failed" and res.record.attempts == 3
    assert "gave up after 3 attempts" in res.record.error and "HTTP 500" in res.record.error


def test_bad_request_is_not_retried(openai_server):
    openai_server.responder = lambda req: ServerReply(status=400, body={"error": {
        "message": "model 'test-model' does not exist", "type": "invalid_request_error"}})
    res = gateway_for(openai_server).complete("p", MSGS, Partition)
    assert res.record.status == "failed" and len(openai_server.chat_requests) == 1
    assert "HTTP 400" in res.record.error and "does not exist" in res.record.error


def test_temperature_dropped_for_models_that_reject_it(openai_server):
    def respond(req):
        if "temperature" in req:
            return ServerReply(status=400, body={"error": {
                "message": "Unsupported value: 'temperature' does not support 0.2 with this model.",
                "type": "invalid_request_error", "param": "temperature"}})
        return GOOD
    openai_server.responder = respond
    gw = gateway_for(openai_server)
    assert gw.complete("p", MSGS, Partition).ok
    assert gw.complete("p", [*MSGS, {"role": "user", "content": "more"}], Partition).ok
    assert ["temperature" in r.body for r in openai_server.chat_requests] == [True, False, False]


# -- validation and repair -----------------------------------------------------------------

def test_invalid_json_then_repaired(openai_server):
    openai_server.responder = lambda req: GOOD
    openai_server.fault(Fault("invalid_json", content="Sure! {topics: oops"))
    gw = gateway_for(openai_server)
    res = gw.complete("p", MSGS, Partition)

    assert res.ok and res.record.status == "repaired" and res.record.attempts == 2
    repair = openai_server.chat_requests[1].messages
    assert repair[:2] == MSGS
    assert repair[2] == {"role": "assistant", "content": "Sure! {topics: oops"}
    assert repair[3]["role"] == "user" and "not valid JSON" in repair[3]["content"]
    assert res.record.messages == repair   # the record shows the conversation that succeeded


def test_schema_violation_repair_names_the_field(openai_server):
    openai_server.responder = lambda req: GOOD
    openai_server.fault(Fault("schema_violation", content='{"topics": [{"title": "x"}]}'))
    res = gateway_for(openai_server).complete("p", MSGS, Partition)
    assert res.record.status == "repaired"
    assert "topics.0.indices: Field required" in openai_server.chat_requests[1].messages[-1]["content"]


def test_invalid_json_twice_fails_without_raising_and_is_not_cached(openai_server):
    openai_server.fault("invalid_json", "invalid_json")
    openai_server.responder = lambda req: GOOD
    gw = gateway_for(openai_server)
    res = gw.complete("distill", MSGS, Partition)

    assert res.value is None and res.record.status == "failed"
    assert "after one repair attempt" in res.record.error
    assert gw.usage()["distill"]["failed"] == 1 and gw.totals()["failed"] == 1
    with pytest.raises(LLMFailure) as info:
        res.unwrap()
    assert info.value.call_id == res.record.id and info.value.prompt_name == "distill"
    again = gw.complete("distill", MSGS, Partition)   # failure was not cached: a new request
    assert again.ok and not again.record.cached and len(openai_server.chat_requests) == 3


# -- cache, usage, records -----------------------------------------------------------------

def test_second_identical_call_is_a_cache_hit(openai_server):
    openai_server.responder = lambda req: ServerReply(content=json.dumps(GOOD),
                                                      prompt_tokens=50, completion_tokens=20)
    gw = gateway_for(openai_server)
    first = gw.complete("p", MSGS, Partition)
    second = gw.complete("p", MSGS, Partition)

    assert len(openai_server.chat_requests) == 1
    assert second.value == first.value and second.record.cached and not first.record.cached
    assert second.record.cache_key == first.record.cache_key
    assert (second.record.input_tokens, second.record.output_tokens) == (50, 20)
    assert second.record.latency_s == 0.0 and second.record.attempts == 0
    assert gw.usage()["p"]["cached"] == 1 and gw.usage()["p"]["input_tokens"] == 50
    gw.complete("p", MSGS, Partition, temperature=0.7)   # other parameters: a new request
    assert len(openai_server.chat_requests) == 2


def test_usage_tallied_per_prompt_name(openai_server):
    def respond(req):
        name = req["response_format"]["json_schema"]["name"]
        return ServerReply(content=json.dumps(GOOD),
                           prompt_tokens=100 if name == "narrate" else 7, completion_tokens=10)
    openai_server.responder = respond
    gw = gateway_for(openai_server)
    for i in range(3):
        gw.complete("narrate", [*MSGS, {"role": "user", "content": f"episode {i}"}], Partition)
    gw.complete("partition", MSGS, Partition)

    usage = gw.usage()
    assert usage["narrate"]["calls"] == 3 and usage["partition"]["calls"] == 1
    assert (usage["narrate"]["input_tokens"], usage["narrate"]["output_tokens"]) == (300, 30)
    assert (usage["partition"]["input_tokens"], usage["partition"]["output_tokens"]) == (7, 10)
    assert usage["narrate"]["latency_s"] > 0
    totals = gw.totals()
    assert (totals["calls"], totals["cached"], totals["failed"]) == (4, 0, 0)
    assert (totals["input_tokens"], totals["output_tokens"]) == (307, 40)
    records = gw.drain_records()
    assert [r.prompt_name for r in records] == ["narrate"] * 3 + ["partition"]
    assert gw.drain_records() == []


def test_missing_usage_is_estimated(openai_server):
    openai_server.responder = lambda req: ServerReply(content=json.dumps(GOOD),
                                                      include_usage=False)
    rec = gateway_for(openai_server).complete("p", MSGS, Partition).record
    assert rec.output_tokens == estimate_tokens(rec.response_text) and rec.input_tokens > 0


def test_json_object_fallback_when_server_rejects_json_schema(openai_server):
    def respond(req):
        if req.get("response_format", {}).get("type") == "json_schema":
            return ServerReply(status=400, body={"error": {
                "message": "response_format type json_schema is not supported",
                "type": "invalid_request_error", "param": "response_format"}})
        return GOOD
    openai_server.responder = respond
    gw = gateway_for(openai_server)
    res = gw.complete("p", MSGS, Partition)

    assert res.ok and res.record.status == "ok" and "json_object" in res.record.error
    first, second = openai_server.chat_requests
    assert first.response_format["type"] == "json_schema"
    assert second.response_format == {"type": "json_object"}
    system = second.messages[0]["content"]
    assert system.startswith("You segment conversations.") and '"Topic"' in system
    assert gw.structured_output == "json_object" and gw.fallback_reason
    later = [*MSGS, {"role": "user", "content": "another window"}]
    gw.complete("p2", later, Partition)   # the rest of the gateway's life: json_object directly
    assert openai_server.chat_requests[2].response_format == {"type": "json_object"}
    assert len(openai_server.chat_requests) == 3


# -- secrets -------------------------------------------------------------------------------

def test_api_key_never_appears_in_records_errors_or_logs(caplog):
    caplog.set_level(logging.DEBUG, logger="nemori_ui")
    with OpenAIServer(api_key="the-right-key") as server:   # 401 that echoes the sent key
        backend = OpenAIChatBackend("test-model", api_key=KEY, base_url=server.url)
        gw = LLMGateway(backend, MemoryResponseCache(), backoff_base_s=0.01)
        res = gw.complete("p", MSGS, Partition)
        assert server.requests[0].headers["authorization"] == f"Bearer {KEY}"
    assert res.record.status == "failed" and "HTTP 401" in res.record.error
    assert len(server.requests) == 1   # an auth failure is not retried
    for text in (res.record.model_dump_json(), res.record.error, repr(backend), str(backend),
                 caplog.text, repr(gw.usage()), repr(gw.totals())):
        assert KEY not in text
        assert "DISTINCTIVE" not in text


def test_api_key_absent_from_successful_records(openai_server):
    openai_server.responder = lambda req: GOOD
    gw = gateway_for(openai_server)
    gw.complete("p", MSGS, Partition)
    gw.complete("p", MSGS, Partition)
    assert all(KEY not in r.model_dump_json() for r in gw.drain_records())


def test_resolve_openai_settings(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    assert resolve_openai_settings() == (None, None)
    with pytest.raises(MissingCredentials):
        make_openai_client()
    assert resolve_openai_settings(base_url="http://localhost:11434/v1") == (
        PLACEHOLDER_KEY, "http://localhost:11434/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "env-key")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://env/v1")
    assert resolve_openai_settings() == ("env-key", "http://env/v1")
    secrets = {"OPENAI_API_KEY": "secret-key", "OPENAI_BASE_URL": " "}
    assert resolve_openai_settings(secrets=secrets) == ("secret-key", "http://env/v1")
    assert resolve_openai_settings("arg-key", "http://arg/v1", secrets) == ("arg-key", "http://arg/v1")
    client = make_openai_client("arg-key", "http://arg/v1", timeout=3.0)
    assert isinstance(client, openai.OpenAI) and client.max_retries == 0


def test_retry_after_parsing():
    assert retry_after_seconds({"retry-after-ms": "250"}) == pytest.approx(0.25)
    assert retry_after_seconds({"retry-after": "2"}) == 2.0
    assert retry_after_seconds({"retry-after": "soon"}) is None
    assert retry_after_seconds({}) is None


# -- concurrency ---------------------------------------------------------------------------

def test_concurrency_is_bounded(openai_server):
    openai_server.responder = lambda req: GOOD
    openai_server.delay = 0.2
    gw = gateway_for(openai_server, max_concurrency=2)
    prompts = [[*MSGS, {"role": "user", "content": f"window {i}"}] for i in range(6)]
    with ThreadPoolExecutor(max_workers=6) as pool:
        results = list(pool.map(lambda m: gw.complete("narrate", m, Partition), prompts))
    assert all(r.ok for r in results)
    assert len(openai_server.chat_requests) == 6
    assert openai_server.max_in_flight == 2
    assert len({r.id for r in gw.drain_records()}) == 6


# -- the test server itself (other suites embed through it) ----------------------------------

def test_server_embeddings_are_deterministic_unit_vectors(openai_server):
    client = openai.OpenAI(api_key="k", base_url=openai_server.url, max_retries=0)
    out = client.embeddings.create(model="text-embedding-3-small", input=["alpha", "beta"])
    assert [d.index for d in out.data] == [0, 1] and len(out.data[0].embedding) == 1536
    assert out.data[0].embedding == pytest.approx(fake_embedding("alpha"), abs=1e-6)
    assert sum(v * v for v in out.data[1].embedding) == pytest.approx(1.0, abs=1e-4)
    small = client.embeddings.create(model="m", input="alpha", dimensions=8, encoding_format="float")
    assert small.data[0].embedding == pytest.approx(fake_embedding("alpha", 8))
    assert out.usage.prompt_tokens > 0 and len(openai_server.embedding_requests) == 2
