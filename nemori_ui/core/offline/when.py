"""The dates and clock times a statement gives, read so that two ways of saying one compare
equal: "March 15" and "15 March 2024" are one day, "ten", "10am" and "10:00" one hour.

Written here rather than taken from a date parser: the rules need only day-and-month and
hour-and-minute as said in a chat, and a parser's readings of bare numbers ("at 9" as a day)
would make values up.
"""

from __future__ import annotations

import re

from .text import MONTHS

_MONTH = "|".join(sorted(MONTHS, key=len, reverse=True))
_DAY_MONTH = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH})\b", re.I)
_MONTH_DAY = re.compile(rf"\b({_MONTH})\s+(?:the\s+)?(\d{{1,2}})(?:st|nd|rd|th)?\b(?!:)", re.I)
_HOUR_WORDS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve".split())}
_CLOCK = re.compile(r"\b(\d{1,2})(?::(\d{2}))?\s*(am|pm)\b|\b(\d{1,2}):(\d{2})\b|"
                    r"\b(?:at|from|until|till|to)\s+(" + "|".join(_HOUR_WORDS) + r"|noon|midnight)\b",
                    re.I)


def dates(text: str) -> frozenset[tuple[int, str]]:
    """(day, month) of each calendar date the text names."""
    found = {(int(d), m.lower()) for d, m in _DAY_MONTH.findall(text)}
    found |= {(int(d), m.lower()) for m, d in _MONTH_DAY.findall(text)}
    return frozenset((d, m) for d, m in found if 1 <= d <= 31)


def clocks(text: str) -> frozenset[str]:
    """Each clock time the text names, as "H:MM" on a 12-hour dial (am and pm are not told
    apart: "at ten" says neither)."""
    found = set()
    for h, mins, half, h24, m24, word in _CLOCK.findall(text):
        if word:
            hour = 12 if word.lower() in ("noon", "midnight") else _HOUR_WORDS[word.lower()]
            found.add(f"{hour % 12 or 12}:00")
        elif h:
            found.add(f"{int(h) % 12 or 12}:{mins or '00'}")
        elif int(h24) < 24 and int(m24) < 60:
            found.add(f"{int(h24) % 12 or 12}:{m24}")
    return frozenset(found)
