"""Pieces every format parser shares: turning parsed turns into Conversations, role names,
JSON loading with located errors, and small type checks that name the offending field."""

from __future__ import annotations

import json
import math
import re
import sys
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import PurePath
from typing import Any

from ..errors import InputError
from ..models import Conversation, Message

# Names that mean a role when they appear where a speaker is expected (tabular, plain text).
# Anything else is a person's name and gets role "user": a transcript's participants are people
# unless the file says otherwise.
_ROLE_NAMES = {"user": "user", "human": "user", "assistant": "assistant", "ai": "assistant",
               "bot": "assistant", "system": "system"}


@dataclass
class Turn:
    """One message as a parser read it, before ids are assigned."""
    speaker: str
    text: str
    role: str = "user"
    timestamp: datetime | None = None
    session: int = 1
    source_ref: str | None = None


def role_for(name: str) -> str:
    return _ROLE_NAMES.get(name.strip().lower(), "user")


def stem(source: str) -> str:
    """Default conversation id for formats whose files hold one unnamed conversation."""
    return PurePath(source).stem or "conversation"


def spread(turns: list[Turn], start: datetime | None) -> None:
    """Give every turn of one session the session's date plus i seconds.

    Session-dated formats (LoCoMo, LongMemEval) date a whole session at once; adding the turn
    index keeps timestamps strictly increasing so ordering by time equals ordering in the file.
    """
    if start is None:
        return
    for i, turn in enumerate(turns):
        turn.timestamp = start + timedelta(seconds=i)


def build_conversation(conv_id: str, turns: list[Turn],
                       extra: dict[str, Any] | None = None) -> Conversation:
    speakers: list[str] = []
    messages = []
    for i, t in enumerate(turns, start=1):
        if t.speaker not in speakers:
            speakers.append(t.speaker)
        messages.append(Message(id=f"m{i:04d}", speaker=t.speaker, role=t.role, text=t.text,
                                timestamp=t.timestamp, session=t.session,
                                source_ref=t.source_ref))
    return Conversation(id=conv_id, messages=messages, speakers=speakers, extra=extra or {})


def load_json(text: str, *, file: str, fmt: str | None = None) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        why = f" (format '{fmt}' is JSON)" if fmt else ""
        raise InputError(f"not valid JSON{why}: {exc.msg} at column {exc.colno}",
                         file=file, line=exc.lineno) from None
    except RecursionError:
        raise InputError("JSON is nested too deeply to read", file=file) from None
    except ValueError as exc:   # e.g. integers longer than Python's digit limit
        raise long_number(text, file=file) or InputError(f"not valid JSON: {exc}",
                                                         file=file) from None


def long_number(text: str, *, file: str, line: int | None = None) -> InputError | None:
    """The error for a number too long to read (Python refuses integers past a digit limit),
    located at its line; None when the text holds no such number."""
    limit = sys.get_int_max_str_digits()
    found = re.search(r"[0-9]{%d,}" % (limit + 1), text) if limit else None
    if not found:
        return None
    digits = found.end() - found.start()
    where = line if line is not None else text.count("\n", 0, found.start()) + 1
    return InputError(f"a number with {digits} digits: numbers may have at most {limit} digits",
                      file=file, line=where)


def join(path: str, key: str | int) -> str:
    """Field paths as users read them: conversation.session_3[4].text, [0].qa."""
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


def kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if value != value else "Infinity"
    return {bool: "a boolean", int: "a number", float: "a number", str: "a string",
            list: "a list", dict: "an object"}.get(type(value), type(value).__name__)


def need(value: Any, typ: type | tuple[type, ...], *, file: str, field: str, what: str) -> Any:
    """value if it has the expected JSON type, else an InputError naming the field."""
    if isinstance(value, typ) and not isinstance(value, bool):
        return value
    raise InputError(f"expected {what}, got {kind(value)}", file=file, field=field or None)


def need_text(obj: dict, key: str, *, file: str, field: str, empty_ok: bool = True) -> str:
    """A required string member; finite numbers are accepted and turned into text.

    NaN and Infinity (which Python's JSON reader accepts) are refused rather than read as the
    words "nan" and "inf"; with empty_ok=False so is a blank string.
    """
    path = join(field, key)
    if key not in obj or obj[key] is None:
        raise InputError(f"missing '{key}'", file=file, field=path)
    text = scalar_text(obj[key], file=file, field=path, what="a string")
    if not empty_ok and not text.strip():
        raise InputError(f"'{key}' is empty", file=file, field=path)
    return text


def scalar_text(value: Any, *, file: str, field: str, line: int | None = None,
                what: str = "a string or number") -> str:
    """A name or id as text: a string, or a finite number. Objects, lists, booleans, NaN and
    Infinity are refused: str() would turn them into ids such as "{'a': 1}" or "nan"."""
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        return str(value)
    raise InputError(f"expected {what}, got {kind(value)}", file=file, line=line,
                     field=field or None)


def describe(doc: Any) -> str:
    """A short description of a JSON value's shape, for 'wrong shape' messages."""
    if isinstance(doc, dict):
        keys = list(doc)
        shown = ", ".join(repr(k) for k in keys[:8]) + (", ..." if len(keys) > 8 else "")
        return f"an object with keys {shown}" if keys else "an empty object"
    if isinstance(doc, list):
        if not doc:
            return "an empty list"
        return f"a list of {len(doc)} items, the first being {describe(doc[0])}"
    return kind(doc)


def one_or_many(doc: Any, *, expected: str, file: str) -> list[tuple[dict, str]]:
    """A benchmark file holds one record or a list of them: (record, field path) pairs."""
    if isinstance(doc, dict):
        return [(doc, "")]
    if isinstance(doc, list) and doc:
        return [(item, f"[{i}]") for i, item in enumerate(doc)]
    raise InputError(f"expected {expected} or a list of them, found {describe(doc)}", file=file)
