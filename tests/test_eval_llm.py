"""Answers and verdicts through the real `openai` SDK against the local HTTP test server: the
answering model and the judge are separate models, every call is a real request, a judge that
cannot answer gives no verdict, and a repeated evaluation is answered from the cache."""

from __future__ import annotations

import json

import pytest

from nemori_ui.core.clients import RunEnvironment
from nemori_ui.core.config import PipelineConfig
from nemori_ui.core.eval import results, tables
from nemori_ui.core.eval.harness import EvalOptions, evaluate
from nemori_ui.core.llm import OpenAIChatBackend
from nemori_ui.core.store import open_store
from nemori_ui.core.transcripts import load_transcript
from tests.conftest import ROOT
from tests.fakes import HashEmbedder
from tests.llm_responder import prompt_of, respond, user_text

FIXTURES = ROOT / "tests" / "fixtures" / "transcripts"
CONFIG = PipelineConfig(backend="openai", model="answer-model", window=10)
ANSWERS = {"What did Ana adopt?": "She adopted a puppy.",
           "When did Ana adopt the puppy?": "In June",
           "What breed is my dog?": "a beagle",
           "How many days ago did I start running?": "10 days ago"}


def schema_name(body: dict) -> str | None:
    if not body.get("response_format"):
        return prompt_of(body)       # asked in plain text: known by its system text
    fmt = body.get("response_format") or {}
    return fmt.get("json_schema", {}).get("name") if fmt.get("type") == "json_schema" else None


def field(text: str, name: str) -> str:
    return next(line.split(": ", 1)[1] for line in text.splitlines()
                if line.startswith(name + ": "))


def reply(body: dict, *, judge_ok: bool = True):
    name, text = schema_name(body), user_text(body)
    if name == "answer":
        said = ANSWERS.get(field(text, "Question"), "Not mentioned.")
        return {"reasoning": "from the memories", "answer": said} \
            if body.get("response_format") else said
    if name == "judge":
        if not judge_ok:
            return {"verdict": "maybe"}              # not the schema, even after a repair
        gold, answer = field(text, "Gold answer"), field(text, "Generated answer")
        right = set(gold.lower().split()) & set(answer.lower().rstrip(".").split()) - {"the", "a"}
        return {"reason": "same thing" if right else "different thing",
                "label": "CORRECT" if right else "WRONG"}
    if name == "judge_longmemeval":
        return {"reason": "it matches", "correct": True}
    return respond(body)


@pytest.fixture
def store(tmp_path):
    s = open_store(tmp_path / "home")
    yield s
    s.close()


def backends(server):
    return (OpenAIChatBackend("answer-model", api_key="test-key", base_url=server.url),
            OpenAIChatBackend("judge-model", api_key="test-key", base_url=server.url))


def run_eval(store, server, path, options, config=CONFIG):
    answer, judge = backends(server)
    return evaluate(store, load_transcript(path), config, options, source=str(path),
                    env=RunEnvironment(backend=answer, judge_backend=judge,
                                       embedder=HashEmbedder()))


def test_answers_and_verdicts_over_http(store, openai_server):
    openai_server.responder = reply
    path = FIXTURES / "locomo_small.json"
    run = run_eval(store, openai_server, path, EvalOptions(variant="nemori"))
    assert not openai_server.errors
    by_prompt = {}
    for r in openai_server.chat_requests:
        by_prompt.setdefault(schema_name(r.body), []).append(r)
    # the memory was built by the answering model, the verdicts come from the judge model
    assert {r.body["model"] for r in by_prompt["answer"]} == {"answer-model"}
    assert {r.body["model"] for r in by_prompt["judge"]} == {"judge-model"}
    assert len(by_prompt["answer"]) == len(by_prompt["judge"]) == 2
    assert "narrate" in by_prompt and "partition" in by_prompt
    judged = user_text(by_prompt["judge"][0].body)
    assert "Gold answer:" in judged and "Generated answer:" in judged
    rows = {r.question: r for r in results.load_questions(store, run.id)}
    puppy, when = rows["What did Ana adopt?"], rows["When did Ana adopt the puppy?"]
    assert puppy.answer == "She adopted a puppy." and puppy.verdict == "CORRECT"
    assert puppy.verdict_reason == "same thing" and puppy.f1 > 0
    assert when.verdict == "WRONG" and when.correct is False
    s = run.summary
    assert s["overall"]["judge"] == 50.0 and s["overall"]["judged"] == 2
    assert s["judge"]["model"] == "openai:judge-model" and s["judge"]["calls"] == 2
    assert run.decider == "openai:answer-model" and run.judge == "openai:judge-model"
    table = tables.category_table(run, "gpt-4o-mini")
    assert list(table.columns)[:4] == ["category", "n", "judge", "paper judge"]
    assert list(table["judge"])[-1] == 50.0

    # the same evaluation again: every answer and verdict comes from the cache
    sent = len(openai_server.chat_requests)
    again = run_eval(store, openai_server, path, EvalOptions(variant="nemori"))
    assert len(openai_server.chat_requests) == sent
    assert again.summary["overall"] == {**s["overall"], "retrieval_ms":
                                        again.summary["overall"]["retrieval_ms"],
                                        "total_ms": again.summary["overall"]["total_ms"]}


def test_a_judge_that_fails_gives_no_verdict(store, openai_server):
    openai_server.responder = lambda body: reply(body, judge_ok=False)
    path = FIXTURES / "locomo_small.json"
    run = run_eval(store, openai_server, path, EvalOptions(variant="full-context"))
    assert run.summary["overall"]["judge"] is None
    assert run.summary["overall"]["judged"] == 0
    assert run.summary["overall"]["f1"] > 0          # the other metrics still count
    rows = results.load_questions(store, run.id)
    assert all(r.correct is None and r.verdict_reason.startswith("judge call failed")
               for r in rows)


def test_longmemeval_judges_by_question_type_with_the_question_date(store, openai_server):
    openai_server.responder = reply
    path = FIXTURES / "longmemeval_small.json"
    run = run_eval(store, openai_server, path,
                   EvalOptions(benchmark="longmemeval", variant="full-context"))
    assert set(run.summary["by_category"]) == {"single-session-user", "temporal-reasoning"}
    assert run.summary["overall"]["judge"] == 100.0
    judges = [r for r in openai_server.chat_requests if schema_name(r.body) == "judge_longmemeval"]
    systems = {json.dumps(r.body["messages"][0]["content"]) for r in judges}
    assert len(systems) == 2 and any("off-by-one" in s for s in systems)
    answers = [user_text(r.body) for r in openai_server.chat_requests
               if schema_name(r.body) == "answer"]
    assert any("Current date: 2023/06/11 (Sun) 09:00" in a for a in answers)
    rows = {r.item_id: r for r in results.load_questions(store, run.id)}
    assert rows["q-001"].recall == 1.0 and rows["q-002"].gold == "10"
