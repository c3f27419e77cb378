"""The Knowledge page's content: semantic memories, consolidation decisions, and for any one
memory the chain of its versions and its provenance back to episodes and messages.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import datetime

import pandas as pd

from ..models import StageEvent
from ..stage_events import ConsolidatePayload, SummaryPayload
from .run_data import RunData, derived

ACTIONS = ("new", "merge", "conflict", "summary")

MEMORY_COLUMNS = ["id", "status", "origin", "text", "window", "seq", "supersedes",
                  "superseded_by", "episodes", "messages"]
DECISION_COLUMNS = ["seq", "window", "episode", "action", "insight", "candidates", "best_score",
                    "targets", "result_id", "result_text", "reason", "note"]


def _ids(items) -> str:
    return ", ".join(items or [])


def created_by(data: RunData) -> dict[str, StageEvent]:
    """The consolidation event that first wrote each memory.

    An unchanged merge names an existing memory as its result; the earliest event wins, so
    that memory keeps the decision that created it.
    """
    found: dict[str, StageEvent] = {}
    for event in sorted(data.stage("consolidate"), key=lambda e: e.seq):
        result = event.payload.result_id
        if result:
            found.setdefault(result, event)
    return found


def memory_table(data: RunData) -> pd.DataFrame:
    origin_event = created_by(data)
    rows = []
    for m in sorted(data.memories, key=lambda m: m.id):  # ids count up in creation order
        event = origin_event.get(m.id)
        rows.append({"id": m.id, "status": m.status, "origin": m.origin, "text": m.text,
                     "window": m.window, "seq": event.seq if event else None,
                     "supersedes": _ids(m.supersedes), "superseded_by": m.superseded_by or "",
                     "episodes": _ids(m.source_episode_ids),
                     "messages": len(m.source_message_ids)})
    frame = pd.DataFrame(rows, columns=MEMORY_COLUMNS)
    frame["seq"] = frame["seq"].astype("Int64")
    return frame


def filter_memories(frame: pd.DataFrame, *, statuses=None, origins=None,
                    search: str = "") -> pd.DataFrame:
    """Rows with one of `statuses` and `origins` (None or empty: any) whose text or id holds
    `search`, case-insensitively and literally."""
    keep = pd.Series(True, index=frame.index)
    if statuses:
        keep &= frame["status"].isin(list(statuses))
    if origins:
        keep &= frame["origin"].isin(list(origins))
    needle = (search or "").strip().lower()
    if needle:
        keep &= (frame["text"].str.lower().str.contains(needle, regex=False)
                 | frame["id"].str.lower().str.contains(needle, regex=False))
    return frame[keep].reset_index(drop=True)


def _note(p: ConsolidatePayload | SummaryPayload) -> str:
    notes = []
    if isinstance(p, ConsolidatePayload):
        if p.skipped:
            notes.append(f"no decider call: {p.skipped}")
        if p.asked:
            notes.append(f"asked: {p.asked}")
        if p.repair:
            notes.append(f"repaired: {p.repair}")
        if p.unchanged:
            notes.append("merge changed nothing")
    if p.fallback:
        notes.append(f"fallback: {p.fallback}")
    return "; ".join(notes)


def _insight(p: ConsolidatePayload | SummaryPayload) -> str:
    return "; ".join(p.insight_texts)  # the flat summary takes all at once


def _per_insight(p: ConsolidatePayload | SummaryPayload) -> ConsolidatePayload | None:
    """The decision about one insight, or None for a flat-summary rewrite (no candidates)."""
    return p if isinstance(p, ConsolidatePayload) else None


def decision_table(data: RunData, actions=None) -> pd.DataFrame:
    table = _decisions(data)
    return table[table["action"].isin(actions)].reset_index(drop=True) if actions else table


@derived
def _decisions(data: RunData) -> pd.DataFrame:
    rows = []
    for event in sorted(data.stage("consolidate"), key=lambda e: e.seq):
        p = event.payload
        one = _per_insight(p)
        candidates = one.candidates if one else []
        rows.append({"seq": event.seq, "window": event.window, "episode": p.episode_id,
                     "action": p.action, "insight": _insight(p),
                     "candidates": len(candidates),
                     "best_score": max((c.score for c in candidates), default=None),
                     "targets": _ids(one.targets if one else []), "result_id": p.result_id,
                     "result_text": data.memory_text(p.result_id, p.result_text),
                     "reason": one.reason if one else "",
                     "note": _note(p)})
    return pd.DataFrame(rows, columns=DECISION_COLUMNS)


def decision_counts(data: RunData) -> dict[str, int]:
    counts = {a: 0 for a in ACTIONS}
    for event in data.stage("consolidate"):
        action = event.payload.action
        counts[action] = counts.get(action, 0) + 1
    return counts


@dataclass(frozen=True)
class Decision:
    """One consolidation decision in full."""
    seq: int
    window: int                         # 0-based, as the event stores it
    episode_id: str
    action: str
    insight: str
    before: str | None                  # the summary a flat-summary rewrite started from
    candidates: pd.DataFrame            # rank, id, score, targeted, status now, text
    targets: list[str]
    result_id: str | None
    result_text: str
    reason: str
    note: str
    source_message_ids: list[str]
    call_ids: list[str]


def decision(data: RunData, seq: int) -> Decision:
    """One consolidation decision in full, its candidates as a table marking the targets."""
    event = next((e for e in data.stage("consolidate") if e.seq == seq), None)
    if event is None:
        raise KeyError(f"no consolidation decision with seq {seq}")
    p = event.payload
    one = _per_insight(p)
    targets = set(one.targets) if one else set()
    candidates = pd.DataFrame(
        [{"rank": i, "id": c.id, "score": c.score, "targeted": c.id in targets,
          "status now": data.memory_by_id[c.id].status if c.id in data.memory_by_id else "",
          "text": data.memory_text(c.id, c.text)}
         for i, c in enumerate(one.candidates if one else [], start=1)],
        columns=["rank", "id", "score", "targeted", "status now", "text"])
    return Decision(seq=event.seq, window=event.window, episode_id=p.episode_id,
                    action=p.action, insight=_insight(p), before=None if one else p.before,
                    candidates=candidates, targets=sorted(targets), result_id=p.result_id,
                    result_text=data.memory_text(p.result_id, p.result_text),
                    reason=one.reason if one else "", note=_note(p),
                    source_message_ids=one.source_message_ids if one else [],
                    call_ids=event.call_ids)


@dataclass(frozen=True)
class MemoryVersion:
    """One version in a memory's history, and the decision that wrote it."""
    id: str
    text: str
    status: str
    origin: str
    window: int
    seq: int | None                     # None: no consolidation wrote it
    replaced: list[str]
    replaced_by: str | None
    episode_id: str | None
    insight: str
    reason: str
    selected: bool                      # the version the history was asked for


def history(data: RunData, memory_id: str) -> list[MemoryVersion]:
    """Every version connected to `memory_id` by supersession, oldest first.

    The walk goes both ways through `supersedes` and `superseded_by`, so a merge of several
    memories shows all of them. Each version says what it replaced, what replaced it, and the
    decision (window, seq) that wrote it.
    """
    if memory_id not in data.memory_by_id:
        raise KeyError(f"no memory '{memory_id}' in run {data.run_id}")
    seen, todo = set(), [memory_id]
    while todo:
        mid = todo.pop()
        if mid in seen or mid not in data.memory_by_id:
            continue
        seen.add(mid)
        m = data.memory_by_id[mid]
        todo.extend(m.supersedes)
        if m.superseded_by:
            todo.append(m.superseded_by)
    origin_event = created_by(data)
    versions = []
    for mid in seen:
        m = data.memory_by_id[mid]
        event = origin_event.get(mid)
        p = event.payload if event else None
        one = _per_insight(p) if p else None
        versions.append(MemoryVersion(
            id=mid, text=m.text, status=m.status, origin=m.origin, window=m.window,
            seq=event.seq if event else None, replaced=list(m.supersedes),
            replaced_by=m.superseded_by, episode_id=p.episode_id if p else None,
            insight=_insight(p) if p else "", reason=one.reason if one else "",
            selected=mid == memory_id))
    versions.sort(key=lambda v: (v.window, v.seq if v.seq is not None else -1, v.id))
    return versions


def history_table(versions: list[MemoryVersion]) -> pd.DataFrame:
    return pd.DataFrame([{**asdict(v), "replaced": _ids(v.replaced),
                          "replaced_by": v.replaced_by or "",
                          "selected": "◀" if v.selected else ""} for v in versions],
                        columns=["selected", "id", "origin", "text", "replaced", "replaced_by",
                                 "status", "window", "seq", "reason", "episode_id"])


@dataclass(frozen=True)
class SourceEpisode:
    id: str
    cue: str
    status: str
    superseded_by: str                  # "" while active
    window: int
    start: datetime | None
    end: datetime | None


@dataclass(frozen=True)
class SourceMessage:
    id: str
    speaker: str
    text: str
    time: datetime | None
    session: int
    episode: str                        # the active episode holding it, "" for none
    source_ref: str


@dataclass(frozen=True)
class Provenance:
    """The episodes and messages a memory came from."""
    episodes: list[SourceEpisode]
    messages: list[SourceMessage]


def provenance(data: RunData, memory_id: str) -> Provenance:
    """The episodes (with cue) and the messages (speaker, text, time) a memory came from."""
    memory = data.memory_by_id[memory_id]
    holder = {mid: e.id for e in data.episodes if e.status == "active" for mid in e.message_ids}
    episodes = []
    for eid in memory.source_episode_ids:
        e = data.episode_by_id.get(eid)
        if e is None:
            continue
        episodes.append(SourceEpisode(id=e.id, cue=e.cue, status=e.status,
                                      superseded_by=e.superseded_by or "", window=e.window,
                                      start=e.start, end=e.end))
    messages = []
    for mid in memory.source_message_ids:
        m = data.message_by_id.get(mid)
        if m is None:
            continue
        messages.append(SourceMessage(id=m.id, speaker=m.speaker, text=m.text,
                                      time=m.timestamp, session=m.session,
                                      episode=holder.get(m.id, ""),
                                      source_ref=m.source_ref or ""))
    return Provenance(episodes=episodes, messages=messages)
