"""Headline figures of a run, counted by the store (never by loading the run)."""

from __future__ import annotations

from .store import Store
from .store import runs
from .store.health import run_health
from .store.page_reads import run_counts


def run_figures(store: Store, run_id: str) -> dict:
    info = runs.get_run(store, run_id)
    counts = run_counts(store, run_id)
    return {
        "run_id": run_id,
        "name": info.name,
        "status": info.status,
        "decider": info.decider,
        "conversation": info.conversation_id,
        "messages": counts.messages,
        "windows": info.windows_total,
        "windows_done": info.windows_done,
        "raw_episodes": counts.raw_episodes,
        "episodes": counts.episodes,
        "integrated": counts.integrated,
        "insights": counts.insights,
        "semantic_memories": counts.semantic_memories,
        "decisions": dict(counts.decisions),
        "llm": counts.llm.model_dump(),
        "fallbacks": run_health(store, [run_id])[run_id].fallbacks,
        "seconds": round(info.seconds, 3),
    }
