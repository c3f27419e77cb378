"""A run stopped by a signal keeps every call the server answered: SIGTERM and SIGHUP end it as
Ctrl-C does (the call in flight recorded as interrupted, the run marked interrupted), and each
call is saved the moment it completes, so even SIGKILL loses only the call in flight."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time

import pytest
from pydantic import BaseModel

from nemori_ui.core.llm import LLMGateway, OpenAIChatBackend, stopping
from nemori_ui.core.llm.protocol import CallInterrupted
from nemori_ui.core.store import open_store, records, runs
from tests.conftest import ROOT, SAMPLE
from tests.llm_responder import respond

ANSWERED_BEFORE_STOP = 6
ANSWERED = ("ok", "truncated")        # request outcomes that carry the server's reply


def command(url: str, home) -> list[str]:
    return [sys.executable, "-m", "nemori_ui", "run", str(SAMPLE), "--backend", "openai",
            "--model", "test-model", "--base-url", url, "--concurrency", "1", "--home", str(home)]


def wait_for(condition, what: str, limit_s: float = 120) -> None:
    deadline = time.monotonic() + limit_s
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.02)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT, signal.SIGKILL],
                         ids=lambda s: signal.Signals(s).name)
def test_the_calls_a_stopped_run_stores_are_those_the_server_answered(sig, openai_server,
                                                                      isolated_home):
    hold = threading.Event()

    def slow_model(body: dict) -> dict:
        # a few quick answers, then a long generation: the signal lands while it is in flight
        if openai_server.answered >= ANSWERED_BEFORE_STOP:
            hold.wait(60)
        return respond(body)

    openai_server.responder = slow_model
    proc = subprocess.Popen(command(openai_server.url, isolated_home), cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        wait_for(lambda: len(openai_server.chat_requests) > ANSWERED_BEFORE_STOP
                 or proc.poll() is not None, "the server received too few requests")
        assert proc.poll() is None, proc.stderr.read()
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        hold.set()
    wait_for(lambda: openai_server.in_flight == 0, "the server is still answering")
    store = open_store(isolated_home)
    [info] = runs.list_runs(store)
    calls = records.load_calls(store, info.id)
    store.close()
    sent = [r for c in calls for r in c.requests]
    stored = sum(r["outcome"] in ANSWERED for r in sent)
    cut = [c for c in calls if c.status == "interrupted"]
    # every request answered while the run listened is stored; the one in flight aside, which
    # the server may still finish for nobody
    assert stored == ANSWERED_BEFORE_STOP, (stored, err)
    assert openai_server.answered in (stored, stored + 1)
    assert len(openai_server.chat_requests) == stored + 1
    if sig == signal.SIGKILL:
        assert proc.returncode == -signal.SIGKILL and not cut
        return
    assert proc.returncode == 130, err
    assert "interrupted: run" in err and "Traceback" not in err, err
    assert info.status == "interrupted"
    [call] = cut                                  # the one in flight, on record as cut off
    assert [r["outcome"] for r in call.requests] == ["interrupted"] and len(sent) == stored + 1


class Reply(BaseModel):
    answer: str


def test_calls_in_flight_in_other_threads_end_as_interrupted_when_the_process_stops(
        openai_server):
    openai_server.responder = lambda body: {"answer": "late"}
    openai_server.delay = 30              # never answered while the test waits
    gw = LLMGateway(OpenAIChatBackend("m", base_url=openai_server.url), notice=lambda t: None)
    ended: list[BaseException] = []

    def ask(n: int) -> None:
        try:
            gw.complete(f"p{n}", [{"role": "user", "content": f"question {n}"}], Reply)
        except BaseException as exc:  # noqa: BLE001 - what each thread ended with
            ended.append(exc)

    threads = [threading.Thread(target=ask, args=(n,), daemon=True) for n in range(3)]
    for t in threads:
        t.start()
    try:
        wait_for(lambda: len(openai_server.chat_requests) == 3, "the requests were not sent", 20)
        stopping.request()
        for t in threads:
            t.join(10)
    finally:
        stopping.clear()
    assert not any(t.is_alive() for t in threads), "a call kept waiting after the stop"
    assert len(ended) == 3 and all(isinstance(e, CallInterrupted) for e in ended)
    assert openai_server.answered == 0
    cut = gw.drain_records()
    assert sorted(c.prompt_name for c in cut) == ["p0", "p1", "p2"]
    assert all(c.status == "interrupted" and [r["outcome"] for r in c.requests] == ["interrupted"]
               for c in cut)
    # the process goes on after a stop that was taken back (a test, an embedding program)
    openai_server.delay = 0
    assert gw.complete("again", [{"role": "user", "content": "q"}], Reply).ok
