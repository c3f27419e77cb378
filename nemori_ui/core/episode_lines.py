"""Episodes found by their best line as well as by their narrative, when answering.

A narrative is one vector for a whole episode, so a question about one detail of a long
episode meets it diluted by everything else the episode held; a message of the episode that
says the detail meets it at full strength. With `episode_match = "narrative+messages"` an
episode's score for a question is the mean of its narrative's similarity and that of its most
similar message (its text as said, the vector the partition stage already made of it, so
the lines cost the offline engine nothing), the way parent-document retrieval scores a
document by its best passage. The paper (§3.4) ranks by narrative alone:
`episode_match = "narrative"` does that, and integration always does.

The per-episode maximum needs every line's score, so the lines are one matrix searched with
a single product (FAISS's own kernel, as an exact index scores, without a k to choose), and
only the episodes that can reach the top k are sorted.
"""

from __future__ import annotations

import numpy as np

from .models import Episode, Message
from .pipeline.state import MemoryState
from .vectors import inner_products


def line_text(m: Message) -> str:
    return m.text


class EpisodeLines:
    """The messages of a memory's active episodes as vectors, each knowing its episode."""

    def __init__(self, state: MemoryState, messages: dict[str, Message], embedder):
        episodes = [e for e in state.active_episodes() if e.embedding is not None]
        owners, texts = [], []
        for e in episodes:
            for mid in e.message_ids:
                if mid in messages:
                    owners.append(e.id)
                    texts.append(line_text(messages[mid]))
        self.episode_ids = list(dict.fromkeys(owners))
        at = {eid: i for i, eid in enumerate(self.episode_ids)}
        self._owner = np.asarray([at[o] for o in owners], dtype=np.int64)
        self._vectors = embedder.embed(texts) if texts else np.zeros((0, state.dim), np.float32)

    def best(self, vector: np.ndarray) -> dict[str, float]:
        """Each episode's most similar line to `vector`."""
        if not len(self._vectors):
            return {}
        q = np.asarray(vector, dtype=np.float32)
        scores = inner_products(self._vectors, q / (np.linalg.norm(q) or 1.0))
        top = np.full(len(self.episode_ids), -np.inf, dtype=np.float32)
        np.maximum.at(top, self._owner, scores)
        return dict(zip(self.episode_ids, top.tolist()))


def attach_lines(state: MemoryState, messages: dict[str, Message], embedder, config) -> None:
    """Give a memory loaded for answering its lines, when the settings match by them."""
    if config.episode_match == "narrative+messages" and state.lines is None:
        state.lines = EpisodeLines(state, messages, embedder)


def find_episodes(state: MemoryState, vector: np.ndarray, k: int) -> list[tuple[Episode, float]]:
    """The top-k episodes for a question: by narrative, or by narrative and best line when the
    memory has its lines attached; ties by episode id."""
    lines = state.lines
    if lines is None:
        return state.search_episodes(vector, k)
    # every episode the run's index returns is a candidate (all of them, for an exact index)
    every = state.episode_index.scores(vector)
    if every is None:
        hits = state.search_episodes(vector, max(k, len(state.episode_index)))
        every = [e.id for e, _ in hits], np.asarray([s for _, s in hits], dtype=np.float32)
    ids, narrative = every
    best = lines.best(vector)
    line = np.asarray([best.get(i, np.nan) for i in ids], dtype=np.float64)
    narrative = narrative.astype(np.float64)
    scores = np.where(np.isnan(line), narrative, (narrative + line) / 2).tolist()
    return [(state.episodes[ids[i]], scores[i]) for i in top_k(scores, ids, k)]


def top_k(scores: list[float], ids: list[str], k: int) -> list[int]:
    """Positions of the k best scores, best first, ties by id: only the scores at or above
    the k-th best are sorted."""
    if k <= 0 or not scores:
        return []
    cut = len(scores) - k
    candidates = range(len(scores)) if cut <= 0 else \
        np.flatnonzero(np.asarray(scores) >= np.partition(scores, cut)[cut]).tolist()
    return sorted(candidates, key=lambda i: (-scores[i], ids[i]))[:k]
