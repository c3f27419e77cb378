"""Answers comparable with the paper: under the paper preset the answer is asked in plain text
and F1 / BLEU-1 score the whole reply, as the official evaluation does; strict keeps JSON with
the reasoning in its own field, and scores only the answer."""

from __future__ import annotations

from nemori_ui.core.eval import results, tables
from nemori_ui.core.eval.harness import EvalOptions
from nemori_ui.core.llm import LLMGateway, OpenAIChatBackend
from nemori_ui.core.llm.schema import FreeText
from nemori_ui.core.prompts import answer
from tests.llm_responder import prompt_of, respond
from tests.openai_server import ServerReply
from tests.test_eval_llm import CONFIG, FIXTURES, run_eval, store  # noqa: F401 (a fixture)

REASONED = "The memory of 8 May 2023 says Ana adopted one. Answer: a puppy"


def replying(body: dict):
    name = prompt_of(body)
    if name == "answer":
        if body.get("response_format"):
            return {"reasoning": "The memory of 8 May 2023 says Ana adopted one.",
                    "answer": "a puppy"}
        return REASONED
    if name == "judge":
        return {"reason": "same thing", "label": "CORRECT"}
    return respond(body)


def _answers(store, run) -> dict[str, str]:
    return {r.question: r.answer for r in results.load_questions(store, run.id)}


def test_the_paper_preset_scores_the_whole_plain_text_reply(store, openai_server):
    openai_server.responder = replying
    run = run_eval(store, openai_server, FIXTURES / "locomo_small.json",
                   EvalOptions(variant="nemori"))
    asked = [r.body for r in openai_server.chat_requests if prompt_of(r.body) == "answer"]
    # no schema: neither a response_format nor a schema written into the prompt
    assert asked and all("response_format" not in b for b in asked)
    assert all("JSON" not in b["messages"][0]["content"] for b in asked)
    assert _answers(store, run)["What did Ana adopt?"] == REASONED
    assert "whole plain-text reply" in tables.scoring_note(run)


def test_the_strict_preset_scores_the_answer_field_only(store, openai_server):
    openai_server.responder = replying
    strict = CONFIG.model_copy(update={"prompts": "strict"})
    run = run_eval(store, openai_server, FIXTURES / "locomo_small.json",
                   EvalOptions(variant="nemori"), config=strict)
    assert _answers(store, run)["What did Ana adopt?"] == "a puppy"
    assert "answer field" in tables.scoring_note(run)


def test_the_cli_table_says_what_f1_and_bleu_scored(store, openai_server):
    from nemori_ui.cli.eval import format_table
    openai_server.responder = replying
    run = run_eval(store, openai_server, FIXTURES / "locomo_small.json",
                   EvalOptions(variant="nemori"))
    assert tables.scoring_note(run) + "." in format_table(run)


def _gateway(server, **kw) -> LLMGateway:
    backend = OpenAIChatBackend("m", api_key="k", base_url=server.url)
    return LLMGateway(backend, None, temperature=0.0, sleep=lambda s: None, **kw)


def test_an_empty_plain_text_reply_is_asked_again_in_plain_text(openai_server):
    replies = iter(["", "a puppy"])
    openai_server.responder = lambda body: next(replies)
    gateway = _gateway(openai_server, structured_output="json_object")
    result = gateway.complete("answer", answer.render("What did Ana adopt?", "x"), FreeText)
    assert result.ok and result.value.text == "a puppy" and result.record.status == "repaired"
    repair = openai_server.chat_requests[-1].body["messages"][-1]["content"]
    assert "plain text" in repair and "JSON" not in repair
    # json_object mode sends no response_format and no schema for a plain-text prompt
    assert all("response_format" not in r.body for r in openai_server.chat_requests)


def test_a_plain_text_reply_cut_at_its_cap_is_kept_as_written(openai_server):
    cut = "The memories say Ana adopted a puppy in May, and"
    openai_server.responder = lambda body: ServerReply(content=cut, finish_reason="length")
    result = _gateway(openai_server).complete(
        "answer", answer.render("What did Ana adopt?", "x"), FreeText, max_tokens=16)
    assert result.ok and result.value.text == cut
    assert "kept as written" in (result.record.error or "")
