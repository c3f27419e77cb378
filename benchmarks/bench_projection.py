"""Memory-map layout time: UMAP and PCA at several sizes, cold and cached.

    python benchmarks/bench_projection.py [--sizes 1000 5000 20000] [--methods umap pca]

Points are random 384-d unit vectors (MiniLM's dimension). "cold" is the first layout of a
size; "cached" is a second request through a memo keyed as the Memory map page keys its
cache (run, version, method, parameters), so it measures the lookup, not a new layout;
"st.cache_data" is the same second request through Streamlit's own cache, which hands out
a copy of the stored array on every hit. The first UMAP in a process also compiles numba
kernels; that one-off cost is reported apart.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a source checkout

from nemori_ui.core.projection import project  # noqa: E402


def unit_points(n: int, dim: int = 384, seed: int = 0) -> np.ndarray:
    x = np.random.default_rng(seed).normal(size=(n, dim)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


class Memo:
    """What st.cache_data does for the page, without Streamlit: one entry per key."""

    def __init__(self) -> None:
        self.entries: dict[tuple, np.ndarray] = {}

    def layout(self, key: tuple, vectors: np.ndarray, method: str, **params) -> np.ndarray:
        if key not in self.entries:
            self.entries[key] = project(vectors, method, **params)
        return self.entries[key]


def streamlit_memo():
    """The page's cache decorator around the same call, or None without Streamlit."""
    try:
        import logging

        import streamlit as st
    except ImportError:
        return None
    # outside `streamlit run` every cache call warns that there is no runtime
    for name in list(logging.root.manager.loggerDict):
        if name.startswith("streamlit"):
            logging.getLogger(name).setLevel(logging.ERROR)

    @st.cache_data(show_spinner=False, max_entries=4)
    def layout(run_id, stamp, method, n_neighbors, min_dist, metric, _vectors):
        return project(_vectors, method, n_neighbors=n_neighbors, min_dist=min_dist,
                       metric=metric)
    return layout


def timed(fn) -> tuple[float, object]:
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 5000, 20000])
    ap.add_argument("--methods", nargs="+", default=["umap", "pca"], choices=["umap", "pca"])
    ap.add_argument("--n-neighbors", type=int, default=15)
    ap.add_argument("--min-dist", type=float, default=0.1)
    args = ap.parse_args()
    params = {"n_neighbors": args.n_neighbors, "min_dist": args.min_dist, "metric": "cosine"}

    print(f"cpus={os.cpu_count()} dim=384 n_neighbors={args.n_neighbors} "
          f"min_dist={args.min_dist} metric=cosine")
    if "umap" in args.methods:
        warm, _ = timed(lambda: project(unit_points(50, seed=1), "umap", **params))
        print(f"first UMAP in the process (imports umap, compiles numba kernels): {warm:.2f} s")
        # from 4096 points UMAP finds neighbours with pynndescent, whose kernels compile on
        # first use: warm them on a small set so no row below pays for compilation
        import pynndescent
        nnd, _ = timed(lambda: pynndescent.NNDescent(unit_points(300, seed=2), metric="cosine",
                                                     n_neighbors=args.n_neighbors,
                                                     random_state=42).neighbor_graph)
        print(f"first nearest-neighbour descent (compiles pynndescent kernels): {nnd:.2f} s")
    memo, st_layout = Memo(), streamlit_memo()
    print(f"{'points':>7} {'method':>6} {'cold s':>9} {'cached s':>10} {'st.cache_data s':>16}")
    for n in args.sizes:
        vectors = unit_points(n)
        for method in args.methods:
            key = ("bench-run", f"stamp-{n}", method, *params.values())
            cold, out = timed(lambda: memo.layout(key, vectors, method, **params))
            cached, again = timed(lambda: memo.layout(key, vectors, method, **params))
            assert out.shape == (n, 2) and again is out
            hit = float("nan")
            if st_layout is not None:
                # the first call fills Streamlit's cache (a second layout); the second is a hit
                st_layout(*key, vectors)
                hit, copy = timed(lambda: st_layout(*key, vectors))
                assert copy.shape == (n, 2)
            print(f"{n:>7} {method:>6} {cold:>9.3f} {cached:>10.6f} {hit:>16.6f}", flush=True)
            memo.entries.clear()  # one size at a time in memory

if __name__ == "__main__":
    main()
