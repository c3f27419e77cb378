"""A reader's marks on a run's decisions: each stage event marked right or wrong, with the
decision the reader says is right; listed, exported as a labelled set, and compared with what
the engine decided."""

from __future__ import annotations

import json
from typing import Literal

from pydantic import BaseModel

from ..errors import InputError
from . import records
from .db import Store, now_iso

Verdict = Literal["right", "wrong"]


class Mark(BaseModel):
    run_id: str
    seq: int                     # the event marked
    stage: str
    verdict: Verdict
    correction: str = ""         # with "wrong": what the decision should have been
    marked_at: str


class Agreement(BaseModel):
    stage: str
    marked: int
    right: int
    share: float                 # of the marked decisions, those the reader calls right


def set_mark(store: Store, run_id: str, seq: int, verdict: str, correction: str = "") -> Mark:
    """Mark the run's decision `seq`; marking it again replaces the mark."""
    if verdict not in ("right", "wrong"):
        raise InputError(f"a mark is 'right' or 'wrong', not {verdict!r}")
    found = store.query("SELECT stage FROM events WHERE run_id = ? AND seq = ?", (run_id, seq))
    if not found:
        raise InputError(f"run {run_id} has no decision {seq} to mark")
    mark = Mark(run_id=run_id, seq=seq, stage=found[0]["stage"], verdict=verdict,
                correction=correction.strip() if verdict == "wrong" else "", marked_at=now_iso())
    with store.tx() as conn:
        conn.execute("INSERT OR REPLACE INTO marks VALUES (?, ?, ?, ?, ?, ?)",
                     (run_id, seq, mark.stage, mark.verdict, mark.correction, mark.marked_at))
    return mark


def clear_mark(store: Store, run_id: str, seq: int) -> None:
    with store.tx() as conn:
        conn.execute("DELETE FROM marks WHERE run_id = ? AND seq = ?", (run_id, seq))


def load_marks(store: Store, run_id: str) -> list[Mark]:
    rows = store.query("SELECT * FROM marks WHERE run_id = ? ORDER BY seq", (run_id,))
    return [Mark(**dict(r)) for r in rows]


def agreement(marks: list[Mark]) -> list[Agreement]:
    """Per stage, how often the engine decided as the reader says it should have."""
    out = []
    for stage in dict.fromkeys(m.stage for m in marks):
        mine = [m for m in marks if m.stage == stage]
        right = sum(m.verdict == "right" for m in mine)
        out.append(Agreement(stage=stage, marked=len(mine), right=right,
                             share=round(right / len(mine), 3)))
    return out


def labelled_set(store: Store, run_id: str) -> str:
    """The marked decisions as JSON lines: the decision as recorded, beside the reader's mark."""
    marks = {m.seq: m for m in load_marks(store, run_id)}
    lines = []
    for event in records.load_events(store, run_id):
        mark = marks.get(event.seq)
        if mark is not None:
            lines.append(json.dumps({
                "run_id": run_id, "seq": event.seq, "stage": event.stage,
                "window": event.window, "decision": event.payload.model_dump(mode="json"),
                "verdict": mark.verdict, "correction": mark.correction},
                ensure_ascii=False))
    return "\n".join(lines) + ("\n" if lines else "")
