"""An evaluation's tasks: one per conversation, run by whichever executor the caller chose.

A task run elsewhere is seeded with what the home already holds for it, so what is done is
never done again: a conversation whose memory is finished (or interrupted) in the home is
answered from that memory, with the cached replies of the calls already made on it, so a
repeated evaluation makes no new call, as one in this process does.
"""

from __future__ import annotations

from ..config import PipelineConfig
from ..executors import Place, Task
from ..models import Conversation, LLMCallRecord
from ..store import Store, call_log, records, runs
from ..store import transfer
from .ablations import variant
from .conversation import (ConversationResult, EvalOptions, evaluate_conversation, find_finished,
                           items_for)
from .judge import build_judge

MEMORYLESS = ("full-context", "rag-4096")


class ConversationTask(Task):
    eval_id: str
    conversation: Conversation
    config: PipelineConfig          # the variant's construction settings (build_config)
    options: EvalOptions
    source: str
    fmt: str


def answer_conversation(task: ConversationTask, place: Place) -> ConversationResult:
    """The task: one conversation's memory and answers, in the place's store."""
    options, cfg = task.options, task.config
    clients = place.clients(cfg)
    judge = place.judge(cfg, options.judge_model, options.judge_prompts) if place.judge else \
        build_judge(cfg, place.store, options.judge_model, preset=options.judge_prompts)
    return evaluate_conversation(
        place.store, task.conversation, items_for(task.conversation, options),
        variant(options.variant), cfg, cfg.model_copy(update={"k": options.k}), clients, judge,
        options, eval_id=task.eval_id, source=task.source, fmt=task.fmt,
        progress=place.progress)


def seed(store: Store, conv: Conversation, cfg: PipelineConfig, options: EvalOptions,
         source: str) -> transfer.StoreRows | None:
    """What a task run elsewhere needs from the home: the memory to answer from (finished, or
    interrupted to continue) and the cached replies of the calls already made for it."""
    item_ids = {i.id for i in items_for(conv, options).items}
    memory = None
    if options.variant not in MEMORYLESS:
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


def _outside_calls(store: Store, run_id: str | None) -> list[LLMCallRecord]:
    if run_id:
        return call_log.calls_of_run(store, run_id)
    rows = store.query("SELECT record FROM call_log WHERE run_id IS NULL AND kind IN "
                       "('eval', 'judge') ORDER BY rowid")
    return [LLMCallRecord.model_validate_json(r["record"]) for r in rows]
