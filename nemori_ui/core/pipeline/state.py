"""The memory as it stands during a run: episodes, semantic memories and their FAISS indexes.

Superseded entries stay in the dictionaries (with status and successor) but leave the indexes,
so search only ever sees active memory. Everything changed since the last commit is tracked so
a window's results can be saved in one transaction.
"""

from __future__ import annotations

import numpy as np

from ..models import Episode, SemanticMemory
from ..vectors import VectorStore


class MemoryState:
    def __init__(self, dim: int, *, index_kind: str = "flat"):
        self.dim = dim
        self.episodes: dict[str, Episode] = {}
        self.memories: dict[str, SemanticMemory] = {}
        self.episode_index = VectorStore(dim, kind=index_kind)
        self.memory_index = VectorStore(dim, kind=index_kind)
        self._dirty_episodes: set[str] = set()
        self._dirty_memories: set[str] = set()
        # the episodes' messages as vectors, attached when the memory is loaded for answering
        # (`episode_lines.attach_lines`); a memory being built never has them
        self.lines = None
        # when each memory was said, as retrieval stamps it, by (id, number of sources): a
        # merged memory's sources run to thousands of messages, read again on every search
        self.said_at: dict[tuple[str, int], str] = {}
        # the messages a distillation has read: never read again (pipeline/skipped.py)
        self.distilled: set[str] = set()

    @classmethod
    def restore(cls, dim: int, episodes: list[Episode], memories: list[SemanticMemory],
                *, index_kind: str = "flat") -> "MemoryState":
        state = cls(dim, index_kind=index_kind)
        state.episodes = {e.id: e for e in episodes}
        state.memories = {m.id: m for m in memories}
        # a window is stored whole, and every episode of it was distilled (merged ones as
        # the episode they became): what any stored episode holds has been read
        state.distilled = {i for e in episodes for i in e.message_ids}
        for items, index in ((episodes, state.episode_index), (memories, state.memory_index)):
            active = [x for x in items if x.status == "active" and x.embedding is not None]
            if active:
                index.add_many([x.id for x in active],
                               np.asarray([x.embedding for x in active], dtype=np.float32))
        return state

    # ids are derived from counts so that a resumed run names things exactly as an
    # uninterrupted one would
    def next_episode_id(self) -> str:
        return f"ep{len(self.episodes) + 1:04d}"

    def next_memory_id(self) -> str:
        return f"sm{len(self.memories) + 1:04d}"

    def add_episode(self, episode: Episode, *, indexed: bool = True) -> None:
        self.episodes[episode.id] = episode
        self._dirty_episodes.add(episode.id)
        if indexed and episode.status == "active":
            self.episode_index.add(episode.id, np.asarray(episode.embedding, dtype=np.float32))

    def supersede_episode(self, old_id: str, new_id: str) -> None:
        _supersede(self.episodes[old_id], new_id, self.episode_index, self._dirty_episodes)

    def add_memory(self, memory: SemanticMemory) -> None:
        self.memories[memory.id] = memory
        self._dirty_memories.add(memory.id)
        self.memory_index.add(memory.id, np.asarray(memory.embedding, dtype=np.float32))

    def supersede_memory(self, old_id: str, new_id: str) -> None:
        _supersede(self.memories[old_id], new_id, self.memory_index, self._dirty_memories)

    def active_episodes(self) -> list[Episode]:
        return [e for e in self.episodes.values() if e.status == "active"]

    def active_memories(self) -> list[SemanticMemory]:
        return [m for m in self.memories.values() if m.status == "active"]

    def search_episodes(self, vector: np.ndarray, k: int) -> list[tuple[Episode, float]]:
        return [(self.episodes[i], s) for i, s in self.episode_index.search(vector, k)]

    def search_memories(self, vector: np.ndarray, k: int,
                        threshold: float | None = None) -> list[tuple[SemanticMemory, float]]:
        hits = self.memory_index.search(vector, k, threshold=threshold)
        return [(self.memories[i], s) for i, s in hits]

    def take_dirty(self) -> tuple[list[Episode], list[SemanticMemory]]:
        episodes = [self.episodes[i] for i in sorted(self._dirty_episodes)]
        memories = [self.memories[i] for i in sorted(self._dirty_memories)]
        self._dirty_episodes.clear()
        self._dirty_memories.clear()
        return episodes, memories


def _supersede(old: Episode | SemanticMemory, new_id: str, index: VectorStore,
               dirty: set[str]) -> None:
    """Keep the old entry with its successor; only active entries are searchable."""
    if old.id in index:
        index.remove(old.id)
    old.status, old.superseded_by = "superseded", new_id
    dirty.add(old.id)
