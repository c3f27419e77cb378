"""Parameter sweeps: one run per grid point, through the shared response cache.

Grid points share every prompt whose inputs do not change (a τ change leaves partition,
narration and integration untouched), so those calls are answered from the cache; each point
reports how many calls it made and how many it reused.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Callable

from ..clients import DEFAULT_ENV, RunEnvironment
from ..config import PipelineConfig
from ..eval.conversation import find_finished
from ..executors import Place, TaskProgress, TasksFailed, for_points
from ..models import Conversation
from ..pipeline.runner import Clients
from ..store import Store, runs
from .point import (SWEEPABLE, PointTask, conversation_replies, point_figures, run_point_task,
                    warm_up, warms_up)
from .qa_recall import evidence_recall
from .records import EvidenceRecall, SweepPoint

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


def stored_recall(store: Store, run_id: str, embedder) -> EvidenceRecall | None:
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


@dataclass(frozen=True)
class PointRow:
    """A sweep table's row: its fields are the table's columns, the parameters first and in
    SWEEPABLE's order."""
    tau: float
    window: int
    variant: str
    management: str
    k_e: int
    k_s: int
    k_m: int
    run_id: str
    episodes: int
    integrated: int
    insights: int
    active_memories: int
    merges: int
    conflicts: int
    stored_tokens: int
    stored_chars: int
    calls_made: int
    calls_reused: int
    input_tokens: int
    evidence_recall: float | None


def flat(point: SweepPoint) -> PointRow:
    """One table row per point: parameters and figures side by side."""
    return PointRow(**point.params.model_dump(), run_id=point.run_id,
                    episodes=point.episodes, integrated=point.integrated,
                    insights=point.insights, active_memories=point.active_memories,
                    merges=point.merges, conflicts=point.conflicts,
                    stored_tokens=point.stored.memory_tokens,
                    stored_chars=point.stored.memory_chars,
                    calls_made=point.llm.calls_made, calls_reused=point.llm.calls_reused,
                    input_tokens=point.llm.input_tokens,
                    evidence_recall=point.qa.recall_at_k if point.qa else None)


def point_name(config: PipelineConfig, grid: dict[str, list]) -> str:
    return " ".join(f"{k}={getattr(config, k)}" for k in grid) or "defaults"


def spread(items: list, window: Callable = lambda config: config.window) -> list:
    """Points in the order they are sent out: the first of each window length, then the second
    of each, and so on. Points of one window share its partition, narratives and their vectors;
    sent together they would each make them, sent apart the later one finds them in the home's
    caches, where the earlier one's rows landed. `window` says an item's group."""
    groups: dict = {}
    for item in items:
        groups.setdefault(window(item), []).append(item)
    return [item for round_ in itertools.zip_longest(*groups.values()) for item in round_
            if item is not None]


def sweep(store: Store, conv: Conversation, base: PipelineConfig, grid: dict[str, list],
          make_clients: Callable[[PipelineConfig], Clients], *, source: str, fmt: str,
          on_point: Callable[[SweepPoint], None] | None = None,
          progress: Callable[[TaskProgress], None] | None = None,
          env: RunEnvironment = DEFAULT_ENV) -> list[SweepPoint]:
    """The grid's points in order, one task of the environment's executor each; its key is
    the one workers must hold. A point finished in the store with the same input and settings
    is reported from it, not redone (`make_clients` serves its recall); a point run elsewhere
    builds its clients from the point's settings, and `progress` hears tasks done / running /
    failed; points that fail after their retries raise TasksFailed once the others landed. Too
    few points left to pay for fanning out run in this process (executors.for_points), said to
    the environment's `notice`."""
    by_name: dict[str, SweepPoint] = {}

    def land(name: str, point: SweepPoint) -> None:
        by_name[name] = point
        if on_point:
            on_point(point)

    configs = points(base, grid)
    todo = []
    for config in configs:
        found = find_finished(store, conv, config)
        if found:
            land(point_name(config, grid),
                 SweepPoint.of(point_figures(store, found), seconds=0.0, reused=True,
                               qa=evidence_recall(store, found, conv,
                                                  make_clients(config).embedder, config.k)))
        else:
            todo.append(config)
    executor = for_points(env.executor, len(todo), env.notice)
    tasks = [PointTask(name=point_name(config, grid), conversation=conv, config=config,
                       source=source, fmt=fmt, seed=conversation_replies(store, conv, config)
                       if executor.remote else None)
             for config in (spread(todo) if executor.remote else todo)]
    failures = {}
    if tasks:
        place = Place(store=store, clients=make_clients,
                      key=env.worker_key(configs[0]) if executor.remote else None,
                      prepare=(lambda: warm_up(conv, make_clients(todo[0])))
                      if warms_up(base, len(todo), executor.remote) else None)
        failures = executor.run(run_point_task, tasks, place, on_done=land, progress=progress)
    results = [by_name[n] for n in (point_name(c, grid) for c in configs) if n in by_name]
    if failures:
        raise TasksFailed(failures, results=results)
    return results
