"""Embedders: MiniLM offline (default) or OpenAI, behind one protocol, cached by content hash.

The backends load lazily (PEP 562) so importing the protocols does not pull in onnxruntime
or the openai SDK.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from .base import CachedEmbedder, Embedder, MemoryVectorCache, VectorCache, text_key, unit_rows

if TYPE_CHECKING:
    from .minilm import MiniLMEmbedder, load_minilm
    from .openai_embed import OpenAIEmbedder

_LAZY = {"MiniLMEmbedder": ".minilm", "load_minilm": ".minilm", "OpenAIEmbedder": ".openai_embed"}

__all__ = ["CachedEmbedder", "Embedder", "MemoryVectorCache", "MiniLMEmbedder",
           "OpenAIEmbedder", "VectorCache", "load_minilm", "text_key", "unit_rows"]


def __getattr__(name: str):
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
