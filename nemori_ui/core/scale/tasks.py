"""What one worker does: a conversation of an evaluation, or a point of a sweep.

A task is stateless. It opens a store of its own in a temporary folder, lands what the driver
seeded it with (a finished or interrupted memory, the cached replies of calls already made),
does the same work the sequential loop does, and returns everything it wrote as rows. The
temporary store goes away with the task; the driver alone writes the home's store.

Inputs and outputs are typed models. None of them carries an API key: a worker reads it from
its own environment (see fanout.connect), as the sequential path reads it from the driver's.
"""

from __future__ import annotations

import functools
import json
import os
import re
import tempfile
from pathlib import Path

from pydantic import BaseModel

from ..config import PipelineConfig
from ..models import Conversation
from ..store import open_store
from . import transfer

# A test hook: a JSON file {task name: failures to inject} (-1: every attempt fails). Each
# attempt is counted beside the file, so a retry in another worker process sees it.
FAULTS_ENV = "NEMORI_SCALE_FAULTS"


class InjectedFault(RuntimeError):
    pass


class EvalTask(BaseModel):
    name: str
    eval_id: str
    conversation: Conversation
    config: PipelineConfig          # the variant's construction settings (build_config)
    options: dict                   # EvalOptions as a dict
    source: str
    fmt: str
    seed: transfer.StoreRows | None = None


class PointTask(BaseModel):
    name: str
    conversation: Conversation
    config: PipelineConfig
    source: str
    fmt: str
    seed: transfer.StoreRows | None = None     # replies cached for this conversation


class EvalOutput(BaseModel):
    name: str
    result: dict                    # harness.ConversationResult as a dict
    rows: transfer.StoreRows


class PointOutput(BaseModel):
    name: str
    point: dict                     # the figures run_point reports
    rows: transfer.StoreRows


def maybe_fail(name: str) -> None:
    path = os.environ.get(FAULTS_ENV)
    if not path or not Path(path).exists():
        return
    wanted = json.loads(Path(path).read_text() or "{}").get(name)
    if not wanted:
        return
    counter = Path(f"{path}.{re.sub(r'[^A-Za-z0-9_.-]+', '_', name)}.attempts")
    attempts = int(counter.read_text()) if counter.exists() else 0
    counter.write_text(str(attempts + 1))
    if wanted < 0 or attempts < wanted:
        raise InjectedFault(f"injected failure of task {name} (attempt {attempts + 1})")


@functools.cache
def _minilm():
    # a worker holds one CPU of the cluster: one thread per task, not one per core
    from ..embed.minilm import MiniLMEmbedder
    return MiniLMEmbedder(threads=1)


def task_clients(config: PipelineConfig, store, home=None):
    """The clients a sequential run would build, with MiniLM reading the home's embedding
    cache through `home` (lookup.HomeVectors) for what the task's own store lacks."""
    from ..clients import build_clients
    from ..embed import CachedEmbedder
    from ..store.caches import SqliteVectorCache
    from .lookup import ReadThroughVectors
    vectors = ReadThroughVectors(SqliteVectorCache(store), home)
    embedder = CachedEmbedder(_minilm(), vectors) if config.embedder == "minilm" else None
    return build_clients(config, store, embedder=embedder), vectors


def run_eval_task(task: EvalTask, home=None) -> EvalOutput:
    from ..eval.ablations import variant
    from ..eval.harness import EvalOptions, evaluate_conversation, items_for
    from ..eval.judge import build_judge
    maybe_fail(task.name)
    options = EvalOptions(**task.options)
    with tempfile.TemporaryDirectory(prefix="nemori-task-") as folder:
        store = open_store(folder)
        try:
            seeded = set()
            if task.seed:
                transfer.land(store, task.seed)
                seeded = {r.run_id for r in task.seed.runs
                          if r.tables[0].rows and _status(r) == "done"}
            keys = _seeded_replies(task.seed)
            cfg = task.config
            clients, vectors = task_clients(cfg, store, home)
            judge = build_judge(cfg, store, options.judge_model, preset=options.judge_prompts)
            found = items_for(task.conversation, options)
            result = evaluate_conversation(
                store, task.conversation, found, variant(options.variant), cfg,
                cfg.model_copy(update={"k": options.k}), clients, judge, options,
                eval_id=task.eval_id, source=task.source, fmt=task.fmt)
            return EvalOutput(name=task.name, result=result.model_dump(),
                              rows=transfer.everything_but(store, seeded, keys,
                                                           vectors.borrowed))
        finally:
            store.close()


def _seeded_replies(seed) -> set:
    """The reply-cache keys a task was sent, which it must not hand back as its own."""
    return {row[0] for row in seed.llm_cache.rows} if seed and seed.llm_cache else set()


def _status(run: transfer.RunRows) -> str:
    head = run.tables[0]
    return head.rows[0][head.columns.index("status")]


def run_point_task(task: PointTask, home=None) -> PointOutput:
    from ..tuning.sweep import run_point
    maybe_fail(task.name)
    with tempfile.TemporaryDirectory(prefix="nemori-task-") as folder:
        store = open_store(folder)
        try:
            if task.seed:
                transfer.land(store, task.seed)
            keys = _seeded_replies(task.seed)
            clients, vectors = task_clients(task.config, store, home)
            point = run_point(store, task.conversation, task.config, clients,
                              source=task.source, fmt=task.fmt)
            return PointOutput(name=task.name, point=point,
                               rows=transfer.everything_but(store, set(), keys,
                                                            vectors.borrowed))
        finally:
            store.close()
