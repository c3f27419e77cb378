"""Relative dates made absolute from the message's own timestamp.

Narratives keep the phrase and add the date ("yesterday (7 May 2023)"); knowledge statements
replace it ("on 7 May 2023"), so the fact stays true whenever it is read.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from .text import WEEKDAYS

_UNITS = {"day": 1, "days": 1, "week": 7, "weeks": 7}
_NUMS = {"a": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "couple of": 2,
         "few": 3}

RELATIVE = re.compile(
    r"\b(yesterday|today|tonight|tomorrow|last night|this morning|"
    r"(?:last|next|this) (?:week|weekend|month|year|monday|tuesday|wednesday|thursday|friday|"
    r"saturday|sunday)|(?:\d+|a|one|two|three|four|five|six|couple of|few) (?:days?|weeks?) ago)\b",
    re.I)
# the date said again beside the phrase: "tomorrow, 19 March", "next Friday (May 3rd)"
_APPOSITIVE = re.compile(r"^\s*[,(]\s*(?:(?:on|the)\s+)?(?:(\d{1,2})(?:st|nd|rd|th)?\s+([A-Z][a-z]+)|"
                         r"([A-Z][a-z]+)\s+(\d{1,2})(?:st|nd|rd|th)?)\b\)?")
# a preposition already in front of the phrase takes the date as it is: "since 7 May 2023"
_PREPOSITION = re.compile(r"\b(since|until|till|from|by|before|after|on|in|of|during)\s+$", re.I)


def day(when: datetime) -> str:
    return f"{when.day} {when:%B %Y}"


def _weekday(target: int, when: datetime, step: int) -> datetime:
    """'last Friday' is the latest Friday before the day it is said; 'next' / 'this' the
    first one after it ('this Friday' said on a Friday is that day)."""
    if step < 0:
        return when - timedelta(days=(when.weekday() - target) % 7 or 7)
    ahead = (target - when.weekday()) % 7
    return when + timedelta(days=ahead or (7 if step > 0 else 0))


def resolve(phrase: str, when: datetime) -> tuple[str, str] | None:
    """(preposition, date) for a relative phrase said at `when`, or None when the date would
    fall outside the calendar (a message dated 9999-12-31 saying "tomorrow")."""
    p = phrase.lower()
    offsets = {"yesterday": -1, "today": 0, "tonight": 0, "this morning": 0, "last night": -1,
               "tomorrow": 1}
    try:
        if p in offsets:
            return "on", day(when + timedelta(days=offsets[p]))
        if p.endswith("ago"):
            amount, unit = p[:-4].rsplit(" ", 1)
            n = int(amount) if amount.isdigit() else _NUMS.get(amount, 1)
            return "on", day(when - timedelta(days=n * _UNITS[unit]))
        which, what = p.split(" ", 1)
        step = {"last": -1, "next": 1, "this": 0}[which]
        if what in WEEKDAYS:
            return "on", day(_weekday(WEEKDAYS.index(what), when, step))
        if what in ("week", "weekend"):
            monday = when + timedelta(weeks=step) - timedelta(days=when.weekday())
            if what == "weekend":
                return "on", f"the weekend of {day(monday + timedelta(days=5))}"
            return "in", f"the week of {day(monday)}"
        if what == "month":
            month = (when.month - 1 + step) % 12 + 1
            year = when.year + (when.month - 1 + step) // 12
            return "in", datetime(year, month, 1).strftime("%B %Y")
        year = when.year + step
        return ("in", str(year)) if 1 <= year <= 9999 else None
    except (OverflowError, ValueError):
        return None


def absolutize(text: str, when: datetime | None) -> str:
    """'I went yesterday' said on 8 May 2023 → 'I went yesterday (7 May 2023)'."""
    if when is None:
        return text

    def annotate(m: re.Match) -> str:
        found = resolve(m.group(0), when)
        return f"{m.group(0)} ({found[1]})" if found else m.group(0)
    return RELATIVE.sub(annotate, text)


def replace_relative(text: str, when: datetime | None) -> str:
    """'I went yesterday' said on 8 May 2023 → 'I went on 7 May 2023'."""
    if when is None:
        return text
    out, last = [], 0
    for m in RELATIVE.finditer(text):
        found = resolve(m.group(0), when)
        if not found:
            continue
        before = text[last:m.start()]
        prep, date = found
        out.append(before + (date if _PREPOSITION.search(before) else f"{prep} {date}"))
        last = m.end() + _said_again(text[m.end():], date)
    return "".join(out) + text[last:]


def _said_again(after: str, date: str) -> int:
    """Length of an appositive that gives the same day again, to drop with the phrase."""
    again = _APPOSITIVE.match(after)
    if not again:
        return 0
    number, month = again.group(1) or again.group(4), again.group(2) or again.group(3)
    return again.end() if date.split()[:2] == [str(int(number)), month] else 0
