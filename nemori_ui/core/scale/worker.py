"""What a worker does with a task: run it in a store of its own and hand back what it wrote.

A task is stateless. Its store lives in a temporary folder; the task lands what the driver
seeded it with (a finished or interrupted memory, the cached replies of calls already made),
runs the same function a task in the driver's process runs, and returns its result with every
row it wrote. The temporary store goes away with the task; the driver alone writes the home's
store.

Nothing a task carries holds an API key: a worker reads it from its own environment (see
fanout.connect), as the driver's process reads it from its own.
"""

from __future__ import annotations

import functools
import json
import os
import re
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..config import PipelineConfig
from ..executors import Place, Task
from ..store import open_store, transfer

# A test hook: a JSON file {task name: failures to inject} (-1: every attempt fails; "die":
# the first attempt ends its worker process, as a crash or a kill would). Each attempt is
# counted beside the file, so a retry in another worker process sees it.
FAULTS_ENV = "NEMORI_SCALE_FAULTS"


class InjectedFault(RuntimeError):
    pass


@dataclass
class Borrowed:
    """The vector and reply keys a task read from the home, which it must not hand back."""
    vectors: set = field(default_factory=set)
    replies: set = field(default_factory=set)


@dataclass
class TaskOutput:
    name: str
    result: Any                     # what the task's function returned
    rows: transfer.StoreRows        # everything it wrote, for the driver to land


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
    if wanted == "die":
        if attempts == 0:
            os._exit(1)
        return
    if wanted < 0 or attempts < wanted:
        raise InjectedFault(f"injected failure of task {name} (attempt {attempts + 1})")


@functools.cache
def _minilm():
    # a worker holds one CPU of the cluster: one thread per task, not one per core
    from ..embed.minilm import MiniLMEmbedder
    return MiniLMEmbedder(threads=1)


def task_clients(config: PipelineConfig, store, home=None, borrowed: Borrowed | None = None):
    """The clients the driver's process would build, with MiniLM and the gateway reading the
    home's caches through `home` (lookup.HomeCaches) for what the task's own store lacks;
    what they borrow is noted in `borrowed`."""
    from ..clients import RunEnvironment, build_clients
    from ..embed import CachedEmbedder
    from ..store.caches import SqliteResponseCache, SqliteVectorCache
    from .lookup import ReadThroughReplies, ReadThroughVectors
    borrowed = borrowed or Borrowed()
    vectors = ReadThroughVectors(SqliteVectorCache(store), home)
    vectors.borrowed = borrowed.vectors
    embedder = CachedEmbedder(_minilm(), vectors) if config.embedder == "minilm" else None
    replies = ReadThroughReplies(SqliteResponseCache(store), home, borrowed.replies)
    return build_clients(config, store, RunEnvironment(embedder=embedder), replies=replies)


def run_task(task: Task, fn: Callable[[Task, Place], Any], home=None) -> TaskOutput:
    """`fn(task, place)` in a store of its own, seeded with `task.seed`."""
    maybe_fail(task.name)
    with tempfile.TemporaryDirectory(prefix="nemori-task-") as folder:
        store = open_store(folder)
        try:
            seeded = set()
            if task.seed:
                transfer.land(store, task.seed)
                seeded = {r.run_id for r in task.seed.runs
                          if r.tables[0].rows and _status(r) == "done"}
            borrowed = Borrowed()          # filled as the task runs

            def clients(config: PipelineConfig):
                return task_clients(config, store, home, borrowed)

            result = fn(task, Place(store=store, clients=clients))
            return TaskOutput(name=task.name, result=result,
                              rows=transfer.everything_but(
                                  store, seeded, _seeded_replies(task) | borrowed.replies,
                                  borrowed.vectors))
        finally:
            store.close()


def _seeded_replies(task: Task) -> set:
    """The reply-cache keys a task was sent, which it must not hand back as its own."""
    seed = task.seed
    return {row[0] for row in seed.llm_cache.rows} if seed and seed.llm_cache else set()


def _status(run: transfer.RunRows) -> str:
    head = run.tables[0]
    return head.rows[0][head.columns.index("status")]
