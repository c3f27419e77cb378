"""The two baselines of Table 2, answered with the same decider and answer prompt as Nemori.

Full context: the whole transcript, every message with its time, in order.

RAG-4096: the transcript cut into consecutive chunks of at most 4,096 tokens (counted as the
context is, about four characters a token), always at message boundaries so no message is
split; a single longer message is a chunk of its own. Chunks are embedded with the run's
embedder and the most similar ones are put in the context while they fit a budget of 4,096
tokens, so in practice the context is the one best chunk: what the paper's RAG-4096 uses
(about 3,400 tokens a question in Table 4), and at least one chunk is always given.

An embedder that reads only the start of a long text (MiniLM stops at 256 word pieces) would
judge a chunk by its first messages, so for such an embedder a chunk's vector is the
normalised mean of its messages' vectors; an embedder with a long input (OpenAI's 8,191
tokens) embeds the chunk text itself.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..embed import unit_rows
from ..models import Message
from ..retrieval import count_tokens
from ..vectors import VectorStore
from .ablations import Found

CHUNK_TOKENS = 4096
BUDGET_TOKENS = 4096
TRANSCRIPT_HEADER = "Conversation transcript:"


def line(m: Message) -> str:
    stamp = m.timestamp.isoformat() if m.timestamp else ""
    return f"[{stamp}] {m.speaker}: {m.text}"


def _context(messages: list[Message]) -> str:
    return TRANSCRIPT_HEADER + "\n" + "\n".join(line(m) for m in messages)


class FullContext:
    def __init__(self, messages: list[Message]):
        self.messages = messages
        self.context = _context(messages)
        self.tokens = count_tokens(self.context)
        self.ids = [m.id for m in messages]

    def __call__(self, question: str, vec: np.ndarray) -> Found:
        # the context is the transcript itself: results keep only its size
        return Found(self.context, self.tokens, self.ids, {"full_context": True})


@dataclass
class Chunk:
    id: str
    messages: list[Message]

    @property
    def text(self) -> str:
        return "\n".join(line(m) for m in self.messages)


def make_chunks(messages: list[Message], max_tokens: int = CHUNK_TOKENS) -> list[Chunk]:
    chunks: list[list[Message]] = []
    current: list[Message] = []
    lines: list[str] = []
    for m in messages:
        text = line(m)
        # measured on the joined text, exactly as the context will be counted
        if current and count_tokens("\n".join(lines + [text])) > max_tokens:
            chunks.append(current)
            current, lines = [], []
        current.append(m)
        lines.append(text)
    if current:
        chunks.append(current)
    return [Chunk(f"c{i + 1:03d}", c) for i, c in enumerate(chunks)]


def _reads_whole_chunk(embedder, max_tokens: int) -> bool:
    inner = getattr(embedder, "inner", embedder)
    limit = getattr(inner, "max_length", None)
    return limit is None or limit >= max_tokens


def chunk_vectors(chunks: list[Chunk], embedder, max_tokens: int = CHUNK_TOKENS) -> np.ndarray:
    if not chunks:
        return np.zeros((0, embedder.dim), dtype=np.float32)
    if _reads_whole_chunk(embedder, max_tokens):
        return embedder.embed([c.text for c in chunks])
    vecs = embedder.embed([f"{m.speaker}: {m.text}" for c in chunks for m in c.messages])
    out, start = [], 0
    for c in chunks:
        out.append(vecs[start:start + len(c.messages)].mean(axis=0))
        start += len(c.messages)
    return unit_rows(np.asarray(out))


class Rag:
    def __init__(self, messages: list[Message], embedder, *, chunk_tokens: int = CHUNK_TOKENS,
                 budget: int = BUDGET_TOKENS):
        self.chunks = {c.id: c for c in make_chunks(messages, chunk_tokens)}
        self.budget = budget
        self.index = VectorStore(embedder.dim)
        if self.chunks:
            self.index.add_many(list(self.chunks),
                                chunk_vectors(list(self.chunks.values()), embedder, chunk_tokens))

    def __call__(self, question: str, vec: np.ndarray) -> Found:
        chosen, used = [], 0
        for cid, score in self.index.search(vec, len(self.chunks)):
            cost = count_tokens(self.chunks[cid].text)
            if chosen and used + cost > self.budget:
                break
            chosen.append((cid, score))
            used += cost
        # shown in transcript order: a chunk is a stretch of the conversation
        picked = sorted(chosen, key=lambda c: c[0])
        messages = [m for cid, _ in picked for m in self.chunks[cid].messages]
        context = _context(messages) if messages else ""
        rows = {"chunks": [{"id": cid, "score": round(s, 4),
                            "message_ids": [m.id for m in self.chunks[cid].messages]}
                           for cid, s in chosen]}
        return Found(context, count_tokens(context), [m.id for m in messages], rows)
