"""Search ranks as it did when every episode was scored and sorted in Python: the same
episodes in the same order with the same scores, on a real store, and the helpers that made
it faster (one-thread products, a partial sort, remembered memory times) are exact."""

from __future__ import annotations

import random

import numpy as np
import pytest

from nemori_ui import Memory
from nemori_ui.core.episode_lines import find_episodes, top_k
from nemori_ui.core.memory_search import query_vector
from nemori_ui.core.retrieval import memory_time
from nemori_ui.core.vectors import VectorStore, inner_products
from tests.memory_writers import message

QUESTIONS = ["When does the bakery shift start?", "How far did we cycle?", "What did the vet "
             "say about Miso?", "When is the piano recital?", "How much is the removal van?",
             "What ate the lettuce?", "Where is the new flat?", "What scales to practise?",
             "croissant dough", "the lighthouse", "boxes of books", "raised bed"]


@pytest.fixture(scope="module")
def memory(tmp_path_factory):
    """A memory filled one message at a time, as an agent fills it (offline, w = 20)."""
    with Memory(home=tmp_path_factory.mktemp("ranking"), window=20) as memory:
        for i in range(120):
            memory.add(message("U", i))
        yield memory


def ranked_in_python(state, vector, k):
    """The ranking as it was computed before: every episode's narrative score from the index,
    its best line from one product over the lines, all sorted by (score, id)."""
    every = state.search_episodes(vector, len(state.episode_index))
    lines = state.lines
    rows = lines._vectors[:lines._n]
    q = np.asarray(vector, dtype=np.float32)
    line_scores = rows @ (q / np.linalg.norm(q))
    best = {eid: float(max(line_scores[r] for r in held))
            for eid, held in lines._rows.items() if lines._alive[held[0]]}
    scored = [(e, (s + best[e.id]) / 2 if e.id in best else s) for e, s in every]
    scored.sort(key=lambda pair: (-pair[1], pair[0].id))
    return scored[:k]


def test_episodes_rank_as_when_all_were_sorted_in_python(memory):
    state = memory._live.state
    assert state.lines is not None and len(state.episode_index) > 15
    for question in QUESTIONS:
        vector = query_vector(memory.clients.embedder, question)
        for k in (1, 5, 10, len(state.episode_index) + 3):
            found = find_episodes(state, vector, k)
            before = ranked_in_python(state, vector, k)
            assert [e.id for e, _ in found] == [e.id for e, _ in before]
            assert np.allclose([s for _, s in found], [s for _, s in before], atol=1e-6)


def test_search_hits_are_those_of_the_python_ranking(memory):
    state = memory._live.state
    for question in QUESTIONS:
        hits = memory.search(question, k=4)
        before = ranked_in_python(state, query_vector(memory.clients.embedder, question), 4)
        assert [h.id for h in hits.episodes] == [e.id for e, _ in before]
        assert [h.score for h in hits.episodes] == [round(s, 4) for _, s in before]
        assert hits.raw and {h.episode_id for h in hits.raw} <= {e.id for e, _ in before}


def test_inner_products_equal_the_matrix_product():
    rng = np.random.default_rng(3)
    rows, q = rng.normal(size=(500, 384)).astype(np.float32), rng.normal(size=384)
    assert np.allclose(inner_products(rows, q), rows @ q.astype(np.float32), atol=1e-4)
    assert inner_products(rows[:0], q).shape == (0,)
    with pytest.raises(ValueError, match="rows of shape"):
        inner_products(rows, q[:10])


def test_an_exact_index_scores_every_id_as_its_search_does():
    rng = np.random.default_rng(5)
    vectors = rng.normal(size=(50, 16)).astype(np.float32)
    store = VectorStore.build(16, [f"e{i}" for i in range(50)], vectors)
    store.remove("e7")
    ids, scores = store.scores(vectors[3])
    assert sorted(zip(ids, scores.tolist())) == sorted(store.search(vectors[3], 100))
    assert "e7" not in ids
    assert VectorStore.build(16, ["a"], vectors[:1], kind="hnsw").scores(vectors[0]) is None


def test_top_k_is_the_head_of_the_full_sort_ties_by_id():
    rng = random.Random(11)
    for _ in range(200):
        n = rng.randint(1, 40)
        scores = [rng.choice([0.1, 0.2, 0.3, rng.random()]) for _ in range(n)]   # many ties
        ids = [f"ep{i:03d}" for i in rng.sample(range(100), n)]
        full = sorted(range(n), key=lambda i: (-scores[i], ids[i]))
        for k in (0, 1, 3, n, n + 2):
            assert top_k(scores, ids, k) == full[:max(k, 0)]


def test_a_memory_time_is_remembered_only_once_every_source_is_read(memory):
    state = memory._live.state
    merged = max(state.memories.values(), key=lambda m: len(m.source_message_ids))
    assert len(merged.source_message_ids) > 1
    messages = memory._live.by_id
    partial = {i: messages[i] for i in merged.source_message_ids[:1]}
    said_at: dict = {}
    memory_time(merged, partial, said_at)
    assert said_at == {}                         # a later source may still be the latest
    assert memory_time(merged, messages, said_at) == memory_time(merged, messages)
    assert said_at == {(merged.id, len(merged.source_message_ids)):
                       memory_time(merged, messages)}


def test_windows_are_recounted_when_a_message_comes(tmp_path):
    with Memory(home=tmp_path, window=5) as memory:
        for i in range(4):
            memory.add(message("U", i))
        assert memory._live.spans() == []
        memory.add(message("U", 4))
        assert memory._live.spans() == [(0, 5)]
