"""What the Live page shows of a run being fed: the buffer, the last window's story, a log of
windows, where appends started, and map positions that stay put while memory grows.

Everything is read from a stored run (`RunData`) through the views the other pages use, so the
Live page and the Partitions, Prediction error and Knowledge pages never disagree.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from .models import Message
from .projection import pca_basis, pca_project, point_vectors, points_frame
from .store.appends import AppendRecord
from .views.knowledge import decision_table
from .views.partitions import message_frame
from .views.prediction import comparison, evoked, surprise_table
from .views.prediction_records import Comparison, Evoked
from .views.run_data import RunData, derived

BASIS_POINTS = 12     # the map's axes are fitted on the run's first points, then kept


@dataclass(frozen=True)
class Buffer:
    """The messages waiting for their window to fill."""
    pending: list[Message]
    window: int                         # w: the window closes when `count` reaches it
    windows_done: int

    @property
    def count(self) -> int:
        return len(self.pending)


@dataclass(frozen=True)
class EpisodeStory:
    """One episode of a window, as the Live page tells it."""
    episode_id: str
    cue: str
    narrative: str
    integrated: bool                    # continues an earlier episode
    span: str
    messages: int
    covered: int                        # raw statements its prediction already held
    insights: int
    evoked: Evoked | None               # None in Nemori-s, which predicts nothing
    comparison: Comparison | None
    decisions: pd.DataFrame             # its rows of `decision_table`


@dataclass(frozen=True)
class AppendMarker:
    """Where an append started: `position` is its first message, 1-based; `end` is 0-based
    past its last, so the next append of a live feed continues it when it starts there."""
    position: int
    source: str
    count: int
    end: int
    first_window: int                   # 1-based
    seq: int


def buffer(data: RunData) -> Buffer:
    """The messages after the last processed window (waiting for their window to fill)."""
    frame = message_frame(data)
    done = frame.index[frame["raw_episode"] != ""]
    start = int(done.max()) + 1 if len(done) else 0
    return Buffer(pending=data.messages[start:], window=data.info.config.window,
                  windows_done=data.info.windows_done)


@derived
def windows_log(data: RunData) -> pd.DataFrame:
    """One row per processed window, newest first: what it did to the memory.

    Grouped once per table, not filtered per window: a filter per window made the Live page's
    first draw of a long run slow."""
    columns = ["window", "messages", "episodes", "insights", "predicted, not stored", "new",
               "merge", "already known", "conflict"]
    table = surprise_table(data)
    if table.empty:
        return pd.DataFrame(columns=columns)
    per = table.groupby("window").agg(first=("first", "min"), last=("last", "max"),
                                      episodes=("episode", "size"), insights=("insights", "sum"),
                                      covered=("covered", "sum"))
    acts = decision_table(data)
    merge = acts["action"] == "merge"
    unchanged = acts["note"].str.contains("merge changed nothing", regex=False).fillna(False) \
        .astype(bool)
    kinds = pd.DataFrame({"window": acts["window"] + 1, "new": acts["action"] == "new",
                          "merge": merge & ~unchanged, "already known": merge & unchanged,
                          "conflict": acts["action"] == "conflict"}).astype(int)
    counted = kinds.groupby("window").sum().reindex(per.index, fill_value=0)
    log = pd.DataFrame({
        "window": per.index.astype(int),
        "messages": [f"{a}–{b}" for a, b in zip(per["first"], per["last"])],
        "episodes": per["episodes"].astype(int).values,
        "insights": per["insights"].astype(int).values,
        "predicted, not stored": per["covered"].astype(int).values,
        **{k: counted[k].astype(int).values for k in ("new", "merge", "already known",
                                                      "conflict")}}, columns=columns)
    return log.sort_values("window", ascending=False).reset_index(drop=True)


def last_window(data: RunData) -> int | None:
    """The newest processed window (1-based), None before the first one closes."""
    table = surprise_table(data)
    return int(table["window"].max()) if len(table) else None


def window_story(data: RunData, window: int) -> list[EpisodeStory]:
    """Each episode the window (1-based) produced, in order: its narrative, what its cue
    evoked against τ, its prediction beside the real messages, its insights and decisions."""
    table = surprise_table(data)
    decisions = decision_table(data)
    story = []
    for row in table[table["window"] == window].itertuples(index=False):
        episode = data.episode_by_id.get(row.episode)
        story.append(EpisodeStory(
            episode_id=row.episode, cue=episode.cue if episode else row.cue,
            narrative=episode.narrative if episode else "",
            integrated=bool(episode and episode.supersedes), span=row.span,
            messages=int(row.messages), covered=int(row.covered), insights=int(row.insights),
            evoked=evoked(data, row.episode), comparison=comparison(data, row.episode),
            decisions=decisions[decisions["episode"] == row.episode].reset_index(drop=True)))
    return story


def window_moments(data: RunData) -> dict[int, list[str]]:
    """What each processed window (1-based) is worth showing for: statements its prediction
    already held ("predicted, not stored") and conflicts it resolved, oldest first."""
    log = windows_log(data)
    moments: dict[int, list[str]] = {}
    for row in log.sort_values("window").itertuples(index=False):
        found = []
        if row[log.columns.get_loc("predicted, not stored")]:
            found.append("predicted, not stored")
        if row.conflict:
            found.append("conflict")
        moments[int(row.window)] = found
    return moments


def last_typed_time(data: RunData):
    """The newest message's time, which a message typed next follows."""
    times = [m.timestamp for m in data.messages if m.timestamp is not None]
    return max(times) if times else None


def predicted_not_stored(data: RunData) -> int:
    """Raw statements over the whole run that a prediction already held."""
    table = surprise_table(data)
    return int(table["covered"].sum()) if len(table) else 0


def append_markers(records: list[AppendRecord]) -> list[AppendMarker]:
    """Where appends started: consecutive appends of one source (a live feed adds one message
    at a time) are one marker at the first message."""
    markers: list[AppendMarker] = []
    for r in records:
        last = markers[-1] if markers else None
        if last and last.source == r.source and last.end == r.first_idx:
            markers[-1] = replace(last, end=last.end + r.count, count=last.count + r.count)
            continue
        markers.append(AppendMarker(position=r.first_idx + 1, source=r.source, count=r.count,
                                    end=r.first_idx + r.count, first_window=r.first_window + 1,
                                    seq=r.seq))
    return markers


@derived
def stable_map(data: RunData) -> pd.DataFrame:
    """Every episode and memory with a vector, at x, y in axes fitted on the run's first
    BASIS_POINTS points (in the order they were made) and then kept: later points never move
    earlier ones, and the same run draws the same map after a restart. Worked out once per
    load: the Live panel redraws every few seconds while the run stays the same."""
    frame = points_frame(data)
    if frame.empty:
        return frame.assign(x=[], y=[], newest=[])
    vectors = point_vectors(data, frame)
    order = frame.sort_values(["window", "kind", "id"], kind="stable").index[:BASIS_POINTS]
    basis_rows = vectors[order] if len(order) >= 2 else vectors
    xy = pca_project(vectors, pca_basis(basis_rows)) if len(frame) >= 2 else \
        np.zeros((len(frame), 2), dtype=np.float32)
    newest = frame["window"] == frame["window"].max()
    return frame.assign(x=xy[:, 0], y=xy[:, 1], newest=newest.values)
