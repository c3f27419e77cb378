"""Parameter sweeps: one run per grid point, through the shared response cache.

Grid points share every prompt whose inputs do not change (a τ change leaves partition,
narration and integration untouched), so those calls are answered from the cache; each point
reports how many calls it made and how many it reused.
"""

from __future__ import annotations

import itertools
import time
from typing import Callable

from ..config import PipelineConfig
from ..models import Conversation
from ..pipeline.runner import Clients, run_windows, start_run
from ..retrieval import count_tokens
from ..store import Store
from ..store import records, runs
from ..summary import run_summary
from .qa_recall import evidence_recall

SWEEPABLE = {"tau": float, "window": int, "variant": str, "management": str, "k_e": int,
             "k_s": int, "k_m": int}


def parse_grid(spec: dict[str, str | None]) -> dict[str, list]:
    """{'tau': '0.6,0.7'} → {'tau': [0.6, 0.7]}; unknown names and bad values raise ValueError."""
    grid = {}
    for name, values in spec.items():
        if values in (None, ""):
            continue
        if name not in SWEEPABLE:
            raise ValueError(f"cannot sweep '{name}': choose from {', '.join(SWEEPABLE)}")
        try:
            grid[name] = [SWEEPABLE[name](v.strip()) for v in str(values).split(",") if v.strip()]
        except ValueError:
            raise ValueError(f"--{name.replace('_', '-')}: '{values}' is not a list of "
                             f"{SWEEPABLE[name].__name__} values") from None
    return grid


def points(base: PipelineConfig, grid: dict[str, list]) -> list[PipelineConfig]:
    names = list(grid)
    return [base.model_copy(update=dict(zip(names, combo)))
            for combo in itertools.product(*(grid[n] for n in names))] or [base]


def stored_size(store: Store, run_id: str) -> dict:
    """What the memory holds once built: active memories and episodes, in characters and tokens."""
    memories = [m for m in records.load_memories(store, run_id, with_vectors=False)
                if m.status == "active"]
    episodes = [e for e in records.load_episodes(store, run_id, with_vectors=False)
                if e.status == "active"]
    mem_text = "\n".join(m.text for m in memories)
    ep_text = "\n".join(f"{e.cue}\n{e.narrative}" for e in episodes)
    return {"memories": len(memories), "memory_chars": len(mem_text),
            "memory_tokens": count_tokens(mem_text), "episode_chars": len(ep_text),
            "episode_tokens": count_tokens(ep_text)}


def point_figures(store: Store, run_id: str) -> dict:
    """The figures a sweep reports for one finished run."""
    summary = run_summary(store, run_id)
    config = runs.get_run(store, run_id).config
    calls = records.load_calls(store, run_id)
    return {"run_id": run_id,
            "params": {k: getattr(config, k) for k in SWEEPABLE},
            "episodes": summary["episodes"], "integrated": summary["integrated"],
            "insights": summary["insights"], "active_memories": summary["semantic_memories"],
            "merges": summary["decisions"]["merge"], "conflicts": summary["decisions"]["conflict"],
            "stored": stored_size(store, run_id),
            "llm": {"calls_made": sum(not c.cached for c in calls),
                    "calls_reused": sum(c.cached for c in calls),
                    "failed": summary["llm"]["failed"],
                    "input_tokens": summary["llm"]["input_tokens"],
                    "output_tokens": summary["llm"]["output_tokens"]}}


def stored_recall(store: Store, run_id: str, embedder) -> dict | None:
    """Evidence recall@k of a finished run, from the questions stored with it (None without)."""
    conv = runs.stored_conversation(store, run_id)
    return evidence_recall(store, run_id, conv, embedder, runs.get_run(store, run_id).config.k)


ORDER = ["tau", "window", "variant", "management", "k_e", "k_s", "k_m"]
LOWER_IS_BETTER = {"stored_tokens", "stored_chars", "calls_made", "input_tokens", "conflicts"}


def sorted_points(frame):
    """A sweep table in reading order: by τ, then w, then the other parameters."""
    keys = [c for c in ORDER if c in frame]
    return frame.sort_values(keys, kind="stable").reset_index(drop=True) if keys else frame


def best_point(frame, metric: str) -> int | None:
    """The row index of the best point by `metric` (lowest for costs, highest otherwise); the
    first in table order wins a tie; None when no point has a value."""
    if metric not in frame:
        return None
    values = frame[metric].dropna()
    if values.empty:
        return None
    best = values.min() if metric in LOWER_IS_BETTER else values.max()
    return int(values[values == best].index[0])


def run_point(store: Store, conv: Conversation, config: PipelineConfig, clients: Clients, *,
              source: str, fmt: str) -> dict:
    started = time.perf_counter()
    run_id = start_run(store, conv, config, clients, source=source, fmt=fmt, resume=False)
    run_windows(store, run_id, clients)
    seconds = round(time.perf_counter() - started, 3)
    return {**point_figures(store, run_id), "seconds": seconds,
            "qa": evidence_recall(store, run_id, conv, clients.embedder, config.k)}


def flat(point: dict) -> dict:
    """One table row per point: parameters and figures side by side."""
    return {**point["params"], "run_id": point["run_id"],
            **{k: point[k] for k in ("episodes", "integrated", "insights", "active_memories",
                                     "merges", "conflicts")},
            "stored_tokens": point["stored"]["memory_tokens"],
            "stored_chars": point["stored"]["memory_chars"],
            "calls_made": point["llm"]["calls_made"], "calls_reused": point["llm"]["calls_reused"],
            "input_tokens": point["llm"]["input_tokens"],
            "evidence_recall": (point.get("qa") or {}).get("recall_at_k")}


def sweep(store: Store, conv: Conversation, base: PipelineConfig, grid: dict[str, list],
          make_clients: Callable[[PipelineConfig], Clients], *, source: str, fmt: str,
          on_point: Callable[[dict], None] | None = None, workers: int = 1,
          ray_address: str | None = None, progress: Callable | None = None,
          api_key: str | None = None) -> list[dict]:
    """The grid's points in order. With `workers` > 1 or a `ray_address` each point is one
    Ray task that builds its clients from the point's settings (so `make_clients` serves only
    the points already finished in the store), and `progress` hears tasks done / running /
    failed; points that fail after their retries raise TasksFailed once the others landed."""
    if workers > 1 or ray_address:
        from ..scale.fanout import TasksFailed
        from ..scale.plan import sweep_fanned
        results, failures = sweep_fanned(store, conv, points(base, grid), grid, make_clients,
                                         source=source, fmt=fmt, workers=workers,
                                         ray_address=ray_address, on_point=on_point,
                                         progress=progress, api_key=api_key)
        if failures:
            raise TasksFailed(failures, results=results)
        return results
    results = []
    for config in points(base, grid):
        result = run_point(store, conv, config, make_clients(config), source=source, fmt=fmt)
        results.append(result)
        if on_point:
            on_point(result)
    return results
