"""A call never waits without bound and never goes silent: each request has a total deadline
(connect to the last byte), each call a time-bounded retry budget, a server that answers
nothing stops the run, and every retry is said on stderr. Also what a local server needs: an
output cap per stage, a cut reply retried once with a larger cap, the model it serves, fewer
requests at once when it queues them, and clear words for an HTML page or a refused
connection."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
import time

import pytest
from pydantic import BaseModel

from nemori_ui.core.clients import RunEnvironment, build_clients
from nemori_ui.core.config import PipelineConfig
from nemori_ui.core.errors import LLMFailure
from nemori_ui.core.llm import LLMGateway, OpenAIChatBackend
from nemori_ui.core.llm.limiter import AdaptiveLimit
from nemori_ui.core.llm.servers import choose_model, display_model, is_local_server
from nemori_ui.core.pipeline.runner import run_windows, start_run
from nemori_ui.core.prompts import MAX_TOKENS
from nemori_ui.core.store import open_store, records, runs
from tests.conftest import ROOT, SAMPLE
from tests.fakes import HashEmbedder
from tests.llm_responder import prompt_of, respond
from tests.openai_server import ServerReply
from tests.test_pipeline_openai import CONV


class Reply(BaseModel):
    answer: str


MSGS = [{"role": "user", "content": "hello"}]


class StallingServer:
    """Accepts connections and then either never answers ("silent") or sends the response
    headers and one byte of body every `gap` seconds, for ever ("trickle")."""

    def __init__(self, mode: str, gap: float = 0.2):
        self.mode, self.gap = mode, gap
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.stop = threading.Event()
        self.accepted = 0
        threading.Thread(target=self._serve, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def _serve(self) -> None:
        self.sock.settimeout(0.2)
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.accepted += 1
            threading.Thread(target=self._hold, args=(conn,), daemon=True).start()

    def _hold(self, conn) -> None:
        try:
            conn.recv(65536)
            if self.mode == "trickle":
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                             b"Content-Length: 100000\r\n\r\n")
            while not self.stop.is_set():
                if self.mode == "trickle":
                    conn.sendall(b" ")
                time.sleep(self.gap)
        except OSError:
            pass
        finally:
            conn.close()

    def close(self) -> None:
        self.stop.set()
        self.sock.close()


@pytest.mark.parametrize("mode", ["trickle", "silent"])
def test_a_stalling_server_fails_a_call_within_its_budget(mode):
    server = StallingServer(mode)
    try:
        gw = LLMGateway(OpenAIChatBackend("m", base_url=server.url), timeout_s=0.6,
                        retry_budget_s=1.5, backoff_base_s=0.05, notice=lambda t: None)
        started = time.monotonic()
        box = {}
        worker = threading.Thread(target=lambda: box.update(r=gw.complete("p", MSGS, Reply)),
                                  daemon=True)
        worker.start()
        worker.join(10)      # a call that outlives its deadline fails here instead of hanging
        took = time.monotonic() - started
    finally:
        server.close()
    assert "r" in box, f"the call was still waiting after {took:.0f} s"
    result = box["r"]
    assert result.value is None and result.record.status == "failed"
    assert took < 3.0, took                          # the budget, not the trickle, decides
    assert "timed out" in result.record.error and server.url in result.record.error
    outcomes = [r["outcome"] for r in result.record.requests]
    assert outcomes and set(outcomes) == {"timed out"}
    assert len(outcomes) == result.record.attempts >= 2


@pytest.mark.parametrize("mode", ["silent", "trickle"])
def test_a_stalling_server_stops_the_run_with_a_clear_message(mode, isolated_home):
    server = StallingServer(mode)
    store = open_store(isolated_home)
    config = PipelineConfig(backend="openai", model="m", base_url=server.url, window=10,
                            timeout_s=0.5, retry_budget_s=1.0, attempts=3)
    box = {}

    def run() -> None:
        # the server is read first (/v1/models, /props): a trickle must not hold that open
        clients = build_clients(config, store,
                                RunEnvironment(embedder=HashEmbedder(), notice=lambda t: None))
        box["run_id"] = start_run(store, CONV, config, clients, source="fixture.json", fmt="chat")
        started = time.monotonic()
        try:
            run_windows(store, box["run_id"], clients)
        except LLMFailure as exc:
            box["stopped"] = str(exc)
        box["took"] = time.monotonic() - started

    worker = threading.Thread(target=run, daemon=True)
    try:
        worker.start()
        worker.join(120)
    finally:
        server.close()
    assert "took" in box, "the run was still waiting for the server"
    assert "in a row" in box["stopped"] or "answered nothing" in box["stopped"], box
    assert box["took"] < 15, box["took"]
    run_id = box["run_id"]
    info = runs.get_run(store, run_id)
    assert info.status == "failed" and "Check the model, base URL and key" in info.error
    assert records.load_calls(store, run_id)       # the failed window's calls are kept


def test_retries_and_progress_reach_stderr_when_it_is_not_a_terminal(openai_server, tmp_path):
    openai_server.responder = respond
    openai_server.fault("500")
    out = subprocess.run([sys.executable, "-m", "nemori_ui", "run", str(SAMPLE), "--backend",
                          "openai", "--model", "test-model", "--base-url", openai_server.url,
                          "--home", str(tmp_path)],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "note: partition: attempt 1 failed (HTTP 500" in out.stderr
    lines = [line for line in out.stderr.splitlines() if line.startswith("progress: ")]
    assert len(lines) >= 3 and lines[1].startswith("progress: 1/")
    done, total = lines[-1].split()[1].split("/")
    assert done == total


def test_every_stage_sends_its_output_cap(openai_server, isolated_home):
    openai_server.responder = respond
    store = open_store(isolated_home)
    config = PipelineConfig(backend="openai", model="test-model", window=10)
    clients = build_clients(config, store, RunEnvironment(
        embedder=HashEmbedder(),
        backend=OpenAIChatBackend("test-model", base_url=openai_server.url)))
    run_windows(store, start_run(store, CONV, config, clients, source="f", fmt="chat"), clients)
    seen = {prompt_of(r.body): r.body.get("max_tokens") for r in openai_server.chat_requests}
    assert seen and all(seen[p] == MAX_TOKENS[p] for p in seen), seen


def test_a_cut_reply_is_asked_again_with_a_larger_cap_then_recorded_as_truncated(openai_server):
    cut = ServerReply(content='{"answer": "a very long', finish_reason="length")
    openai_server.responder = lambda body: cut
    gw = LLMGateway(OpenAIChatBackend("m", base_url=openai_server.url), notice=lambda t: None)
    result = gw.complete("p", MSGS, Reply, max_tokens=64)
    caps = [r.body.get("max_tokens") for r in openai_server.chat_requests]
    assert caps == [64, 128]                 # never repaired: a cut reply cannot be fixed
    assert result.record.status == "failed" and "truncated" in result.record.error
    assert [r["outcome"] for r in result.record.requests] == ["truncated", "truncated"]

    openai_server.responder = lambda body: cut if body.get("max_tokens") == 32 else \
        ServerReply(content='{"answer": "short"}')
    again = gw.complete("q", MSGS, Reply, max_tokens=32)
    assert again.ok and again.value.answer == "short" and again.record.max_tokens == 64


def test_a_local_server_serving_one_model_is_used_and_named_by_its_file(openai_server,
                                                                         isolated_home):
    path = "/models/cache/SmolLM2-135M-Instruct-Q4_1.gguf"
    openai_server.models = [path]
    openai_server.responder = respond
    config = PipelineConfig(backend="openai", base_url=openai_server.url)   # gpt-4o-mini
    notes = []
    clients = build_clients(config, open_store(isolated_home),
                            RunEnvironment(embedder=HashEmbedder(), notice=notes.append))
    assert clients.decider.gateway.backend.model == path
    assert clients.decider.label == "openai:SmolLM2-135M-Instruct-Q4_1.gguf"
    assert any("serves only 'SmolLM2-135M-Instruct-Q4_1.gguf'" in n for n in notes)
    assert notes == clients.notes


def test_model_choice_and_names():
    assert choose_model("gpt-4o-mini", ["a", "b"], "http://h/v1")[1].startswith(
        "http://h/v1 does not list the model 'gpt-4o-mini'")
    assert choose_model("a", ["a", "b"], None) == ("a", None)
    assert choose_model("a", None, None) == ("a", None)
    assert display_model("gpt-4o-mini") == "gpt-4o-mini"
    assert display_model("C:\\models\\x.gguf") == "x.gguf"
    assert all(is_local_server(u) for u in ("http://localhost:8080/v1", "http://127.0.0.1/v1",
                                            "http://192.168.1.5:11434/v1", "http://[::1]:8/v1"))
    assert not any(is_local_server(u) for u in (None, "https://api.openai.com/v1",
                                                "https://example.com/v1"))


def test_a_request_timing_out_behind_others_lowers_how_many_go_at_once():
    limit = AdaptiveLimit(8)
    assert not limit.queued_timeout(1)          # alone and slow: not queueing
    assert limit.queued_timeout(8) and limit.limit == 4
    assert limit.queued_timeout(4) and limit.limit == 2
    limit.succeeded()
    assert limit.limit == 3
    limit.set_ceiling(1)
    assert limit.limit == 1 and not limit.queued_timeout(5)


def test_an_html_page_and_a_refused_connection_are_named_with_the_url(openai_server):
    openai_server.responder = lambda body: ServerReply(raw="<!DOCTYPE html><html><body>Login"
                                                           "</body></html>")
    gw = LLMGateway(OpenAIChatBackend("m", base_url=openai_server.url), notice=lambda t: None)
    rec = gw.complete("p", MSGS, Reply).record
    assert "answered with an HTML page" in rec.error and openai_server.url in rec.error
    assert "AttributeError" not in rec.error

    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    url = f"http://127.0.0.1:{closed.getsockname()[1]}/v1"
    closed.close()
    # a refused connection is a server not ready yet: asked again until the budget is spent
    gw = LLMGateway(OpenAIChatBackend("m", base_url=url), retries=0, retry_budget_s=1.5,
                    backoff_base_s=0.05, notice=lambda t: None)
    rec = gw.complete("p", MSGS, Reply).record
    assert f"could not reach {url}" in rec.error


def test_an_exact_duplicate_is_kept_out_whatever_the_model_would_say():
    from nemori_ui.core.llm import ScriptedBackend
    from nemori_ui.core.models import SemanticMemory
    from nemori_ui.core.deciders.offline import OfflineDecider
    from nemori_ui.core.deciders.llm import LLMDecider

    backend = ScriptedBackend(default={"reason": "looks new", "action": "new", "targets": [],
                                       "merged_text": None})
    decider = LLMDecider(LLMGateway(backend), PipelineConfig(backend="openai"),
                         fallback=OfflineDecider(HashEmbedder()))
    known = SemanticMemory(id="sm0003", text="Maya works at Finch Labs.", origin="new",
                           source_episode_ids=[], source_message_ids=[])
    other = SemanticMemory(id="sm0004", text="Maya cycles to work.", origin="new",
                           source_episode_ids=[], source_message_ids=[])
    same = decider.consolidate("maya works at  Finch Labs", [(other, 0.7), (known, 0.93)])
    assert (same.action, same.targets, same.merged_text) == ("merge", [2], known.text)
    scored = decider.consolidate("Maya is employed by Finch Labs.", [(known, 1.0)])
    assert scored.action == "merge" and not backend.calls
    new = decider.consolidate("Maya likes tea.", [(known, 0.4)])
    assert new.action == "new" and len(backend.calls) == 1
