"""An episode's lines for a memory that keeps growing: `episode_lines.EpisodeLines` built once
and then added to and taken from in place, so a window processed costs its own lines only.

Rows are never moved: a superseded or deleted episode's rows are marked dead and stay out of
every score. The matrix doubles when full, so adding a line costs O(1) amortised.
"""

from __future__ import annotations

import numpy as np

from .episode_lines import line_text
from .models import Episode, Message


class LiveLines:
    """The same `best(vector)` as `EpisodeLines`, over the active episodes' lines."""

    def __init__(self, dim: int, embedder):
        self.dim, self._embedder = dim, embedder
        self._vectors = np.zeros((256, dim), dtype=np.float32)
        self._owner = np.zeros(256, dtype=np.int64)    # row -> position in _episode_ids
        self._alive = np.zeros(256, dtype=bool)
        self._rows: dict[str, list[int]] = {}          # episode id -> its rows
        self._episode_ids: list[str] = []
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
            if owner not in self._rows:
                self._rows[owner] = []
                self._episode_ids.append(owner)
            row = self._n
            self._vectors[row], self._alive[row] = vector, True
            self._owner[row] = len(self._episode_ids) - 1    # an episode's lines come together
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
        for name in ("_vectors", "_owner", "_alive"):
            old = getattr(self, name)
            new = np.zeros((size, *old.shape[1:]), dtype=old.dtype)
            new[:len(old)] = old
            setattr(self, name, new)

    def best(self, vector: np.ndarray) -> dict[str, float]:
        """Each active episode's most similar line to `vector`."""
        alive = np.flatnonzero(self._alive[:self._n])
        if not len(alive):
            return {}
        q = np.asarray(vector, dtype=np.float32)
        # one product over every row (no copy of the live ones), then the live rows' scores
        scores = (self._vectors[:self._n] @ (q / (np.linalg.norm(q) or 1.0)))[alive]
        top = np.full(len(self._episode_ids), -np.inf, dtype=np.float32)
        np.maximum.at(top, self._owner[alive], scores)
        held = np.flatnonzero(top > -np.inf)
        return {self._episode_ids[i]: float(top[i]) for i in held}
