"""Where the gateway keeps validated replies so a re-run with the same inputs makes no call.

The protocol is deliberately tiny (get/put of a JSON-able dict) so the run store can provide a
persistent implementation without knowing anything about the gateway.
"""

from __future__ import annotations

import copy
import threading
from collections import OrderedDict
from typing import Any, Protocol, runtime_checkable

CacheEntry = dict[str, Any]   # {"response_text", "parsed", "input_tokens", "output_tokens"}


@runtime_checkable
class ResponseCache(Protocol):
    def get(self, key: str) -> CacheEntry | None: ...

    def put(self, key: str, entry: CacheEntry) -> None: ...


class MemoryResponseCache:
    """In-process cache, thread-safe. Bounded (oldest first out) so a long session cannot grow
    without limit; copies on the way in and out so a caller mutating a parsed dict cannot
    corrupt what later hits see."""

    def __init__(self, max_entries: int | None = 10_000):
        self._max = max_entries
        self._data: OrderedDict[str, CacheEntry] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str) -> CacheEntry | None:
        with self._lock:
            entry = self._data.get(key)
            if entry is None:
                return None
            self._data.move_to_end(key)
            return copy.deepcopy(entry)

    def put(self, key: str, entry: CacheEntry) -> None:
        with self._lock:
            self._data[key] = copy.deepcopy(entry)
            self._data.move_to_end(key)
            if self._max is not None:
                while len(self._data) > self._max:
                    self._data.popitem(last=False)

    def __len__(self) -> int:
        with self._lock:
            return len(self._data)

    def __contains__(self, key: object) -> bool:
        with self._lock:
            return key in self._data

    def clear(self) -> None:
        with self._lock:
            self._data.clear()
