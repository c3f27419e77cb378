"""One conversation of an evaluation: its memory built or reused, its questions answered
and judged. The same work runs in this process or as a task on a worker (see tasks.py)."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Callable, Literal

from pydantic import BaseModel, Field

from ..config import PipelineConfig
from ..models import Conversation
from ..deciders.offline import OFFLINE_LABEL
from ..llm.sink import call_context
from ..pipeline.runner import run_windows, start_run
from ..retrieval import load_memory
from ..store import Store, records, runs
from . import qa, results
from .ablations import NemoriRetriever
from .baselines import FullContext, Rag
from .evidence import all_found, credited_turns, evidence_found
from .evidence import share as evidence_share
from .judge import DEFAULT_JUDGE_MODEL
from .metrics import bleu1, f1

OFFLINE_JUDGE_NOTE = "skipped: the offline engine has no LLM to judge with"
_RETRIEVAL_ONLY = ("k", "r", "answer_temperature", "concurrency", "episode_match")


class EvalOptions(BaseModel):
    benchmark: Literal["locomo", "longmemeval"] = "locomo"
    variant: str = "nemori"
    conversations: list[str] | None = None   # LoCoMo sample ids / LongMemEval question ids
    categories: list[int] = Field(default_factory=lambda: list(qa.SCORED_CATEGORIES))
    types: list[str] | None = None           # LongMemEval question types
    k: int = Field(10, ge=1, le=100)
    judge_model: str = DEFAULT_JUDGE_MODEL
    judge_prompts: Literal["paper", "strict"] = "paper"   # see judge.JUDGE_PRESETS
    limit: int | None = Field(None, ge=1)    # first questions of each conversation only
    rag_budget: int = Field(4096, ge=1)


@dataclass
class EvalProgress:
    stage: str                # "build" (the memory), "answer", or "tasks" (fanned out)
    conversation: str         # with "tasks": the conversation whose task last changed
    done: int
    total: int
    running: int = 0          # "tasks" only: in flight, and failed after their retries
    failed: int = 0
    state: str = ""           # "tasks" only: the task's "started", "done" or "failed" ...
    seconds: float | None = None   # ... and, once over, its wall time, retries included


class ConversationResult(BaseModel):
    """One conversation's share of an evaluation: what a fanned-out task returns."""
    conversation_id: str
    rows: list[results.QuestionResult] = Field(default_factory=list)
    contexts: list[str | None] = Field(default_factory=list)
    run_id: str | None = None            # the memory it was answered from
    build_seconds: float = 0.0


def construction_fingerprint(config: PipelineConfig) -> str:
    defaults = PipelineConfig()
    same = config.model_copy(update={f: getattr(defaults, f) for f in _RETRIEVAL_ONLY})
    return same.fingerprint()


def find_finished(store: Store, conv: Conversation, config: PipelineConfig) -> str | None:
    """The newest finished run of this conversation's messages built with these settings."""
    want = construction_fingerprint(config)
    rows = store.query("SELECT id FROM runs WHERE conversation_id = ? AND status = 'done' "
                       "ORDER BY created_at DESC, rowid DESC", (conv.id,))
    mine = [(m.speaker, m.text, m.timestamp) for m in conv.messages]
    for row in rows:
        info = runs.get_run(store, row["id"])
        if construction_fingerprint(info.config) != want:
            continue
        stored = [(m.speaker, m.text, m.timestamp) for m in records.load_messages(store, info.id)]
        if stored == mine:
            return info.id
    return None


def ensure_memory(store: Store, conv: Conversation, config: PipelineConfig, clients, *,
                  source: str, fmt: str, progress: Callable | None = None) -> str:
    found = find_finished(store, conv, config)
    if found:
        return found
    run_id = start_run(store, conv, config, clients, source=source, fmt=fmt)
    report = (lambda p: progress(EvalProgress("build", conv.id, p.window, p.windows_total))) \
        if progress else None
    run_windows(store, run_id, clients, progress=report)
    return run_id


def items_for(conv: Conversation, options: EvalOptions) -> qa.ItemSet:
    if options.benchmark == "longmemeval":
        found = qa.longmemeval_items(conv, options.types)
    else:
        found = qa.locomo_items(conv, options.categories)
    if options.limit:
        found.items = found.items[:options.limit]
    return found


def evaluate_conversation(store: Store, conv: Conversation, found: qa.ItemSet, v, cfg, asked,
                          clients, judge, options: EvalOptions, *, eval_id: str, source: str,
                          fmt: str, progress=None) -> ConversationResult:
    """Build (or reuse) one conversation's memory and answer its questions."""
    t0 = time.perf_counter()
    run_id = None
    if v.name == "full-context":
        system = FullContext(conv.messages)
    elif v.name == "rag-4096":
        system = Rag(conv.messages, clients.embedder, budget=options.rag_budget)
    else:
        run_id = ensure_memory(store, conv, cfg, clients, source=source, fmt=fmt,
                               progress=progress)
        system = _retriever(store, run_id, v, asked, clients.embedder)
    build_seconds = time.perf_counter() - t0
    ctx = {"eval_id": eval_id, "run_id": run_id}
    answered = _answer_all(found.items, system, clients, judge, options.benchmark, cfg, conv,
                           progress, ctx)
    clients.drain_calls()
    return ConversationResult(conversation_id=conv.id, rows=[r for r, _ in answered],
                              contexts=[c for _, c in answered], run_id=run_id,
                              build_seconds=build_seconds)


def _retriever(store: Store, run_id: str, v, config: PipelineConfig, embedder):
    state, messages = load_memory(store, run_id, embedder, config)
    return NemoriRetriever(v, state, messages, config, embedder)


def _answer_all(items, system, clients, judge, benchmark, cfg, conv, progress, ctx):
    by_id = {m.id: m for m in conv.messages}
    total, done = len(items), 0

    def one(item):
        return _answer_one(item, system, clients, judge, benchmark, by_id, ctx)

    # an LLM answers many questions at once (the gateway caps concurrency); the offline engine
    # is bound by the same two cores either way, and one worker keeps its latencies honest
    workers = 1 if clients.decider.label == OFFLINE_LABEL else cfg.concurrency
    out = []
    with ThreadPoolExecutor(max_workers=workers) as pool:
        for result in pool.map(one, items):
            out.append(result)
            done += 1
            if progress:
                progress(EvalProgress("answer", conv.id, done, total))
    return out


def _answer_one(item: qa.QAItem, system, clients, judge, benchmark: str, by_id: dict,
                ctx: dict):
    started = time.perf_counter()
    vec = clients.embedder.embed([item.question])[0]
    found = system(item.question, vec)
    retrieved_at = time.perf_counter()
    context = found.context
    if item.question_date:
        # LongMemEval asks "how many days ago": the answer needs the day it is asked
        context = f"Current date: {item.question_date}\n\n{context}"
    with call_context("eval", item_id=item.id, **ctx):
        decision = clients.decider.answer(item.question, context)
    finished = time.perf_counter()
    answer = decision.answer.strip()
    with call_context("judge", item_id=item.id, **ctx):
        verdict = judge(benchmark, item, answer) if judge else None

    credited = credited_turns(found.memories or [], by_id, item.answer)
    marks = evidence_found([e.message_id for e in item.evidence], set(found.message_ids or []),
                           credited)
    evidence = []
    for e, mark in zip(item.evidence, marks):
        m = by_id.get(e.message_id) if e.message_id else None
        evidence.append({"ref": e.ref, "message_id": e.message_id, **mark,
                         "speaker": m.speaker if m else "", "text": m.text if m else ""})
    checkable = item.checkable and (found.message_ids is not None
                                    or found.memories is not None)
    episodic = checkable and found.message_ids is not None
    share = evidence_share(marks) if checkable else None
    in_episodes = evidence_share(marks, "in_episodes") if episodic else None
    row = results.QuestionResult(
        item_id=item.id, conversation_id=item.conversation_id, category=item.category,
        question=item.question, gold=item.answer, answer=answer,
        f1=f1(answer, item.answer), bleu1=bleu1(answer, item.answer),
        correct=verdict.correct if verdict else None, verdict=verdict.label if verdict else None,
        verdict_reason=verdict.reason if verdict else "", evidence=evidence,
        recall=float(all_found(marks)) if checkable else None, evidence_share=share,
        recall_episodes=float(all_found(marks, "in_episodes")) if episodic else None,
        evidence_share_episodes=in_episodes,
        context_tokens=found.context_tokens,
        retrieval_ms=(retrieved_at - started) * 1000, total_ms=(finished - started) * 1000,
        retrieved=found.rows, abstention=item.abstention, question_date=item.question_date,
        fallback=decision.fallback, notes=item.notes)
    # the whole transcript is not stored once per question: its size and the evidence are
    return row, None if found.rows.get("full_context") else found.context
