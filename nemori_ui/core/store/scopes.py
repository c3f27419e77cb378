"""Whose memory a run is: one run per (user_id, agent_id), as mem0 scopes its memories.

A run is one conversation's memory (its episodes follow the conversation's order), so a scope
maps onto a whole run, never onto rows inside one: two users' messages never share a window.
An id left out is stored as '' (no user, or no agent).
"""

from __future__ import annotations

from .db import Store


def run_of(store: Store, user_id: str, agent_id: str) -> str | None:
    rows = store.query("SELECT run_id FROM run_scopes WHERE user_id = ? AND agent_id = ?",
                       (user_id, agent_id))
    return rows[0]["run_id"] if rows else None


def scope_of(store: Store, run_id: str) -> tuple[str, str] | None:
    rows = store.query("SELECT user_id, agent_id FROM run_scopes WHERE run_id = ?", (run_id,))
    return (rows[0]["user_id"], rows[0]["agent_id"]) if rows else None


def bind(store: Store, run_id: str, user_id: str, agent_id: str) -> str:
    """Give the scope to `run_id` unless another run took it first (two processes creating
    the same user's memory at once): the run that holds the scope."""
    with store.tx() as conn:
        conn.execute("INSERT OR IGNORE INTO run_scopes VALUES (?, ?, ?)",
                     (run_id, user_id, agent_id))
        return conn.execute("SELECT run_id FROM run_scopes WHERE user_id = ? AND agent_id = ?",
                            (user_id, agent_id)).fetchone()[0]
