"""A reply that copies the prompt's own examples or placeholders (`{"text": "a statement",
...}`) is refused like an invalid one: asked for a repair, then recorded as a failure, never
stored as knowledge. Choices the reply is meant to make, quoted instructions and what the input
itself says are no copies."""

from __future__ import annotations

from nemori_ui.core.config import PipelineConfig
from nemori_ui.core.llm import LLMGateway, MemoryResponseCache, OpenAIChatBackend
from nemori_ui.core.llm.examples import copied_example
from nemori_ui.core.prompts import answer, consolidate, distill
from nemori_ui.core.store import open_store, records
from tests.llm_responder import prompt_of, respond
from tests.test_pipeline_openai import CONV, run


def test_the_prompts_placeholder_is_repaired_never_kept(openai_server):
    copied = {"insights": [{"text": "a statement", "lines": [3, 4]}]}
    real = {"insights": [{"text": "Maya booked flights to Lisbon.", "lines": [1]}]}
    replies = iter([copied, real])
    openai_server.responder = lambda body: next(replies)
    messages = distill.render(CONV.messages[:4], "(no prediction)", "paper")
    gw = LLMGateway(OpenAIChatBackend("m", base_url=openai_server.url), MemoryResponseCache(),
                    notice=lambda t: None)
    result = gw.complete("distill", messages, distill.DistillReply)
    assert result.record.status == "repaired"
    assert [i.text for i in result.value.insights] == ["Maya booked flights to Lisbon."]
    repair = openai_server.chat_requests[1].messages[-1]["content"]
    assert "insights.0.text is 'a statement', an example or placeholder" in repair


def test_a_model_that_only_copies_the_example_stores_no_memory_of_it(openai_server,
                                                                    isolated_home):
    def copying(body: dict) -> dict:
        if prompt_of(body) == "distill":
            return {"insights": [{"text": "a statement", "lines": [3, 4]}]}
        if prompt_of(body) == "consolidate":
            return {"reason": "one sentence", "action": "new", "targets": [], "merged_text": None}
        return respond(body)

    openai_server.responder = copying
    store = open_store(isolated_home)
    run_id = run(store, openai_server, PipelineConfig(backend="openai", model="test-model",
                                                      window=10))
    texts = [m.text.casefold() for m in records.load_memories(store, run_id)]
    calls = records.load_calls(store, run_id)
    store.close()
    assert texts and not [t for t in texts if "a statement" in t]
    distills = [c for c in calls if c.prompt_name == "distill"]
    assert distills and all(c.status == "failed" and "placeholder" in c.error for c in distills)
    assert all(c.status == "failed" for c in calls if c.prompt_name == "consolidate")


def test_choices_instructions_and_what_the_input_says_are_not_copies():
    system = [{"role": "system", "content": consolidate.SYSTEMS["paper"]},
              {"role": "user", "content": "Incoming: Ana lives in Porto."}]
    assert copied_example(system, {"reason": "the same home", "action": "new", "targets": [],
                                   "merged_text": None}) is None
    assert copied_example(system, {"reason": "x", "action": "merge", "targets": [1],
                                   "merged_text": "Ana lives in Porto"}) is None   # the input says it
    assert copied_example(system, {"reason": "One sentence.", "action": "new"}) is not None
    strict = [{"role": "system", "content": answer.SYSTEMS["strict"]},
              {"role": "user", "content": "Memories: ... Question: where?"}]
    assert copied_example(strict, {"answer": "Not mentioned in the conversation."}) is None
    assert copied_example(strict, {"answer": "..."}) is not None


def test_a_cached_copy_of_the_placeholder_is_asked_again(openai_server):
    openai_server.responder = lambda body: {"insights": [{"text": "Maya runs.", "lines": [1]}]}
    messages = distill.render(CONV.messages[:4], "(no prediction)", "paper")
    cache = MemoryResponseCache()
    gw = LLMGateway(OpenAIChatBackend("m", base_url=openai_server.url), cache,
                    notice=lambda t: None)
    key = gw.cache_key(messages, distill.DistillReply.model_json_schema(), gw.temperature)
    copied = {"insights": [{"text": "a statement", "lines": [3, 4]}]}   # an older release's
    cache.put(key, {"response_text": "{}", "parsed": copied, "input_tokens": 1,
                    "output_tokens": 1})
    result = gw.complete("distill", messages, distill.DistillReply)
    assert not result.record.cached and len(openai_server.chat_requests) == 1
    assert [i.text for i in result.value.insights] == ["Maya runs."]
