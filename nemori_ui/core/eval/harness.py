"""The evaluation harness: memory per conversation, an answer per question, scores.

Memory is built through the run store like any run, so an evaluation reuses a finished run of
the same conversation built with the same settings (retrieval settings such as k do not
change what is stored, so they do not prevent reuse), continues an interrupted one, and leaves
what it built inspectable on every other page. Answers and verdicts go through the gateway's
response cache, so repeating an evaluation costs no LLM call.
"""

from __future__ import annotations

import time
from typing import Callable

from ..clients import DEFAULT_ENV, RunEnvironment, build_clients
from ..config import PipelineConfig
from ..executors import Place, TasksFailed
from ..llm.pricing import estimate_cost
from ..llm.usage import COUNT_KEYS, count_calls
from ..models import Transcript
from ..deciders.offline import OFFLINE_LABEL
from ..store import Store, call_log
from . import qa, results
from .ablations import build_config, variant
from .conversation import (OFFLINE_JUDGE_NOTE, ConversationResult, EvalOptions, EvalProgress,
                           find_finished, items_for)
from .judge import build_judge
from .tasks import ConversationTask, answer_conversation, seed

__all__ = ["EvalOptions", "EvalProgress", "evaluate", "find_finished", "OFFLINE_JUDGE_NOTE"]


def evaluate(store: Store, transcript: Transcript, config: PipelineConfig, options: EvalOptions,
             *, source: str, env: RunEnvironment = DEFAULT_ENV,
             progress: Callable[[EvalProgress], None] | None = None) -> results.EvalRun:
    """Evaluate one variant on the transcript's conversations; the results are stored, with
    every answer and judge call in the call log under the evaluation's id.

    Each conversation is one task of the environment's executor (in this process by default,
    or on Ray: see core/scale); what lands in the store is the same either way."""
    started = time.perf_counter()
    eval_id = results.new_eval_id()
    v = variant(options.variant)
    cfg = build_config(config, v)
    clients = build_clients(cfg, store, env)
    judge = build_judge(cfg, store, options.judge_model, env, preset=options.judge_prompts)
    executor = env.executor
    asked = cfg.model_copy(update={"k": options.k})
    wanted = set(options.conversations or [])
    convs = [c for c in transcript.conversations if not wanted or c.id in wanted]
    missing = wanted - {c.id for c in transcript.conversations}
    if missing:
        known = ", ".join(c.id for c in transcript.conversations[:20])
        raise KeyError(f"no conversation {', '.join(sorted(missing))} in {transcript.source} "
                       f"(has: {known})")

    every = qa.ItemSet()
    tasks = []
    for conv in convs:
        found = items_for(conv, options)
        every.extend(found)
        if found.items:
            tasks.append(ConversationTask(
                name=conv.id, eval_id=eval_id, conversation=conv, config=cfg, options=options,
                source=source, fmt=transcript.format,
                seed=seed(store, conv, cfg, options, source) if executor.remote else None))
    landed: dict[str, ConversationResult] = {}
    place = Place(store=store, clients=lambda _: clients, judge=lambda *_: judge,
                  progress=progress,
                  key=env.worker_key(cfg) if executor.remote else None)
    failures = executor.run(answer_conversation, tasks, place,
                            on_done=lambda name, out: landed.__setitem__(name, out),
                            progress=_task_progress(progress))
    done = [landed[t.name] for t in tasks if t.name in landed]
    rows = [r for d in done for r in d.rows]
    contexts = [c for d in done for c in d.contexts]
    memory_runs = {d.conversation_id: d.run_id for d in done if d.run_id}
    build_seconds = sum(d.build_seconds for d in done)

    summary = results.scores(rows)
    summary["skipped"] = every.skipped()
    summary["issues"] = [i.model_dump() for i in every.issues
                         if i.reason not in (qa.ADVERSARIAL, qa.NOT_CHOSEN)]
    summary["calls"] = eval_calls(store, eval_id)
    # run elsewhere, the workers' judges made the calls: count them from the call log
    totals = {k: summary["calls"]["judge"][k] for k in COUNT_KEYS} if executor.remote \
        else judge.totals() if judge else {}
    summary["judge"] = {"model": judge.label, "prompts": judge.preset, **totals} \
        if judge else {"model": None, "note": OFFLINE_JUDGE_NOTE}
    if failures:
        summary["failed_tasks"] = failures
    summary["prompts"] = cfg.prompts if clients.decider.label != OFFLINE_LABEL else None
    summary["k"] = options.k
    summary["build_seconds"] = round(build_seconds, 3)
    run = results.EvalRun(
        id=eval_id, created_at=results.created_now(), benchmark=options.benchmark,
        variant=v.name, source=source, decider=clients.decider.label,
        judge=judge.label if judge else None, config=asked,
        options=options.model_dump(), memory_runs=memory_runs, summary=summary,
        seconds=time.perf_counter() - started)
    results.save(store, run, rows, contexts)
    if failures:
        raise TasksFailed(failures, landed=run.id)
    return run


def _task_progress(progress):
    if not progress:
        return None

    def tell(p) -> None:
        progress(EvalProgress("tasks", p.name, p.done, p.total, running=p.running,
                              failed=p.failed, state=p.state, seconds=p.seconds))
    return tell


def eval_calls(store: Store, eval_id: str) -> dict:
    """Calls, tokens and cost of an evaluation's answers and verdicts (the memory it built is
    in its runs' own records)."""
    calls = call_log.calls_of_eval(store, eval_id)
    out = {kind: count_calls([c for c in calls if (c.context or {}).get("kind") == kind])
           for kind in ("eval", "judge")}
    out["cost_usd"] = estimate_cost(calls).total
    return out


