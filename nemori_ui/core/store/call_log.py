"""LLM calls made outside a run's windows (Ask, evaluation answers, the judge)."""

from __future__ import annotations

from ..models import LLMCallRecord
from .db import Store, now_iso


def save_calls(store: Store, calls: list[LLMCallRecord]) -> None:
    if not calls:
        return
    with store.tx() as conn:
        conn.executemany(
            "INSERT OR REPLACE INTO call_log VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [(c.id, c.kind, (c.context or {}).get("run_id"), (c.context or {}).get("eval_id"),
              (c.context or {}).get("item_id"), c.prompt_name, now_iso(), c.model_dump_json())
             for c in calls])


def _load(store: Store, where: str, params: tuple) -> list[LLMCallRecord]:
    rows = store.query(f"SELECT record FROM call_log WHERE {where} ORDER BY rowid", params)
    return [LLMCallRecord.model_validate_json(r["record"]) for r in rows]


def calls_of_run(store: Store, run_id: str, kind: str | None = None) -> list[LLMCallRecord]:
    """Calls made on a run's memory after it was built: Ask, and evaluations that used it."""
    if kind:
        return _load(store, "run_id = ? AND kind = ?", (run_id, kind))
    return _load(store, "run_id = ?", (run_id,))


def calls_of_eval(store: Store, eval_id: str) -> list[LLMCallRecord]:
    return _load(store, "eval_id = ?", (eval_id,))
