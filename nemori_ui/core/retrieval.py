"""Response generation (§3.4): retrieve narratives, semantic memories and raw messages, answer.

Retrieval needs no LLM: the query is embedded and searched in the two FAISS indexes of the
run's active memory.
"""

from __future__ import annotations

import numpy as np
from pydantic import BaseModel

from .config import PipelineConfig
from .episode_lines import attach_lines, find_episodes
from .llm.sink import call_context
from .llm.tokens import estimate_tokens
from .models import Message
from .prompts.render import NO_TIME, stamp
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
    return estimate_tokens(text)


def stamped_context(config: PipelineConfig) -> bool:
    """The paper's answer prompt reads a timestamp on every memory line; the strict preset and
    the offline engine's extractive answers read the lines as they always were."""
    return config.prompts == "paper" and config.backend != "offline"


def memory_time(memory, messages: dict[str, Message],
                said_at: dict[tuple[str, int], str] | None = None) -> str:
    """When a semantic memory was said: its latest source message (kept in `said_at`, a
    memory state's, once found: a memory's sources never change under its id)."""
    key = (memory.id, len(memory.source_message_ids))
    if said_at is not None and key in said_at:
        return said_at[key]
    held = [messages[i] for i in memory.source_message_ids if i in messages]
    stamps = [m.timestamp for m in held if m.timestamp]
    found = stamp(max(stamps)) if stamps else NO_TIME
    if said_at is not None and len(held) == len(memory.source_message_ids):
        said_at[key] = found        # else a source not read yet may still change it
    return found


def load_state(store: Store, run_id: str, dim: int) -> MemoryState:
    # searched through the same kind of index the run was built with
    return MemoryState.restore(dim, records.load_episodes(store, run_id),
                               records.load_memories(store, run_id),
                               index_kind=runs.config_of(store, run_id).index)


def load_memory(store: Store, run_id: str, embedder,
                config: PipelineConfig) -> tuple[MemoryState, dict[str, Message]]:
    """A run's memory and messages, ready to answer from with `config`'s episode matching."""
    state = load_state(store, run_id, embedder.dim)
    messages = {m.id: m for m in records.load_messages(store, run_id)}
    attach_lines(state, messages, embedder, config)
    return state, messages


def retrieve(question: str, question_vec: np.ndarray, state: MemoryState,
             messages: dict[str, Message], config: PipelineConfig, *, episodic: bool = True,
             semantic: bool = True, raw: bool = True, stamped: bool | None = None,
             m: int | None = None) -> Retrieval:
    """Top-k narratives, top-m memories (m = 2k unless given) and the raw messages of the
    top-r episodes."""
    stamped = stamped_context(config) if stamped is None else stamped
    eps = find_episodes(state, question_vec, config.k) if episodic or raw else []
    mems = state.search_memories(question_vec, m or config.m) if semantic else []
    episode_rows = [{"id": e.id, "score": round(s, 4), "cue": e.cue, "narrative": e.narrative,
                     "time": stamp(e.start)} for e, s in eps]
    raw_rows = []
    if raw:
        for e, s in eps[:config.r]:
            for mid in e.message_ids:
                m = messages[mid]
                raw_rows.append({"episode_id": e.id, "episode_score": round(s, 4),
                                 "message_id": mid, "speaker": m.speaker, "text": m.text,
                                 "timestamp": m.timestamp.isoformat() if m.timestamp else None,
                                 "source_ref": m.source_ref})
    memory_rows = [{"id": m.id, "score": round(s, 4), "text": m.text,
                    "time": memory_time(m, messages, state.said_at)} for m, s in mems]
    context = build_context(episode_rows if episodic else [], memory_rows, raw_rows,
                            stamped=stamped)
    return Retrieval(question=question, episodes=episode_rows if episodic else [],
                     semantic=memory_rows, raw=raw_rows, context=context,
                     context_tokens=count_tokens(context))


def build_context(episodes: list[dict], memories: list[dict], raw: list[dict], *,
                  stamped: bool = False) -> str:
    """The memory as the answer step reads it; `stamped` starts every episode and memory line
    with its timestamp."""
    def when(row: dict) -> str:
        return f"[{row.get('time') or NO_TIME}] " if stamped else ""

    parts = []
    if episodes:
        parts.append("Episodic memories:\n" + "\n".join(
            f"- {when(e)}{e['cue']}\n  {e['narrative']}" for e in episodes))
    if raw:
        parts.append("Original messages of the most relevant episodes:\n" + "\n".join(
            f"[{r['timestamp'] or ''}] {r['speaker']}: {r['text']}" for r in raw))
    if memories:
        parts.append("Semantic memories:\n" + "\n".join(
            f"- {when(m)}{m['text']}" for m in memories))
    return "\n\n".join(parts)


class Answered(BaseModel):
    answer: str
    found: Retrieval
    call_ids: list[str]
    fallback: str | None = None
    # who answered: "model", "offline fallback" (the model's reply was unusable), or
    # "offline engine" (a run without a model)
    source: str = "model"


def answer_question(question: str, decider: Decider, embedder, state: MemoryState,
                    messages: dict[str, Message], config: PipelineConfig, *,
                    run_id: str | None = None, **ablation) -> Answered:
    """Retrieve, then answer; the answer's LLM call is recorded as an Ask on `run_id`."""
    vec = embedder.embed([question])[0]
    found = retrieve(question, vec, state, messages, config, **ablation)
    with call_context("ask", run_id=run_id):
        result = decider.answer(question, found.context)
    source = "offline engine" if config.backend == "offline" else \
        "offline fallback" if result.fallback else "model"
    return Answered(answer=result.answer, found=found, call_ids=result.call_ids,
                    fallback=result.fallback, source=source)


def ask(question: str, decider: Decider, embedder, state: MemoryState,
        messages: dict[str, Message], config: PipelineConfig, **ablation) -> tuple[str, Retrieval, list[str]]:
    """Retrieve, then answer. Returns the answer, what was retrieved, and the LLM call ids."""
    out = answer_question(question, decider, embedder, state, messages, config, **ablation)
    return out.answer, out.found, out.call_ids
