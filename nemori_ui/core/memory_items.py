"""The run's messages, episodes and memories as `Item`s, and the filters that pick them.

Ids tell the kind: m0001 a message, ep0001 an episode, sm0001 a semantic memory.
"""

from __future__ import annotations

from datetime import datetime, timezone

from .errors import InputError
from .memory_models import Filters, Item
from .models import Episode, Message, SemanticMemory
from .pipeline.state import MemoryState


def kind_of(item_id: str) -> str:
    if item_id.startswith("ep"):
        return "episode"
    if item_id.startswith("sm"):
        return "semantic"
    if item_id.startswith("m"):
        return "message"
    raise InputError(f"{item_id!r} is no id of this memory (m0001: a message, ep0001: an "
                     "episode, sm0001: a semantic memory)", field="id")


def _utc(value: datetime | None) -> datetime | None:
    """Times compare whether or not they carry a zone: one without is taken as UTC."""
    if value is None:
        return None
    return value if value.tzinfo else value.replace(tzinfo=timezone.utc)


def of_message(m: Message) -> Item:
    return Item(id=m.id, kind="message", text=m.text, speaker=m.speaker, timestamp=m.timestamp)


def of_episode(e: Episode) -> Item:
    return Item(id=e.id, kind="episode", text=e.narrative, status=e.status, cue=e.cue,
                start=e.start, end=e.end, message_ids=e.message_ids, supersedes=e.supersedes,
                superseded_by=e.superseded_by, window=e.window)


def of_memory(m: SemanticMemory, messages: dict[str, Message]) -> Item:
    times = [messages[i].timestamp for i in m.source_message_ids
             if i in messages and messages[i].timestamp]
    return Item(id=m.id, kind="semantic", text=m.text, status=m.status,
                start=min(times, key=_utc) if times else None,
                end=max(times, key=_utc) if times else None,
                message_ids=m.source_message_ids, supersedes=m.supersedes,
                superseded_by=m.superseded_by, window=m.window, origin=m.origin)


def find(state: MemoryState, messages: dict[str, Message], item_id: str) -> Item | None:
    kind = kind_of(item_id)
    if kind == "message":
        return of_message(messages[item_id]) if item_id in messages else None
    table = state.episodes if kind == "episode" else state.memories
    if item_id not in table:
        return None
    return of_episode(table[item_id]) if kind == "episode" else \
        of_memory(table[item_id], messages)


def matches(item: Item, f: Filters, messages: dict[str, Message]) -> bool:
    """Whether `item` passes the filters: its kind, who said it (any of an episode's or a
    memory's lines), when (an episode or memory overlaps the range)."""
    if item.kind not in f.kinds():
        return False
    if item.status != "active" and not f.include_superseded:
        return False
    speakers = f.speakers()
    if speakers is not None:
        said = {item.speaker} if item.kind == "message" else \
            {messages[i].speaker for i in item.message_ids if i in messages}
        if not said & speakers:
            return False
    if f.since is None and f.until is None:
        return True
    first = _utc(item.timestamp if item.kind == "message" else item.start)
    last = _utc(item.timestamp if item.kind == "message" else item.end or item.start)
    if first is None:
        return False          # no time known: it cannot be said to fall in the range
    return (f.since is None or last >= _utc(f.since)) and \
        (f.until is None or first <= _utc(f.until))


def every(state: MemoryState, messages: dict[str, Message], f: Filters) -> list[Item]:
    """Everything the run holds that passes `f`: messages, then episodes, then memories."""
    out: list[Item] = []
    kinds = f.kinds()
    if "message" in kinds:
        out += [i for i in map(of_message, messages.values()) if matches(i, f, messages)]
    if "episode" in kinds:
        out += [i for i in map(of_episode, state.episodes.values()) if matches(i, f, messages)]
    if "semantic" in kinds:
        out += [i for i in (of_memory(m, messages) for m in state.memories.values())
                if matches(i, f, messages)]
    return sorted(out, key=lambda i: (i.kind != "message", i.kind, _number(i.id)))


def _number(item_id: str) -> int:
    digits = "".join(ch for ch in item_id if ch.isdigit())
    return int(digits or 0)


def chain(state: MemoryState, messages: dict[str, Message], item_id: str) -> list[Item]:
    """The versions of an episode or memory, oldest first: what it superseded (both parents
    of a merge), itself, and what superseded it, to the version that is current (or was
    deleted)."""
    kind = kind_of(item_id)
    if kind == "message":
        item = find(state, messages, item_id)
        return [item] if item else []
    table = state.episodes if kind == "episode" else state.memories
    if item_id not in table:
        return []
    seen, todo = set(), [item_id]
    while todo:                                  # back through everything it came from
        current = todo.pop()
        if current in seen or current not in table:
            continue
        seen.add(current)
        todo += table[current].supersedes
    current = table[item_id].superseded_by
    while current and current in table and current not in seen:   # forward to the newest
        seen.add(current)
        current = table[current].superseded_by
    return [find(state, messages, i) for i in sorted(seen, key=_number)]
