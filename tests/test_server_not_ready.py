"""A local server that is not ready (HTTP 503 while it loads a model, connection refused while
it restarts) is waited for, with a growing delay, until the retry budget is spent; a server
that answers nothing stops the run when the budget is spent, as docs/models.md says."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
import time

import pytest
from pydantic import BaseModel

from nemori_ui.core.errors import LLMFailure
from nemori_ui.core.llm import LLMGateway, OpenAIChatBackend
from nemori_ui.core.llm.protocol import ChatReply, TransientError
from nemori_ui.core.store import open_store, records, runs
from tests.conftest import ROOT, SAMPLE
from tests.llm_responder import respond
from tests.openai_server import OpenAIServer, ServerReply

LOADING = ServerReply(status=503, body={"error": {"code": 503, "message": "Loading model",
                                                  "type": "unavailable_error"}})


class Reply(BaseModel):
    answer: str


def test_a_server_loading_its_model_for_20_s_mid_run_does_not_stop_the_run(openai_server,
                                                                            isolated_home):
    outage = {"from": None}

    def answer(body: dict):
        # after a few answers the server restarts and loads its model for 20 s
        if outage["from"] is None and openai_server.answered >= 8:
            outage["from"] = time.monotonic()
        if outage["from"] is not None and time.monotonic() - outage["from"] < 20:
            return LOADING
        return respond(body)

    openai_server.responder = answer
    done = subprocess.run([sys.executable, "-m", "nemori_ui", "run", str(SAMPLE), "--backend",
                           "openai", "--model", "test-model", "--base-url", openai_server.url,
                           "--home", str(isolated_home)],       # the default budget, 90 s
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    refused = [r for r in openai_server.chat_requests if r.at - outage["from"] < 20
               and r.at >= outage["from"]]
    assert len(refused) >= 3, "the outage did not happen mid-run"
    assert "the server is not ready (HTTP 503: Loading model); asking again in" in done.stderr
    store = open_store(isolated_home)
    [info] = runs.list_runs(store)
    calls = records.load_calls(store, info.id)
    store.close()
    assert info.status == "done" and not [c for c in calls if c.status == "failed"]
    waited = [c for c in calls if any("HTTP 503" in (r["error"] or "") for r in c.requests)]
    assert waited and all(c.requests[-1]["outcome"] == "ok" for c in waited)
    assert any(c.attempts > 3 for c in waited)        # not bounded by --attempts 3


def free_port() -> int:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    return port


def test_a_server_that_is_restarting_is_waited_for(isolated_home):
    port = free_port()
    server = OpenAIServer(port=port)
    server.responder = lambda body: {"answer": "back"}
    # nothing listens for the first 2.5 s: longer than three quick retries take
    starter = threading.Timer(2.5, server.start)
    starter.start()
    try:
        # --attempts 3, the default: waiting for a server that is not ready does not spend them
        gw = LLMGateway(OpenAIChatBackend("m", base_url=f"http://127.0.0.1:{port}/v1"),
                        retries=2, notice=lambda t: None)
        result = gw.complete("p", [{"role": "user", "content": "q"}], Reply)
    finally:
        starter.join()
        server.stop()
    assert result.ok and result.value.answer == "back", result.record.error
    outcomes = [r["outcome"] for r in result.record.requests]
    assert outcomes[-1] == "ok" and set(outcomes[:-1]) == {"failed"} and len(outcomes) >= 2
    assert "connection refused" in result.record.requests[0]["error"]
    assert "the server was not ready for" in result.record.error   # the note of the wait


class SilentBackend:
    """A server that accepts every request and never answers: each request takes its whole
    deadline, on a clock of the test's own."""
    name, model, base_url = "openai", "m", "http://127.0.0.1:9/v1"

    def __init__(self, clock: list[float]):
        self.clock = clock

    def chat(self, messages, *, temperature, response_format, timeout, max_tokens=None) -> ChatReply:
        self.clock[0] += timeout
        raise TransientError(f"request timed out within {timeout:g} s", timed_out=True)


def gateway_on(backend, now: list[float], budget: float, timeout: float) -> LLMGateway:
    def wait(seconds: float) -> None:
        now[0] += seconds

    # retries=2: --attempts 3, the default
    return LLMGateway(backend, timeout_s=timeout, retry_budget_s=budget, retries=2, sleep=wait,
                      clock=lambda: now[0], notice=lambda t: None)


@pytest.mark.parametrize("budget, timeout", [(90.0, 60.0), (30.0, 60.0), (90.0, 20.0),
                                             (90.0, 25.0)])
def test_a_server_that_answers_nothing_stops_the_run_when_the_budget_is_spent(budget, timeout):
    now = [0.0]
    gw = gateway_on(SilentBackend(now), now, budget, timeout)
    with pytest.raises(LLMFailure) as stopped:
        for n in range(20):      # the calls of a run, one after another
            gw.complete(f"p{n}", [{"role": "user", "content": f"q{n}"}], Reply)
    # the budget, plus at most the last short retry's wait: never a request timeout more
    assert budget <= now[0] <= budget + 2.0, (now[0], str(stopped.value))
    assert f"{budget:.0f} s" in str(stopped.value)


class SlowThenAnswering(SilentBackend):
    """Call "a" is never answered; while its first request waits, call "b" is answered, 50 s
    into the silence of "a"."""

    def __init__(self, clock: list[float]):
        super().__init__(clock)
        self.gateway: LLMGateway | None = None

    def chat(self, messages, *, temperature, response_format, timeout, max_tokens=None) -> ChatReply:
        if messages[-1]["content"] == "b":
            self.clock[0] = 50.0
            return ChatReply(text='{"answer": "b"}')
        if self.clock[0] == 0.0:
            started = self.clock[0]
            assert self.gateway.complete("b", [{"role": "user", "content": "b"}], Reply).ok
            self.clock[0] = started + timeout
            raise TransientError("request timed out", timed_out=True)
        return super().chat(messages, temperature=temperature, response_format=response_format,
                            timeout=timeout, max_tokens=max_tokens)


def test_silence_counts_from_the_last_answer_not_from_a_slow_calls_start():
    now = [0.0]
    backend = SlowThenAnswering(now)
    gw = backend.gateway = gateway_on(backend, now, 90.0, 60.0)
    # "a" spends its whole budget unanswered, but the server answered "b" 40 s before: it is
    # not gone, and the run goes on
    result = gw.complete("a", [{"role": "user", "content": "a"}], Reply)
    assert result.record.status == "failed" and now[0] >= 90.0
