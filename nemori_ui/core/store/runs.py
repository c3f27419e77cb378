"""Runs: create, list, rename, delete, and their progress."""

from __future__ import annotations

import hashlib
import json
import secrets
from datetime import datetime, timezone

from pydantic import BaseModel

from ..config import PipelineConfig
from ..models import Conversation, Message
from .db import Store, now_iso
from .owner import owner_gone, this_process


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
    content_hash: str | None = None
    owner: str | None = None


def content_hash(messages: list[Message]) -> str:
    """A hash of everything stored of a conversation's messages: equal hashes, same run input."""
    digest = hashlib.sha256()
    for m in messages:
        digest.update(m.model_dump_json().encode("utf-8"))
        digest.update(b"\n")
    return digest.hexdigest()[:32]


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
            "conversation_id, config_json, fingerprint, decider, windows_total, content_hash, "
            "owner, questions_json) VALUES (?, ?, ?, ?, 'running', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (run_id, name or f"{conv.id} · {config.variant} · τ={config.tau:g} · w={config.window}",
             stamp, stamp, source, fmt, conv.id, config.model_dump_json(), config.fingerprint(),
             decider, windows_total, content_hash(conv.messages), this_process(),
             _questions(conv)))
        conn.executemany(
            "INSERT INTO messages VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(run_id, m.id, i, m.speaker, m.role, m.text,
              m.timestamp.isoformat() if m.timestamp else None, m.session, m.source_ref)
             for i, m in enumerate(conv.messages)])
    return run_id


def _questions(conv: Conversation) -> str | None:
    qa = conv.extra.get("qa")
    return json.dumps(qa) if isinstance(qa, list) and qa else None


def stored_conversation(store: Store, run_id: str) -> Conversation:
    """The run's conversation as stored: its messages and the questions it came with."""
    from .records import load_messages
    rows = store.query("SELECT conversation_id, questions_json FROM runs WHERE id = ?", (run_id,))
    if not rows:
        raise KeyError(f"no run '{run_id}' in {store.path}")
    extra = {"qa": json.loads(rows[0]["questions_json"])} if rows[0]["questions_json"] else {}
    return Conversation(id=rows[0]["conversation_id"], messages=load_messages(store, run_id),
                        extra=extra)


def _info(row) -> RunInfo:
    data = dict(row)
    data.pop("questions_json", None)
    data["config"] = PipelineConfig.from_stored(data.pop("config_json"))
    if data["status"] == "running" and owner_gone(data.get("owner")):
        # its process was killed before it could say so: the run waits to be resumed
        data["status"] = "interrupted"
    return RunInfo(**data)


def get_run(store: Store, run_id: str) -> RunInfo:
    rows = store.query("SELECT * FROM runs WHERE id = ?", (run_id,))
    if not rows:
        raise KeyError(f"no run '{run_id}' in {store.path}")
    return _info(rows[0])


def list_runs(store: Store) -> list[RunInfo]:
    # rowid breaks ties within one second: run ids end in random hex
    rows = store.query("SELECT * FROM runs ORDER BY created_at DESC, rowid DESC")
    return [_info(r) for r in rows]


RESUMABLE = ("interrupted", "failed")


def unfinished(store: Store, conversation_id: str, source: str, fingerprint: str) -> list[str]:
    """Unfinished runs of this conversation id, file name and configuration, newest first."""
    rows = store.query(
        "SELECT id FROM runs WHERE conversation_id = ? AND source = ? AND fingerprint = ? "
        "AND status IN ('running', 'interrupted', 'failed') ORDER BY created_at DESC, rowid DESC",
        (conversation_id, source, fingerprint))
    return [r["id"] for r in rows]


def stored_hash(store: Store, run_id: str) -> str:
    """The run's content hash; runs stored before hashes were kept get theirs computed."""
    from .records import load_messages
    rows = store.query("SELECT content_hash FROM runs WHERE id = ?", (run_id,))
    if rows and rows[0]["content_hash"]:
        return rows[0]["content_hash"]
    return content_hash(load_messages(store, run_id))


def find_resumable(store: Store, conv: Conversation, source: str, fingerprint: str
                   ) -> tuple[str | None, list[str]]:
    """(the unfinished run to continue, or None; unfinished runs under the same names whose
    messages differ from `conv`'s). Name, conversation id and settings are not enough: a file
    edited after an interrupted run must not resume the old messages."""
    wanted = content_hash(conv.messages)
    changed = []
    for run_id in unfinished(store, conv.id, source, fingerprint):
        if stored_hash(store, run_id) == wanted:
            return run_id, changed
        changed.append(run_id)
    return None, changed


def claim(store: Store, run_id: str) -> None:
    """Mark the run running, owned by this process."""
    with store.tx() as conn:
        conn.execute("UPDATE runs SET status = 'running', error = NULL, owner = ?, updated_at = ? "
                     "WHERE id = ?", (this_process(), now_iso(), run_id))


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
