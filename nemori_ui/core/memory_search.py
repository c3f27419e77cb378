"""`search` over the memory a `Memory` holds, with typed hits and filters.

Without filters this is the retrieval of §3.4 exactly (`retrieval.retrieve`). With filters,
every active episode and memory is ranked (the indexes are exact, so this is the same search
with a larger k), those that fail a filter are dropped, and the top k (and m) of the rest are
kept; the raw messages come from the best r episodes that passed.
"""

from __future__ import annotations

import numpy as np

from .config import PipelineConfig
from .embed.base import text_key
from .memory_items import matches, of_episode, of_memory, of_message
from .memory_models import EpisodeHit, Filters, MemoryHit, MessageHit, SearchResult
from .models import Message
from .pipeline.state import MemoryState
from .retrieval import build_context, count_tokens, retrieve, stamped_context


def query_vector(embedder, query: str):
    """The query's vector, from the vector cache when it holds the text, else embedded, and
    not written to the cache: a query seldom comes twice, and a write would make every search
    a write transaction, waiting on every other writer of the home."""
    cache, inner = getattr(embedder, "cache", None), getattr(embedder, "inner", None)
    if cache is None or inner is None:
        return embedder.embed([query])[0]
    key = text_key(query)
    held = cache.get_many(embedder.name, [key]).get(key)
    if held is not None and np.shape(held) == (embedder.dim,):
        return np.asarray(held, dtype=np.float32)
    return np.asarray(inner.embed([query]), dtype=np.float32)[0]


def _raw(episodes: list[dict], state: MemoryState, messages: dict[str, Message],
         config: PipelineConfig, f: Filters) -> list[dict]:
    rows = []
    for e in episodes[:config.r]:
        for mid in state.episodes[e["id"]].message_ids:
            m = messages[mid]
            if not matches(of_message(m), f, messages):
                continue
            rows.append({"episode_id": e["id"], "episode_score": e["score"], "message_id": mid,
                         "speaker": m.speaker, "text": m.text,
                         "timestamp": m.timestamp.isoformat() if m.timestamp else None,
                         "source_ref": m.source_ref})
    return rows


def search(query: str, vector, state: MemoryState, messages: dict[str, Message],
           config: PipelineConfig, *, k: int | None, m: int | None, filters: Filters | None,
           pending: int, processing: bool) -> SearchResult:
    config = config if k is None else config.model_copy(update={"k": k})
    m = m or config.m
    if filters is None:
        found = retrieve(query, vector, state, messages, config, m=m)
        episodes, memories, raw = found.episodes, found.semantic, found.raw
    else:
        wide = config.model_copy(update={"k": max(len(state.episode_index), 1)})
        found = retrieve(query, vector, state, messages, wide, raw=False,
                         m=max(len(state.memory_index), 1))
        # the kinds pick what is returned; the other filters pick the episodes whose
        # messages are returned too
        kinds, loose = filters.kinds(), filters.model_copy(update={"kind": None})
        episodes = [row for row in found.episodes if matches(
            of_episode(state.episodes[row["id"]]), loose, messages)][:config.k]
        raw = _raw(episodes, state, messages, config, loose) if "message" in kinds else []
        episodes = episodes if "episode" in kinds else []
        memories = [row for row in found.semantic if "semantic" in kinds and matches(
            of_memory(state.memories[row["id"]], messages), loose, messages)][:m]
        found.context = build_context(episodes, memories, raw,
                                      stamped=stamped_context(config))
        found.context_tokens = count_tokens(found.context)
    return SearchResult(
        query=query, context=found.context, context_tokens=found.context_tokens,
        pending=pending, processing=processing,
        episodes=[EpisodeHit(**row, start=state.episodes[row["id"]].start,
                             end=state.episodes[row["id"]].end,
                             message_ids=state.episodes[row["id"]].message_ids)
                  for row in episodes],
        semantic=[MemoryHit(**row, source_message_ids=state.memories[row["id"]].source_message_ids)
                  for row in memories],
        raw=[MessageHit(**row) for row in raw])
