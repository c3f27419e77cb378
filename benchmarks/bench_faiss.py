"""FAISS search through the product's VectorStore: p50/p99 of one query, recall@10 against exact.

    python benchmarks/bench_faiss.py [--sizes 10000,100000,1000000] [--kinds flat,hnsw,ivf]
                                     [--queries 500] [--data random|minilm] [--build-threads 2]
                                     [--ef-search 64,256] [--nprobe 8,64]

Each size is a set of 384-d unit vectors (MiniLM's dimension). `random` draws them uniformly
on the sphere: every point is almost equally far from every other (a nearest neighbour at
cosine 0.16), the hardest case there is for an approximate index. `minilm` draws them from a
Gaussian with the mean and covariance of the MiniLM embeddings of the 788 LoCoMo messages
(nearest neighbour at 0.53, against 0.67 for the real messages: still harder than real text,
which clusters more). Queries are drawn the same way, apart from the stored points. Each query
is searched alone (k=10), as the pipeline and the Ask page do, with FAISS on one thread as the
product runs it; only building may use more.

The approximate indexes run with the product's settings (`VectorStore.HNSW_*`, IVF nprobe a
quarter of the lists), selected in a run's configuration as `index: flat | hnsw | ivf`.
`--ef-search` / `--nprobe` add rows for other search settings of the same built index, to show
the trade-off between speed and recall.
"""

from __future__ import annotations

import argparse
import gc
import resource
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a source checkout

import faiss  # noqa: E402

from nemori_ui.core.vectors import VectorStore  # noqa: E402

DIM = 384
K = 10
LOCOMO = Path(__file__).resolve().parents[2] / "shared" / "data" / "locomo" / "locomo-dev.json"


def unit(x: np.ndarray) -> np.ndarray:
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


def minilm_shape() -> tuple[np.ndarray, np.ndarray]:
    """Mean and a square root of the covariance of real MiniLM embeddings of LoCoMo messages."""
    from nemori_ui.core.embed import load_minilm
    from nemori_ui.core.transcripts import load_transcript
    transcript = load_transcript(LOCOMO)
    texts = [m.text for conv in transcript.conversations for m in conv.messages]
    x = load_minilm().embed(texts).astype(np.float64)
    cov = np.cov(x.T) + 1e-6 * np.eye(DIM)
    return x.mean(0).astype(np.float32), np.linalg.cholesky(cov).T.astype(np.float32)


def points(n: int, shape, rng: np.random.Generator) -> np.ndarray:
    out = np.empty((n, DIM), dtype=np.float32)
    for start in range(0, n, 100_000):   # in slices: a float64 copy of 1M rows would be 3 GB
        m = min(100_000, n - start)
        x = rng.standard_normal((m, DIM), dtype=np.float32)
        if shape is not None:
            mean, root = shape
            x = mean + x @ root
        out[start:start + m] = unit(x)
    return out


def timed_search(store: VectorStore, queries: np.ndarray) -> tuple[np.ndarray, list[list[str]]]:
    store.search(queries[0], K)   # warm caches once
    seconds, found = [], []
    for q in queries:
        t = time.perf_counter()
        hits = store.search(q, K)
        seconds.append(time.perf_counter() - t)
        found.append([h[0] for h in hits])
    return np.asarray(seconds) * 1000, found


def recall(found: list[list[str]], exact: list[list[str]]) -> float:
    return float(np.mean([len(set(f) & set(e)) / K for f, e in zip(found, exact)]))


def peak_gb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 / 1024


def bench_size(n: int, kinds: list[str], shape, args, rng) -> list[tuple]:
    vectors = points(n, shape, rng)
    queries = points(args.queries, shape, rng)
    ids = [f"m{i}" for i in range(n)]
    rows, exact = [], None
    for kind in ["flat", *[k for k in kinds if k != "flat"]]:
        faiss.omp_set_num_threads(args.build_threads)
        t = time.perf_counter()
        store = VectorStore.build(DIM, ids, vectors, kind=kind)
        built = time.perf_counter() - t
        faiss.omp_set_num_threads(1)
        ms, found = timed_search(store, queries)
        if kind == "flat":
            exact = found
        if kind in kinds:
            rows.append(row(n, kind, store, built, ms, found, exact))
            for value in {"hnsw": args.ef_search, "ivf": args.nprobe}.get(kind, []):
                # the search knob of the built index, reached past the store on purpose
                if kind == "hnsw":
                    store._inner.hnsw.efSearch = value
                else:
                    store._inner.nprobe = min(value, store._inner.nlist)
                ms, found = timed_search(store, queries)
                rows.append(row(n, kind, store, built, ms, found, exact, product=False))
        del store
        gc.collect()
    return rows


def row(n, kind, store, built, ms, found, exact, product=True) -> tuple:
    inner = getattr(store, "_inner", None)
    if kind == "hnsw":
        detail = f"M={store.HNSW_M} efSearch={inner.hnsw.efSearch}"
    elif kind == "ivf":
        detail = f"nlist={inner.nlist} nprobe={inner.nprobe}"
    else:
        detail = "exact"
    detail += "" if product else " *"
    p50, p99 = np.percentile(ms, 50), np.percentile(ms, 99)
    out = (n, kind, detail, built, p50, p99, recall(found, exact))
    print(f"  {n:>9,} {kind:<5} {detail:<26} built in {built:6.1f} s  p50 {p50:7.3f} ms  "
          f"p99 {p99:7.3f} ms  recall@10 {out[6]:.3f}  (peak RSS {peak_gb():.1f} GB)", flush=True)
    return out


def ints(text: str) -> list[int]:
    return [int(v) for v in text.split(",") if v]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="10000,100000,1000000")
    ap.add_argument("--kinds", default="flat,hnsw,ivf")
    ap.add_argument("--queries", type=int, default=500)
    ap.add_argument("--data", choices=["random", "minilm"], default="random")
    ap.add_argument("--build-threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--ef-search", type=ints, default=[])
    ap.add_argument("--nprobe", type=ints, default=[])
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    kinds = args.kinds.split(",")
    print(f"{DIM}-d {args.data} unit vectors, {args.queries} single queries of k={K} per index, "
          f"FAISS search on 1 thread")
    shape = minilm_shape() if args.data == "minilm" else None
    rows = []
    for n in (int(s) for s in args.sizes.split(",")):
        rows += bench_size(n, kinds, shape, args, rng)
    print(f"\n{'memories':>10} {'index':<6}{'settings':<26}{'build s':>8}{'p50 ms':>9}{'p99 ms':>9}"
          f"{'recall@10':>11}")
    for n, kind, detail, built, p50, p99, rec in rows:
        print(f"{n:>10,} {kind:<6}{detail:<26}{built:>8.1f}{p50:>9.3f}{p99:>9.3f}{rec:>11.3f}")
    print("* not the product's setting: the same index searched with another knob")
    print(f"peak memory (max RSS of the process): {peak_gb():.1f} GB")


if __name__ == "__main__":
    main()
