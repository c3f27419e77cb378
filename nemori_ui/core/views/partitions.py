"""Where the transcript was cut into episodes: per message, per window, per cut.

Positions are 1-based transcript order; windows are shown 1-based.
"""

from __future__ import annotations

import pandas as pd

from .episodes import final_episode_id, fmt_time
from .run_data import RunData

MESSAGE_COLUMNS = ["pos", "message", "time", "speaker", "text", "session", "window",
                   "raw_episode", "episode", "group", "reason"]


def _raw_episode_of(data: RunData) -> dict[str, str]:
    """Message id -> the episode its partition group was narrated as (before any merge)."""
    found: dict[str, str] = {}
    for ev in data.stage("narrate"):
        for mid in ev.message_ids:
            found.setdefault(mid, ev.payload.episode_id)
    return found


def _groups(data: RunData) -> list[dict]:
    """Every partition group: window, index within it, message ids, and the reason for the cut."""
    found = []
    for ev in data.stage("partition"):
        p = ev.payload
        topics = p.topics
        # a repaired partition's groups no longer match the proposed topics, so none is kept
        missing = "not recorded: the partition was repaired" if p.repairs else ""
        for j, ids in enumerate(p.groups):
            found.append({"window": ev.window, "group": j + 1, "message_ids": list(ids),
                          "reason": (topics[j] if j < len(topics) else "") or missing})
    return found


def _window_of(data: RunData) -> list[int]:
    """The 1-based window of each message: as processed (a flush or an append can close a
    window early), then every w messages for those still in the buffer."""
    w = max(1, data.info.config.window)
    known: dict[str, int] = {}
    for ev in data.stage("partition"):
        for mid in ev.payload.window_message_ids or ev.message_ids:
            known[mid] = ev.window + 1
    out, last, waiting = [], 0, 0
    for m in data.messages:
        if m.id in known:
            last = known[m.id]
            out.append(last)
        else:
            out.append(last + 1 + waiting // w)
            waiting += 1
    return out


def message_frame(data: RunData) -> pd.DataFrame:
    """One row per message: where it sits, its window, and the episodes it belongs to.

    `raw_episode` is the episode its partition group became; `episode` the active episode it
    ended up in after integration. Both are empty for windows not processed yet.
    """
    raw_of = _raw_episode_of(data)
    group_of = {mid: g for g in _groups(data) for mid in g["message_ids"]}
    window_of = _window_of(data)
    rows = []
    for pos, m in enumerate(data.messages, start=1):
        raw = raw_of.get(m.id)
        group = group_of.get(m.id)
        rows.append({"pos": pos, "message": m.id, "time": fmt_time(m.timestamp),
                     "speaker": m.speaker, "text": m.text, "session": m.session,
                     "window": window_of[pos - 1], "raw_episode": raw or "",
                     "episode": (final_episode_id(data, raw) or "") if raw else "",
                     "group": group["group"] if group else None,
                     "reason": group["reason"] if group else ""})
    frame = pd.DataFrame(rows, columns=MESSAGE_COLUMNS)
    frame["group"] = frame["group"].astype("Int64")  # unprocessed windows have none
    return frame


def _as_indices(ids: list[str], window_ids: list[str]) -> list[int]:
    where = {mid: i for i, mid in enumerate(window_ids, start=1)}
    return [where.get(mid, 0) for mid in ids]


def _fmt_groups(groups: list[list[int]]) -> str:
    return " | ".join(",".join(str(i) for i in g) for g in groups)


def window_table(data: RunData) -> pd.DataFrame:
    """One row per partitioned window: what was proposed, what was kept, and any repair."""
    rows = []
    for ev in data.stage("partition"):
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


def cuts_table(data: RunData) -> pd.DataFrame:
    """One row per partition group, with where it starts and why it was cut there."""
    pos_of = {m.id: i for i, m in enumerate(data.messages, start=1)}
    raw_of = _raw_episode_of(data)
    rows = []
    for g in _groups(data):
        positions = sorted(pos_of[i] for i in g["message_ids"] if i in pos_of)
        if not positions:
            continue
        raw = raw_of.get(g["message_ids"][0], "")
        rows.append({"window": g["window"] + 1, "group": g["group"], "starts at": positions[0],
                     "ends at": positions[-1], "size": len(positions),
                     "contiguous": positions[-1] - positions[0] + 1 == len(positions),
                     "reason": g["reason"], "raw episode": raw,
                     "episode now": (final_episode_id(data, raw) or "") if raw else ""})
    return pd.DataFrame(rows, columns=["window", "group", "starts at", "ends at", "size",
                                       "contiguous", "reason", "raw episode", "episode now"])


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


def session_spans(frame: pd.DataFrame) -> list[dict]:
    """Runs of consecutive messages from the same session: session, first and last position."""
    spans: list[dict] = []
    for row in frame.itertuples(index=False):
        if spans and spans[-1]["session"] == row.session:
            spans[-1]["last"] = row.pos
        else:
            spans.append({"session": row.session, "first": row.pos, "last": row.pos})
    return spans
