"""`AsyncMemory`: `Memory` for asyncio programs, as mem0's AsyncMemory and the official nemori
library are. Every method is the `Memory` method of the same name, awaited on a worker
thread, so an event loop never blocks on SQLite, embedding or a model call. Opening is
`await AsyncMemory.open(...)` (or the constructor, which opens on the calling thread).
"""

from __future__ import annotations

import asyncio
import functools

from .memory_api import Memory

# the methods that do work: each becomes a coroutine with Memory's signature and docstring
_AWAITED = ("add", "flush", "wait", "search", "answer", "get", "get_all", "update", "delete",
            "history", "close")


class AsyncMemory:
    """Takes exactly `Memory`'s arguments."""

    def __init__(self, *args, **kwargs):
        self.sync = Memory(*args, **kwargs)

    @classmethod
    async def open(cls, *args, **kwargs) -> "AsyncMemory":
        """Open (or create) the memory without blocking the event loop."""
        self = cls.__new__(cls)
        self.sync = await asyncio.to_thread(Memory, *args, **kwargs)
        return self

    @property
    def run_id(self) -> str:
        return self.sync.run_id

    @property
    def pending(self) -> int:
        """Messages waiting in the buffer for their window to fill."""
        return self.sync.pending

    @property
    def unprocessed(self) -> int:
        """Messages stored but not in memory yet."""
        return self.sync.unprocessed

    async def __aenter__(self) -> "AsyncMemory":
        return self

    async def __aexit__(self, *exc) -> None:
        await self.close()


def _awaited(name: str):
    method = getattr(Memory, name)

    @functools.wraps(method)
    async def call(self, *args, **kwargs):
        return await asyncio.to_thread(getattr(self.sync, name), *args, **kwargs)
    return call


for _name in _AWAITED:
    setattr(AsyncMemory, _name, _awaited(_name))
