"""The tests' memory of MiniLM's answers (tests/embed_memo.py) gives what the model gives and
asks the model for every call it has not seen."""

from __future__ import annotations

import numpy as np

from nemori_ui.core.embed.minilm import MiniLMEmbedder
from tests.embed_memo import EmbedMemo


def test_a_call_seen_before_gets_the_models_vectors_and_others_reach_the_model():
    asked: list[list[str]] = []

    def model(self, texts):
        asked.append(list(texts))
        return np.full((len(texts), 2), float(len(asked)), dtype=np.float32)

    memo, embedder = EmbedMemo(real=model), MiniLMEmbedder(batch_size=8)
    memo.embed(embedder, ["a", "b"])[:] = -1
    memo.embed(embedder, ["a", "b"])[:] = -2       # a caller's change stays its own
    assert memo.embed(embedder, ["a", "b"]).tolist() == [[1, 1], [1, 1]]
    memo.embed(embedder, ["b", "a"])                # another order is another batch
    memo.embed(MiniLMEmbedder(batch_size=2), ["a", "b"])
    assert asked == [["a", "b"], ["b", "a"], ["a", "b"]]


def test_the_kept_vectors_are_the_real_models():
    embedder = MiniLMEmbedder()
    texts = ["The cat sat on the mat.", "Caroline went to the support group."]
    memo = EmbedMemo()
    memo.embed(embedder, texts)
    assert np.array_equal(memo.embed(embedder, texts), MiniLMEmbedder.embed(embedder, texts))


def test_a_call_one_worker_embedded_is_answered_from_the_shared_folder(tmp_path):
    asked: list[str] = []

    def model(who):
        def embed(self, texts):
            asked.append(who)
            return np.full((len(texts), 2), float(len(asked)), dtype=np.float32)
        return embed

    first, second = EmbedMemo(real=model("first")), EmbedMemo(real=model("second"))
    first.folder = second.folder = tmp_path
    embedder = MiniLMEmbedder(batch_size=8)
    vectors = first.embed(embedder, ["a", "b"])
    assert second.embed(embedder, ["a", "b"]).tolist() == vectors.tolist()
    second.embed(embedder, ["a", "b", "c"])        # what no worker embedded reaches the model
    second.embed(embedder, ["ab"])                 # and no other texts share a call's file
    assert asked == ["first", "second", "second"]
    assert not list(tmp_path.glob("*.part"))
