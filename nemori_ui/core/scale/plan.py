"""The driver's side of a fanned-out evaluation or sweep: what is left to do, what each task
is seeded with, and landing each task's rows in the home's store as it arrives.

What is already done is never sent again: a sweep point with a finished run in the home is
reported from it; a conversation whose memory is finished (or interrupted) in the home is
answered from that memory, with the cached replies of the calls already made on it, so a
repeated evaluation makes no new call, as the sequential one does.
"""

from __future__ import annotations

from collections.abc import Callable

from ..config import PipelineConfig
from ..models import Conversation
from ..store import Store, runs
from . import transfer
from .fanout import TaskProgress, connect, fan_out, slots_of
from .lookup import start_home_vectors
from .tasks import (
    EvalOutput,
    EvalTask,
    PointOutput,
    PointTask,
    run_eval_task,
    run_point_task,
)

MEMORYLESS = ("full-context", "rag-4096")


def needed_key(config: PipelineConfig, api_key, secrets, base_url) -> str | None:
    """The key the workers must hold: the one the sequential path would use, if any."""
    if config.backend == "offline" and config.embedder != "openai":
        return None
    from ..llm.openai_backend import PLACEHOLDER_KEY, resolve_openai_settings
    key, _ = resolve_openai_settings(api_key, base_url or config.base_url, secrets)
    return None if key in (None, PLACEHOLDER_KEY) else key


def _seed(store: Store, conv: Conversation, cfg: PipelineConfig, variant: str, source: str,
          item_ids: set[str]) -> transfer.StoreRows | None:
    from ..eval.harness import find_finished
    from ..store import records
    memory = None
    if variant not in MEMORYLESS:
        memory = find_finished(store, conv, cfg)
        unfinished = runs.find_resumable(store, conv, source, cfg.fingerprint())[0]
        # one still running in a live process is that process's to finish, not a task's
        if not memory and unfinished and runs.get_run(store, unfinished).status in runs.RESUMABLE:
            memory = unfinished
    calls = [c for c in _outside_calls(store, memory) if (c.context or {}).get("item_id")
             in item_ids]
    if memory:
        calls += records.load_calls(store, memory)
    if not memory and not calls:
        return None
    cache = transfer.cache_entries(store, [c.cache_key for c in calls])
    return transfer.StoreRows(runs=[transfer.run_rows(store, memory)] if memory else [],
                              llm_cache=cache)


def _conversation_replies(store: Store, conv: Conversation, config: PipelineConfig
                          ) -> transfer.StoreRows | None:
    """The cached replies of every run of this conversation in the home: what a sweep point
    would find in the shared cache when run one after another (an offline run has none)."""
    if config.backend == "offline":
        return None
    from ..store import records
    ids = [r["id"] for r in store.query("SELECT id FROM runs WHERE conversation_id = ? AND "
                                        "content_hash = ?",
                                        (conv.id, runs.content_hash(conv.messages)))]
    keys = [c.cache_key for run_id in ids for c in records.load_calls(store, run_id)]
    return transfer.StoreRows(llm_cache=transfer.cache_entries(store, keys)) if keys else None


def _outside_calls(store: Store, run_id: str | None):
    from ..store import call_log
    if run_id:
        return call_log.calls_of_run(store, run_id)
    rows = store.query("SELECT record FROM call_log WHERE run_id IS NULL AND kind IN "
                       "('eval', 'judge') ORDER BY rowid")
    from ..models import LLMCallRecord
    return [LLMCallRecord.model_validate_json(r["record"]) for r in rows]


def _eval_progress(progress):
    if not progress:
        return None
    from ..eval.harness import EvalProgress

    def tell(p: TaskProgress) -> None:
        progress(EvalProgress("tasks", p.name, p.done, p.total, running=p.running,
                              failed=p.failed))
    return tell


def evaluate_fanned(store: Store, convs: list[Conversation], cfg: PipelineConfig, options, *,
                    eval_id: str, source: str, fmt: str, workers: int, ray_address: str | None,
                    api_key=None, secrets=None, base_url=None, progress=None):
    """One task per conversation; returns (ConversationResults in `convs` order,
    {conversation id: why} for the tasks that failed)."""
    from ..eval.harness import ConversationResult, items_for
    if not convs:
        return [], {}
    ray = connect(workers, ray_address, needed_key(cfg, api_key, secrets, base_url))
    tasks = []
    for conv in convs:
        items = {i.id for i in items_for(conv, options).items}
        tasks.append((conv.id, EvalTask(
            name=conv.id, eval_id=eval_id, conversation=conv, config=cfg,
            options=options.model_dump(), source=source, fmt=fmt,
            seed=_seed(store, conv, cfg, options.variant, source, items))))
    landed: dict[str, ConversationResult] = {}

    def land(name: str, out: EvalOutput) -> None:
        transfer.land(store, out.rows)
        landed[name] = ConversationResult(**out.result)

    home = start_home_vectors(ray, str(store.path))
    try:
        failures = fan_out(ray, run_eval_task, tasks, slots=slots_of(ray, workers, ray_address),
                           on_done=land, progress=_eval_progress(progress), shared=(home,))
    finally:
        if home is not None:
            ray.kill(home)
    return [landed[c.id] for c in convs if c.id in landed], failures


def point_name(config: PipelineConfig, grid: dict[str, list]) -> str:
    return " ".join(f"{k}={getattr(config, k)}" for k in grid) or "defaults"


def sweep_fanned(store: Store, conv: Conversation, configs: list[PipelineConfig],
                 grid: dict[str, list], make_clients: Callable, *, source: str, fmt: str,
                 workers: int, ray_address: str | None, on_point=None,
                 progress: Callable[[TaskProgress], None] | None = None,
                 api_key=None, secrets=None):
    """One task per grid point not yet finished in the home; returns (the points in grid
    order, {point name: why} for the tasks that failed)."""
    from ..eval.harness import find_finished
    from ..tuning.qa_recall import evidence_recall
    from ..tuning.sweep import point_figures
    by_name: dict[str, dict] = {}
    tasks = []
    for config in configs:
        name = point_name(config, grid)
        found = find_finished(store, conv, config)
        if found:      # finished on an earlier run: reported from the store, not redone
            embedder = make_clients(config).embedder
            by_name[name] = {**point_figures(store, found), "seconds": 0.0, "reused": True,
                             "qa": evidence_recall(store, found, conv, embedder, config.k)}
            if on_point:
                on_point(by_name[name])
            continue
        tasks.append((name, PointTask(name=name, conversation=conv, config=config,
                                      source=source, fmt=fmt,
                                      seed=_conversation_replies(store, conv, config))))
    failures: dict[str, str] = {}
    if tasks:
        key = needed_key(configs[0], api_key, secrets, None)
        ray = connect(workers, ray_address, key)

        def land(name: str, out: PointOutput) -> None:
            transfer.land(store, out.rows)
            by_name[name] = out.point
            if on_point:
                on_point(out.point)

        home = start_home_vectors(ray, str(store.path))
        try:
            failures = fan_out(ray, run_point_task, tasks,
                               slots=slots_of(ray, workers, ray_address), on_done=land,
                               progress=progress, shared=(home,))
        finally:
            if home is not None:
                ray.kill(home)
    names = [point_name(c, grid) for c in configs]
    return [by_name[n] for n in names if n in by_name], failures
