"""The embedder and vector-cache protocols, an in-memory cache, and the caching wrapper."""

from __future__ import annotations

import hashlib
import threading
from typing import Protocol, Sequence, runtime_checkable

import numpy as np


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into unit vectors. ``name`` is the cache namespace: two embedders with the
    same name must give the same vector for the same text."""

    name: str
    dim: int

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """float32, shape (len(texts), dim), L2-normalised rows; no texts gives shape (0, dim)."""
        ...


@runtime_checkable
class VectorCache(Protocol):
    def get_many(self, namespace: str, keys: list[str]) -> dict[str, np.ndarray]:
        """The vectors found, by key; missing keys are simply absent."""
        ...

    def put_many(self, namespace: str, items: dict[str, np.ndarray]) -> None: ...


def text_key(text: str) -> str:
    """Content hash of a text: the cache key, independent of where the text came from."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def unit_rows(x: np.ndarray) -> np.ndarray:
    """float32 rows scaled to unit length; an all-zero row stays zero rather than becoming NaN."""
    x = np.asarray(x, dtype=np.float32)
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    return (x / np.maximum(norms, 1e-12)).astype(np.float32, copy=False)


class MemoryVectorCache:
    """A process-local VectorCache. Locked because one embedder may serve several
    Streamlit sessions (threads) at once."""

    def __init__(self) -> None:
        self._data: dict[tuple[str, str], np.ndarray] = {}
        self._lock = threading.Lock()

    def get_many(self, namespace: str, keys: list[str]) -> dict[str, np.ndarray]:
        with self._lock:
            return {k: self._data[(namespace, k)] for k in keys if (namespace, k) in self._data}

    def put_many(self, namespace: str, items: dict[str, np.ndarray]) -> None:
        frozen = {}
        for k, v in items.items():
            # A private read-only copy: a caller mutating its result must not poison the cache.
            arr = np.array(v, dtype=np.float32, copy=True)
            arr.setflags(write=False)
            frozen[(namespace, k)] = arr
        with self._lock:
            self._data.update(frozen)

    def __len__(self) -> int:
        with self._lock:
            return len(self._data)


class CachedEmbedder:
    """Wraps an embedder with a content-hash cache. Only texts never seen before reach the
    inner embedder, deduplicated and in one batched call, so a re-run costs nothing.

    ``misses`` counts distinct texts sent to the inner embedder; ``hits`` counts requested
    rows served without embedding (including repeats within one call), so
    ``hits + misses`` is the number of rows requested.
    """

    def __init__(self, inner: Embedder, cache: VectorCache | None = None) -> None:
        self.inner = inner
        self.cache: VectorCache = cache if cache is not None else MemoryVectorCache()
        self.name: str = inner.name
        self.hits = 0
        self.misses = 0
        self._lock = threading.Lock()
        # one text gets one vector: the int8 model's output depends a little on the batch a
        # text is in, so two threads embedding the same new text could cache another vector
        # than the one they used, and a later run would decide on a different number
        self._embedding = threading.Lock()

    @property
    def dim(self) -> int:
        # Read through: some inner embedders only learn their dimension on first use.
        return self.inner.dim

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        keys = [text_key(t) for t in texts]
        unique = list(dict.fromkeys(keys))
        found = self.cache.get_many(self.name, unique)
        dim = self.dim
        # A cached vector of the wrong shape (a changed model under the same name, a corrupt
        # store) is re-embedded instead of being handed on.
        found = {k: v for k, v in found.items() if np.shape(v) == (dim,)}
        first_text = dict(zip(keys, texts))
        todo = [k for k in unique if k not in found]
        if todo:
            with self._embedding:
                found.update(self._embed_missing(todo, first_text, dim))
        with self._lock:
            self.misses += len(todo)
            self.hits += len(texts) - len(todo)
        return np.stack([found[k] for k in keys]).astype(np.float32, copy=True)

    def _embed_missing(self, todo: list[str], first_text: dict[str, str],
                       dim: int) -> dict[str, np.ndarray]:
        done = {k: v for k, v in self.cache.get_many(self.name, todo).items()
                if np.shape(v) == (dim,)}      # another thread may have just embedded them
        rest = [k for k in todo if k not in done]
        if rest:
            fresh = np.asarray(self.inner.embed([first_text[k] for k in rest]), dtype=np.float32)
            if fresh.shape != (len(rest), dim):
                raise ValueError(f"embedder {self.name!r} returned shape {fresh.shape}, "
                                 f"expected {(len(rest), dim)}")
            new = dict(zip(rest, fresh))
            self.cache.put_many(self.name, new)
            done.update(new)
        return done
