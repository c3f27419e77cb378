"""LongMemEval JSON (Wu et al., 2024): a list of question instances, or one instance.

Each instance is its own conversation: the haystack sessions are the history the question is
asked against, in file order (the benchmark stores them chronologically). Everything except the
sessions themselves stays in `extra` for evaluation, plus the ids of the messages marked
`has_answer` so evidence can be checked without re-reading the file.
"""

from __future__ import annotations

from typing import Any

from ..errors import InputError
from ..models import Conversation
from .common import (Turn, build_conversation, describe, join, kind, need, need_text,
                     one_or_many, scalar_text, spread)
from .timestamps import to_timestamp

_ROLES = ("user", "assistant")


def looks_like(doc: Any) -> bool:
    first = doc[0] if isinstance(doc, list) and doc else doc
    return isinstance(first, dict) and "haystack_sessions" in first


def parse(doc: Any, *, source: str) -> list[Conversation]:
    items = one_or_many(doc, file=source,
                        expected="a LongMemEval instance "
                                 "(an object with 'question_id' and 'haystack_sessions')")
    return [_instance(item, path, source) for item, path in items]


def _instance(item: Any, path: str, source: str) -> Conversation:
    need(item, dict, file=source, field=path, what="a LongMemEval instance object")
    if "haystack_sessions" not in item or "question_id" not in item:
        raise InputError("not a LongMemEval instance: needs 'question_id' and "
                         f"'haystack_sessions', found {describe(item)}",
                         file=source, field=path or None)
    conv_id = need_text(item, "question_id", file=source, field=path)
    sessions = need(item["haystack_sessions"], list, file=source,
                    field=join(path, "haystack_sessions"), what="a list of sessions")
    dates_path = join(path, "haystack_dates")
    if "haystack_dates" not in item:
        raise InputError("missing 'haystack_dates'", file=source, field=dates_path)
    dates = need(item["haystack_dates"], list, file=source, field=dates_path,
                 what="a list of dates")
    if len(dates) != len(sessions):
        raise InputError(f"{len(dates)} dates for {len(sessions)} haystack sessions",
                         file=source, field=dates_path)
    ids = item.get("haystack_session_ids")
    if not isinstance(ids, list) or len(ids) != len(sessions):
        ids = [f"S{k + 1}" for k in range(len(sessions))]
    ids = [scalar_text(v, file=source, field=join(join(path, "haystack_session_ids"), k))
           for k, v in enumerate(ids)]

    turns: list[Turn] = []
    answers: list[str] = []
    for k, session in enumerate(sessions):
        spath = join(join(path, "haystack_sessions"), k)
        need(session, list, file=source, field=spath, what="a list of turns")
        if dates[k] is not None and not isinstance(dates[k], str):
            raise InputError(f"expected a date such as '2023/05/20 (Sat) 02:21', got "
                             f"{kind(dates[k])}", file=source, field=join(dates_path, k))
        start = to_timestamp(dates[k], file=source, field=join(dates_path, k))
        if start is None:   # the benchmark's temporal questions are meaningless without it
            raise InputError("empty session date", file=source, field=join(dates_path, k))
        these = []
        for i, turn in enumerate(session):
            tpath = join(spath, i)
            need(turn, dict, file=source, field=tpath, what="a turn object")
            role = need_text(turn, "role", file=source, field=tpath)
            if role not in _ROLES:
                raise InputError(f"unknown role {role!r}; expected 'user' or 'assistant'",
                                 file=source, field=join(tpath, "role"))
            text = need_text(turn, "content", file=source, field=tpath)
            if turn.get("has_answer") is True:
                answers.append(f"m{len(turns) + len(these) + 1:04d}")   # its id-to-be
            these.append(Turn(speaker=role, text=text, role=role, session=k + 1,
                              source_ref=f"{ids[k]}:{i + 1}"))
        spread(these, start)
        turns.extend(these)

    extra = {k: v for k, v in item.items() if k != "haystack_sessions"}
    extra["has_answer_message_ids"] = answers
    return build_conversation(conv_id, turns, extra)
