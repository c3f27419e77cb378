"""Where the gateway puts each call's record: one sink per gateway, with the call's context.

Every call is written at once by the store's sink, with what it served: a call made for a
run's window (the runner names the run and window) to the run's calls, so a process stopped
mid-window loses none; calls made for anything else (Ask, an evaluation's answers, its judge)
to the call log. A sink without a store keeps them until they are drained.

The context is set by the caller around the calls it makes; it follows the thread (and a
`copy_context().run`), so concurrent questions keep their own.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Iterator, Protocol

from ..models import LLMCallRecord

_CONTEXT: ContextVar[dict | None] = ContextVar("llm_call_context", default=None)


@contextmanager
def call_context(kind: str, **fields) -> Iterator[dict]:
    """Every call made inside the block serves `kind` (run, ask, eval, judge) and `fields`
    (run_id, window, eval_id, item_id)."""
    ctx = {"kind": kind, **{k: v for k, v in fields.items() if v is not None}}
    token = _CONTEXT.set(ctx)
    try:
        yield ctx
    finally:
        _CONTEXT.reset(token)


def current_context() -> dict | None:
    ctx = _CONTEXT.get()
    return dict(ctx) if ctx else None


class CallSink(Protocol):
    def write(self, record: LLMCallRecord) -> None: ...

    def drain(self) -> list[LLMCallRecord]: ...


class BufferSink:
    """Keeps records until drained; the run saves them with its window."""

    def __init__(self) -> None:
        self._records: list[LLMCallRecord] = []
        self._lock = threading.Lock()

    def write(self, record: LLMCallRecord) -> None:
        with self._lock:
            self._records.append(record)

    def drain(self) -> list[LLMCallRecord]:
        with self._lock:
            out, self._records = self._records, []
        return out
