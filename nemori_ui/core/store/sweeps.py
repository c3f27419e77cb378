"""Named sweeps: a grid run over several conversations, and which runs are its points.

A run joins a sweep when its point lands (or when a stored run is reused as a point), so a
sweep that was cancelled or whose process died still lists what it finished.
"""

from __future__ import annotations

import json
import secrets

from pydantic import BaseModel

from .db import Store, now_iso


class SweepInfo(BaseModel):
    id: str
    name: str
    created_at: str
    grid: dict[str, list]
    conversations: list[str]        # the keys of its conversations, in the order chosen


class SweepMember(BaseModel):
    sweep_id: str
    run_id: str
    point: str                      # the point's name, "tau=0.6 window=8"
    conversation: str               # the conversation's key, "source · id"


def merged_grid(old: dict[str, list], new: dict[str, list]) -> dict[str, list]:
    """Every value of either grid, per parameter, in first-seen order."""
    out = {k: list(v) for k, v in old.items()}
    for name, values in new.items():
        out.setdefault(name, [])
        out[name] += [v for v in values if v not in out[name]]
    return out


def open_sweep(store: Store, name: str, grid: dict[str, list],
               conversations: list[str]) -> SweepInfo:
    """The sweep of this name, created or, when one exists, widened to this grid and these
    conversations: a name is one sweep, so running it again adds to it instead of
    listing a second sweep of the same name."""
    with store.tx() as conn:
        row = conn.execute("SELECT * FROM sweeps WHERE name = ? ORDER BY rowid LIMIT 1",
                           (name,)).fetchone()
        if row is None:
            info = SweepInfo(id="sweep-" + secrets.token_hex(4), name=name,
                             created_at=now_iso(), grid=grid, conversations=conversations)
            conn.execute("INSERT INTO sweeps VALUES (?, ?, ?, ?, ?)",
                         (info.id, info.name, info.created_at, json.dumps(info.grid),
                          json.dumps(info.conversations)))
            return info
        old = _info(row)
        # an UPDATE, not a REPLACE: a replaced row would take its points with it (cascade)
        info = old.model_copy(update={
            "grid": merged_grid(old.grid, grid),
            "conversations": old.conversations + [c for c in conversations
                                                  if c not in old.conversations]})
        conn.execute("UPDATE sweeps SET grid_json = ?, conversations_json = ? WHERE id = ?",
                     (json.dumps(info.grid), json.dumps(info.conversations), info.id))
    return info


def add_point(store: Store, sweep_id: str, run_id: str, point: str, conversation: str) -> None:
    with store.tx() as conn:
        conn.execute("INSERT OR REPLACE INTO sweep_runs VALUES (?, ?, ?, ?)",
                     (sweep_id, run_id, point, conversation))


def _info(row) -> SweepInfo:
    return SweepInfo(id=row["id"], name=row["name"], created_at=row["created_at"],
                     grid=json.loads(row["grid_json"]),
                     conversations=json.loads(row["conversations_json"]))


def list_sweeps(store: Store) -> list[SweepInfo]:
    """Every sweep, newest first."""
    rows = store.query("SELECT * FROM sweeps ORDER BY created_at DESC, rowid DESC")
    return [_info(r) for r in rows]


def get_sweep(store: Store, sweep_id: str) -> SweepInfo | None:
    rows = store.query("SELECT * FROM sweeps WHERE id = ?", (sweep_id,))
    return _info(rows[0]) if rows else None


def members(store: Store, sweep_id: str | None = None) -> list[SweepMember]:
    """The points of one sweep, or of every sweep, in the order they landed."""
    sql = "SELECT * FROM sweep_runs" + (" WHERE sweep_id = ?" if sweep_id else "")
    rows = store.query(sql + " ORDER BY rowid", (sweep_id,) if sweep_id else ())
    return [SweepMember(**dict(r)) for r in rows]


def delete_sweep(store: Store, sweep_id: str) -> None:
    """The sweep and its list of points; the runs stay."""
    with store.tx() as conn:
        conn.execute("DELETE FROM sweeps WHERE id = ?", (sweep_id,))
