"""FAISS vector stores: ids, mutation, thresholds, determinism, and the approximate kinds."""

from __future__ import annotations

import numpy as np
import pytest

from nemori_ui.core.vectors import VectorStore

DIM = 8


def unit(*xs: float) -> np.ndarray:
    v = np.zeros(DIM, dtype=np.float32)
    v[: len(xs)] = xs
    return v / np.linalg.norm(v)


def random_unit(n: int, dim: int = DIM, seed: int = 0) -> np.ndarray:
    x = np.random.default_rng(seed).standard_normal((n, dim)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


@pytest.fixture
def store() -> VectorStore:
    s = VectorStore(DIM)
    s.add("a", unit(1, 0))
    s.add("b", unit(1, 1))       # cos(a, b) = 0.707
    s.add("c", unit(0, 1))       # cos(a, c) = 0
    s.add("d", unit(-1, 0))      # cos(a, d) = -1
    return s


def test_add_and_search_orders_by_cosine(store):
    hits = store.search(unit(1, 0), 3)
    assert [h[0] for h in hits] == ["a", "b", "c"]
    assert hits[0][1] == pytest.approx(1.0, abs=1e-6)
    assert hits[1][1] == pytest.approx(np.sqrt(0.5), abs=1e-6)
    assert len(store) == 4 and "a" in store and "z" not in store
    assert store.ids() == ["a", "b", "c", "d"]
    assert store.info() == {"kind": "flat", "dimension": DIM, "entries": 4,
                            "metric": "inner product (cosine)"}


def test_vectors_are_normalised_on_add_and_query(store):
    store.add("e", np.full(DIM, 5.0, dtype=np.float32))
    assert np.linalg.norm(store.vector("e")) == pytest.approx(1.0, abs=1e-6)
    scaled = store.search(unit(1, 0) * 40, 1)
    assert scaled[0][0] == "a" and scaled[0][1] == pytest.approx(1.0, abs=1e-6)


def test_duplicate_id_and_wrong_dimension_are_errors(store):
    with pytest.raises(ValueError, match="already"):
        store.add("a", unit(0, 0, 1))
    with pytest.raises(ValueError, match="dimension"):
        store.add("z", np.ones(DIM + 1, dtype=np.float32))
    with pytest.raises(ValueError):
        store.add_many(["x", "x"], np.stack([unit(1), unit(1)]))
    with pytest.raises(ValueError):
        store.add("zero", np.zeros(DIM, dtype=np.float32))
    assert len(store) == 4  # failed adds leave nothing behind


def test_replace_changes_search_results(store):
    store.replace("d", unit(1, 0.01))
    hits = store.search(unit(1, 0), 2)
    assert [h[0] for h in hits] == ["a", "d"]
    assert store.ids() == ["a", "b", "c", "d"]  # keeps its place
    with pytest.raises(KeyError):
        store.replace("nope", unit(1))


def test_remove_takes_it_out_of_search(store):
    store.remove("a")
    assert "a" not in store and len(store) == 4 - 1
    assert [h[0] for h in store.search(unit(1, 0), 10)] == ["b", "c", "d"]
    with pytest.raises(KeyError):
        store.remove("a")
    with pytest.raises(KeyError):
        store.vector("a")
    store.add("a", unit(0, 0, 1))  # the id can come back, with its new vector
    assert store.search(unit(0, 0, 1), 1)[0][0] == "a"


def test_threshold_is_strictly_greater(store):
    exact = store.search(unit(1, 0), 4)
    score_b = dict(exact)["b"]
    at_b = store.search(unit(1, 0), 4, threshold=score_b)
    assert [h[0] for h in at_b] == ["a"]  # b's score equals τ, so it is not > τ
    below_b = store.search(unit(1, 0), 4, threshold=float(np.nextafter(score_b, -1.0)))
    assert [h[0] for h in below_b] == ["a", "b"]
    assert store.search(unit(1, 0), 4, threshold=1.5) == []


def test_exclude_and_k_larger_than_store(store):
    hits = store.search(unit(1, 0), 2, exclude={"a", "not-there"})
    assert [h[0] for h in hits] == ["b", "c"]
    assert len(store.search(unit(1, 0), 100)) == 4
    assert store.search(unit(1, 0), 0) == []
    assert VectorStore(DIM).search(unit(1), 5) == []


def test_ties_break_by_insertion_order():
    s = VectorStore(DIM)
    for name in ["t3", "t1", "t2", "t0"]:
        s.add(name, unit(1, 1))
    s.add("far", unit(0, 0, 1))
    assert [h[0] for h in s.search(unit(1, 1), 2)] == ["t3", "t1"]
    assert [h[0] for h in s.search(unit(1, 1), 4)] == ["t3", "t1", "t2", "t0"]


def test_search_many_matches_search():
    vecs = random_unit(50, seed=1)
    s = VectorStore.build(DIM, [f"m{i}" for i in range(50)], vecs)
    queries = random_unit(25, seed=2)  # >= 20 queries: FAISS switches to its BLAS path
    many = s.search_many(queries, 5)
    for q, row in zip(queries, many):
        one = s.search(q, 5)
        assert [h[0] for h in row] == [h[0] for h in one]
        assert np.allclose([h[1] for h in row], [h[1] for h in one], atol=1e-5)
    assert s.search_many(np.zeros((0, DIM), np.float32), 3) == []


def test_build_gives_the_same_results_as_incremental():
    ids = [f"m{i}" for i in range(40)]
    vecs = random_unit(40, seed=3)
    inc = VectorStore(DIM)
    for i, v in zip(ids, vecs):
        inc.add(i, v)
    inc.remove("m5")
    inc.replace("m7", vecs[8])
    live = inc.ids()
    rebuilt = VectorStore.build(DIM, live, np.stack([inc.vector(i) for i in live]))
    for q in random_unit(10, seed=4):
        assert inc.search(q, 6) == rebuilt.search(q, 6)
    assert rebuilt.ids() == live


@pytest.mark.parametrize("kind", ["hnsw", "ivf"])
def test_approximate_kinds_find_the_exact_top1(kind):
    vecs = random_unit(200, dim=32, seed=5)
    ids = [f"v{i}" for i in range(200)]
    store = VectorStore.build(32, ids, vecs, kind=kind)
    for i in range(0, 200, 17):
        noisy = vecs[i] + 0.05 * random_unit(1, dim=32, seed=100 + i)[0]
        assert store.search(noisy, 1)[0][0] == ids[i]
    assert store.info()["kind"] == kind


def test_ivf_trains_once_enough_vectors_and_stays_correct():
    vecs = random_unit(300, dim=16, seed=6)
    ids = [f"v{i}" for i in range(300)]
    store = VectorStore(16, kind="ivf", ivf_train_size=200)
    store.add_many(ids[:150], vecs[:150])
    assert store.info()["trained"] is False  # exact search before training
    assert store.search(vecs[3], 1)[0][0] == "v3"
    store.add_many(ids[150:], vecs[150:])
    info = store.info()
    assert info["trained"] is True and info["entries"] == 300
    for i in (3, 160, 299):
        assert store.search(vecs[i], 1)[0][0] == ids[i]
    store.remove("v160")
    assert "v160" not in [h[0] for h in store.search(vecs[160], 5)]
    store.replace("v3", vecs[299])
    assert np.allclose(store.vector("v3"), vecs[299], atol=1e-6)


def test_hnsw_remove_hides_the_id_and_compacts():
    vecs = random_unit(50, dim=16, seed=7)
    ids = [f"h{i}" for i in range(50)]
    store = VectorStore.build(16, ids, vecs, kind="hnsw")
    store.remove("h10")
    assert store.search(vecs[10], 1)[0][0] != "h10"
    assert "h10" not in [h[0] for h in store.search(vecs[10], 50)]
    assert len(store.search(vecs[10], 50)) == 49
    assert store.info()["tombstones"] == 1
    for i in range(11, 20):
        store.remove(f"h{i}")
    assert store.info()["tombstones"] == 10  # exactly 20% of 50: still tolerated
    store.remove("h20")  # 11 of 50 > 20%: the graph is rebuilt without them
    assert store.info()["tombstones"] == 0 and len(store) == 39
    assert store.search(vecs[30], 1)[0][0] == "h30"
    store.replace("h30", vecs[0])
    assert "h30" in [h[0] for h in store.search(vecs[0], 2)]
