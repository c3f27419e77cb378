"""LLM access for the stages: the gateway, its backends, its cache.

Import from here: `from nemori_ui.core.llm import LLMGateway, OpenAIChatBackend, ...`.
The OpenAI backend is imported lazily so the offline engine never pays for the SDK import.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .cache import MemoryResponseCache, ResponseCache
from .fakes import ScriptedBackend, ScriptExhausted
from .gateway import LLMGateway, LLMResult
from .protocol import ChatBackend, ChatReply, StructuredOutputUnsupported, TransientError
from .sink import BufferSink, call_context
from .schema import parse_reply, schema_name, strict_schema

if TYPE_CHECKING:
    from .openai_backend import (BackendError, MissingCredentials, OpenAIChatBackend,
                                 make_openai_client, resolve_openai_settings)

_LAZY = {"BackendError", "MissingCredentials", "OpenAIChatBackend", "make_openai_client",
         "resolve_openai_settings"}

__all__ = [
    "BufferSink", "call_context", "ChatBackend", "ChatReply", "LLMGateway", "LLMResult", "MemoryResponseCache", "ResponseCache",
    "ScriptExhausted", "ScriptedBackend", "StructuredOutputUnsupported", "TransientError",
    "parse_reply", "schema_name", "strict_schema", *sorted(_LAZY),
]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from . import openai_backend
        return getattr(openai_backend, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
