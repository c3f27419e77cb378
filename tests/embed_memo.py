"""MiniLM's answers kept for the test session: the same call (the same texts in the same
order, with the same batch size and truncation) gets the vectors the model gave the first time,
in this process or, through a folder the suite's workers share, in another.

Every offline run in a fresh home embeds the same sample messages, episodes and the phatic
classifier's prototypes again: about 70 % of the 3-5 s such a run takes, over a hundred times a
suite. The model still runs for every call it has not answered before, and whole calls are kept,
not single texts, since the int8 model's vectors depend a little on the batch a text is in: a
run gets exactly what a fresh model would give it. tests/test_embed.py checks the model itself
and runs without it."""

from __future__ import annotations

import hashlib
import os
import threading
from pathlib import Path
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
        # the two workers run the same sample and LoCoMo runs: the first to embed a call
        # leaves it here for the other
        self.folder: Path | None = None

    def embed(self, model: MiniLMEmbedder, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        key = (model.batch_size, model.max_length, tuple(texts))
        if key in self.kept:
            return self.kept[key].copy()
        file = self._file(key)
        room = self.rows + len(texts) <= MAX_ROWS
        if file is not None and file.exists():
            vectors = np.load(file)
        else:
            vectors = self.real(model, texts)
            if file is not None and room:
                # the process and the thread: a server's jobs embed the same texts at once
                part = file.with_suffix(f".{os.getpid()}.{threading.get_ident()}.part")
                with open(part, "wb") as out:
                    np.save(out, vectors)
                os.replace(part, file)      # whole or not at all, for a reader in another worker
        if room:
            self.kept[key] = vectors.copy()
            self.rows += len(texts)
        return vectors

    def _file(self, key: tuple) -> Path | None:
        if self.folder is None:
            return None
        digest = hashlib.sha256(f"{key[0]}:{key[1]}:{len(key[2])}".encode())
        for text in key[2]:
            data = text.encode("utf-8", "surrogatepass")
            digest.update(len(data).to_bytes(8, "little"))
            digest.update(data)
        return self.folder / f"{digest.hexdigest()}.npy"


MEMO = EmbedMemo()


def memo_embed(self: MiniLMEmbedder, texts: Sequence[str]) -> np.ndarray:
    return MEMO.embed(self, texts)
