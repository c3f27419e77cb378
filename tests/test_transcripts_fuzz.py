"""Any input either imports or gets the clear input error: never a traceback."""

from __future__ import annotations

import json

from hypothesis import given, settings, strategies as st

from nemori_ui.core.errors import InputError
from nemori_ui.core.models import Transcript
from nemori_ui.core.transcripts import FORMATS, parse_transcript
from tests.test_transcripts import check_invariants


# --- property: bad input is an InputError, never a crash ----------------------------------

SOURCES = st.sampled_from(["x.json", "x.jsonl", "x.csv", "x.txt", "x"])
FORMAT_OR_NONE = st.sampled_from([None, *FORMATS])
# Fragments that reach deep into the parsers more often than uniform random text would.
PIECES = st.sampled_from(["Alice: ", "[2024-03-01 09:15] ", "[09:15] ", "## Session 2 — ",
                          "--- ", "\n", ",", "speaker,text\n", '{"speaker": "a", "text": "b"}\n',
                          '{"role": "user", "content": "x"}', "[", "]", "{", "}", '"', ":",
                          "8 May 2023", "\ufeff", "\r", "\x00", "é", "  "])
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8)
    | st.sampled_from(["user", "bot", "1:56 pm on 8 May, 2023", "2023/05/20 (Sat) 02:21"]),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(
        st.sampled_from(["sample_id", "conversation", "session_1", "session_1_date_time",
                         "speaker", "text", "dia_id", "haystack_sessions", "haystack_dates",
                         "question_id", "role", "content", "messages", "conversations", "id",
                         "name", "timestamp", "blip_caption"]), children, max_size=5),
    max_leaves=20)


def _parses_or_input_error(data, source, fmt):
    try:
        result = parse_transcript(data, source=source, format=fmt)
    except InputError:
        return
    assert isinstance(result, Transcript)
    check_invariants(result)


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.binary(max_size=200), st.text(max_size=200),
                 st.lists(PIECES, max_size=20).map("".join)), SOURCES, FORMAT_OR_NONE)
def test_random_input_never_crashes(data, source, fmt):
    _parses_or_input_error(data, source, fmt)


@settings(max_examples=200, deadline=None)
@given(JSON, SOURCES, FORMAT_OR_NONE)
def test_random_json_never_crashes(doc, source, fmt):
    _parses_or_input_error(json.dumps(doc), source, fmt)
