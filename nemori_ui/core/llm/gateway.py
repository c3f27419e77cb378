"""The one door every stage uses to ask a model: cache, retries, validation, repair, records.

A call never raises for a model-side problem: it returns an `LLMResult` whose record says what
happened, because each stage has its own sensible fallback (the offline engine) and the UI
shows every call, failed ones included.
"""

from __future__ import annotations

import hashlib
import json
import logging
import random
import threading
import time
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Callable, Generic, Literal, Protocol, TypeVar

from pydantic import BaseModel

from ..errors import LLMFailure
from ..models import LLMCallRecord
from .cache import ResponseCache
from .schema import parse_reply, response_format_for, schema_instruction, schema_of
from .usage import UsageTally

log = logging.getLogger(__name__)

T = TypeVar("T", bound=BaseModel)
StructuredMode = Literal["json_schema", "json_object"]


class ChatReply(BaseModel):
    text: str
    input_tokens: int = 0
    output_tokens: int = 0


class TransientError(Exception):
    """Worth retrying: rate limit, 5xx, timeout, dropped connection."""

    def __init__(self, message: str, *, retry_after: float | None = None):
        super().__init__(message)
        self.retry_after = retry_after


class StructuredOutputUnsupported(Exception):
    """The server refused the json_schema response_format (older llama.cpp, Ollama, vLLM)."""


class ChatBackend(Protocol):
    name: str
    model: str

    def chat(self, messages: list[dict], *, temperature: float, response_format: dict | None,
             timeout: float) -> ChatReply: ...


@dataclass
class LLMResult(Generic[T]):
    value: T | None
    record: LLMCallRecord

    @property
    def ok(self) -> bool:
        return self.value is not None and self.record.status != "failed"

    def unwrap(self) -> T:
        """The value, or `LLMFailure` for callers that prefer an exception."""
        if not self.ok:
            raise LLMFailure(self.record.error or "LLM call failed",
                             prompt_name=self.record.prompt_name, call_id=self.record.id)
        return self.value  # type: ignore[return-value]


class _CallFailed(Exception):
    def __init__(self, message: str, *, backend: bool = False):
        super().__init__(message)
        self.backend = backend   # the server could not be used, as opposed to a bad reply


# After this many calls in a row that the server could not answer at all (unreachable, key
# refused, retries spent), the run stops with a clear error instead of deciding everything
# offline while the user waits for retries: it resumes once the server is fixed.
UNREACHABLE_STREAK = 3


@dataclass
class _CallState:
    attempts: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    notes: list[str] = field(default_factory=list)


def _estimate_tokens(text: str) -> int:
    return len(text) // 4


class LLMGateway:
    def __init__(self, backend: ChatBackend, cache: ResponseCache | None = None, *,
                 max_concurrency: int = 8, retries: int = 4, timeout_s: float = 60.0,
                 backoff_base_s: float = 0.5, backoff_max_s: float = 20.0,
                 structured_output: StructuredMode = "json_schema", temperature: float = 0.2,
                 sleep: Callable[[float], None] = time.sleep):
        self.backend = backend
        self.cache = cache
        self.retries = max(0, retries)
        self.timeout_s = timeout_s
        self.backoff_base_s = backoff_base_s
        self.backoff_max_s = backoff_max_s
        self.temperature = temperature
        self.sleep = sleep
        # The configured mode goes into cache keys so a re-run after a fallback still hits.
        self.configured_output: StructuredMode = structured_output
        self.structured_output: StructuredMode = structured_output
        self.fallback_reason: str | None = None
        self._slots = threading.BoundedSemaphore(max(1, max_concurrency))
        self._lock = threading.Lock()
        self._records: list[LLMCallRecord] = []
        self._unreachable = 0
        self._usage = UsageTally()
        self._redact: Callable[[str], str] = getattr(backend, "redact", None) or (lambda s: s)

    # -- public ------------------------------------------------------------------------------

    def complete(self, prompt_name: str, messages: list[dict], response_model: type[T], *,
                 temperature: float | None = None) -> LLMResult[T]:
        temp = self.temperature if temperature is None else temperature
        schema = schema_of(response_model)
        key = self.cache_key(messages, schema, temp)
        started = time.perf_counter()

        hit = self._from_cache(key, response_model)
        if hit is not None:
            value, entry = hit
            record = self._record(prompt_name, messages, key, started, cached=True,
                                  text=entry.get("response_text"), parsed=entry.get("parsed"),
                                  tokens=(entry.get("input_tokens", 0), entry.get("output_tokens", 0)),
                                  attempts=0)
            return LLMResult(value, record)

        st = _CallState()
        convo = [dict(m) for m in messages]
        sent, text, status, value, error = convo, None, "failed", None, None
        try:
            reply, sent = self._send(convo, prompt_name, schema, temp, st)
            text = reply.text
            value, problem = parse_reply(text, response_model)
            status = "ok"
            if problem is not None:
                log.info("%s: invalid reply (%s); asking for a repair", prompt_name, problem)
                repair = convo + [
                    {"role": "assistant", "content": text},
                    {"role": "user", "content": (
                        f"Your previous reply could not be used: {problem}. Reply again with only "
                        "the corrected JSON object, matching the required schema exactly, "
                        "without prose or code fences.")},
                ]
                reply, sent = self._send(repair, prompt_name, schema, temp, st)
                text = reply.text
                value, problem = parse_reply(text, response_model)
                status = "repaired"
                if problem is not None:
                    raise _CallFailed(f"invalid reply after one repair attempt: {problem}")
        except _CallFailed as exc:
            status, value, error = "failed", None, self._redact(str(exc))
            log.warning("%s failed: %s", prompt_name, error)
            unreachable = exc.backend
        else:
            unreachable = False
        with self._lock:
            self._unreachable = self._unreachable + 1 if unreachable else 0
            streak = self._unreachable

        parsed = value.model_dump(mode="json") if value is not None else None
        # Notes (retried failures, the json_object fallback) ride in `error` even when the
        # status stays ok: LLMCallRecord has no other place the UI would show them.
        failure = error
        error = "; ".join(filter(None, [error, *st.notes])) or None
        record = self._record(prompt_name, sent, key, started, cached=False, text=text,
                              parsed=parsed, tokens=(st.input_tokens, st.output_tokens),
                              attempts=st.attempts, status=status, error=error)
        if value is not None and self.cache is not None:
            self.cache.put(key, {"response_text": text, "parsed": parsed,
                                 "input_tokens": st.input_tokens, "output_tokens": st.output_tokens})
        if streak >= UNREACHABLE_STREAK:
            raise LLMFailure(f"the LLM server failed {streak} calls in a row, the last with: "
                             f"{failure}. Check the model, base URL and key; running again "
                             "resumes from the last finished window.",
                             prompt_name=prompt_name, call_id=record.id)
        return LLMResult(value, record)

    def usage(self) -> dict[str, dict]:
        return self._usage.by_prompt()

    def totals(self) -> dict:
        return self._usage.totals()

    def drain_records(self) -> list[LLMCallRecord]:
        with self._lock:
            out, self._records = self._records, []
        return out

    def cache_key(self, messages: list[dict], schema: dict, temperature: float) -> str:
        # the server too: two servers may serve different weights under one model name
        payload = {"backend": self.backend.name, "model": self.backend.model,
                   "server": getattr(self.backend, "base_url", None), "messages": messages,
                   "schema": schema, "temperature": temperature, "mode": self.configured_output}
        blob = json.dumps(payload, sort_keys=True, ensure_ascii=False, default=str)
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()

    # -- internals ---------------------------------------------------------------------------

    def _from_cache(self, key: str, model: type[T]) -> tuple[T, dict] | None:
        if self.cache is None:
            return None
        entry = self.cache.get(key)
        if not entry or entry.get("parsed") is None:
            return None
        try:
            return model.model_validate(entry["parsed"]), entry
        except ValueError:
            return None   # stale entry from an older model definition: ask again

    def _send(self, convo: list[dict], prompt_name: str, schema: dict, temperature: float,
              st: _CallState) -> tuple[ChatReply, list[dict]]:
        """One logical request with its retries; returns the reply and the messages sent."""
        failures = 0
        while True:
            mode = self.structured_output
            sent = convo if mode == "json_schema" else schema_instruction(convo, schema)
            response_format = response_format_for(mode, prompt_name, schema)
            st.attempts += 1
            try:
                with self._slots:
                    reply = self.backend.chat(sent, temperature=temperature,
                                              response_format=response_format, timeout=self.timeout_s)
            except StructuredOutputUnsupported as exc:
                if mode != "json_schema":
                    raise _CallFailed(f"server rejected response_format {mode}: {exc}") from None
                self._fall_back(str(exc), st)
                continue
            except TransientError as exc:
                failures += 1
                if failures > self.retries:
                    raise _CallFailed(f"gave up after {st.attempts} attempts: {exc}",
                                      backend=True) from None
                # a failure a retry recovered from is still one: keep it on the call's record
                st.notes.append(self._redact(f"attempt {st.attempts} failed, retried: {exc}"))
                delay = self._backoff(failures, exc.retry_after)
                log.info("%s: transient error (%s); retry %d in %.2fs", prompt_name, exc, failures, delay)
                self.sleep(delay)
                continue
            except Exception as exc:  # noqa: BLE001 - any backend failure becomes a failed record
                raise _CallFailed(f"{type(exc).__name__}: {exc}", backend=True) from None
            if reply.input_tokens == 0 and reply.output_tokens == 0:
                # Some local servers send no usage block; an estimate beats a silent zero.
                prompt_text = "".join(str(m.get("content") or "") for m in sent)
                reply = ChatReply(text=reply.text, input_tokens=_estimate_tokens(prompt_text),
                                  output_tokens=_estimate_tokens(reply.text))
            st.input_tokens += reply.input_tokens
            st.output_tokens += reply.output_tokens
            return reply, sent

    def _fall_back(self, reason: str, st: _CallState) -> None:
        with self._lock:
            if self.structured_output == "json_schema":
                self.structured_output = "json_object"
                self.fallback_reason = self._redact(reason)
                log.warning("server does not support json_schema output; using json_object (%s)",
                            self.fallback_reason)
        st.notes.append("server rejected response_format json_schema; switched to json_object")

    def _backoff(self, failure: int, retry_after: float | None) -> float:
        if retry_after is not None and retry_after >= 0:
            return min(retry_after, self.backoff_max_s)
        ceiling = min(self.backoff_max_s, self.backoff_base_s * 2 ** (failure - 1))
        # "Equal jitter": never less than half the step, so parallel callers spread out.
        return ceiling / 2 + random.uniform(0, ceiling / 2)

    def _record(self, prompt_name: str, messages: list[dict], key: str, started: float, *,
                cached: bool, text: str | None, parsed: dict | None, tokens: tuple[int, int],
                attempts: int, status: str = "ok", error: str | None = None) -> LLMCallRecord:
        latency = 0.0 if cached else time.perf_counter() - started
        record = LLMCallRecord(
            id=uuid.uuid4().hex[:12], prompt_name=prompt_name, backend=self.backend.name,
            model=self.backend.model, messages=[dict(m) for m in messages], response_text=text,
            parsed=parsed, input_tokens=int(tokens[0] or 0), output_tokens=int(tokens[1] or 0),
            latency_s=latency, cached=cached, status=status, error=error, attempts=attempts,
            cache_key=key, created_at=datetime.now(timezone.utc))
        self._usage.add(prompt_name, cached=cached, failed=status == "failed", requests=attempts,
                        input_tokens=record.input_tokens, output_tokens=record.output_tokens,
                        latency_s=latency)
        with self._lock:
            self._records.append(record)
        return record

