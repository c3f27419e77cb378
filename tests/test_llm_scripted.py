"""The typed scripted backend, and what the gateway does with a server that answers nothing."""

from __future__ import annotations

import json
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from nemori_ui.core.errors import LLMFailure
from nemori_ui.core.llm import ChatReply, LLMGateway, ScriptedBackend, TransientError
from tests.test_llm_gateway import GOOD, MSGS, Partition


# -- the scripted backend ------------------------------------------------------------------

def test_scripted_backend_replays_in_order_and_records_calls():
    backend = ScriptedBackend()
    backend.enqueue(GOOD, Partition.model_validate(GOOD), '{"topics": []}')
    gw = LLMGateway(backend)
    values = [gw.complete("p", [*MSGS, {"role": "user", "content": str(i)}], Partition).value
              for i in range(3)]
    assert values[0] == values[1] == Partition.model_validate(GOOD)
    assert values[2].topics == [] and backend.pending == 0
    assert len(backend.calls) == 3 and backend.calls[0].prompt == "p"
    assert backend.calls[0].response_format["json_schema"]["strict"] is True
    rec = gw.drain_records()[0]
    assert rec.backend == "scripted" and rec.input_tokens > 0 and rec.output_tokens > 0


def test_scripted_backend_per_prompt_queues_default_and_exhaustion():
    backend = ScriptedBackend(default=lambda messages: {"topics": [], "note": "default"})
    backend.enqueue({"topics": [], "note": "for b"}, prompt="b")
    backend.enqueue({"topics": [], "note": "general"})
    gw = LLMGateway(backend)
    assert gw.complete("a", MSGS, Partition).value.note == "general"
    assert gw.complete("b", MSGS, Partition).value.note == "for b"
    assert gw.complete("c", MSGS, Partition).value.note == "default"
    assert [c.prompt for c in backend.calls_for("b")] == ["b"]

    bare = LLMGateway(ScriptedBackend())
    res = bare.complete("p", MSGS, Partition)
    assert res.record.status == "failed" and "no scripted reply" in res.record.error


def test_scripted_backend_drives_retry_and_repair_paths():
    slept: list[float] = []
    backend = ScriptedBackend().enqueue(
        TransientError("rate limited", retry_after=1.5), "not json", ChatReply(text=json.dumps(GOOD), input_tokens=11, output_tokens=5))
    gw = LLMGateway(backend, sleep=slept.append)
    res = gw.complete("p", MSGS, Partition)
    assert res.record.status == "repaired" and res.record.attempts == 3
    assert slept == [1.5]   # Retry-After honoured, no real waiting
    assert backend.calls[2].messages[-2] == {"role": "assistant", "content": "not json"}


def test_scripted_backend_is_thread_safe():
    backend = ScriptedBackend().enqueue(*[GOOD] * 40)
    gw = LLMGateway(backend, max_concurrency=4)
    barrier = threading.Barrier(8)

    def work(i: int) -> bool:
        barrier.wait()
        return all(gw.complete("p", [{"role": "user", "content": f"{i}-{j}"}], Partition).ok
                   for j in range(5))
    with ThreadPoolExecutor(8) as pool:
        assert all(pool.map(work, range(8)))
    assert backend.pending == 0 and gw.totals()["calls"] == 40


def test_a_server_that_answers_nothing_stops_the_run_after_a_few_calls():
    backend = ScriptedBackend()
    refused = RuntimeError("401 invalid api key")
    backend.enqueue(refused, refused, {"topics": [], "note": "ok"}, refused, refused, refused)
    gw = LLMGateway(backend, sleep=lambda s: None)
    messages = [{"role": "user", "content": "x"}]
    assert not gw.complete("p", messages, Partition).ok
    assert not gw.complete("p", messages + [{"role": "user", "content": "y"}], Partition).ok
    # a call that works resets the count: two failures are not yet a dead server
    assert gw.complete("p", messages + [{"role": "user", "content": "z"}], Partition).ok
    gw.complete("p", messages + [{"role": "user", "content": "1"}], Partition)
    gw.complete("p", messages + [{"role": "user", "content": "2"}], Partition)
    with pytest.raises(LLMFailure, match="failed 3 calls in a row"):
        gw.complete("p", messages + [{"role": "user", "content": "3"}], Partition)
