"""Runs: create, list, rename, delete, and their progress."""

from __future__ import annotations

import json
import secrets
from datetime import datetime, timezone

from pydantic import BaseModel

from ..config import PipelineConfig
from ..models import Conversation
from .db import Store, now_iso


class RunInfo(BaseModel):
    id: str
    name: str
    created_at: str
    updated_at: str
    status: str
    source: str
    format: str
    conversation_id: str
    config: PipelineConfig
    fingerprint: str
    decider: str
    windows_total: int
    windows_done: int
    seconds: float
    error: str | None = None


def new_run_id() -> str:
    return datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S-") + secrets.token_hex(3)


def create_run(store: Store, conv: Conversation, config: PipelineConfig, *, source: str,
               fmt: str, decider: str, windows_total: int, name: str | None = None) -> str:
    """Store the run and its messages in one transaction."""
    run_id = new_run_id()
    stamp = now_iso()
    with store.tx() as conn:
        conn.execute(
            "INSERT INTO runs (id, name, created_at, updated_at, status, source, format, "
            "conversation_id, config_json, fingerprint, decider, windows_total) "
            "VALUES (?, ?, ?, ?, 'running', ?, ?, ?, ?, ?, ?, ?)",
            (run_id, name or f"{conv.id} · {config.variant} · τ={config.tau:g} · w={config.window}",
             stamp, stamp, source, fmt, conv.id, config.model_dump_json(), config.fingerprint(),
             decider, windows_total))
        conn.executemany(
            "INSERT INTO messages VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(run_id, m.id, i, m.speaker, m.role, m.text,
              m.timestamp.isoformat() if m.timestamp else None, m.session, m.source_ref)
             for i, m in enumerate(conv.messages)])
    return run_id


def _info(row) -> RunInfo:
    data = dict(row)
    data["config"] = PipelineConfig.model_validate_json(data.pop("config_json"))
    return RunInfo(**data)


def get_run(store: Store, run_id: str) -> RunInfo:
    rows = store.query("SELECT * FROM runs WHERE id = ?", (run_id,))
    if not rows:
        raise KeyError(f"no run '{run_id}' in {store.path}")
    return _info(rows[0])


def list_runs(store: Store) -> list[RunInfo]:
    return [_info(r) for r in store.query("SELECT * FROM runs ORDER BY created_at DESC, id DESC")]


def find_resumable(store: Store, conversation_id: str, source: str, fingerprint: str) -> str | None:
    """An unfinished run of the same conversation and configuration, to continue."""
    rows = store.query(
        "SELECT id FROM runs WHERE conversation_id = ? AND source = ? AND fingerprint = ? "
        "AND status IN ('running', 'interrupted', 'failed') ORDER BY created_at DESC LIMIT 1",
        (conversation_id, source, fingerprint))
    return rows[0]["id"] if rows else None


def set_status(store: Store, run_id: str, status: str, *, error: str | None = None,
               add_seconds: float = 0.0) -> None:
    with store.tx() as conn:
        conn.execute("UPDATE runs SET status = ?, error = ?, seconds = seconds + ?, updated_at = ? "
                     "WHERE id = ?", (status, error, add_seconds, now_iso(), run_id))


def rename_run(store: Store, run_id: str, name: str) -> None:
    name = name.strip()
    if not name:
        raise ValueError("a run name cannot be empty")
    with store.tx() as conn:
        conn.execute("UPDATE runs SET name = ?, updated_at = ? WHERE id = ?", (name, now_iso(), run_id))


def delete_run(store: Store, run_id: str) -> None:
    with store.tx() as conn:
        for table in ("llm_calls", "events", "memories", "episodes", "messages", "runs"):
            column = "id" if table == "runs" else "run_id"
            conn.execute(f"DELETE FROM {table} WHERE {column} = ?", (run_id,))


def config_of(store: Store, run_id: str) -> PipelineConfig:
    return get_run(store, run_id).config


def stats_json(info: RunInfo) -> str:
    return json.dumps(info.model_dump(mode="json"))
