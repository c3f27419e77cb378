"""Values that used to be accepted with a doubtful reading are refused, naming the field: an
empty speaker or text, NaN read as the word "nan", a bare number read as a 1970 date, and
objects or lists turned into ids."""

from __future__ import annotations

import json

import pytest

from nemori_ui.core.errors import InputError
from nemori_ui.core.transcripts import parse_transcript


def locomo(turn: dict | None = None, date="1:56 pm on 8 May, 2023") -> bytes:
    turn = {"speaker": "Ann", "dia_id": "D1:1", "text": "hi"} if turn is None else turn
    return json.dumps([{"sample_id": "s1", "conversation": {
        "speaker_a": "Ann", "speaker_b": "Bo", "session_1": [turn],
        "session_1_date_time": date}}]).encode()


def lme(dates, ids=None) -> bytes:
    item = {"question_id": "q1", "haystack_dates": dates,
            "haystack_sessions": [[{"role": "user", "content": "hi"}]]}
    if ids is not None:
        item["haystack_session_ids"] = ids
    return json.dumps(item).encode()


CASES = [
    ("locomo-empty-speaker", "a.json", locomo({"speaker": " ", "dia_id": "D1:1", "text": "hi"}),
     "conversation.session_1[0].speaker", "empty"),
    ("locomo-empty-text", "a.json", locomo({"speaker": "Ann", "dia_id": "D1:1", "text": ""}),
     "conversation.session_1[0].text", "empty"),
    ("locomo-nan-text", "a.json",
     locomo().replace(b'"text": "hi"', b'"text": NaN'), "conversation.session_1[0].text", "NaN"),
    ("locomo-nan-speaker", "a.json",
     locomo().replace(b'"speaker": "Ann", "dia', b'"speaker": NaN, "dia'),
     "conversation.session_1[0].speaker", "NaN"),
    ("locomo-number-date", "a.json", locomo(date=5), "conversation.session_1_date_time",
     "got a number"),
    ("locomo-object-dia-id", "a.json",
     locomo({"speaker": "Ann", "dia_id": {"d": 1}, "text": "hi"}),
     "conversation.session_1[0].dia_id", "an object"),
    ("locomo-list-sample-id", "a.json", locomo().replace(b'"sample_id": "s1"',
                                                         b'"sample_id": ["s1"]'),
     "sample_id", "a list"),
    ("lme-number-date", "a.json", lme([1684540800]), "haystack_dates[0]", "got a number"),
    ("lme-list-session-id", "a.json", lme(["2023/05/20 (Sat) 02:21"], ids=[["x"]]),
     "haystack_session_ids[0]", "a list"),
    ("chat-empty-content", "a.json", b'[{"role": "user", "content": "  "}]',
     "[0].content", "empty"),
    ("chat-object-id", "a.json",
     b'{"conversations": [{"id": {"x": 1}, "messages": [{"role": "user", "content": "hi"}]}]}',
     "conversations[0].id", "an object"),
    ("chat-list-id", "a.json", b'{"id": [1, 2], "messages": [{"role": "user", "content": "hi"}]}',
     "'id'", "a list"),
    ("chat-nan-id", "a.json", b'{"id": NaN, "messages": [{"role": "user", "content": "hi"}]}',
     "'id'", "NaN"),
    ("jsonl-nan-text", "a.jsonl", b'{"speaker": "a", "text": NaN}\n', "line 1", "NaN"),
    ("jsonl-infinity-speaker", "a.jsonl", b'{"speaker": Infinity, "text": "x"}\n', "speaker",
     "Infinity"),
    ("jsonl-object-conversation", "a.jsonl",
     b'{"speaker": "a", "text": "x", "conversation": {"id": 1}}\n', "conversation", "an object"),
    ("jsonl-list-session", "a.jsonl", b'{"speaker": "a", "text": "x", "session": [1]}\n',
     "session", "a list"),
]


@pytest.mark.parametrize("source, data, field, why", [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_a_doubtful_value_is_refused_naming_the_field(source, data, field, why):
    with pytest.raises(InputError) as info:
        parse_transcript(data, source=source)
    message = str(info.value)
    assert message.startswith(source) and field in message and why in message, message


def test_what_was_right_still_reads():
    conv = parse_transcript(locomo(), source="a.json").conversations[0]
    assert [(m.speaker, m.text, m.source_ref) for m in conv.messages] == [("Ann", "hi", "D1:1")]
    image = locomo({"speaker": "Ann", "dia_id": "D1:1", "text": "", "blip_caption": "a cat"})
    assert parse_transcript(image, source="a.json").conversations[0].messages[0].text == \
        "[Image: a cat]"
    numbered = parse_transcript(b'{"id": 7, "messages": [{"role": "user", "content": "hi"}]}',
                                source="a.json")
    assert numbered.conversations[0].id == "7"
    rows = parse_transcript(b'{"speaker": 42, "text": 3.5, "session": 2}\n', source="a.jsonl")
    assert [(m.speaker, m.text) for m in rows.conversations[0].messages] == [("42", "3.5")]
    tool_call = b'[{"role": "assistant", "content": null}, {"role": "user", "content": "hi"}]'
    assert len(parse_transcript(tool_call, source="a.json").conversations[0].messages) == 1
