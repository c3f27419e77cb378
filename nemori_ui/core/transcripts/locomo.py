"""LoCoMo benchmark JSON (Maharana et al., 2024): a list of samples, or one sample.

Both LoCoMo speakers are people talking to each other, so every turn gets role "user"; calling
speaker_b "assistant" would tell the pipeline (and its prompts) that half the conversation came
from an AI. The speakers' names are kept as `speaker`, which is what the memory is about.
"""

from __future__ import annotations

import re
from typing import Any

from ..errors import InputError
from ..models import Conversation
from .common import (Turn, build_conversation, describe, join, kind, need, need_text,
                     one_or_many, scalar_text, spread)
from .timestamps import to_timestamp

_SESSION = re.compile(r"^session_([0-9]+)$")
# LoCoMo conversations have about 30 sessions; a session number is stored as an integer, and one
# past this is a typo or an attack, not a transcript.
MAX_SESSION = 1_000_000


def looks_like(doc: Any) -> bool:
    first = doc[0] if isinstance(doc, list) and doc else doc
    return isinstance(first, dict) and "sample_id" in first and "conversation" in first


def parse(doc: Any, *, source: str) -> list[Conversation]:
    samples = one_or_many(doc, file=source,
                          expected="a LoCoMo sample "
                                   "(an object with 'sample_id' and 'conversation')")
    return [_sample(sample, path, source) for sample, path in samples]


def _sample(sample: Any, path: str, source: str) -> Conversation:
    need(sample, dict, file=source, field=path, what="a LoCoMo sample object")
    if "sample_id" not in sample or "conversation" not in sample:
        raise InputError("not a LoCoMo sample: needs 'sample_id' and 'conversation', found "
                         f"{describe(sample)}", file=source, field=path or None)
    conv_id = need_text(sample, "sample_id", file=source, field=path)
    conv_path = join(path, "conversation")
    conv = need(sample["conversation"], dict, file=source, field=conv_path, what="an object")

    # Sessions come from the session_N keys: some samples carry more _date_time keys than
    # sessions, so the date keys cannot be used to count.
    numbers = sorted(_number(key, m.group(1), conv_path, source)
                     for key in conv if (m := _SESSION.match(key)))
    if not numbers:
        raise InputError("no 'session_N' turn lists", file=source, field=conv_path)
    turns: list[Turn] = []
    for n in numbers:
        turns.extend(_session(conv, n, conv_path, source))

    extra = {k: v for k, v in sample.items() if k not in ("sample_id", "conversation")}
    for key in ("speaker_a", "speaker_b"):
        if key in conv:
            extra[key] = conv[key]
    return build_conversation(conv_id, turns, extra)


def _number(key: str, digits: str, conv_path: str, source: str) -> int:
    if len(digits) > len(str(MAX_SESSION)) or int(digits) > MAX_SESSION:
        shown = digits if len(digits) <= 24 else f"{digits[:12]}…({len(digits)} digits)"
        raise InputError(f"session number {shown} is too large (at most {MAX_SESSION:,})",
                         file=source, field=join(conv_path, key if len(key) <= 40
                                                 else f"session_{shown}"))
    return int(digits)


def _session(conv: dict, n: int, conv_path: str, source: str) -> list[Turn]:
    key = f"session_{n}"
    path = join(conv_path, key)
    raw = need(conv[key], list, file=source, field=path, what="a list of turns")
    date_key = f"{key}_date_time"
    if date_key not in conv:
        raise InputError(f"missing '{date_key}' for {key}", file=source, field=conv_path)
    if conv[date_key] is not None and not isinstance(conv[date_key], str):
        # a bare number would be read as unix seconds, dating the session in 1970
        raise InputError(f"expected a date such as '1:56 pm on 8 May, 2023', got "
                         f"{kind(conv[date_key])}", file=source, field=join(conv_path, date_key))
    start = to_timestamp(conv[date_key], file=source, field=join(conv_path, date_key))
    if start is None:
        raise InputError("empty session date", file=source, field=join(conv_path, date_key))

    turns = []
    for i, turn in enumerate(raw):
        tpath = join(path, i)
        need(turn, dict, file=source, field=tpath, what="a turn object")
        speaker = need_text(turn, "speaker", file=source, field=tpath, empty_ok=False).strip()
        text = need_text(turn, "text", file=source, field=tpath)
        caption = turn.get("blip_caption")
        if isinstance(caption, str) and caption.strip():
            # The caption is the only trace of a shared photo; questions refer to it.
            text = f"{text} [Image: {caption.strip()}]".strip()
        if not text.strip():
            raise InputError("'text' is empty and the turn shares no image", file=source,
                             field=join(tpath, "text"))
        ref = turn.get("dia_id")
        ref = (scalar_text(ref, file=source, field=join(tpath, "dia_id")) if ref is not None
               else f"D{n}:{i + 1}")
        turns.append(Turn(speaker=speaker, text=text, role="user", session=n, source_ref=ref))
    spread(turns, start)
    return turns
