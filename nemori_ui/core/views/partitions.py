"""Where the transcript was cut into episodes: per message, per window, per cut.

Positions are 1-based transcript order; windows are shown 1-based. Every view reads a
`PartitionSource`: the run's ids and links, taken from loaded run data or straight from the
store, so a big run's page reads its messages a page at a time.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import pandas as pd

from ..models import Episode, Message
from ..stage_events import StageEvent
from ..store import Store, page_reads, records
from ..store.page_reads import EpisodeHead
from .episodes import fmt_time, follow_merges
from .run_data import RunData

MESSAGE_COLUMNS = ["pos", "message", "time", "speaker", "text", "session", "window",
                   "raw_episode", "episode", "group", "reason"]
PAGE_ROWS = 2000    # messages a page of the Partitions page shows at once


@dataclass
class PartitionSource:
    """What the Partitions views read of a run: ids and links, no texts or vectors."""
    window: int                          # w
    message_ids: list[str]               # every message, in transcript order
    partitions: list[StageEvent]         # the partition events, by seq
    raw_of: dict[str, str]               # message id -> the episode its group was narrated as
    episodes: list[Episode | EpisodeHead]    # in the order they were made
    successor: dict[str, str | None] = field(init=False)    # episode -> merged into
    episode_by_id: dict[str, Episode | EpisodeHead] = field(init=False)

    def __post_init__(self):
        self.successor = {e.id: e.superseded_by for e in self.episodes}
        self.episode_by_id = {e.id: e for e in self.episodes}

    def final(self, episode_id: str) -> str:
        """The active episode `episode_id` ended up in."""
        return follow_merges(episode_id, self.successor.get, self.successor) or ""


def partition_source(data: RunData) -> PartitionSource:
    """From a run loaded whole."""
    raw_of: dict[str, str] = {}
    for ev in data.stage("narrate"):
        for mid in ev.message_ids:
            raw_of.setdefault(mid, ev.payload.episode_id)
    return PartitionSource(window=data.info.config.window,
                           message_ids=[m.id for m in data.messages],
                           partitions=data.stage("partition"), raw_of=raw_of,
                           episodes=data.episodes)


def stored_partition_source(store: Store, run_id: str, window: int) -> PartitionSource:
    """From the store, without loading the run's texts, vectors or other stages."""
    return PartitionSource(window=window, message_ids=page_reads.message_ids(store, run_id),
                           partitions=records.load_events(store, run_id, stage="partition"),
                           raw_of=page_reads.raw_episode_of(store, run_id),
                           episodes=page_reads.episode_heads(store, run_id))


def _source(data: RunData | PartitionSource) -> PartitionSource:
    return data if isinstance(data, PartitionSource) else partition_source(data)


@dataclass(frozen=True)
class PartitionGroup:
    """One group a partition kept, and the reason for the cut before it."""
    window: int                 # 0-based, as the event stores it
    group: int                  # 1-based within its window
    message_ids: list[str]
    reason: str


def _groups(src: PartitionSource) -> list[PartitionGroup]:
    """Every partition group, window by window."""
    found = []
    for ev in src.partitions:
        p = ev.payload
        topics = p.topics
        # a repaired partition's groups no longer match the proposed topics, so none is kept
        missing = "not recorded: the partition was repaired" if p.repairs else ""
        for j, ids in enumerate(p.groups):
            found.append(PartitionGroup(
                window=ev.window, group=j + 1, message_ids=list(ids),
                reason=(topics[j] if j < len(topics) else "") or missing))
    return found


def _window_of(src: PartitionSource) -> list[int]:
    """The 1-based window of each message: as processed (a flush or an append can close a
    window early), then every w messages for those still in the buffer."""
    w = max(1, src.window)
    known: dict[str, int] = {}
    for ev in src.partitions:
        for mid in ev.payload.window_message_ids or ev.message_ids:
            known[mid] = ev.window + 1
    out, last, waiting = [], 0, 0
    for mid in src.message_ids:
        if mid in known:
            last = known[mid]
            out.append(last)
        else:
            out.append(last + 1 + waiting // w)
            waiting += 1
    return out


def frame_of(src: PartitionSource, messages: list[Message], first: int = 1) -> pd.DataFrame:
    """One row per message of `messages`, the run's messages from position `first` on: where
    it sits, its window, and the episodes it belongs to.

    `raw_episode` is the episode its partition group became; `episode` the active episode it
    ended up in after integration. Both are empty for windows not processed yet.
    """
    group_of = {mid: g for g in _groups(src) for mid in g.message_ids}
    window_of = _window_of(src)
    rows = []
    for pos, m in enumerate(messages, start=first):
        raw = src.raw_of.get(m.id)
        group = group_of.get(m.id)
        rows.append({"pos": pos, "message": m.id, "time": fmt_time(m.timestamp),
                     "speaker": m.speaker, "text": m.text, "session": m.session,
                     "window": window_of[pos - 1], "raw_episode": raw or "",
                     "episode": src.final(raw) if raw else "",
                     "group": group.group if group else None,
                     "reason": group.reason if group else ""})
    frame = pd.DataFrame(rows, columns=MESSAGE_COLUMNS)
    frame["group"] = frame["group"].astype("Int64")  # unprocessed windows have none
    return frame


def message_frame(data: RunData) -> pd.DataFrame:
    """Every message of a loaded run (see `frame_of`)."""
    return frame_of(partition_source(data), data.messages)


def message_page(store: Store, run_id: str, src: PartitionSource, offset: int,
                 limit: int = PAGE_ROWS) -> pd.DataFrame:
    """Messages `offset`+1 .. `offset`+`limit` of a stored run (see `frame_of`); of those
    `src` knows: a message added since it was read waits for the next read."""
    limit = min(limit, len(src.message_ids) - offset)
    return frame_of(src, page_reads.message_page(store, run_id, offset, limit), offset + 1)


@dataclass
class PartitionFigures:
    partitioned: bool       # some message is in a narrated episode
    raw_episodes: int       # episodes as partitioned, over the messages
    episodes: int           # the active episodes they ended up in


def partition_figures(src: PartitionSource) -> PartitionFigures:
    raws = {src.raw_of[mid] for mid in src.message_ids if src.raw_of.get(mid)}
    return PartitionFigures(partitioned=bool(raws), raw_episodes=len(raws),
                            episodes=len({src.final(r) for r in raws}))


def _as_indices(ids: list[str], window_ids: list[str]) -> list[int]:
    where = {mid: i for i, mid in enumerate(window_ids, start=1)}
    return [where.get(mid, 0) for mid in ids]


def _fmt_groups(groups: list[list[int]]) -> str:
    return " | ".join(",".join(str(i) for i in g) for g in groups)


def window_table(data: RunData | PartitionSource) -> pd.DataFrame:
    """One row per partitioned window: what was proposed, what was kept, and any repair."""
    rows = []
    for ev in _source(data).partitions:
        p = ev.payload
        ids = p.window_message_ids or ev.message_ids
        groups = [_as_indices(g, ids) for g in p.groups]
        proposed, repairs = p.proposed, p.repairs
        rows.append({"window": ev.window + 1,
                     "messages": f"{ids[0]}–{ids[-1]}" if ids else "",
                     "size": len(ids), "episodes": len(groups), "repaired": bool(repairs),
                     "proposed (1-based)": _fmt_groups(proposed),
                     "kept (1-based)": _fmt_groups(groups),
                     "repairs": "; ".join(repairs), "fallback": p.fallback or ""})
    return pd.DataFrame(rows, columns=["window", "messages", "size", "episodes", "repaired",
                                       "proposed (1-based)", "kept (1-based)", "repairs",
                                       "fallback"])


def cuts_table(data: RunData | PartitionSource) -> pd.DataFrame:
    """One row per partition group, with where it starts and why it was cut there."""
    src = _source(data)
    pos_of = {mid: i for i, mid in enumerate(src.message_ids, start=1)}
    rows = []
    for g in _groups(src):
        positions = sorted(pos_of[i] for i in g.message_ids if i in pos_of)
        if not positions:
            continue
        raw = src.raw_of.get(g.message_ids[0], "")
        rows.append({"window": g.window + 1, "group": g.group, "starts at": positions[0],
                     "ends at": positions[-1], "size": len(positions),
                     "contiguous": positions[-1] - positions[0] + 1 == len(positions),
                     "reason": g.reason, "raw episode": raw,
                     "episode now": src.final(raw) if raw else ""})
    return pd.DataFrame(rows, columns=["window", "group", "starts at", "ends at", "size",
                                       "contiguous", "reason", "raw episode", "episode now"])


def episodes_among(src: PartitionSource, message_ids) -> list[str]:
    """The episodes (as partitioned and merged) with a message among `message_ids`, in the
    order they were made: what a page of a big run offers to open, not all its thousands."""
    shown = set(message_ids)
    return [e.id for e in src.episodes if not shown.isdisjoint(e.message_ids)]


def boundaries(frame: pd.DataFrame, column: str = "raw_episode") -> list[int]:
    """Positions p where message p starts a different episode than message p-1 (same window)."""
    found = []
    prev = None
    for row in frame.itertuples(index=False):
        value = getattr(row, column)
        if prev is not None and value and prev[1] and value != prev[1] and prev[0] == row.window:
            found.append(row.pos)
        prev = (row.window, value)
    return found


@dataclass(frozen=True)
class SessionSpan:
    """Consecutive messages of one session, by 1-based position."""
    session: int
    first: int
    last: int


def session_spans(frame: pd.DataFrame) -> list[SessionSpan]:
    """Runs of consecutive messages from the same session."""
    spans: list[SessionSpan] = []
    for row in frame.itertuples(index=False):
        if spans and spans[-1].session == row.session:
            spans[-1] = replace(spans[-1], last=row.pos)
        else:
            spans.append(SessionSpan(session=row.session, first=row.pos, last=row.pos))
    return spans
