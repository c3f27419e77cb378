"""Runs stored straight into a home folder before a browser test opens the app on it."""

from __future__ import annotations

from pathlib import Path

from nemori_ui.core.clients import build_clients
from nemori_ui.core.config import PipelineConfig
from nemori_ui.core.pipeline.runner import run_windows, start_run
from nemori_ui.core.store import open_store
from nemori_ui.core.transcripts import parse_transcript
from nemori_ui.ui.run_form import SAMPLE


def stored_run(home: Path, raw: bytes | None = None, source: str = SAMPLE.name,
               config: PipelineConfig | None = None) -> str:
    """A finished offline run of `raw` (the bundled sample by default); its id."""
    raw = SAMPLE.read_bytes() if raw is None else raw
    config = config or PipelineConfig()
    store = open_store(home)
    try:
        conv = parse_transcript(raw, source=source).conversations[0]
        clients = build_clients(config, store)
        run_id = start_run(store, conv, config, clients, source=source, fmt="text",
                           resume=False)
        run_windows(store, run_id, clients)
        return run_id
    finally:
        store.close()
