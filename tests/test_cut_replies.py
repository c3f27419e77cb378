"""A reply cut at its output cap keeps the text it did generate on record, and is asked again
with a larger cap only when it is not a loop: a model repeating itself would only write more
of the same at twice the cost."""

from __future__ import annotations

import json

from pydantic import BaseModel

from nemori_ui.core.llm import LLMGateway, OpenAIChatBackend
from nemori_ui.core.llm.repetition import repeated_tail
from nemori_ui.core.prompts import distill
from tests.openai_server import ServerReply

MSGS = [{"role": "user", "content": "hello"}]


class Reply(BaseModel):
    answer: str


def test_a_reply_cut_at_the_cap_keeps_what_was_generated(openai_server):
    cut = '{"answer": "the model wrote a long and careful answer that the cap stopped mid'
    openai_server.responder = lambda body: ServerReply(content=cut, finish_reason="length",
                                                       completion_tokens=64)
    gw = LLMGateway(OpenAIChatBackend("m", base_url=openai_server.url), notice=lambda t: None)
    record = gw.complete("p", MSGS, Reply, max_tokens=32).record
    assert record.status == "failed" and "truncated" in record.error
    assert record.response_text == cut and record.output_tokens == 128


def test_a_reply_that_loops_is_not_asked_again_with_twice_the_cap(openai_server):
    loop = '{"insights": [' + '{"text": "Maya likes tea.", "lines": [1]}, ' * 60
    openai_server.responder = lambda body: ServerReply(content=loop, finish_reason="length")
    gw = LLMGateway(OpenAIChatBackend("m", base_url=openai_server.url), notice=lambda t: None)
    record = gw.complete("distill", MSGS, distill.DistillReply, max_tokens=512).record
    assert [r.body.get("max_tokens") for r in openai_server.chat_requests] == [512]
    assert record.status == "failed" and "a model in a loop" in record.error
    assert record.response_text == loop


def test_what_counts_as_a_loop():
    assert repeated_tail("the " * 50)[0] == "the "
    assert repeated_tail('{"narrative": "' + "And then they said yes. " * 20)[1] >= 19
    assert repeated_tail("\n" * 300) is not None
    for text in ['{"answer": "a very long', '{"indices": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11',
                 json.dumps({"cue": "Lisbon trip", "narrative": "On 4 March 2024 Maya said " * 1
                             + "she booked flights to Lisbon for April and trains the club."}),
                 "Ha ha ha. That is a good one, she said...", ""]:
        assert repeated_tail(text) is None, text
