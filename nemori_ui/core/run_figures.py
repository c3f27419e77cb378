"""Headline figures of a run, counted by the store (never by loading the run)."""

from __future__ import annotations

from .store import Store
from .store import runs
from .store.health import run_health
from .store.page_reads import RunCounts, run_counts


class RunFigures(RunCounts):
    """What the Overview's headline and `run --json` show of one run."""
    run_id: str
    name: str
    status: str
    decider: str
    conversation: str
    windows: int
    windows_done: int
    fallbacks: int = 0      # decisions the offline fallback made for a failed LLM call
    seconds: float = 0.0


def run_figures(store: Store, run_id: str) -> RunFigures:
    info = runs.get_run(store, run_id)
    counts = run_counts(store, run_id)
    return RunFigures(
        **counts.model_dump(), run_id=run_id, name=info.name, status=info.status,
        decider=info.decider, conversation=info.conversation_id,
        windows=info.windows_total, windows_done=info.windows_done,
        fallbacks=run_health(store, [run_id])[run_id].fallbacks,
        seconds=round(info.seconds, 3))
