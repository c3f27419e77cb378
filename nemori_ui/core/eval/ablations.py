"""The systems an evaluation can compare, and Nemori retrieval under each ablation.

Every variant answers with the same decider and answer prompt; they differ in how the memory
is built (`build`: configuration overrides) and in what retrieval puts in the context. The
paper rows they reproduce are named in `paper` (see paper.py).

Table 5 ablations discard parts of the memory at response time: w/o e drops the episodic
database (narratives *and* their raw messages), w/o s the semantic one, w/o p the raw messages.
Nemori-s and the naive-management row are, like w/o e, answered from semantic memory alone.
Table 6 (index / retrieve N or P) was run without semantic memory, as its N→N row equals w/o s.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..config import PipelineConfig
from ..episode_lines import find_episodes
from ..models import Message, SemanticMemory
from ..pipeline.state import MemoryState
from ..prompts.render import stamp
from ..retrieval import build_context, count_tokens, memory_time, retrieve, stamped_context
from ..vectors import VectorStore


@dataclass(frozen=True)
class Variant:
    name: str
    label: str
    memory: bool = True                 # answered from a Nemori memory built by the pipeline
    build: dict = field(default_factory=dict)
    episodic: bool = True
    semantic: bool = True
    raw: bool = True
    index: str = "N"                    # episodes found by narrative (N) or raw-episode (P) vectors
    content: str = "N"                  # the context holds narratives (N) or raw episodes (P)
    paper: str | None = None


VARIANTS: dict[str, Variant] = {v.name: v for v in (
    Variant("nemori", "Nemori", paper="Nemori"),
    Variant("full-context", "Full context", memory=False, paper="Full Context"),
    Variant("rag-4096", "RAG-4096", memory=False, paper="RAG-4096"),
    Variant("no-episodic", "w/o episodic", episodic=False, raw=False, paper="w/o e"),
    Variant("no-semantic", "w/o semantic", semantic=False, paper="w/o s"),
    Variant("no-raw", "w/o raw messages", raw=False, paper="w/o p"),
    Variant("nemori-s", "Nemori-s (direct distillation)", build={"variant": "nemori-s"},
            episodic=False, raw=False, paper="Nemori-s"),
    Variant("naive", "naive management (semantic only)", build={"management": "naive"},
            episodic=False, raw=False, paper="w/o e, naive"),
    Variant("index-p", "index P, retrieve N", semantic=False, index="P", paper="P→N"),
    Variant("retrieve-p", "index N, retrieve P", semantic=False, content="P", paper="N→P"),
    Variant("index-p-retrieve-p", "index P, retrieve P", semantic=False, index="P",
            content="P", paper="P→P"),
)}
BASELINES = ("full-context", "rag-4096")


def variant(name: str) -> Variant:
    try:
        return VARIANTS[name]
    except KeyError:
        raise KeyError(f"unknown variant '{name}' (choose from {', '.join(VARIANTS)})") from None


def build_config(config: PipelineConfig, v: Variant) -> PipelineConfig:
    return config.model_copy(update=v.build)


@dataclass
class Found:
    """What a system retrieved for one question."""
    context: str
    context_tokens: int
    message_ids: list[str] | None       # raw turns of the retrieved episodes; None: no episodes
    rows: dict
    # the retrieved memories, whose turns are credited against each question's gold answer
    # (see evidence.py); None: no semantic memory
    memories: list[SemanticMemory] | None = None


def raw_text(messages: list[Message]) -> str:
    return "\n".join(f"{m.speaker}: {m.text}" for m in messages)


class NemoriRetriever:
    """Retrieval over one run's memory with a variant's switches."""

    def __init__(self, v: Variant, state: MemoryState, messages: dict[str, Message],
                 config: PipelineConfig, embedder):
        self.v, self.state, self.messages, self.config = v, state, messages, config
        self.raw_index = self._raw_index(embedder) if v.index == "P" else None

    def _raw_index(self, embedder) -> VectorStore:
        episodes = self.state.active_episodes()
        index = VectorStore(self.state.dim)
        if episodes:
            texts = [raw_text([self.messages[i] for i in e.message_ids]) for e in episodes]
            index.add_many([e.id for e in episodes], embedder.embed(texts))
        return index

    def __call__(self, question: str, vec: np.ndarray) -> Found:
        v = self.v
        if v.index == "N" and v.content == "N":
            found = retrieve(question, vec, self.state, self.messages, self.config,
                             episodic=v.episodic, semantic=v.semantic, raw=v.raw)
            shown = found.episodes if v.episodic else []
            if v.episodic:
                ids = [m for e in found.episodes for m in self.state.episodes[e["id"]].message_ids]
            elif v.raw:
                ids = [r["message_id"] for r in found.raw]
            else:
                ids = None
            rows = {"episodes": [_slim(e, self.state) for e in shown],
                    "semantic": found.semantic,
                    "raw": [r["message_id"] for r in found.raw]}
            return Found(found.context, found.context_tokens, ids, rows,
                         self._memories([m["id"] for m in found.semantic]) if v.semantic else None)
        return self._custom(vec)

    def _custom(self, vec: np.ndarray) -> Found:
        v, k = self.v, self.config.k
        if v.index == "P":
            hits = [(self.state.episodes[i], s) for i, s in self.raw_index.search(vec, k)]
        else:
            hits = find_episodes(self.state, vec, k)
        episode_rows = [{"id": e.id, "score": round(s, 4), "cue": e.cue,
                         "narrative": e.narrative, "time": stamp(e.start)} for e, s in hits]
        with_raw = hits if v.content == "P" else hits[:self.config.r] if v.raw else []
        raw_rows = [_raw_row(self.messages[mid], e.id, s) for e, s in with_raw
                    for mid in e.message_ids]
        mems = self.state.search_memories(vec, self.config.m) if v.semantic else []
        memory_rows = [{"id": m.id, "score": round(s, 4), "text": m.text,
                        "time": memory_time(m, self.messages)} for m, s in mems]
        context = build_context(episode_rows if v.content == "N" else [], memory_rows, raw_rows,
                                stamped=stamped_context(self.config))
        ids = [m for e, _ in hits for m in e.message_ids]
        rows = {"episodes": [_slim(e, self.state) for e in episode_rows],
                "semantic": memory_rows, "raw": [r["message_id"] for r in raw_rows]}
        return Found(context, count_tokens(context), ids, rows,
                     self._memories([m.id for m, _ in mems]) if v.semantic else None)

    def _memories(self, memory_ids: list[str]) -> list[SemanticMemory]:
        return [self.state.memories[i] for i in memory_ids]


def _raw_row(m: Message, episode_id: str, score: float) -> dict:
    return {"episode_id": episode_id, "episode_score": round(score, 4), "message_id": m.id,
            "speaker": m.speaker, "text": m.text,
            "timestamp": m.timestamp.isoformat() if m.timestamp else None}


def _slim(row: dict, state: MemoryState) -> dict:
    """An episode as results keep it: its messages instead of its narrative (in the context)."""
    return {"id": row["id"], "score": row["score"], "cue": row["cue"],
            "message_ids": list(state.episodes[row["id"]].message_ids)}
