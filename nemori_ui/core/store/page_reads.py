"""What the pages read of a run without loading it whole.

A 20,000-message run holds tens of megabytes of stage events and a vector per episode and
memory: loading it all took the Overview 35 s. Here SQLite counts and tallies, only the
columns a page shows are read, and messages come a page at a time. Payloads are stored
without their unset fields, so each tally reads a missing field as the model's default.
"""

from __future__ import annotations

import json

from pydantic import BaseModel

from ..models import Message
from .db import Store

DECISIONS = ("new", "merge", "conflict")


class LLMTotals(BaseModel):
    calls: int = 0          # calls made (not answered from the cache)
    cached: int = 0
    failed: int = 0
    input_tokens: int = 0   # of the calls made
    output_tokens: int = 0


class RunCounts(BaseModel):
    """A run's headline tallies, as the Overview and `run` print them."""
    messages: int = 0
    raw_episodes: int = 0       # narrated, before integration
    episodes: int = 0           # active
    integrated: int = 0         # episodes merged into an earlier one
    insights: int = 0
    # statements a prediction from earlier episodes held, so not stored (as the stage events
    # class them; a run stored before they were classed counts none here)
    predicted: int = 0
    semantic_memories: int = 0  # active
    decisions: dict[str, int] = {k: 0 for k in DECISIONS}
    llm: LLMTotals = LLMTotals()


def _one(store: Store, sql: str, run_id: str) -> int:
    return store.query(sql, (run_id,))[0][0] or 0


def llm_totals(store: Store, run_id: str) -> LLMTotals:
    [row] = store.query(
        "SELECT count(*) AS n, sum(cached) AS cached, sum(status = 'failed') AS failed, "
        "sum(CASE WHEN cached THEN 0 ELSE input_tokens END) AS input_tokens, "
        "sum(CASE WHEN cached THEN 0 ELSE output_tokens END) AS output_tokens FROM ("
        "SELECT coalesce(json_extract(record, '$.cached'), 0) AS cached, "
        "json_extract(record, '$.status') AS status, "
        "coalesce(json_extract(record, '$.input_tokens'), 0) AS input_tokens, "
        "coalesce(json_extract(record, '$.output_tokens'), 0) AS output_tokens "
        "FROM llm_calls WHERE run_id = ?)", (run_id,))
    cached = row["cached"] or 0
    return LLMTotals(calls=row["n"] - cached, cached=cached, failed=row["failed"] or 0,
                     input_tokens=row["input_tokens"] or 0,
                     output_tokens=row["output_tokens"] or 0)


def run_counts(store: Store, run_id: str) -> RunCounts:
    events = "FROM events WHERE run_id = ? AND stage = "
    decisions = {r["action"]: r["n"] for r in store.query(
        "SELECT json_extract(payload, '$.action') AS action, count(*) AS n "
        f"{events}'consolidate' GROUP BY action", (run_id,))}
    return RunCounts(
        messages=_one(store, "SELECT count(*) FROM messages WHERE run_id = ?", run_id),
        raw_episodes=_one(store, f"SELECT count(*) {events}'narrate'", run_id),
        episodes=_one(store, "SELECT count(*) FROM episodes WHERE run_id = ? "
                             "AND status = 'active'", run_id),
        integrated=_one(store, "SELECT count(*) " + events + "'integrate' "
                               "AND coalesce(json_extract(payload, '$.choice'), -1) != -1",
                        run_id),
        insights=_one(store, "SELECT sum(coalesce(json_array_length(payload, '$.insights'), 0)) "
                             + events + "'distill'", run_id),
        predicted=_one(store, "SELECT count(*) FROM events, json_each(events.payload, "
                              "'$.covered') AS c WHERE run_id = ? AND stage = 'distill' AND "
                              "json_extract(c.value, '$.kind') = 'predicted'", run_id),
        semantic_memories=_one(store, "SELECT count(*) FROM memories WHERE run_id = ? "
                                      "AND status = 'active'", run_id),
        decisions={k: decisions.get(k, 0) for k in DECISIONS},
        llm=llm_totals(store, run_id))


# ---- id-level links: small even for a big run -------------------------------------------

def message_ids(store: Store, run_id: str) -> list[str]:
    """Every message id of the run, in transcript order."""
    return [r[0] for r in store.query("SELECT id FROM messages WHERE run_id = ? ORDER BY idx",
                                      (run_id,))]


def raw_episode_of(store: Store, run_id: str) -> dict[str, str]:
    """Message id -> the episode its partition group was narrated as (the first, by seq)."""
    found: dict[str, str] = {}
    for row in store.query("SELECT json_extract(payload, '$.episode_id') AS episode, "
                           "message_ids FROM events WHERE run_id = ? AND stage = 'narrate' "
                           "ORDER BY seq", (run_id,)):
        for mid in json.loads(row["message_ids"]):
            found.setdefault(mid, row["episode"])
    return found


class EpisodeHead(BaseModel):
    """An episode as a chooser lists it: no narrative, no vector."""
    id: str
    window: int
    cue: str
    status: str
    superseded_by: str | None = None
    message_ids: list[str] = []


def episode_heads(store: Store, run_id: str) -> list[EpisodeHead]:
    """The run's episodes in the order they were made."""
    return [EpisodeHead(id=r["id"], window=r["window"], cue=r["cue"], status=r["status"],
                        superseded_by=r["superseded_by"],
                        message_ids=json.loads(r["message_ids"]))
            for r in store.query("SELECT id, window, cue, status, superseded_by, message_ids "
                                 "FROM episodes WHERE run_id = ? ORDER BY rowid", (run_id,))]


# ---- messages a page at a time ----------------------------------------------------------

MESSAGE_COLUMNS = "id, speaker, role, text, timestamp, session, source_ref"


def _message(r) -> Message:
    return Message(id=r["id"], speaker=r["speaker"], role=r["role"], text=r["text"],
                   timestamp=r["timestamp"], session=r["session"], source_ref=r["source_ref"])


def message_page(store: Store, run_id: str, offset: int, limit: int) -> list[Message]:
    """Messages `offset`+1 .. `offset`+`limit` in transcript order (0-based offset)."""
    return [_message(r) for r in store.query(
        f"SELECT {MESSAGE_COLUMNS} FROM messages WHERE run_id = ? ORDER BY idx "
        "LIMIT ? OFFSET ?", (run_id, max(0, limit), max(0, offset)))]


def messages_by_id(store: Store, run_id: str, ids: list[str]) -> list[Message]:
    """The run's messages of these ids (those it holds), in transcript order."""
    if not ids:
        return []
    marks = ",".join("?" * len(ids))
    return [_message(r) for r in store.query(
        f"SELECT {MESSAGE_COLUMNS} FROM messages WHERE run_id = ? AND id IN ({marks}) "
        "ORDER BY idx", (run_id, *ids))]
