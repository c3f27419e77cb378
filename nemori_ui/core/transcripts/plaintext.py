"""Plain-text transcripts: ``Speaker: text`` lines.

- ``[2024-03-01 09:15] Alice: hi``: an optional bracketed timestamp before the speaker.
- ``## Session 2 — 2024-03-02`` or ``--- ...``: a markdown heading or rule starts a new session;
  a date in it dates the session. Messages of a dated session without their own timestamp get
  the session date plus i seconds (as LoCoMo sessions do), and ``[09:15]`` means that day at 09:15.
- A line with no ``Speaker:`` continues the previous message (multi-line messages).

Speakers are at most 40 characters and 4 words and contain a letter, so that a continuation
line such as "Here is what I think: ..." or "12:30 works" is not mistaken for a new speaker.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from ..errors import InputError
from ..models import Conversation
from .common import Turn, build_conversation, role_for, stem
from .timestamps import parse_time_of_day, parse_timestamp, to_timestamp

_HEADER = re.compile(r"^(?:#{1,6}\s|---(?:\s|-*$))")
_STAMP = re.compile(r"^\[(?P<ts>[^\]]*)\]\s*(?P<rest>.*)$")
_SPEAKER = re.compile(r"^(?P<speaker>[^\s:\[\]#][^:\[\]]{0,39}?)\s*:(?:\s+(?P<text>.*)|$)")
_SEPARATORS = re.compile(r"\s+[-—–|]\s+|\s*[—–|]\s*")
_FORM = "'Speaker: text' (optionally '[timestamp] Speaker: text')"


def _speaker_line(rest: str) -> tuple[str, str] | None:
    m = _SPEAKER.match(rest)
    if not m:
        return None
    speaker = m["speaker"].strip()
    if len(speaker.split()) > 4 or not any(c.isalpha() for c in speaker):
        return None
    return speaker, (m["text"] or "").strip()


def _header_date(title: str) -> datetime | None:
    """The date in a session heading, if any; headings are free text so no error otherwise."""
    title = title.strip().strip("-—– ")
    for candidate in reversed([title, *_SEPARATORS.split(title)]):
        try:
            return parse_timestamp(candidate)
        except ValueError:
            continue
    return None


def parse(text: str, *, source: str) -> list[Conversation]:
    turns: list[Turn] = []
    session, in_session, session_date = 1, 0, None     # in_session: messages in this session
    after_header = False
    for n, raw in enumerate(text.split("\n"), start=1):
        line = raw.strip()
        if not line:
            continue
        if _HEADER.match(line):
            if in_session:
                session, in_session = session + 1, 0
            session_date = _header_date(line.lstrip("#").strip())
            after_header = True
            continue

        stamp, rest = None, line
        m = _STAMP.match(line)
        if m:
            stamp, rest = m["ts"], m["rest"]
        parsed = _speaker_line(rest)
        if parsed is None:
            if stamp is not None:
                raise InputError(f"a timestamp but no 'Speaker:' after it; expected {_FORM}",
                                 file=source, line=n)
            if not turns or after_header:
                why = "there is no message before it" if not turns else "it follows a heading"
                raise InputError(f"expected {_FORM}; a line without a speaker continues the "
                                 f"previous message, but {why}", file=source, line=n)
            turns[-1].text = f"{turns[-1].text}\n{line}" if turns[-1].text else line
            continue

        speaker, said = parsed
        when = _when(stamp, session_date, in_session, source, n)
        turns.append(Turn(speaker=speaker, text=said, role=role_for(speaker), timestamp=when,
                          session=session, source_ref=f"line {n}"))
        in_session += 1
        after_header = False
    return [build_conversation(stem(source), turns)]


def _when(stamp: str | None, session_date: datetime | None, index: int, source: str,
          line: int) -> datetime | None:
    if stamp is None:
        return session_date + timedelta(seconds=index) if session_date else None
    clock = parse_time_of_day(stamp)
    if clock is not None:
        if session_date is None:
            raise InputError(f"time {stamp!r} without a date: put the date in the timestamp or "
                             "in a session heading ('## Session 1 — 2024-03-01')",
                             file=source, line=line)
        return datetime.combine(session_date.date(), clock)
    return to_timestamp(stamp, file=source, line=line)
