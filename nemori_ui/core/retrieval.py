"""Response generation (§3.4): retrieve narratives, semantic memories and raw messages, answer.

Retrieval needs no LLM: the query is embedded and searched in the two FAISS indexes of the
run's active memory.
"""

from __future__ import annotations

import math

import numpy as np
from pydantic import BaseModel

from .config import PipelineConfig
from .models import Message
from .pipeline.decisions import Decider
from .pipeline.state import MemoryState
from .store import Store
from .store import records, runs


class Retrieval(BaseModel):
    question: str
    episodes: list[dict]      # id, score, cue, narrative
    semantic: list[dict]      # id, score, text
    raw: list[dict]           # episode_id, episode_score, message_id, speaker, text, timestamp
    context: str
    context_tokens: int


def count_tokens(text: str) -> int:
    """Tokens as GPT-family tokenizers count English text, about four characters each."""
    return math.ceil(len(text) / 4)


def load_state(store: Store, run_id: str, dim: int) -> MemoryState:
    # searched through the same kind of index the run was built with
    return MemoryState.restore(dim, records.load_episodes(store, run_id),
                               records.load_memories(store, run_id),
                               index_kind=runs.config_of(store, run_id).index)


def retrieve(question: str, question_vec: np.ndarray, state: MemoryState,
             messages: dict[str, Message], config: PipelineConfig, *, episodic: bool = True,
             semantic: bool = True, raw: bool = True) -> Retrieval:
    """Top-k narratives, top-m memories and the raw messages of the top-r episodes."""
    eps = state.search_episodes(question_vec, config.k) if episodic or raw else []
    mems = state.search_memories(question_vec, config.m) if semantic else []
    episode_rows = [{"id": e.id, "score": round(s, 4), "cue": e.cue, "narrative": e.narrative}
                    for e, s in eps]
    raw_rows = []
    if raw:
        for e, s in eps[:config.r]:
            for mid in e.message_ids:
                m = messages[mid]
                raw_rows.append({"episode_id": e.id, "episode_score": round(s, 4),
                                 "message_id": mid, "speaker": m.speaker, "text": m.text,
                                 "timestamp": m.timestamp.isoformat() if m.timestamp else None,
                                 "source_ref": m.source_ref})
    memory_rows = [{"id": m.id, "score": round(s, 4), "text": m.text} for m, s in mems]
    context = build_context(episode_rows if episodic else [], memory_rows, raw_rows)
    return Retrieval(question=question, episodes=episode_rows if episodic else [],
                     semantic=memory_rows, raw=raw_rows, context=context,
                     context_tokens=count_tokens(context))


def build_context(episodes: list[dict], memories: list[dict], raw: list[dict]) -> str:
    parts = []
    if episodes:
        parts.append("Episodic memories:\n" + "\n".join(
            f"- {e['cue']}\n  {e['narrative']}" for e in episodes))
    if raw:
        parts.append("Original messages of the most relevant episodes:\n" + "\n".join(
            f"[{r['timestamp'] or ''}] {r['speaker']}: {r['text']}" for r in raw))
    if memories:
        parts.append("Semantic memories:\n" + "\n".join(f"- {m['text']}" for m in memories))
    return "\n\n".join(parts)


def ask(question: str, decider: Decider, embedder, state: MemoryState,
        messages: dict[str, Message], config: PipelineConfig, **ablation) -> tuple[str, Retrieval, list[str]]:
    """Retrieve, then answer. Returns the answer, what was retrieved, and the LLM call ids."""
    vec = embedder.embed([question])[0]
    found = retrieve(question, vec, state, messages, config, **ablation)
    result = decider.answer(question, found.context)
    return result.answer, found, result.call_ids
