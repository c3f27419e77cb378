"""Headline figures of a run, computed from what the store holds."""

from __future__ import annotations

from collections import Counter

from .store import Store
from .store import records, runs
from .store.health import run_health


def llm_totals(store: Store, run_id: str) -> dict:
    calls = records.load_calls(store, run_id)
    live = [c for c in calls if not c.cached]
    return {"calls": len(live), "cached": len(calls) - len(live),
            "failed": sum(c.status == "failed" for c in calls),
            "input_tokens": sum(c.input_tokens for c in live),
            "output_tokens": sum(c.output_tokens for c in live)}


def run_summary(store: Store, run_id: str) -> dict:
    info = runs.get_run(store, run_id)
    episodes = records.load_episodes(store, run_id, with_vectors=False)
    memories = records.load_memories(store, run_id, with_vectors=False)
    events = records.load_events(store, run_id)
    by_stage = Counter(e.stage for e in events)
    decisions = Counter(e.payload.action for e in events if e.stage == "consolidate")
    return {
        "run_id": run_id,
        "name": info.name,
        "status": info.status,
        "decider": info.decider,
        "conversation": info.conversation_id,
        "messages": len(records.load_messages(store, run_id)),
        "windows": info.windows_total,
        "windows_done": info.windows_done,
        "raw_episodes": by_stage["narrate"],
        "episodes": sum(e.status == "active" for e in episodes),
        "integrated": sum(e.stage == "integrate" and e.payload.choice != -1 for e in events),
        "insights": sum(len(e.payload.insights) for e in events if e.stage == "distill"),
        "semantic_memories": sum(m.status == "active" for m in memories),
        "decisions": {k: decisions.get(k, 0) for k in ("new", "merge", "conflict")},
        "llm": llm_totals(store, run_id),
        "fallbacks": run_health(store, [run_id])[run_id].fallbacks,
        "seconds": round(info.seconds, 3),
    }
