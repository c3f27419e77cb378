"""Episodes as the memory holds them: narratives, their raw messages, and integration decisions.

Windows are shown 1-based here, as a person counts them; events store them 0-based.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Callable, Container, Iterable, Mapping

import pandas as pd

from ..models import Message
from ..stage_events import EpisodeText, IntegratePayload
from .run_data import RunData

STATUS_FILTERS = ("active", "superseded", "all")


def fmt_time(stamp: datetime | None) -> str:
    return stamp.strftime("%Y-%m-%d %H:%M") if stamp else ""


def time_span(start: datetime | None, end: datetime | None) -> str:
    if not start:
        return "no timestamps"
    if not end or end == start:
        return fmt_time(start)
    if end.date() == start.date():
        return f"{fmt_time(start)} – {end:%H:%M}"
    return f"{fmt_time(start)} – {fmt_time(end)}"


def follow_merges(episode_id: str | None, successor: Callable[[str], str | None],
                  known: Container[str]) -> str | None:
    """Where an episode ended up: its `successor` and theirs, as far as `known` episodes go
    (cycles cannot loop)."""
    seen: set[str] = set()
    current = episode_id
    while current in known and current not in seen:
        seen.add(current)
        following = successor(current)
        if not following:
            break
        current = following
    return current


def final_episode_id(data: RunData, episode_id: str | None) -> str | None:
    """The active episode an episode ended up in, following merges."""
    return follow_merges(episode_id, lambda i: data.episode_by_id[i].superseded_by,
                         data.episode_by_id)


def message_span(data: RunData, message_ids: list[str]) -> str:
    """'m0015–m0025 (12)': first and last message in transcript order, and how many."""
    order = {m.id: i for i, m in enumerate(data.messages)}
    known = sorted((i for i in message_ids if i in order), key=order.get)
    if not known:
        return ""
    ends = known[0] if len(known) == 1 else f"{known[0]}–{known[-1]}"
    return f"{ends} ({len(known)})"


def message_table(messages: Iterable[Message]) -> pd.DataFrame:
    """Messages as the pages list them."""
    rows = [{"message": m.id, "time": fmt_time(m.timestamp), "speaker": m.speaker, "text": m.text}
            for m in messages]
    return pd.DataFrame(rows, columns=["message", "time", "speaker", "text"])


def episode_messages(data: RunData, episode_id: str) -> pd.DataFrame:
    """The raw messages of an episode, in transcript order."""
    episode = data.episode_by_id.get(episode_id)
    ids = set(episode.message_ids) if episode else set()
    return message_table(m for m in data.messages if m.id in ids)


def episode_label(data: RunData, episode_id: str, width: int = 70) -> str:
    """A plain-text option label for choosers: id, cue (shortened), status."""
    return head_label(data.episode_by_id, episode_id, width)


def head_label(episode_by_id: Mapping, episode_id: str, width: int = 70) -> str:
    """`episode_label` over any mapping of episodes (or episode heads) by id."""
    episode = episode_by_id.get(episode_id)
    if episode is None:
        return episode_id
    cue = episode.cue if len(episode.cue) <= width else episode.cue[:width - 1] + "…"
    extra = "" if episode.status == "active" else f" (merged into {episode.superseded_by})"
    return f"{episode.id} · {cue}{extra}"


@dataclass(frozen=True)
class EpisodeCard:
    """An episode as the Episodes page lists it."""
    id: str
    cue: str
    narrative: str
    status: str
    window: int                 # 1-based
    span: str                   # its time span, in words
    messages: int
    superseded_by: str | None
    supersedes: list[str]


def episode_cards(data: RunData, status: str = "all") -> list[EpisodeCard]:
    """One card per episode, in creation order; `status` is 'active', 'superseded' or 'all'."""
    if status not in STATUS_FILTERS:
        raise ValueError(f"status must be one of {STATUS_FILTERS}, not {status!r}")
    cards = []
    for e in data.episodes:
        if status != "all" and e.status != status:
            continue
        cards.append(EpisodeCard(id=e.id, cue=e.cue, narrative=e.narrative, status=e.status,
                                 window=e.window + 1, span=time_span(e.start, e.end),
                                 messages=len(e.message_ids), superseded_by=e.superseded_by,
                                 supersedes=list(e.supersedes)))
    return cards


def _decision(p: IntegratePayload) -> str:
    if p.skipped:
        return "kept: nothing earlier to continue"
    if p.target:
        return f"merged with {p.target} into {p.result_id}"
    return "kept as a new episode"


def integration_table(data: RunData) -> pd.DataFrame:
    """Every integration decision, in the order it was made."""
    rows = []
    for ev in data.stage("integrate"):
        p = ev.payload
        scores = [c.score for c in p.candidates]
        rows.append({"window": ev.window + 1, "new episode": p.episode_id,
                     "candidates": len(scores), "best score": max(scores) if scores else None,
                     "choice": p.choice, "decision": _decision(p),
                     "reason": p.reason or p.skipped, "repair": p.repair})
    return pd.DataFrame(rows, columns=["window", "new episode", "candidates", "best score",
                                       "choice", "decision", "reason", "repair"])


@dataclass(frozen=True)
class IntegrationDetail:
    """The decision about one new episode; `before`, `incoming`, `after` are a merge's texts."""
    episode_id: str
    window: int                 # 1-based
    cue: str
    candidates: pd.DataFrame    # rank, episode, score, cue, chosen
    choice: int                 # 1-based into the candidates, -1 for none
    decision: str
    reason: str
    skipped: str
    repair: str
    target: str | None
    result_id: str | None
    merged: bool
    before: EpisodeText | None
    incoming: EpisodeText | None
    after: EpisodeText | None


def integration_detail(data: RunData, episode_id: str) -> IntegrationDetail | None:
    """The decision about one new episode: its candidates, the choice, and a merge's texts."""
    for ev in data.stage("integrate"):
        p = ev.payload
        if p.episode_id != episode_id:
            continue
        candidates = pd.DataFrame(
            [{"rank": i, "episode": c.id, "score": c.score,
              "cue": c.cue or (data.episode_text(c.id) or EpisodeText()).cue,
              "chosen": i == p.choice} for i, c in enumerate(p.candidates, start=1)],
            columns=["rank", "episode", "score", "cue", "chosen"])
        new = data.episode_by_id.get(episode_id)
        merged = bool(p.target)
        incoming = data.episode_text(episode_id, p.incoming) if merged else p.incoming
        return IntegrationDetail(
            episode_id=episode_id, window=ev.window + 1,
            cue=new.cue if new else incoming.cue if incoming else "",
            candidates=candidates, choice=p.choice, decision=_decision(p), reason=p.reason,
            skipped=p.skipped, repair=p.repair, target=p.target, result_id=p.result_id,
            merged=merged,
            before=data.episode_text(p.target, p.before) if merged else p.before,
            incoming=incoming,
            after=data.episode_text(p.result_id, p.after) if merged else p.after)
    return None
