"""A UMAP layout's neighbours come from an exact FAISS search, and the kernels it compiles are
kept on disk, so a server's first map does not compile them again."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from nemori_ui.core.projection import exact_neighbours, project


def brute_force(x: np.ndarray, k: int, metric: str) -> np.ndarray:
    if metric == "correlation":
        x = x - x.mean(axis=1, keepdims=True)
    if metric == "euclidean":
        d = np.linalg.norm(x[:, None, :] - x[None, :, :], axis=2)
    else:
        unit = x / np.linalg.norm(x, axis=1, keepdims=True)
        d = 1.0 - unit @ unit.T
    np.fill_diagonal(d, -1.0)          # itself first
    return np.sort(np.maximum(d, 0.0), axis=1)[:, :k]


@pytest.mark.parametrize("metric", ["cosine", "euclidean", "correlation"])
def test_the_neighbours_are_the_exact_ones_under_each_metric(metric):
    x = np.random.default_rng(3).normal(size=(60, 12)).astype(np.float32)
    index, dist = exact_neighbours(x, 7, metric)
    assert index.shape == dist.shape == (60, 7)
    assert (index[:, 0] == np.arange(60)).all() and np.allclose(dist[:, 0], 0.0, atol=1e-5)
    assert np.allclose(dist, brute_force(x.astype(np.float64), 7, metric), atol=1e-4)


def test_a_point_is_its_own_first_neighbour_beside_its_duplicates():
    x = np.random.default_rng(4).normal(size=(20, 8)).astype(np.float32)
    x[5] = x[6] = x[7] = x[4]
    index, dist = exact_neighbours(x, 5, "cosine")
    assert (index[:, 0] == np.arange(20)).all()
    for i in (4, 5, 6, 7):
        assert set(index[i][:4]) == {4, 5, 6, 7} and np.allclose(dist[i][:4], 0.0, atol=1e-6)
    assert all(len(set(row)) == 5 for row in index)


def test_a_layout_does_not_run_umaps_own_neighbour_search(monkeypatch):
    from umap import umap_

    def compiled_search(*args, **kwargs):
        raise AssertionError("UMAP searched for neighbours itself")
    monkeypatch.setattr(umap_, "nearest_neighbors", compiled_search)
    x = np.random.default_rng(5).normal(size=(40, 16)).astype(np.float32)
    out = project(x, "umap", n_neighbors=5)
    assert out.shape == (40, 2) and np.isfinite(out).all()


def test_the_kernels_every_layout_runs_are_kept_on_disk():
    project(np.random.default_rng(6).normal(size=(30, 8)).astype(np.float32), "umap",
            n_neighbors=5)
    kept = {p.name.split("-")[0] for p in Path(os.environ["NUMBA_CACHE_DIR"]).rglob("*.nbi")}
    assert {"umap_.smooth_knn_dist", "umap_.compute_membership_strengths"} <= kept, kept
