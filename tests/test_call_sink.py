"""Every call on record: Ask, an evaluation's answers and its judge are stored with what they
served; a failed window keeps its calls; the Overview and the Calls page count alike."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from nemori_ui.core.clients import RunEnvironment, build_clients
from nemori_ui.core.config import PipelineConfig
from nemori_ui.core.errors import LLMFailure
from nemori_ui.core.eval.harness import EvalOptions, evaluate
from nemori_ui.core.llm import OpenAIChatBackend, ScriptedBackend, TransientError
from nemori_ui.core.llm.usage import count_calls
from nemori_ui.core.pipeline.runner import run_windows, start_run
from nemori_ui.core.retrieval import answer_question, load_state
from nemori_ui.core.store import call_log, open_store, records, runs
from nemori_ui.core.transcripts import load_transcript
from nemori_ui.core.views import calls as views
from tests.conftest import ROOT
from tests.fakes import HashEmbedder
from tests.llm_responder import prompt_of, respond
from tests.test_eval_llm import FIXTURES, reply
from tests.test_pipeline_openai import CONV

CONFIG = PipelineConfig(backend="openai", model="test-model", window=10)


@pytest.fixture
def store(isolated_home):
    s = open_store(isolated_home)
    yield s
    s.close()


def backend(server, model="test-model"):
    return OpenAIChatBackend(model, api_key="test-key", base_url=server.url)


def built(store, server, config=CONFIG):
    clients = build_clients(config, store,
                            RunEnvironment(backend=backend(server), embedder=HashEmbedder()))
    run_id = start_run(store, CONV, config, clients, source="fixture.json", fmt="chat",
                       resume=False)
    run_windows(store, run_id, clients)
    return run_id, clients


def test_an_ask_call_is_stored_with_its_run(store, openai_server):
    openai_server.responder = respond
    run_id, clients = built(store, openai_server)
    before = len(openai_server.chat_requests)
    state = load_state(store, run_id, clients.embedder.dim)
    messages = {m.id: m for m in records.load_messages(store, run_id)}
    out = answer_question("What did Ana adopt?", clients.decider, clients.embedder, state,
                          messages, CONFIG, run_id=run_id)
    assert out.source == "model" and len(openai_server.chat_requests) == before + 1
    [call] = call_log.calls_of_run(store, run_id, "ask")
    assert call.id in out.call_ids and call.prompt_name == "answer"
    assert call.context == {"kind": "ask", "run_id": run_id}
    assert call.id not in {c.id for c in records.load_calls(store, run_id)}


def test_eval_answers_and_verdicts_are_stored_under_the_evaluation(store, openai_server):
    openai_server.responder = reply
    path = FIXTURES / "locomo_small.json"
    run = evaluate(store, load_transcript(path), CONFIG, EvalOptions(variant="nemori"),
                   source=str(path),
                   env=RunEnvironment(backend=backend(openai_server, "answer-model"),
                                      judge_backend=backend(openai_server, "judge-model"),
                                      embedder=HashEmbedder()))
    calls = call_log.calls_of_eval(store, run.id)
    answers = [c for c in calls if c.context["kind"] == "eval"]
    verdicts = [c for c in calls if c.context["kind"] == "judge"]
    sent = [prompt_of(r.body) for r in openai_server.chat_requests]
    assert len(answers) == sent.count("answer") > 0
    assert len(verdicts) == sent.count("judge") == len(answers)
    questions = {c.context["item_id"] for c in answers}
    assert questions == {c.context["item_id"] for c in verdicts} and len(questions) == len(answers)
    assert all(c.context["run_id"] in run.memory_runs.values() for c in calls)
    # the evaluation's result carries its own calls, tokens and cost
    figures = run.summary["calls"]
    assert figures["eval"] == count_calls(answers) and figures["judge"]["calls"] == len(verdicts)
    assert figures["eval"]["input_tokens"] > 0 and figures["cost_usd"] == 0.0   # a local server
    assert run.summary["judge"]["prompts"] == "paper" and run.summary["prompts"] == "paper"


def test_a_failed_window_keeps_its_calls(store):
    dead = ScriptedBackend(default=TransientError("HTTP 503: unavailable"))
    clients = build_clients(CONFIG, store, RunEnvironment(backend=dead, embedder=HashEmbedder()))
    clients.decider.gateway.sleep = lambda s: None
    run_id = start_run(store, CONV, CONFIG, clients, source="fixture.json", fmt="chat")
    with pytest.raises(LLMFailure):
        run_windows(store, run_id, clients)
    kept = records.load_calls(store, run_id)
    assert runs.get_run(store, run_id).status == "failed"
    assert kept and all(c.status == "failed" for c in kept)
    assert sum(c.attempts for c in kept) == len(dead.calls)
    assert all(len(c.requests) == c.attempts for c in kept)


def metrics(page: str) -> dict:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.run()
    at.switch_page(f"pages/{page}.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return {m.label: m.value for m in at.metric}


def test_overview_and_calls_page_agree_on_a_cached_rerun(store, openai_server):
    openai_server.responder = respond
    built(store, openai_server)
    sent = len(openai_server.chat_requests)
    rerun, _ = built(store, openai_server)          # the newest run: every reply cached
    assert len(openai_server.chat_requests) == sent
    counts = count_calls(records.load_calls(store, rerun))
    assert counts["calls"] == 0 and counts["cached"] > 0
    overview, calls = metrics("overview"), metrics("calls")
    assert str(overview["LLM calls"]) == str(calls["LLM calls"]) == "0"
    assert str(calls["Cached"]) == str(counts["cached"])


def test_the_calls_page_sets_the_run_beside_table_3_per_message(store, openai_server):
    openai_server.responder = respond
    run_id, _ = built(store, openai_server)
    calls = records.load_calls(store, run_id)
    messages = len(records.load_messages(store, run_id))
    table = views.table3(calls, messages).set_index("per message")
    built_calls = [c for c in calls if c.prompt_name != "answer"]
    assert table.loc["calls", "this run"] == round(len(built_calls) / messages, 2)
    assert table.loc["calls", "paper"] == round(373 / 588, 2)
    assert table.loc["input tokens", "this run, total"] == sum(c.input_tokens for c in built_calls)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.run()
    at.switch_page("pages/calls.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("Tables 3 and 9" in s.value for s in at.subheader)
