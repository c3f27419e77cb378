"""FAISS vector stores: cosine similarity over unit vectors, addressed by stable string ids.

FAISS labels are int64; each store maps them to the product's string ids. A label is never
reused, so a stale label can never resolve to a different memory.
"""

from __future__ import annotations

import math
import os
import threading
from typing import Collection, Iterable, Literal

import faiss
import numpy as np

# The pipeline searches one query at a time between embedding calls; FAISS's OpenMP workers
# then spin against onnxruntime's for the same two cores and a 0.1 ms search takes 10 ms.
# One thread is also fast enough for exact search at 100k entries; raise it for batch work.
faiss.omp_set_num_threads(int(os.environ.get("NEMORI_FAISS_THREADS", "1")))

Kind = Literal["flat", "hnsw", "ivf"]


def inner_products(rows: np.ndarray, query: np.ndarray) -> np.ndarray:
    """`rows @ query` on this thread, by FAISS's kernel: numpy hands a product this size to
    its BLAS, which spreads it over every core and, with the cores busy, took 15-20 ms for
    10,000 rows where one thread takes half a millisecond."""
    rows = np.ascontiguousarray(rows, dtype=np.float32)
    query = np.ascontiguousarray(query, dtype=np.float32).reshape(-1)
    if rows.ndim != 2 or rows.shape[1] != len(query):
        raise ValueError(f"rows of shape {rows.shape} against a query of {len(query)}")
    out = np.empty(len(rows), dtype=np.float32)
    if len(rows):
        faiss.fvec_inner_products_ny(faiss.swig_ptr(out), faiss.swig_ptr(query),
                                     faiss.swig_ptr(rows), len(query), len(rows))
    return out
Hit = tuple[str, float]


class VectorStore:
    """FAISS inner-product index over unit vectors (cosine), with stable string ids.

    - ``flat``: exact, ``IndexIDMap2(IndexFlatIP)``; remove/replace are ``remove_ids`` calls.
    - ``hnsw``: ``IndexHNSWFlat``. HNSW cannot delete nodes from its graph (FAISS raises on
      ``remove_ids``), so removed labels become tombstones that searches over-fetch past and
      filter out. Tombstones still cost search time and memory, so once they exceed 20% of
      the index it is rebuilt from the live vectors.
    - ``ivf``: ``IndexIVFFlat``. Its k-means needs enough points to be meaningful, so until
      ``ivf_train_size`` live vectors exist the store searches an exact flat index, then it
      trains once on them and moves over.

    Results are sorted by score, ties by insertion order (a replaced id keeps its place), so
    equal inputs give equal outputs whatever order FAISS returns ties in.
    """

    HNSW_M = 32
    HNSW_EF_SEARCH = 128
    HNSW_EF_CONSTRUCTION = 80
    TOMBSTONE_LIMIT = 0.20

    def __init__(self, dim: int, *, kind: Kind = "flat", ivf_train_size: int = 1024) -> None:
        if dim < 1:
            raise ValueError("dim must be positive")
        if kind not in ("flat", "hnsw", "ivf"):
            raise ValueError(f"unknown index kind {kind!r}; use 'flat', 'hnsw' or 'ivf'")
        self.dim, self.kind, self.ivf_train_size = dim, kind, max(1, ivf_train_size)
        self._label: dict[str, int] = {}   # live id -> FAISS label
        self._name: dict[int, str] = {}    # live FAISS label -> id
        self._order: dict[str, int] = {}   # id -> insertion rank, for deterministic ties
        self._dead: set[int] = set()       # hnsw tombstones: labels still in the graph
        self._next_label = 0
        self._next_rank = 0
        self._ivf_trained = False
        self._lock = threading.RLock()     # one store may be read by several sessions
        self._index = self._empty_index()

    # ---- construction -------------------------------------------------------------------
    @classmethod
    def build(cls, dim: int, ids: Iterable[str], vectors: np.ndarray, *, kind: Kind = "flat",
              **options) -> "VectorStore":
        """A store holding ``ids`` with their stored vectors, in that (insertion) order."""
        store = cls(dim, kind=kind, **options)
        ids = list(ids)
        if ids:
            store.add_many(ids, vectors)
        return store

    def _empty_index(self) -> faiss.Index:
        if self.kind == "hnsw":
            inner = faiss.IndexHNSWFlat(self.dim, self.HNSW_M, faiss.METRIC_INNER_PRODUCT)
            inner.hnsw.efSearch = self.HNSW_EF_SEARCH
            inner.hnsw.efConstruction = self.HNSW_EF_CONSTRUCTION
            self._inner = inner  # IndexIDMap2 exposes only the base class; keep the typed one
            return faiss.IndexIDMap2(inner)
        self._inner = faiss.IndexFlatIP(self.dim)
        return faiss.IndexIDMap2(self._inner)

    def _unit(self, x: np.ndarray, what: str) -> np.ndarray:
        x = np.array(x, dtype=np.float32, copy=True)
        if x.ndim == 1:
            x = x[None, :]
        if x.ndim != 2 or x.shape[1] != self.dim:
            raise ValueError(f"{what} must have dimension {self.dim}, got shape {x.shape}")
        norms = np.linalg.norm(x, axis=1)
        if not np.all(np.isfinite(x)) or np.any(norms == 0):
            raise ValueError(f"{what}: cosine is undefined for zero or non-finite vectors")
        # Rows already unit length are kept bit-for-bit, so a store rebuilt from the vectors
        # it handed out scores exactly as the original did.
        scale = np.where(np.abs(norms - 1.0) <= 1e-6, 1.0, norms).astype(np.float32)
        return np.ascontiguousarray(x / scale[:, None], dtype=np.float32)

    # ---- mutation -----------------------------------------------------------------------
    def add(self, item_id: str, vector: np.ndarray) -> None:
        self.add_many([item_id], np.asarray(vector).reshape(1, -1))

    def add_many(self, ids: list[str], vectors: np.ndarray) -> None:
        ids = list(ids)
        vecs = self._unit(vectors, "vectors") if ids else np.zeros((0, self.dim), np.float32)
        if len(ids) != len(vecs):
            raise ValueError(f"{len(ids)} ids but {len(vecs)} vectors")
        if len(set(ids)) != len(ids):
            raise ValueError("duplicate ids in one add_many call")
        with self._lock:
            present = [i for i in ids if i in self._label]
            if present:
                raise ValueError(f"id already in the store: {present[0]!r}")
            for item_id in ids:
                self._order[item_id] = self._next_rank
                self._next_rank += 1
            self._insert(ids, vecs)
            self._maybe_train_ivf()

    def replace(self, item_id: str, vector: np.ndarray) -> None:
        vec = self._unit(vector, "vector")
        with self._lock:
            if item_id not in self._label:
                raise KeyError(item_id)
            self._drop(item_id)
            self._insert([item_id], vec)
            self._maybe_compact()

    def remove(self, item_id: str) -> None:
        with self._lock:
            if item_id not in self._label:
                raise KeyError(item_id)
            self._drop(item_id)
            del self._order[item_id]
            self._maybe_compact()

    def _insert(self, ids: list[str], vecs: np.ndarray) -> None:
        labels = np.arange(self._next_label, self._next_label + len(ids), dtype=np.int64)
        self._next_label += len(ids)
        self._index.add_with_ids(vecs, labels)
        for item_id, label in zip(ids, labels.tolist()):
            self._label[item_id], self._name[label] = label, item_id

    def _drop(self, item_id: str) -> None:
        label = self._label.pop(item_id)
        del self._name[label]
        if self.kind == "hnsw":
            self._dead.add(label)
        else:
            self._index.remove_ids(np.array([label], dtype=np.int64))

    def _maybe_compact(self) -> None:
        if self.kind == "hnsw" and len(self._dead) > self.TOMBSTONE_LIMIT * self._index.ntotal:
            self._rebuild()

    def _rebuild(self) -> None:
        labels = sorted(self._name)
        vecs = self._vectors_for(labels)
        self._index = self._empty_index()
        self._dead.clear()
        if labels:
            self._index.add_with_ids(vecs, np.array(labels, dtype=np.int64))

    def _maybe_train_ivf(self) -> None:
        if self.kind != "ivf" or self._ivf_trained or len(self._label) < self.ivf_train_size:
            return
        labels = sorted(self._name)
        vecs = self._vectors_for(labels)
        n = len(labels)
        # ~39 points per centroid is FAISS's own minimum for a stable k-means.
        nlist = max(1, min(int(4 * math.sqrt(n)), n // 39))
        quantizer = faiss.IndexFlatIP(self.dim)
        ivf = faiss.IndexIVFFlat(quantizer, self.dim, nlist, faiss.METRIC_INNER_PRODUCT)
        ivf.train(vecs)
        # A hashtable direct map lets IVF reconstruct and remove by our labels natively.
        ivf.set_direct_map_type(faiss.DirectMap.Hashtable)
        # Recall matters more than speed at this product's scale: probe a quarter, at least 8.
        ivf.nprobe = min(nlist, max(8, nlist // 4))
        ivf.add_with_ids(vecs, np.array(labels, dtype=np.int64))
        self._quantizer, self._inner, self._index = quantizer, ivf, ivf
        self._ivf_trained = True

    def _vectors_for(self, labels: list[int]) -> np.ndarray:
        out = np.zeros((len(labels), self.dim), dtype=np.float32)
        for row, label in enumerate(labels):
            out[row] = self._index.reconstruct(int(label))
        return out

    # ---- reading ------------------------------------------------------------------------
    def __contains__(self, item_id: object) -> bool:
        return item_id in self._label

    def __len__(self) -> int:
        return len(self._label)

    def ids(self) -> list[str]:
        with self._lock:
            return sorted(self._label, key=self._order.__getitem__)

    def vector(self, item_id: str) -> np.ndarray:
        with self._lock:
            if item_id not in self._label:
                raise KeyError(item_id)
            return self._index.reconstruct(self._label[item_id]).astype(np.float32)

    def info(self) -> dict:
        with self._lock:
            info = {"kind": self.kind, "dimension": self.dim, "entries": len(self._label),
                    "metric": "inner product (cosine)"}
            if self.kind == "hnsw":
                info.update(M=self.HNSW_M, ef_search=self.HNSW_EF_SEARCH,
                            tombstones=len(self._dead))
            elif self.kind == "ivf":
                info["trained"] = self._ivf_trained
                if self._ivf_trained:
                    info.update(nlist=self._inner.nlist, nprobe=self._inner.nprobe)
                else:
                    info["note"] = f"exact search until {self.ivf_train_size} entries"
            return info

    def search(self, query: np.ndarray, k: int, *, threshold: float | None = None,
               exclude: Collection[str] = ()) -> list[Hit]:
        """Top-k ids by cosine, best first; with ``threshold`` only scores strictly above it."""
        return self._search(self._unit(query, "query"), k, threshold, exclude)[0]

    def scores(self, query: np.ndarray) -> tuple[list[str], np.ndarray] | None:
        """Every id with its score for `query`, in no particular order, as `search` with k
        the whole store scores them (without sorting them in Python); None for an index
        that finds rather than scores them all (hnsw, a trained ivf)."""
        if self.kind == "hnsw" or self._ivf_trained:
            return None
        q = self._unit(query, "query")
        with self._lock:
            total = self._index.ntotal
            if not total:
                return [], np.zeros(0, dtype=np.float32)
            scores, labels = self._index.search(q, total)
            return [self._name[lab] for lab in labels[0].tolist()], scores[0]

    def search_many(self, queries: np.ndarray, k: int) -> list[list[Hit]]:
        queries = np.asarray(queries)
        if queries.ndim == 2 and len(queries) == 0:
            return []
        return self._search(self._unit(queries, "queries"), k, None, ())

    def _search(self, q: np.ndarray, k: int, threshold: float | None,
                exclude: Collection[str]) -> list[list[Hit]]:
        if isinstance(exclude, str):  # a lone id, not a collection of its characters
            exclude = (exclude,)
        with self._lock:
            skip = {self._label[i] for i in exclude if i in self._label}
            want = min(k, len(self._label) - len(skip))
            if want <= 0:
                return [[] for _ in range(len(q))]
            total = self._index.ntotal
            # One more than needed: the k-th hit is known to be untied only when a lower score
            # follows it; fetching exactly k made every search a second, doubled one.
            fetch = min(total, k + 1 + len(skip) + len(self._dead))
            results: list[list[Hit]] = [[] for _ in range(len(q))]
            pending = list(range(len(q)))
            # Over-fetch past excluded ids and tombstones; fetch more while a tie at the k-th
            # place might hide an earlier-inserted equal (FAISS orders ties arbitrarily).
            while pending:
                scores, labels = self._index.search(q[pending], fetch)
                again = []
                for row, qi in enumerate(pending):
                    hits = sorted(((self._name[lab], float(s))
                                   for s, lab in zip(scores[row], labels[row].tolist())
                                   if lab in self._name and lab not in skip),
                                  key=lambda h: (-h[1], self._order[h[0]]))
                    last = float(scores[row][-1])
                    done = (fetch >= total or labels[row][-1] == -1
                            or (threshold is not None and last <= threshold)
                            or (len(hits) >= want and hits[want - 1][1] > last))
                    if done:
                        results[qi] = [h for h in hits[:k] if threshold is None or h[1] > threshold]
                    else:
                        again.append(qi)
                pending, fetch = again, min(total, fetch * 2)
            return results
