"""Embeddings from OpenAI or any server that speaks its `/v1/embeddings` API."""

from __future__ import annotations

import random
import threading
import time
from typing import Any, Callable, Sequence

import numpy as np
import openai

from ..llm.openai_backend import PLACEHOLDER_KEY
from .base import unit_rows

KNOWN_DIMS = {
    "text-embedding-3-small": 1536,
    "text-embedding-3-large": 3072,
    "text-embedding-ada-002": 1536,
}
MAX_SLEEP = 20.0  # a longer Retry-After is better surfaced to the user than waited out


def _retryable(exc: Exception) -> bool:
    if isinstance(exc, (openai.RateLimitError, openai.APIConnectionError)):  # incl. timeouts
        return True
    if isinstance(exc, openai.APIStatusError):
        return exc.status_code in (408, 409) or exc.status_code >= 500
    return False


def _retry_after(exc: Exception) -> float | None:
    response = getattr(exc, "response", None)
    try:
        value = response.headers.get("retry-after") if response is not None else None
        return float(value) if value is not None else None
    except (TypeError, ValueError):
        return None


def _scrub(value: Any, mask: Callable[[str], str]) -> Any:
    if isinstance(value, str):
        return mask(value)
    if isinstance(value, dict):
        return {k: _scrub(v, mask) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_scrub(v, mask) for v in value)
    return value


class OpenAIEmbedder:
    """Batches texts through ``client.embeddings.create`` with its own retry policy.

    ``dim`` is known for OpenAI's models; for another server's model pass ``dim`` or it is
    learned from one probe call the first time it is read.
    """

    def __init__(self, client: Any, model: str = "text-embedding-3-small", *,
                 batch_size: int = 256, retries: int = 4, backoff: float = 0.5,
                 dim: int | None = None, sleep: Callable[[float], None] = time.sleep,
                 redactor: Callable[[str], str] | None = None) -> None:
        if batch_size < 1 or retries < 0:
            raise ValueError("batch_size must be >= 1 and retries >= 0")
        # The SDK retries by itself too; stacked policies would multiply the attempts and hide
        # them from our count, so this embedder owns retrying alone.
        if hasattr(client, "with_options"):
            client = client.with_options(max_retries=0)
        self._client = client
        self.model = model
        self.name = f"openai:{model}"
        self.batch_size, self.retries, self.backoff = batch_size, retries, backoff
        self._sleep = sleep
        self._redact = redactor     # every wire form of the credentials, when the caller knows them
        self._dim = dim if dim is not None else KNOWN_DIMS.get(model)
        self._dim_lock = threading.Lock()
        self.calls = 0  # HTTP requests made, retries included

    @property
    def dim(self) -> int:
        if self._dim is None:
            with self._dim_lock:
                if self._dim is None:
                    self._dim = int(self._request([" "]).shape[1])
        return self._dim

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        # The API rejects empty strings; a single space embeds as "nothing said".
        texts = [t if t else " " for t in texts]
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        parts = [self._request(texts[i:i + self.batch_size])
                 for i in range(0, len(texts), self.batch_size)]
        out = np.concatenate(parts)
        if out.shape[1] != self.dim:
            raise ValueError(f"{self.name} returned {out.shape[1]}-d vectors, expected {self.dim}")
        # Servers other than OpenAI do not always return unit vectors; cosine needs them.
        return unit_rows(out)

    def _without_key(self, exc: Exception) -> Exception:
        """The same error with the credentials masked: a server refusing a key may quote it (a
        401 does), and the message goes on to the run store, the terminal and the page."""
        mask = self._redact
        key = getattr(self._client, "api_key", None)
        if mask is None and isinstance(key, str) and len(key) >= 4 and key != PLACEHOLDER_KEY:
            mask = lambda text: text.replace(key, "***")  # noqa: E731
        if mask is not None:
            exc.args = _scrub(exc.args, mask)
            for name in ("message", "body"):
                if getattr(exc, name, None) is not None:
                    setattr(exc, name, _scrub(getattr(exc, name), mask))
        return exc

    def _request(self, batch: list[str]) -> np.ndarray:
        for attempt in range(self.retries + 1):
            try:
                self.calls += 1
                response = self._client.embeddings.create(model=self.model, input=batch)
                break
            except Exception as exc:  # noqa: BLE001 - re-raised unless retryable
                if attempt == self.retries or not _retryable(exc):
                    raise self._without_key(exc)
                wait = _retry_after(exc)
                if wait is None:
                    wait = self.backoff * (2 ** attempt) * (1 + random.random() * 0.25)
                self._sleep(min(max(wait, 0.0), MAX_SLEEP))
        # Rows come back tagged with their input position; do not trust their order.
        data = sorted(response.data, key=lambda d: d.index)
        if len(data) != len(batch):
            raise ValueError(f"{self.name} returned {len(data)} vectors for {len(batch)} inputs")
        return np.asarray([d.embedding for d in data], dtype=np.float32)
