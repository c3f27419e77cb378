"""The evaluation follows the published protocol: the Mem0 LoCoMo judge, LongMemEval's task
prompts with abstention, an answer over timestamped memory lines; the Evaluation page says
which prompts and judge produced each figure."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from nemori_ui.core.clients import RunEnvironment
from nemori_ui.core.config import PipelineConfig
from nemori_ui.core.eval.harness import EvalOptions, evaluate
from nemori_ui.core.llm import OpenAIChatBackend
from nemori_ui.core.prompts import judge
from nemori_ui.core.retrieval import load_state, retrieve
from nemori_ui.core.store import open_store, records
from nemori_ui.core.transcripts import load_transcript
from tests.conftest import ROOT
from tests.fakes import HashEmbedder
from tests.test_eval_llm import FIXTURES, reply


def test_the_paper_locomo_judge_is_the_generous_published_rubric():
    paper, strict = (" ".join(judge.SYSTEMS[p].split()) for p in ("paper", "strict"))
    assert "touches on the same topic" in paper and "generous" in paper
    assert "same date or period" in paper and '"label"' in paper
    assert "states what the gold answer states" in strict and paper != strict
    assert judge.render("q?", "gold", "ans")[0]["content"] == judge.SYSTEMS["paper"]


@pytest.mark.parametrize("qtype, words", [
    ("single-session-user", "all the intermediate steps"),
    ("multi-session", "all the intermediate steps"),
    ("temporal-reasoning", "off-by-one"),
    ("knowledge-update", "updated answer"),
    ("single-session-preference", "rubric")])
def test_longmemeval_has_its_four_task_prompts(qtype, words):
    text = " ".join(judge.longmemeval_system(qtype).split())
    assert words in text
    if qtype == "temporal-reasoning":
        assert "all the intermediate steps" in text


def test_longmemeval_abstention_has_its_own_prompt():
    text = " ".join(judge.longmemeval_system("multi-session", abstention=True).split())
    assert "unanswerable" in text and "makes up an answer" in text
    user = judge.render_longmemeval("multi-session", "q?", "never said", "no idea",
                                    abstention=True)[1]["content"]
    assert "Why it cannot be answered: never said" in user


@pytest.mark.parametrize("prompts, stamped", [("paper", True), ("strict", False)])
def test_the_answer_reads_timestamped_memory_lines_with_the_paper_prompts(
        sample_run, prompts, stamped):
    store, run_id = sample_run
    config = PipelineConfig(backend="openai", prompts=prompts)
    embedder = HashEmbedder()
    # the sample's vectors are MiniLM's; what matters here is the shape of the lines
    from nemori_ui.core.clients import build_embedder
    embedder = build_embedder(PipelineConfig(), store)
    state = load_state(store, run_id, embedder.dim)
    messages = {m.id: m for m in records.load_messages(store, run_id)}
    found = retrieve("Where does Maya work?", embedder.embed(["Where does Maya work?"])[0],
                     state, messages, config)
    lines = [line for line in found.context.splitlines() if line.startswith("- ")]
    assert lines
    assert all(line.startswith("- [20") for line in lines) is stamped
    offline = retrieve("Where does Maya work?", embedder.embed(["Where does Maya work?"])[0],
                       state, messages, PipelineConfig(prompts=prompts))
    assert "- [20" not in offline.context      # the offline engine's answers read plain lines


def test_the_evaluation_page_names_the_prompts_and_the_judge(isolated_home, openai_server,
                                                             monkeypatch):
    openai_server.responder = reply
    store = open_store(isolated_home)
    path = FIXTURES / "locomo_small.json"
    config = PipelineConfig(backend="openai", model="answer-model", window=10)
    for rubric in ("strict", "paper"):
        run = evaluate(store, load_transcript(path), config,
                       EvalOptions(variant="nemori", judge_prompts=rubric), source=str(path),
                       env=RunEnvironment(
                           backend=OpenAIChatBackend("answer-model", base_url=openai_server.url),
                           judge_backend=OpenAIChatBackend("judge-model",
                                                           base_url=openai_server.url),
                           embedder=HashEmbedder()))
    store.close()
    judged = [r.messages[0]["content"] for r in openai_server.chat_requests
              if (r.body.get("response_format") or {}).get("json_schema", {}).get("name") == "judge"]
    assert {judge.SYSTEMS["paper"], judge.SYSTEMS["strict"]} == set(judged)
    monkeypatch.setenv("NEMORI_HOME", str(isolated_home))
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.run()
    at.switch_page("pages/evaluation.py").run()
    assert not at.exception, [e.value for e in at.exception]
    text = " ".join(c.value for c in at.caption).replace("\\", "")
    assert "prompts: paper" in text and "judge rubric: paper" in text, text
    assert "score the whole plain-text reply" in text, text
    assert "answer calls" in text and "cost $0.0000" in text
    assert run.id == at.session_state["eval_id"]
