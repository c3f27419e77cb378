"""MiniLM's answers kept for the test session: the same call (the same texts in the same
order, with the same batch size and truncation) gets the vectors the model gave the first time.

Every offline run in a fresh home embeds the same sample messages, episodes and the phatic
classifier's prototypes again: about 70 % of the 3-5 s such a run takes, over a hundred times a
suite. The model still runs for every call it has not answered before, and whole calls are kept,
not single texts, since the int8 model's vectors depend a little on the batch a text is in: a
run gets exactly what a fresh model would give it. tests/test_embed.py checks the model itself
and runs without it."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from nemori_ui.core.embed.minilm import MiniLMEmbedder

# enough for every run the suite repeats; a call past it is answered by the model every time
MAX_ROWS = 60_000


class EmbedMemo:
    def __init__(self, real=MiniLMEmbedder.embed) -> None:
        self.real = real
        self.kept: dict[tuple, np.ndarray] = {}
        self.rows = 0

    def embed(self, model: MiniLMEmbedder, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        key = (model.batch_size, model.max_length, tuple(texts))
        if key in self.kept:
            return self.kept[key].copy()
        vectors = self.real(model, texts)
        if self.rows + len(texts) <= MAX_ROWS:
            self.kept[key] = vectors.copy()
            self.rows += len(texts)
        return vectors


MEMO = EmbedMemo()


def memo_embed(self: MiniLMEmbedder, texts: Sequence[str]) -> np.ndarray:
    return MEMO.embed(self, texts)
