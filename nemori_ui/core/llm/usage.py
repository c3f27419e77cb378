"""Counting calls, one definition everywhere: calls sent to the server, cache hits and
failures are counted apart; requests are the HTTP requests those calls needed (retries and
repairs included); tokens are those spent with the server (a cache hit spends none)."""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import asdict, dataclass

COUNT_KEYS = ("calls", "cached", "failed", "requests", "retries", "input_tokens",
              "output_tokens")


@dataclass
class PromptUsage:
    calls: int = 0          # calls sent to the server; cache hits are not among them
    cached: int = 0         # answered from the response cache: no request, no cost
    failed: int = 0         # sent calls that ended without a usable reply
    requests: int = 0       # HTTP requests the sent calls made: retries and repairs included
    retries: int = 0        # requests beyond the first of each call
    input_tokens: int = 0
    output_tokens: int = 0
    latency_s: float = 0.0

    def add(self, *, cached: bool, failed: bool, requests: int, input_tokens: int,
            output_tokens: int, latency_s: float) -> None:
        if cached:
            self.cached += 1
            return
        self.calls += 1
        self.failed += int(failed)
        self.requests += requests
        self.retries += max(0, requests - 1)
        self.input_tokens += input_tokens
        self.output_tokens += output_tokens
        self.latency_s += latency_s


def count_calls(records: Iterable) -> dict:
    """The counts of a list of call records (LLMCallRecord), as every page and command shows."""
    u = PromptUsage()
    for c in records:
        u.add(cached=c.cached, failed=c.status == "failed", requests=c.attempts,
              input_tokens=c.input_tokens, output_tokens=c.output_tokens, latency_s=c.latency_s)
    out = asdict(u)
    out["latency_s"] = round(out["latency_s"], 3)
    return out


class UsageTally:
    """Per-prompt counts of a gateway, shared by every thread that calls it."""

    def __init__(self) -> None:
        self._by_prompt: dict[str, PromptUsage] = {}
        self._lock = threading.Lock()

    def add(self, prompt_name: str, **kw) -> None:
        with self._lock:
            self._by_prompt.setdefault(prompt_name, PromptUsage()).add(**kw)

    def by_prompt(self) -> dict[str, dict]:
        with self._lock:
            return {name: asdict(u) for name, u in self._by_prompt.items()}

    def totals(self) -> dict:
        with self._lock:
            rows = list(self._by_prompt.values())
            return {k: sum(getattr(r, k) for r in rows) for k in COUNT_KEYS}
