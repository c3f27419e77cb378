"""Text pieces every prompt shares, rendered the same way each time.

The gateway's cache keys on the exact messages, so nothing here may depend on the clock, on
dict ordering or on anything but the arguments.
"""

from __future__ import annotations

from datetime import datetime

from ..models import Episode, Message

NO_TIME = "time unknown"


def stamp(when: datetime | None) -> str:
    # The weekday is there so a model can resolve "last Friday" without a calendar.
    return when.strftime("%Y-%m-%d %a %H:%M") if when else NO_TIME


def day_span(start: datetime | None, end: datetime | None) -> str:
    if start is None and end is None:
        return NO_TIME
    first, last = stamp(start or end), stamp(end or start)
    return first if first == last else f"{first} to {last}"


def one_line(text: str) -> str:
    """A message on one line, so that line numbers and message numbers coincide."""
    return " ".join(text.split())


def numbered_messages(messages: list[Message]) -> str:
    """`[i] (timestamp) Speaker: text`, 1-based: the form partition and distill cite."""
    return "\n".join(f"[{i}] ({stamp(m.timestamp)}) {m.speaker}: {one_line(m.text)}"
                     for i, m in enumerate(messages, start=1))


def excerpt(text: str, limit: int | None) -> str:
    """At most `limit` characters: the opening says what the event was, the close where it
    stopped, which is what a continuity judgement needs."""
    text = text.strip()
    if limit is None or len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half].rstrip()} [...] {text[-half:].lstrip()}"


def episode_block(cue: str, narrative: str, start: datetime | None, end: datetime | None,
                  limit: int | None = None) -> str:
    return (f"Title: {one_line(cue)}\nTime: {day_span(start, end)}\n"
            f"Narrative: {excerpt(narrative, limit)}")


def episode_of(episode: Episode, limit: int | None = None) -> str:
    return episode_block(episode.cue, episode.narrative, episode.start, episode.end, limit)


def numbered_texts(texts: list[str]) -> str:
    return "\n".join(f"[{i}] {one_line(t)}" for i, t in enumerate(texts, start=1))


def chat(system: str, user: str) -> list[dict]:
    return [{"role": "system", "content": system.strip()},
            {"role": "user", "content": user.strip()}]
