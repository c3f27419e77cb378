"""An episode's lines for a memory that keeps growing: `episode_lines.EpisodeLines` built once
and then added to and taken from in place, so a window processed costs its own lines only.

Rows are never moved: a superseded or deleted episode's rows are marked dead and stay out of
every score. An episode's rows are consecutive, so its best line is one `reduceat` segment.
The matrix doubles when full, so adding a line costs O(1) amortised.
"""

from __future__ import annotations

import numpy as np

from .episode_lines import line_text
from .models import Episode, Message
from .vectors import inner_products


class LiveLines:
    """The same `best(vector)` as `EpisodeLines`, over the active episodes' lines."""

    def __init__(self, dim: int, embedder):
        self.dim, self._embedder = dim, embedder
        self._vectors = np.zeros((256, dim), dtype=np.float32)
        self._alive = np.zeros(256, dtype=bool)
        self._rows: dict[str, list[int]] = {}          # episode id -> its rows
        self._episode_ids: list[str] = []
        self._starts: list[int] = []                  # each episode's first row
        self._n = 0

    def add(self, episodes: list[Episode], messages: dict[str, Message]) -> None:
        """Add the lines of those `episodes` that are active (one embedding call for all)."""
        owners, texts = [], []
        for e in episodes:
            if e.status != "active" or e.embedding is None or e.id in self._rows:
                continue
            for mid in e.message_ids:
                if mid in messages:
                    owners.append(e.id)
                    texts.append(line_text(messages[mid]))
        if not texts:
            return
        vectors = np.asarray(self._embedder.embed(texts), dtype=np.float32)
        self._grow(self._n + len(texts))
        for owner, vector in zip(owners, vectors):
            row = self._n
            if owner not in self._rows:       # an episode's lines come together: one segment
                self._rows[owner] = []
                self._episode_ids.append(owner)
                self._starts.append(row)
            self._vectors[row], self._alive[row] = vector, True
            self._rows[owner].append(row)
            self._n += 1

    def drop(self, episode_id: str) -> None:
        """The episode left active memory (superseded, deleted): its lines score no more."""
        for row in self._rows.get(episode_id, ()):
            self._alive[row] = False

    def _grow(self, needed: int) -> None:
        size = len(self._alive)
        if needed <= size:
            return
        while size < needed:
            size *= 2
        for name in ("_vectors", "_alive"):
            old = getattr(self, name)
            new = np.zeros((size, *old.shape[1:]), dtype=old.dtype)
            new[:len(old)] = old
            setattr(self, name, new)

    def best(self, vector: np.ndarray) -> dict[str, float]:
        """Each active episode's most similar line to `vector`."""
        if not self._n:
            return {}
        q = np.asarray(vector, dtype=np.float32)
        scores = inner_products(self._vectors[:self._n], q / (np.linalg.norm(q) or 1.0))
        scores[~self._alive[:self._n]] = -np.inf
        top = np.maximum.reduceat(scores, np.asarray(self._starts, dtype=np.int64))
        held = np.flatnonzero(top > -np.inf)
        return {self._episode_ids[i]: float(top[i]) for i in held}
