"""Whether a run of this very input and these settings is stored already: the Run and Tuning
pages offer it instead of building an identical one (the run fingerprint names the settings
that change what is built; the content hash, the messages)."""

from __future__ import annotations

from ..config import PipelineConfig
from ..models import Conversation
from ..store import Store, runs


def finished_run(store: Store, conv: Conversation, source: str,
                 config: PipelineConfig) -> str | None:
    """The newest finished run of `conv` from `source` built with `config`'s settings."""
    rows = store.query(
        "SELECT id FROM runs WHERE conversation_id = ? AND source = ? AND fingerprint = ? "
        "AND status = 'done' ORDER BY created_at DESC, rowid DESC",
        (conv.id, source, config.fingerprint()))
    wanted = runs.content_hash(conv.messages)
    return next((r["id"] for r in rows if runs.stored_hash(store, r["id"]) == wanted), None)


def split_points(store: Store, conv: Conversation, source: str,
                 configs: list[PipelineConfig]) -> tuple[list[PipelineConfig], dict[int, str]]:
    """(points still to run, {index of a point already stored: its run id})."""
    todo, stored = [], {}
    for i, config in enumerate(configs):
        found = finished_run(store, conv, source, config)
        if found:
            stored[i] = found
        else:
            todo.append(config)
    return todo, stored
