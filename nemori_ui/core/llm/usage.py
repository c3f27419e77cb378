"""Per-prompt usage tallies, shared by every thread that calls the gateway."""

from __future__ import annotations

import threading
from dataclasses import asdict, dataclass


@dataclass
class PromptUsage:
    calls: int = 0          # complete() invocations, cache hits included
    cache_hits: int = 0
    failures: int = 0
    requests: int = 0       # HTTP requests actually sent: retries and repairs included
    input_tokens: int = 0   # tokens spent with the backend; cache hits spend none
    output_tokens: int = 0
    latency_s: float = 0.0


class UsageTally:
    def __init__(self) -> None:
        self._by_prompt: dict[str, PromptUsage] = {}
        self._lock = threading.Lock()

    def add(self, prompt_name: str, *, cached: bool, failed: bool, requests: int,
            input_tokens: int, output_tokens: int, latency_s: float) -> None:
        with self._lock:
            u = self._by_prompt.setdefault(prompt_name, PromptUsage())
            u.calls += 1
            u.cache_hits += int(cached)
            u.failures += int(failed)
            u.requests += requests
            if not cached:
                u.input_tokens += input_tokens
                u.output_tokens += output_tokens
            u.latency_s += latency_s

    def by_prompt(self) -> dict[str, dict]:
        with self._lock:
            return {name: asdict(u) for name, u in self._by_prompt.items()}

    def totals(self) -> dict:
        rows = self.by_prompt().values()
        return {
            "calls": sum(r["calls"] for r in rows),
            "cached": sum(r["cache_hits"] for r in rows),
            "failed": sum(r["failures"] for r in rows),
            "requests": sum(r["requests"] for r in rows),
            "input_tokens": sum(r["input_tokens"] for r in rows),
            "output_tokens": sum(r["output_tokens"] for r in rows),
        }
