"""One point of a sweep: a run of the conversation with the point's settings, and the figures
reported of it. A point is one task of whichever executor the sweep's caller chose; a point run
elsewhere is seeded with the replies cached for the conversation in the home, what it would
find in the shared cache when run here one after another.
"""

from __future__ import annotations

import time

from ..config import PipelineConfig
from ..episode_lines import line_text
from ..eval import qa
from ..executors import Place, Task
from ..models import Conversation
from ..pipeline.runner import Clients, run_windows, start_run
from ..retrieval import count_tokens
from ..store import Store, records, runs, transfer
from ..run_figures import run_figures
from .qa_recall import evidence_recall
from .records import PointCalls, PointFigures, PointParams, StoredSize, SweepPoint

# the parameters a sweep may vary, each with the type its values are read as
SWEEPABLE = {name: field.annotation for name, field in PointParams.model_fields.items()}


def stored_size(store: Store, run_id: str) -> StoredSize:
    """What the memory holds once built: active memories and episodes, in characters and tokens."""
    memories = [m for m in records.load_memories(store, run_id, with_vectors=False)
                if m.status == "active"]
    episodes = [e for e in records.load_episodes(store, run_id, with_vectors=False)
                if e.status == "active"]
    mem_text = "\n".join(m.text for m in memories)
    ep_text = "\n".join(f"{e.cue}\n{e.narrative}" for e in episodes)
    return StoredSize(memories=len(memories), memory_chars=len(mem_text),
                      memory_tokens=count_tokens(mem_text), episode_chars=len(ep_text),
                      episode_tokens=count_tokens(ep_text))


def point_figures(store: Store, run_id: str) -> PointFigures:
    """The figures a sweep reports for one finished run."""
    figures = run_figures(store, run_id)
    config = runs.get_run(store, run_id).config
    calls = records.load_calls(store, run_id)
    return PointFigures(
        run_id=run_id, params=PointParams(**{k: getattr(config, k) for k in SWEEPABLE}),
        episodes=figures.episodes, integrated=figures.integrated,
        insights=figures.insights, active_memories=figures.semantic_memories,
        merges=figures.decisions["merge"], conflicts=figures.decisions["conflict"],
        stored=stored_size(store, run_id),
        llm=PointCalls(calls_made=sum(not c.cached for c in calls),
                       calls_reused=sum(c.cached for c in calls),
                       failed=figures.llm.failed,
                       input_tokens=figures.llm.input_tokens,
                       output_tokens=figures.llm.output_tokens))


def run_point(store: Store, conv: Conversation, config: PipelineConfig, clients: Clients, *,
              source: str, fmt: str) -> SweepPoint:
    started = time.perf_counter()
    run_id = start_run(store, conv, config, clients, source=source, fmt=fmt, resume=False)
    run_windows(store, run_id, clients)
    seconds = round(time.perf_counter() - started, 3)
    return SweepPoint.of(point_figures(store, run_id), seconds=seconds,
                         qa=evidence_recall(store, run_id, conv, clients.embedder, config.k))


class PointTask(Task):
    conversation: Conversation
    config: PipelineConfig
    source: str
    fmt: str


def run_point_task(task: PointTask, place: Place) -> SweepPoint:
    """The task: the point's run in the place's store, and its figures."""
    return run_point(place.store, task.conversation, task.config, place.clients(task.config),
                     source=task.source, fmt=task.fmt)


def warms_up(config: PipelineConfig, points: int, remote: bool) -> bool:
    """Whether a sweep warms the caches up before its points: with the offline engine, whose
    time is mostly embedding, when more than one point shares them or they run elsewhere (a
    model's replies are shared through the reply cache instead)."""
    return config.backend == "offline" and (points > 1 or remote) and points > 0


def warm_up(conv: Conversation, clients: Clients) -> None:
    """Embed, into the cache of `clients` (the offline engine's), what every point of a sweep
    on `conv` embeds whatever its settings: the messages (partition) and their lines (episode
    matching), the questions (evidence recall), and the clauses and statements the engine reads
    in them, read here as one episode (a point reads them episode by episode: only statements
    at an episode's edge differ). Done once before the points, a fanned point finds them
    instead of each worker making them again, and a sequential sweep embeds them in the same
    batches, so both ways decide on the same vectors."""
    embedder = clients.embedder
    embedder.embed([m.text for m in conv.messages])
    embedder.embed([line_text(m) for m in conv.messages])
    if conv.extra.get("qa"):
        embedder.embed([i.question for i in qa.locomo_items(conv).items if i.checkable])
    read = getattr(clients.decider, "read_many", None)    # a test's decider may read nothing
    if read:
        read([conv.messages])


def conversation_replies(store: Store, conv: Conversation, config: PipelineConfig
                         ) -> transfer.StoreRows | None:
    """The cached replies of every run of this conversation in the home (an offline run has
    none)."""
    if config.backend == "offline":
        return None
    ids = [r["id"] for r in store.query("SELECT id FROM runs WHERE conversation_id = ? AND "
                                        "content_hash = ?",
                                        (conv.id, runs.content_hash(conv.messages)))]
    keys = [c.cache_key for run_id in ids for c in records.load_calls(store, run_id)]
    return transfer.StoreRows(llm_cache=transfer.cache_entries(store, keys)) if keys else None
