"""Transcript import: every format, auto-detection, timestamps and located errors."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest

from nemori_ui.core.errors import InputError
from nemori_ui.core.models import Transcript
from nemori_ui.core.transcripts import (FORMATS, detect_format, load_transcript,
                                        outline, parse_transcript)
from nemori_ui.core.transcripts.timestamps import parse_timestamp

FIXTURES = Path(__file__).parent / "fixtures" / "transcripts"


def check_invariants(t: Transcript) -> None:
    """What every parser promises, whatever the format."""
    assert t.format in FORMATS and t.conversations
    for conv in t.conversations:
        assert [m.id for m in conv.messages] == [f"m{i:04d}" for i in range(1, len(conv.messages) + 1)]
        firsts = list(dict.fromkeys(m.speaker for m in conv.messages))
        assert conv.speakers == firsts
        assert all(m.session >= 1 for m in conv.messages)


# --- LoCoMo -------------------------------------------------------------------------------

def test_locomo_dev_file(locomo_path):
    t = load_transcript(locomo_path)
    check_invariants(t)
    assert t.format == "locomo" and t.source == "locomo-dev.json"
    by_id = {c.id: c for c in t.conversations}
    assert list(by_id) == ["conv-26", "conv-30"]
    assert [len(c.messages) for c in t.conversations] == [419, 369]
    assert [c.sessions for c in t.conversations] == [19, 19]
    c26 = by_id["conv-26"]
    assert c26.speakers == ["Caroline", "Melanie"]
    assert {m.role for m in c26.messages} == {"user"}
    assert c26.messages[0].source_ref == "D1:1"
    assert c26.first == datetime(2023, 5, 8, 13, 56)
    # Session date + i seconds: strictly increasing across the whole conversation.
    for conv in t.conversations:
        stamps = [m.timestamp for m in conv.messages]
        assert all(a < b for a, b in zip(stamps, stamps[1:]))
    assert "[Image: a photo of a dog walking past a wall" in c26.messages[4].text
    assert len(c26.extra["qa"]) == 199 and len(by_id["conv-30"].extra["qa"]) == 105
    assert c26.extra["speaker_a"] == "Caroline" and "event_summary" in c26.extra


def test_locomo_fixture():
    t = load_transcript(FIXTURES / "locomo_small.json")
    check_invariants(t)
    (conv,) = t.conversations
    assert conv.id == "conv-mini" and conv.speakers == ["Ana", "Ben"]
    # session_3_date_time exists without session_3: sessions come from session_N keys.
    assert conv.sessions == 2 and len(conv.messages) == 5
    assert [m.session for m in conv.messages] == [1, 1, 1, 2, 2]
    assert [m.timestamp for m in conv.messages[:3]] == [
        datetime(2023, 5, 8, 13, 56, 0), datetime(2023, 5, 8, 13, 56, 1),
        datetime(2023, 5, 8, 13, 56, 2)]
    assert conv.messages[3].timestamp == datetime(2023, 6, 27, 10, 37)
    assert conv.messages[2].text == "Look at her. [Image: a photo of a small brown dog on a sofa]"
    assert [m.source_ref for m in conv.messages] == ["D1:1", "D1:2", "D1:3", "D2:1", "D2:2"]
    assert len(conv.extra["qa"]) == 3 and "event_summary" in conv.extra


def test_locomo_single_sample_object():
    sample = json.loads((FIXTURES / "locomo_small.json").read_text())[0]
    t = parse_transcript(json.dumps(sample), source="one.json")
    assert t.format == "locomo" and t.conversations[0].id == "conv-mini"


# --- LongMemEval --------------------------------------------------------------------------

def test_longmemeval_fixture():
    t = load_transcript(FIXTURES / "longmemeval_small.json")
    check_invariants(t)
    assert t.format == "longmemeval"
    q1, q2 = t.conversations
    assert (q1.id, q2.id) == ("q-001", "q-002")
    assert q1.speakers == ["user", "assistant"]
    assert [m.role for m in q1.messages] == ["user", "assistant", "user", "assistant", "user"]
    assert [m.session for m in q1.messages] == [1, 1, 2, 2, 2]
    assert q1.messages[0].timestamp == datetime(2023, 5, 20, 2, 21)
    assert q1.messages[4].timestamp == datetime(2023, 5, 22, 18, 5, 2)
    assert q1.messages[2].source_ref == "answer_sess_b:1"
    assert q1.extra["question"] == "What breed is my dog?"
    assert q1.extra["question_date"] == "2023/05/30 (Tue) 10:00"
    assert q1.extra["has_answer_message_ids"] == ["m0003"]
    assert "haystack_sessions" not in q1.extra
    assert q2.extra["answer"] == 10


# --- chat ---------------------------------------------------------------------------------

def test_chat_messages_object():
    t = load_transcript(FIXTURES / "chat_messages.json")
    check_invariants(t)
    (conv,) = t.conversations
    assert t.format == "chat" and conv.id == "support-42"
    # The tool-call-only message (content null) is skipped.
    assert [(m.speaker, m.role) for m in conv.messages] == [
        ("system", "system"), ("Dana", "user"), ("assistant", "assistant"), ("Dana", "user")]
    assert conv.messages[2].text == "Welcome to Lisbon!\nHow do you like it?"
    assert conv.messages[3].text == "Here is my street:\n[Image]"
    assert conv.messages[0].timestamp is None
    assert conv.messages[1].timestamp == datetime(2024, 3, 1, 9, 15)         # Z -> naive UTC
    assert conv.messages[2].timestamp == datetime(2024, 3, 1, 9, 16)         # epoch seconds
    assert conv.messages[3].timestamp == datetime(2024, 3, 1, 9, 17)         # +02:00 -> UTC


def test_chat_list_and_multi():
    t = load_transcript(FIXTURES / "chat_list.json")
    assert [c.id for c in t.conversations] == ["chat_list"]
    assert t.conversations[0].speakers == ["user", "assistant"]
    t = load_transcript(FIXTURES / "chat_multi.json")
    check_invariants(t)
    assert [(c.id, len(c.messages)) for c in t.conversations] == [("morning", 2), ("evening", 1)]


# --- JSONL / CSV --------------------------------------------------------------------------

def test_jsonl_conversations_and_sessions():
    t = load_transcript(FIXTURES / "rows.jsonl")
    check_invariants(t)
    assert t.format == "jsonl"
    c1, c2 = t.conversations
    assert (c1.id, c2.id) == ("c1", "c2")
    assert [m.text for m in c1.messages] == [
        "I started learning Go.", "Nice, why Go?", "Because of goroutines."]
    assert [m.session for m in c1.messages] == [1, 1, 2]
    assert c1.extra["session_labels"] == ["s-a", "s-b"]
    assert [m.source_ref for m in c1.messages] == ["line 1", "line 2", "line 5"]
    assert c2.messages[0].timestamp == datetime(2024, 3, 1, 10, 0)   # epoch, UTC


def test_csv_header_case_and_quoted_newlines():
    t = load_transcript(FIXTURES / "rows.csv")
    check_invariants(t)
    (conv,) = t.conversations
    assert t.format == "csv" and conv.id == "rows"
    assert [m.text for m in conv.messages] == ["Hello, Bob", "Hi Alice.\nTwo lines here.", "See you"]
    # A record spanning two lines is located at its first line.
    assert [m.source_ref for m in conv.messages] == ["line 2", "line 3", "line 5"]


def test_csv_column_map():
    t = load_transcript(FIXTURES / "custom_columns.csv",
                        column_map={"speaker": "who", "text": "Said", "timestamp": "when"})
    (conv,) = t.conversations
    assert [(m.speaker, m.text) for m in conv.messages] == [
        ("Alice", "I like tea"), ("Bob", "I prefer coffee")]
    assert conv.messages[1].timestamp == datetime(2023, 5, 8, 13, 56)


def test_role_column_and_role_as_speaker():
    t = parse_transcript('{"name": "Ann", "role": "assistant", "message": "hi"}\n'
                         '{"name": "Bo", "role": "user", "message": "yo"}\n', source="r.jsonl")
    assert [(m.speaker, m.role) for m in t.conversations[0].messages] == [
        ("Ann", "assistant"), ("Bo", "user")]
    t = parse_transcript("role,content\nuser,hi\nassistant,hello\n", source="r.csv")
    assert [(m.speaker, m.role) for m in t.conversations[0].messages] == [
        ("user", "user"), ("assistant", "assistant")]


# --- plain text ---------------------------------------------------------------------------

def test_plaintext_fixture():
    t = load_transcript(FIXTURES / "dialogue.txt")
    check_invariants(t)
    (conv,) = t.conversations
    assert t.format == "text" and conv.id == "dialogue"
    assert conv.speakers == ["Alice", "Bob"] and conv.sessions == 2
    assert conv.messages[2].text == "Wonderful. Three highlights:\nthe temples,\nthe food."
    assert conv.messages[2].timestamp == datetime(2024, 3, 1, 9, 20)   # [09:20] + heading date
    assert conv.messages[3].timestamp == datetime(2024, 3, 2, 0, 0)    # heading date + 0 s
    assert conv.messages[4].timestamp == datetime(2024, 3, 2, 0, 0, 1)
    assert [m.session for m in conv.messages] == [1, 1, 1, 2, 2]
    assert conv.messages[0].source_ref == "line 3"


def test_plaintext_without_timestamps():
    t = parse_transcript("Alice: hi\nBob: see https://example.org\n\nAlice: ok", source="x.txt")
    conv = t.conversations[0]
    assert [m.text for m in conv.messages] == ["hi", "see https://example.org", "ok"]
    assert conv.first is None and conv.sessions == 1


# --- detection ----------------------------------------------------------------------------

@pytest.mark.parametrize("name, fmt", [
    ("locomo_small.json", "locomo"), ("longmemeval_small.json", "longmemeval"),
    ("chat_messages.json", "chat"), ("chat_list.json", "chat"), ("chat_multi.json", "chat"),
    ("rows.jsonl", "jsonl"), ("rows.csv", "csv"), ("dialogue.txt", "text")])
def test_detect_by_content(name, fmt):
    text = (FIXTURES / name).read_text()
    assert detect_format(name, text) == fmt
    # Content decides, not the extension.
    assert detect_format("upload.dat", text) == fmt


def test_detect_csv_by_extension_and_override():
    assert detect_format("notes.csv", "Alice: hi, Bob\n") == "csv"
    t = parse_transcript("Alice: hi, Bob\n", source="notes.csv", format="text")
    assert t.format == "text" and t.conversations[0].messages[0].text == "hi, Bob"
    # Format names have a few aliases (openai = chat).
    assert parse_transcript((FIXTURES / "chat_list.json").read_bytes(), source="c.json",
                            format="openai").format == "chat"


def test_parse_transcript_from_bytes_matches_load():
    data = (FIXTURES / "rows.jsonl").read_bytes()
    a = parse_transcript(data, source="rows.jsonl")
    b = load_transcript(FIXTURES / "rows.jsonl")
    assert a == b
    # A UTF-8 byte-order mark and CRLF line ends are accepted.
    c = parse_transcript(b"\xef\xbb\xbf" + data.replace(b"\n", b"\r\n"), source="rows.jsonl")
    assert c == b


def test_outline():
    s = outline(load_transcript(FIXTURES / "rows.jsonl"))
    assert s == {"format": "jsonl", "conversations": [
        {"id": "c1", "speakers": ["Alice", "Bob"], "sessions": 2, "messages": 3,
         "first": "2024-03-01T09:15:00", "last": "2024-03-02T10:00:00"},
        {"id": "c2", "speakers": ["Carol"], "sessions": 1, "messages": 1,
         "first": "2024-03-01T10:00:00", "last": "2024-03-01T10:00:00"}]}
    json.dumps(s)


# --- timestamps ---------------------------------------------------------------------------

@pytest.mark.parametrize("value, expected", [
    ("2024-03-01T09:15:00Z", datetime(2024, 3, 1, 9, 15)),
    ("2024-03-01T09:15:00+02:00", datetime(2024, 3, 1, 7, 15)),
    ("2024-03-01T09:15:00", datetime(2024, 3, 1, 9, 15)),
    ("2024-03-01 09:15", datetime(2024, 3, 1, 9, 15)),
    ("2024-03-01 09:15:30", datetime(2024, 3, 1, 9, 15, 30)),
    ("2024-03-01", datetime(2024, 3, 1)),
    ("2023/05/20 (Sat) 02:21", datetime(2023, 5, 20, 2, 21)),
    ("1:56 pm on 8 May, 2023", datetime(2023, 5, 8, 13, 56)),
    ("12:09 am on 13 September, 2023", datetime(2023, 9, 13, 0, 9)),
    ("8 May 2023", datetime(2023, 5, 8)),
    ("8 May, 2023", datetime(2023, 5, 8)),
    ("May 8, 2023 1:56 PM", datetime(2023, 5, 8, 13, 56)),
    ("Monday, May 8, 2023", datetime(2023, 5, 8)),
    (1700000000, datetime(2023, 11, 14, 22, 13, 20)),
    (1700000000.5, datetime(2023, 11, 14, 22, 13, 20, 500000)),
    ("1700000000", datetime(2023, 11, 14, 22, 13, 20)),
    (1700000000000, datetime(2023, 11, 14, 22, 13, 20)),        # milliseconds
])
def test_parse_timestamp(value, expected):
    assert parse_timestamp(value) == expected


@pytest.mark.parametrize("value", ["tomorrow", "2023", "31 February 2023",
                                   "13:00 pm on 8 May, 2023", "8 Mai 2023", True, 1e300, [1]])
def test_parse_timestamp_rejects(value):
    with pytest.raises(ValueError):
        parse_timestamp(value)


# --- errors -------------------------------------------------------------------------------

LOCOMO_NO_TEXT = json.dumps({"sample_id": "s", "conversation": {
    "session_1_date_time": "1:56 pm on 8 May, 2023", "session_1": [{"speaker": "A", "text": "x"}],
    "session_2_date_time": "1:56 pm on 9 May, 2023",
    "session_2": [{"speaker": "A", "text": "y"}, {"speaker": "B", "dia_id": "D2:2"}]}})

ERRORS = [
    # (id, source, data, kwargs, substrings the message must contain)
    ("not-json", "a.json", b"hello there", {}, ["a.json", "line 1", "not valid JSON"]),
    ("not-json-line", "a.json", b'{"a": 1,\n "b": }', {}, ["a.json", "line 2", "not valid JSON"]),
    ("wrong-shape", "a.json", b'{"foo": 1}', {}, ["unrecognised shape", "'foo'", "LoCoMo"]),
    ("wrong-shape-list", "a.json", b"[1, 2, 3]", {}, ["unrecognised shape", "a list of 3"]),
    ("empty", "a.txt", b"", {}, ["a.txt", "empty"]),
    ("blank", "a.csv", b"  \n\n", {}, ["a.csv", "empty"]),
    ("jsonl-bad-line", "a.jsonl", b'{"speaker": "a", "text": "x"}\n{"speaker": "b", text}\n', {},
     ["a.jsonl", "line 2", "not valid JSON"]),
    ("jsonl-not-object", "a.jsonl", b'{"speaker": "a", "text": "x"}\n[1]\n', {},
     ["line 2", "expected a JSON object"]),
    ("jsonl-no-text", "a.jsonl", b'{"speaker": "a", "text": "x"}\n{"speaker": "b"}\n', {},
     ["line 2", "no text", "content"]),
    ("csv-no-text", "a.csv", b"speaker,text\na,hi\nb,\n", {}, ["a.csv", "line 3", "no text"]),
    ("csv-no-text-column", "a.csv", b"speaker,words\na,hi\n", {},
     ["line 1", "no text column", "'words'"]),
    ("csv-extra-field", "a.csv", b"speaker,text\na,hi,there\n", {}, ["line 2", "3 fields"]),
    ("bad-date", "a.csv", b"speaker,text,timestamp\na,hi,yesterday-ish\n", {},
     ["line 2", "field 'timestamp'", "'yesterday-ish'"]),
    ("bad-date-locomo", "a.json", LOCOMO_NO_TEXT.replace("9 May", "9 Mai").encode(), {},
     ["field 'conversation.session_2_date_time'", "9 Mai"]),
    ("too-big", "a.txt", b"Alice: hi\n" * 10, {"max_bytes": 50}, ["a.txt", "100 bytes", "limit"]),
    ("text-line", "a.txt", b"hello world\n", {}, ["a.txt", "line 1", "Speaker: text"]),
    ("text-stamp-no-speaker", "a.txt", b"Alice: hi\n[2024-03-01 09:00] hello\n", {},
     ["line 2", "no 'Speaker:'"]),
    ("text-bad-stamp", "a.txt", b"Alice: hi\n\n[2024-13-45 10:00] Bob: yo\n", {},
     ["line 3", "'2024-13-45 10:00'"]),
    ("locomo-no-text", "a.json", LOCOMO_NO_TEXT.encode(), {},
     ["field 'conversation.session_2[1].text'", "missing 'text'"]),
    ("chat-role", "a.json", b'[{"role": "user", "content": "x"}, {"role": "bot", "content": "y"}]',
     {}, ["field '[1].role'", "unknown role 'bot'"]),
    ("chat-role-nested", "a.json", b'{"messages": [{"role": "robot", "content": "y"}]}', {},
     ["field 'messages[0].role'", "'robot'"]),
    ("lme-role", "a.json", json.dumps({"question_id": "q", "haystack_dates": ["2023/05/20"],
                                       "haystack_sessions": [[{"role": "bot", "content": "x"}]]}
                                      ).encode(), {},
     ["field 'haystack_sessions[0][0].role'", "'bot'"]),
    ("lme-dates", "a.json", json.dumps({"question_id": "q", "haystack_dates": [],
                                        "haystack_sessions": [[]]}).encode(), {},
     ["field 'haystack_dates'", "0 dates for 1"]),
    ("lme-empty-date", "a.json", json.dumps({"question_id": "q", "haystack_dates": [""],
                                             "haystack_sessions": [[]]}).encode(), {},
     ["field 'haystack_dates[0]'", "empty session date"]),
    ("binary", "a.txt", bytes(range(256)), {}, ["a.txt", "binary"]),
    ("undecodable", "a.txt", b"Alice: caf\xe9\n", {}, ["a.txt", "line 1", "not UTF-8"]),
    ("format-mismatch", "a.json", b'[{"role": "user", "content": "x"}]', {"format": "locomo"},
     ["not a LoCoMo sample", "format 'locomo' was requested", "looks like 'chat'"]),
    ("format-mismatch-jsonl", "a.txt", b"Alice: hi\n", {"format": "jsonl"},
     ["line 1", "not valid JSON", "looks like 'text'"]),
    ("unknown-format", "a.txt", b"Alice: hi\n", {"format": "yaml"},
     ["unknown format 'yaml'", "locomo", "text"]),
    ("unknown-column-field", "a.csv", b"who,said\na,b\n", {"column_map": {"person": "who"}},
     ["column_map", "'person'"]),
    ("no-messages", "a.json", b'{"messages": []}', {}, ["has no messages"]),
    ("deep-json", "a.json", b"[" * 100_000, {}, ["a.json"]),
    ("duplicate-ids", "a.json", b'{"conversations": [{"id": "x", "messages": [{"role": "user", '
     b'"content": "a"}]}, {"id": "x", "messages": [{"role": "user", "content": "b"}]}]}', {},
     ["'x'", "more than once"]),
]


@pytest.mark.parametrize("source, data, kwargs, expected", [e[1:] for e in ERRORS],
                         ids=[e[0] for e in ERRORS])
def test_bad_input_is_located(source, data, kwargs, expected):
    with pytest.raises(InputError) as info:
        parse_transcript(data, source=source, **kwargs)
    for part in expected:
        assert part in str(info.value)


def test_missing_file_and_directory(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        load_transcript(tmp_path / "nope.json")
    with pytest.raises(InputError, match="directory"):
        load_transcript(tmp_path)


def test_size_limit_checked_before_reading(tmp_path):
    big = tmp_path / "big.txt"
    big.write_text("Alice: hi\n" * 1000)
    with pytest.raises(InputError, match=r"big.txt: file is 10000 bytes, over the limit of 100"):
        load_transcript(big, max_bytes=100)
    assert len(load_transcript(big).conversations[0].messages) == 1000
