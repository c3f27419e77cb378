"""The sink that stores every LLM call the moment it finishes."""

from __future__ import annotations

from ..models import OUTSIDE_KINDS, LLMCallRecord
from ..store import Store, call_log, records
from .sink import BufferSink


class StoreCallSink(BufferSink):
    """Every call is written as soon as it is made: a call of a run's window to the run's
    calls (a process killed mid-window keeps the calls it paid for; a window redone on resume
    adds its own, mostly from the cache), any other to the call log. A call that names no
    run stays buffered for whoever drains it."""

    def __init__(self, store: Store):
        super().__init__()
        self.store = store

    def write(self, record: LLMCallRecord) -> None:
        ctx = record.context or {}
        if record.kind in OUTSIDE_KINDS:
            call_log.save_calls(self.store, [record])
        elif ctx.get("run_id") and ctx.get("window") is not None:
            records.save_calls(self.store, ctx["run_id"], int(ctx["window"]), [record])
        else:
            super().write(record)
