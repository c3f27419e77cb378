"""Relative dates made absolute from the message's own timestamp (narratives keep both)."""

from __future__ import annotations

import re
from datetime import datetime, timedelta

_DAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_UNITS = {"day": 1, "days": 1, "week": 7, "weeks": 7}
_NUMS = {"a": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "couple of": 2,
         "few": 3}

_PATTERN = re.compile(
    r"\b(yesterday|today|tonight|tomorrow|last night|this morning|"
    r"(?:last|next|this) (?:week|weekend|month|year|monday|tuesday|wednesday|thursday|friday|"
    r"saturday|sunday)|(?:\d+|a|one|two|three|four|five|six|couple of|few) (?:days?|weeks?) ago)\b",
    re.I)


def day(when: datetime) -> str:
    return f"{when.day} {when:%B %Y}"


def _resolve(phrase: str, when: datetime) -> str:
    p = phrase.lower()
    fixed = {"yesterday": when - timedelta(days=1), "today": when, "tonight": when,
             "this morning": when, "last night": when - timedelta(days=1),
             "tomorrow": when + timedelta(days=1)}
    if p in fixed:
        return day(fixed[p])
    if p.endswith("ago"):
        amount, unit = p[:-4].rsplit(" ", 1)
        n = int(amount) if amount.isdigit() else _NUMS.get(amount, 1)
        return day(when - timedelta(days=n * _UNITS[unit]))
    which, what = p.split(" ", 1)
    step = {"last": -1, "next": 1, "this": 0}[which]
    if what in _DAYS:
        delta = (_DAYS.index(what) - when.weekday()) % 7 or 7
        target = when + timedelta(days=delta if step >= 0 else delta - 7)
        return day(target)
    if what in ("week", "weekend"):
        return f"the week of {day(when + timedelta(weeks=step) - timedelta(days=when.weekday()))}"
    if what == "month":
        month = (when.month - 1 + step) % 12 + 1
        year = when.year + (when.month - 1 + step) // 12
        return datetime(year, month, 1).strftime("%B %Y")
    return str(when.year + step)


def absolutize(text: str, when: datetime | None) -> str:
    """'I went yesterday' said on 8 May 2023 → 'I went yesterday (7 May 2023)'."""
    if when is None:
        return text
    return _PATTERN.sub(lambda m: f"{m.group(0)} ({_resolve(m.group(0), when)})", text)
