"""Reading and writing a run's contents: messages, episodes, memories, events, LLM calls."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Iterable

import numpy as np
from pydantic import ValidationError

from ..errors import RunTaken, StoreError
from ..models import Episode, LLMCallRecord, Message, SemanticMemory
from ..stage_events import StageEvent, load_event
from .db import Store, now_iso


def _blob(vec: list[float] | None) -> bytes | None:
    return None if vec is None else np.asarray(vec, dtype=np.float32).tobytes()


def _vec(blob: bytes | None) -> list[float] | None:
    return None if blob is None else np.frombuffer(blob, dtype=np.float32).tolist()


def _ts(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


def save_window(store: Store, run_id: str, window: int, *, episodes: Iterable[Episode],
                memories: Iterable[SemanticMemory], events: Iterable[StageEvent],
                calls: Iterable[LLMCallRecord]) -> None:
    """Commit everything one window produced, and the run's progress, atomically.

    A run killed before this commit redoes the window on resume (its LLM replies come from the
    cache); one killed after it resumes at the next window. Either way nothing is duplicated.
    Two processes resuming the same run both compute the window; only the first may save it.
    """
    with store.tx() as conn:
        claimed = conn.execute("UPDATE runs SET windows_done = ?, updated_at = ? "
                               "WHERE id = ? AND windows_done = ?",
                               (window + 1, now_iso(), run_id, window)).rowcount
        if claimed != 1:
            raise RunTaken(f"run {run_id} is being run by another process, which saved window "
                           f"{window + 1} first; this process stopped without writing it")
        write_items(conn, run_id, episodes, memories)
        conn.executemany(
            "INSERT OR REPLACE INTO events VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(run_id, ev.seq, ev.window, ev.stage, json.dumps(ev.payload.stored()),
              json.dumps(ev.message_ids), json.dumps(ev.episode_ids), json.dumps(ev.memory_ids),
              json.dumps(ev.call_ids)) for ev in events])
        conn.executemany(
            "INSERT OR REPLACE INTO llm_calls VALUES (?, ?, ?, ?, ?)",
            [(run_id, c.id, window, c.prompt_name, c.model_dump_json()) for c in calls])


def write_items(conn, run_id: str, episodes: Iterable[Episode],
                memories: Iterable[SemanticMemory]) -> None:
    """Within the caller's transaction: the rows of these episodes and memories, as they are."""
    conn.executemany(
        "INSERT OR REPLACE INTO episodes VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [(run_id, e.id, e.window, e.cue, e.narrative, json.dumps(e.message_ids), e.status,
          e.superseded_by, json.dumps(e.supersedes), _ts(e.start), _ts(e.end),
          _blob(e.embedding)) for e in episodes])
    conn.executemany(
        "INSERT OR REPLACE INTO memories VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [(run_id, m.id, m.window, m.text, m.status, m.superseded_by, json.dumps(m.supersedes),
          m.origin, json.dumps(m.source_episode_ids), json.dumps(m.source_message_ids),
          _blob(m.embedding)) for m in memories])


def save_edits(store: Store, run_id: str, *, episodes: Iterable[Episode] = (),
               memories: Iterable[SemanticMemory] = ()) -> None:
    """Episodes and memories changed outside a window (an update or delete through the API);
    the run's progress is untouched."""
    with store.tx() as conn:
        write_items(conn, run_id, episodes, memories)
        conn.execute("UPDATE runs SET updated_at = ? WHERE id = ?", (now_iso(), run_id))


def save_calls(store: Store, run_id: str, window: int, calls: Iterable[LLMCallRecord]) -> None:
    """Call records outside a window's commit: each as it completes, and those of a window
    that failed."""
    rows = [(run_id, c.id, window, c.prompt_name, c.model_dump_json()) for c in calls]
    if rows:
        with store.tx() as conn:
            conn.executemany("INSERT OR REPLACE INTO llm_calls VALUES (?, ?, ?, ?, ?)", rows)


def load_messages(store: Store, run_id: str) -> list[Message]:
    rows = store.query("SELECT * FROM messages WHERE run_id = ? ORDER BY idx", (run_id,))
    return [Message(id=r["id"], speaker=r["speaker"], role=r["role"], text=r["text"],
                    timestamp=r["timestamp"], session=r["session"], source_ref=r["source_ref"])
            for r in rows]


def load_episodes(store: Store, run_id: str, *, with_vectors: bool = True) -> list[Episode]:
    rows = store.query("SELECT * FROM episodes WHERE run_id = ? ORDER BY rowid", (run_id,))
    return [Episode(id=r["id"], window=r["window"], cue=r["cue"], narrative=r["narrative"],
                    message_ids=json.loads(r["message_ids"]), status=r["status"],
                    superseded_by=r["superseded_by"], supersedes=json.loads(r["supersedes"]),
                    start=r["start"], end=r["end"],
                    embedding=_vec(r["embedding"]) if with_vectors else None) for r in rows]


def load_memories(store: Store, run_id: str, *, with_vectors: bool = True) -> list[SemanticMemory]:
    rows = store.query("SELECT * FROM memories WHERE run_id = ? ORDER BY rowid", (run_id,))
    return [SemanticMemory(id=r["id"], window=r["window"], text=r["text"], status=r["status"],
                           superseded_by=r["superseded_by"], supersedes=json.loads(r["supersedes"]),
                           origin=r["origin"], source_episode_ids=json.loads(r["source_episode_ids"]),
                           source_message_ids=json.loads(r["source_message_ids"]),
                           embedding=_vec(r["embedding"]) if with_vectors else None) for r in rows]


def load_events(store: Store, run_id: str, stage: str | None = None,
                window: int | None = None) -> list[StageEvent]:
    sql, params = "SELECT * FROM events WHERE run_id = ?", [run_id]
    if stage:
        sql += " AND stage = ?"
        params.append(stage)
    if window is not None:
        sql += " AND window = ?"
        params.append(window)
    rows = store.query(sql + " ORDER BY seq", tuple(params))
    return [_event(run_id, r) for r in rows]


def event_windows(store: Store, run_id: str) -> list[int]:
    """The windows of a run that have recorded any decision, in order."""
    rows = store.query("SELECT DISTINCT window FROM events WHERE run_id = ? ORDER BY window",
                       (run_id,))
    return [r[0] for r in rows]


def _event(run_id: str, row) -> StageEvent:
    """A stored event validated into its stage's model; what is wrong is named with the row."""
    fields = {"stage": row["stage"], "window": row["window"], "seq": row["seq"]}
    try:
        fields.update({key: json.loads(row[key]) for key in
                       ("payload", "message_ids", "episode_ids", "memory_ids", "call_ids")})
        return load_event(fields)
    except ValidationError as exc:
        what = "; ".join(_problem(err) for err in exc.errors())
        raise StoreError(f"run {run_id}, event {row['seq']} ({row['stage']}) cannot be read: "
                         f"{what}") from exc
    except ValueError as exc:  # not JSON at all
        raise StoreError(f"run {run_id}, event {row['seq']} ({row['stage']}) cannot be read: "
                         f"{exc}") from exc


def _problem(err) -> str:
    # the first place is the stage the union picked: the rest says where in the event
    where = ".".join(str(part) for part in err["loc"][1:])
    return f"field '{where}': {err['msg']}" if where else err["msg"]


def load_calls(store: Store, run_id: str) -> list[LLMCallRecord]:
    rows = store.query("SELECT record FROM llm_calls WHERE run_id = ? ORDER BY rowid", (run_id,))
    return [LLMCallRecord.model_validate_json(r["record"]) for r in rows]


def load_calls_by_id(store: Store, run_id: str, ids: list[str]) -> list[LLMCallRecord]:
    """The run's calls of these ids (those it holds), in the order they were made."""
    if not ids:
        return []
    marks = ",".join("?" * len(ids))
    rows = store.query(f"SELECT record FROM llm_calls WHERE run_id = ? AND id IN ({marks}) "
                       "ORDER BY rowid", (run_id, *ids))
    return [LLMCallRecord.model_validate_json(r["record"]) for r in rows]


def next_event_seq(store: Store, run_id: str) -> int:
    return store.query("SELECT coalesce(max(seq), -1) + 1 FROM events WHERE run_id = ?",
                       (run_id,))[0][0]
