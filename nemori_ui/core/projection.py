"""Two-dimensional layouts of the memory space: UMAP, or PCA when it must be instant.

Episodes and semantic memories are embedded by the same model, so they share one space and
one layout.
"""

from __future__ import annotations

import contextlib
import functools
import os
import warnings
from typing import Literal

import faiss
import numpy as np
import pandas as pd

from .pipeline.state import MemoryState
from .store import default_home
from .store.run_data import RunData, derived

Method = Literal["umap", "pca"]
METRICS = ("cosine", "euclidean", "correlation")
# UMAP's spectral initialisation needs more points than output dimensions plus one.
UMAP_MIN_POINTS = 4



def _one_blas_thread():
    """A 384 x 384 eigendecomposition gains nothing from threads, and on a busy machine
    OpenBLAS's spinning threads made it 30x slower (30 ms to 1 s) in measurements here."""
    try:
        from threadpoolctl import threadpool_limits  # installed with umap-learn (scikit-learn)
    except ImportError:
        return contextlib.nullcontext()
    return threadpool_limits(1, user_api="blas")


POINT_COLUMNS = ["id", "kind", "status", "session", "time", "window", "speaker", "decision",
                 "label", "text"]


def pca_basis(vectors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(mean, components (2, d)) of the vectors, signs fixed so equal inputs lay out equally.

    Plain numpy: no fitting library, and instant at the sizes the map shows.
    """
    x = np.asarray(vectors, dtype=np.float64)
    mean = x.mean(axis=0)
    centred = x - mean
    with _one_blas_thread():
        if len(x) > x.shape[1]:
            # many points: the d x d covariance's eigenvectors, far cheaper than a tall SVD
            _, vecs = np.linalg.eigh(centred.T @ centred)
            top = vecs[:, ::-1][:, :2].T
        else:
            top = np.linalg.svd(centred, full_matrices=False)[2][:2]
    components = np.zeros((2, x.shape[1]))
    components[:len(top)] = top
    for row in components:
        peak = np.argmax(np.abs(row))
        if row[peak] < 0:
            row *= -1
    return mean, components


def pca_project(vectors: np.ndarray, basis: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """Coordinates of any vectors (e.g. a query) in a basis fitted on others."""
    mean, components = basis
    x = np.atleast_2d(np.asarray(vectors, dtype=np.float64))
    return ((x - mean) @ components.T).astype(np.float32)


def project(vectors, method: Method = "umap", n_neighbors: int = 15, min_dist: float = 0.1,
            metric: str = "cosine", seed: int = 42) -> np.ndarray:
    """An (n, 2) layout of the vectors, deterministic for a given seed.

    PCA (numpy SVD) is linear and ignores `metric`. UMAP falls back to PCA below
    UMAP_MIN_POINTS, and `n_neighbors` is capped at n - 1.
    """
    x = np.asarray(vectors, dtype=np.float32)
    if x.ndim != 2:
        raise ValueError(f"vectors must be a 2-d array, got shape {x.shape}")
    n = len(x)
    if method not in ("umap", "pca"):
        raise ValueError(f"unknown projection method {method!r}; use 'umap' or 'pca'")
    if n == 0:
        return np.zeros((0, 2), dtype=np.float32)
    if n == 1:
        return np.zeros((1, 2), dtype=np.float32)
    if method == "pca" or n < UMAP_MIN_POINTS:
        return pca_project(x, pca_basis(x))
    if metric not in METRICS:
        raise ValueError(f"unknown metric {metric!r}; use one of {', '.join(METRICS)}")
    k = max(2, min(int(n_neighbors), n - 1))
    reducer = _umap().UMAP(n_components=2, n_neighbors=k, min_dist=float(min_dist),
                           metric=metric, random_state=seed,
                           precomputed_knn=exact_neighbours(x, k, metric))
    with warnings.catch_warnings():
        # a fixed random_state forces one thread; umap warns about it on every call
        warnings.filterwarnings("ignore", message=".*n_jobs.*overridden.*")
        # no search index goes with the neighbours: the map never places new points by UMAP
        warnings.filterwarnings("ignore", message=".*knn_search_index.*")
        return np.asarray(reducer.fit_transform(x), dtype=np.float32)


@functools.cache
def _umap():
    """The umap module, its kernels kept compiled on disk.

    numba compiles UMAP's kernels on first use (tens of seconds) and keeps on disk those marked
    for it, so later server starts load them. Two that a layout always runs are not marked, and
    were compiled again in every process (7 s); they are kept too. Set before numba is imported,
    which importing umap does, and imported here because the PCA path never needs it.
    """
    os.environ.setdefault("NUMBA_CACHE_DIR", str(default_home() / "numba-cache"))
    import umap
    from umap import umap_

    for kernel in (umap_.smooth_knn_dist, umap_.compute_membership_strengths):
        kernel.enable_caching()
    return umap


def exact_neighbours(x: np.ndarray, k: int, metric: str) -> tuple[np.ndarray, np.ndarray]:
    """(indices, distances) of each point's k nearest points under `metric`, itself first.

    Handed to UMAP, they replace its own search: that is a numba kernel compiled in every new
    process (11 of the 17 s the first layout after a server start took, with the compiled
    kernels already on disk), while FAISS's exact search needs no compiling: milliseconds for a
    thousand points, a few seconds for 20,000 (bench_projection.py).
    """
    x = np.ascontiguousarray(x, dtype=np.float32)
    if metric == "euclidean":
        found, index = faiss.knn(x, x, k)
        dist = np.sqrt(np.maximum(found, 0.0))
    else:
        if metric == "correlation":     # correlation distance is the cosine one, centred
            x = x - x.mean(axis=1, keepdims=True)
        norms = np.linalg.norm(x, axis=1, keepdims=True)
        unit = np.ascontiguousarray(x / np.where(norms > 0, norms, 1.0), dtype=np.float32)
        found, index = faiss.knn(unit, unit, k, metric=faiss.METRIC_INNER_PRODUCT)
        dist = np.maximum(1.0 - found, 0.0)
    for i, row in enumerate(index):
        # a duplicate point may come before the point itself; UMAP expects itself first
        if row[0] != i:
            rest = [j for j in range(k) if row[j] != i][:k - 1]
            index[i] = [i, *row[rest]]
            dist[i] = [0.0, *dist[i][rest]]
    return index.astype(np.int64), dist.astype(np.float32)


def _session_time_speaker(message_ids, data: RunData, *, latest: bool):
    msgs = [data.message_by_id[i] for i in message_ids if i in data.message_by_id]
    session = min((m.session for m in msgs), default=None)
    stamps = [m.timestamp for m in msgs if m.timestamp]
    when = (max(stamps) if latest else min(stamps)) if stamps else None
    speakers = sorted({m.speaker for m in msgs})
    speaker = speakers[0] if len(speakers) == 1 else " & ".join(speakers) or "unknown"
    return session, when, speaker


@derived
def points_frame(data: RunData) -> pd.DataFrame:
    """One row per episode and semantic memory that has a vector, episodes first.

    `decision` is the memory's origin (new / merge / conflict / append / summary); episodes
    are "episode", or "integrated" when they absorbed earlier ones. A memory's time is that
    of its newest source message, when it could first have been known.
    """
    rows = []
    for e in data.episodes:
        if e.embedding is None:
            continue
        session, when, speaker = _session_time_speaker(e.message_ids, data, latest=False)
        rows.append({"id": e.id, "kind": "episode", "status": e.status, "session": session,
                     "time": e.start or when, "window": e.window, "speaker": speaker,
                     "decision": "integrated" if e.supersedes else "episode",
                     "label": e.cue, "text": f"{e.cue}\n{e.narrative}"})
    for m in data.memories:
        if m.embedding is None:
            continue
        session, when, speaker = _session_time_speaker(m.source_message_ids, data, latest=True)
        rows.append({"id": m.id, "kind": "memory", "status": m.status, "session": session,
                     "time": when, "window": m.window, "speaker": speaker, "decision": m.origin,
                     "label": m.text, "text": m.text})
    frame = pd.DataFrame(rows, columns=POINT_COLUMNS)
    frame["session"] = frame["session"].astype("Int64")
    # naive and zone-aware stamps (formats differ) are both read as UTC, so they compare
    frame["time"] = pd.to_datetime(frame["time"], utc=True).dt.tz_localize(None)
    return frame


def matching(frame: pd.DataFrame, query: str) -> pd.Series:
    """Which points hold every word of `query` in their text (case and spacing ignored)."""
    words = query.lower().split()
    if not words:
        return pd.Series(False, index=frame.index)
    text = frame["text"].fillna("").str.lower()
    hit = pd.Series(True, index=frame.index)
    for w in words:
        hit &= text.str.contains(w, regex=False)
    return hit


def known_by(frame: pd.DataFrame, window: int) -> pd.Series:
    """The points the memory held once window `window` (0-based) was done: made by then."""
    return frame["window"] <= window


def point_vectors(data: RunData, frame: pd.DataFrame) -> np.ndarray:
    """The embedding of each row of `points_frame`, in row order."""
    if frame.empty:
        return np.zeros((0, 0), dtype=np.float32)
    lookup = {**{e.id: e.embedding for e in data.episodes},
              **{m.id: m.embedding for m in data.memories}}
    return np.asarray([lookup[i] for i in frame["id"]], dtype=np.float32)


def nearest_neighbours(state: MemoryState, vector, k: int = 8, exclude: str | None = None,
                       *, kinds=("episode", "memory")) -> pd.DataFrame:
    """The k nearest active episodes and memories to `vector` in the run's FAISS indexes,
    best first, without `exclude` (the point itself)."""
    rows = []
    skip = (exclude,) if exclude else ()
    if "episode" in kinds:
        for eid, score in state.episode_index.search(vector, k, exclude=skip):
            e = state.episodes[eid]
            rows.append({"kind": "episode", "id": eid, "score": round(score, 4), "text": e.cue})
    if "memory" in kinds:
        for mid, score in state.memory_index.search(vector, k, exclude=skip):
            rows.append({"kind": "memory", "id": mid, "score": round(score, 4),
                         "text": state.memories[mid].text})
    frame = pd.DataFrame(rows, columns=["kind", "id", "score", "text"])
    return frame.sort_values("score", ascending=False, kind="stable").head(k).reset_index(drop=True)


def warm_umap() -> None:
    """Compile UMAP's kernels on a tiny input, so the first real layout does not wait for it."""
    sample = np.random.default_rng(0).normal(size=(max(UMAP_MIN_POINTS, 40), 16))
    project(sample.astype(np.float32), "umap", n_neighbors=5)
