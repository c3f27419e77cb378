"""The one door every stage uses to ask a model: cache, retries, validation, repair, records.

A call never raises for a model-side problem: it returns an `LLMResult` whose record says what
happened, because each stage has its own sensible fallback (the offline engine) and the UI
shows every call, failed ones included. It raises `LLMFailure` only when the server looks
gone: several calls in a row it could not answer, or no answer at all for as long as the
retry budget, so a run stops with a clear message instead of waiting without end. A call cut
off because the process is stopping is recorded as interrupted, and the interrupt goes on.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
import time
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Callable, Generic, Literal, TypeVar

from pydantic import BaseModel

from ..errors import LLMFailure
from ..models import LLMCallRecord
from . import stopping
from .cache import ResponseCache
from .examples import copied_example
from .limiter import AdaptiveLimit
from .protocol import ChatBackend, ChatReply, StructuredOutputUnsupported, TransientError
from .redact import Redactor
from .schema import is_free_text, parse_reply, schema_of
from .sending import CallFailed, CallState, Sender
from .sink import BufferSink, CallSink, current_context
from .usage import UsageTally

log = logging.getLogger(__name__)

T = TypeVar("T", bound=BaseModel)
StructuredMode = Literal["json_schema", "json_object"]

__all__ = ["ChatBackend", "ChatReply", "LLMGateway", "LLMResult", "StructuredOutputUnsupported",
           "TransientError", "UNREACHABLE_STREAK"]


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


# After this many calls in a row that the server could not answer at all (unreachable, key
# refused, retries spent), the run stops with a clear error instead of deciding everything
# offline while the user waits for retries: it resumes once the server is fixed.
UNREACHABLE_STREAK = 3


@dataclass
class _Streak:
    count: int = 0
    since: float = 0.0          # when the first call of the streak started
    last_error: str | None = None
    ids: list[str] = field(default_factory=list)


class LLMGateway:
    def __init__(self, backend: ChatBackend, cache: ResponseCache | None = None, *,
                 max_concurrency: int = 8, retries: int = 4, timeout_s: float = 60.0,
                 retry_budget_s: float | None = 90.0, backoff_base_s: float = 0.5,
                 backoff_max_s: float = 20.0, structured_output: StructuredMode = "json_schema",
                 temperature: float = 0.2, sleep: Callable[[float], None] = stopping.pause,
                 sink: CallSink | None = None, notice: Callable[[str], None] | None = None,
                 clock: Callable[[], float] = time.monotonic):
        self.backend = backend
        self.cache = cache
        self.retries = max(0, retries)
        self.timeout_s = timeout_s
        self.retry_budget_s = retry_budget_s
        self.backoff_base_s = backoff_base_s
        self.backoff_max_s = backoff_max_s
        self.temperature = temperature
        self.sleep = sleep
        self.clock = clock
        # The configured mode goes into cache keys so a re-run after a fallback still hits.
        self.configured_output: StructuredMode = structured_output
        self.structured_output: StructuredMode = structured_output
        self.fallback_reason: str | None = None
        self.limit = AdaptiveLimit(max_concurrency)
        self.sink: CallSink = sink or BufferSink()
        self.notice = notice or (lambda text: log.warning("%s", text))
        self.redact: Redactor = getattr(backend, "redactor", None) or Redactor()
        self._streak = _Streak()
        self._answered_at = float("-inf")     # gateway clock of the last answered call
        self._usage = UsageTally()
        self._sender = Sender(self)
        self._lock = threading.Lock()

    @property
    def stop_after_s(self) -> float | None:
        """No reply at all for this long, across calls: the server is treated as gone. It is
        the retry budget, so a run stops when its first call has spent the budget unanswered
        (docs/models.md says so)."""
        return self.retry_budget_s

    # -- public ------------------------------------------------------------------------------

    def complete(self, prompt_name: str, messages: list[dict], response_model: type[T], *,
                 temperature: float | None = None, max_tokens: int | None = None) -> LLMResult[T]:
        temp = self.temperature if temperature is None else temperature
        schema = schema_of(response_model)
        # the output cap stays out of the key: a reply that fits its cap does not depend on it
        key = self.cache_key(messages, schema, temp)
        started = time.perf_counter()

        hit = self._from_cache(key, response_model, messages)
        if hit is not None:
            value, entry = hit
            record = self._record(prompt_name, messages, key, started, CallState(), cached=True,
                                  text=entry.get("response_text"), parsed=entry.get("parsed"),
                                  tokens=(entry.get("input_tokens", 0),
                                          entry.get("output_tokens", 0)))
            return LLMResult(value, record)

        st = CallState(cap=max_tokens, started=self.clock())
        convo = [dict(m) for m in messages]
        sent, text, status, value, error = convo, None, "failed", None, None
        try:
            reply, sent = self._sender.send(convo, prompt_name, schema, temp, st)
            text = reply.text
            value, problem = self._parse(text, response_model, convo)
            status = "ok"
            if problem is not None:
                log.info("%s: invalid reply (%s); asking for a repair", prompt_name, problem)
                again = ("Reply again with your answer in plain text." if is_free_text(schema)
                         else "Reply again with only the corrected JSON object, matching the "
                              "required schema exactly, without prose or code fences.")
                repair = convo + [
                    {"role": "assistant", "content": text},
                    {"role": "user", "content": (
                        f"Your previous reply could not be used: {problem}. {again}")},
                ]
                reply, sent = self._sender.send(repair, prompt_name, schema, temp, st)
                text = reply.text
                value, problem = self._parse(text, response_model, convo)
                status = "repaired"
                if problem is not None:
                    raise CallFailed(f"invalid reply after one repair attempt: {problem}")
        except CallFailed as exc:
            status, value, error = "failed", None, self.redact.text(str(exc))
            text = exc.text if exc.text is not None else text   # a cut reply keeps its text
            log.warning("%s failed: %s", prompt_name, error)
            unreachable = exc.backend
        except BaseException as exc:
            # Ctrl-C, SIGTERM or SIGHUP (or the app stopping its script): the requests this
            # call sent were made, and some answered; keep them on record before going on
            if isinstance(exc, Exception) or not st.log:
                raise
            self._record(prompt_name, sent, key, started, st, cached=False, text=text,
                         parsed=None, tokens=(st.input_tokens, st.output_tokens),
                         status="interrupted",
                         error="; ".join(["interrupted: the process stopped during the call",
                                          *st.notes]))
            raise
        else:
            unreachable = False
        streak = self._count_streak(unreachable, st.started, error)

        parsed = value.model_dump(mode="json") if value is not None else None
        # Notes (retried failures, the json_object fallback, a cut reply) ride in `error` even
        # when the status stays ok, so the Calls page shows them beside the call.
        error = "; ".join(filter(None, [error, *st.notes])) or None
        record = self._record(prompt_name, sent, key, started, st, cached=False, text=text,
                              parsed=parsed, tokens=(st.input_tokens, st.output_tokens),
                              status=status, error=error)
        if value is not None and self.cache is not None:
            self.cache.put(key, {"response_text": text, "parsed": parsed,
                                 "input_tokens": st.input_tokens, "output_tokens": st.output_tokens})
        if streak is not None:
            raise LLMFailure(streak, prompt_name=prompt_name, call_id=record.id)
        return LLMResult(value, record)

    def usage(self) -> dict[str, dict]:
        return self._usage.by_prompt()

    def totals(self) -> dict:
        return self._usage.totals()

    def drain_records(self) -> list[LLMCallRecord]:
        return self.sink.drain()

    def cache_key(self, messages: list[dict], schema: dict, temperature: float) -> str:
        # the server too: two servers may serve different weights under one model name
        payload = {"backend": self.backend.name, "model": self.backend.model,
                   "server": getattr(self.backend, "base_url", None), "messages": messages,
                   "schema": schema, "temperature": temperature, "mode": self.configured_output}
        blob = json.dumps(payload, sort_keys=True, ensure_ascii=False, default=str)
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()

    def streak_left(self) -> float | None:
        """Seconds before the run of unanswered calls has lasted the retry budget; None while
        no call has gone unanswered (or without a budget)."""
        limit = self.stop_after_s
        with self._lock:
            s = self._streak
            if limit is None or s.count == 0:
                return None
            return limit - (self.clock() - s.since)

    def streak_expired(self) -> bool:
        """Every call for as long as the retry budget has gone unanswered."""
        left = self.streak_left()
        return left is not None and left <= 0

    # -- internals ---------------------------------------------------------------------------

    def _count_streak(self, unreachable: bool, started: float, error: str | None) -> str | None:
        """Update the run of unanswered calls; the message to stop with, when it is too long."""
        with self._lock:
            s = self._streak
            if not unreachable:
                self._streak = _Streak()
                self._answered_at = self.clock()
                return None
            if s.count == 0:
                # silence since the call started, or since another call was last answered
                s.since = max(started, self._answered_at)
            s.count += 1
            s.last_error = error
            age = self.clock() - s.since
            count = s.count
        limit = self.stop_after_s
        if count < UNREACHABLE_STREAK and (limit is None or age < limit):
            return None
        what = (f"answered nothing for {age:.0f} s, the --retry-budget, and its call failed"
                if count == 1 else f"failed {count} calls in a row ({age:.0f} s without an "
                "answer), the last")
        return (f"the LLM server {what} with: {error}. Check the model, base URL and key (a "
                "slow local model may need a longer --timeout); running again resumes from the "
                "last finished window.")

    @staticmethod
    def _parse(text: str | None, model: type[T], messages: list[dict]) -> tuple[T | None, str | None]:
        """The reply's value, or what is wrong with it: not JSON, not the schema, or a copy of
        the prompt's own example."""
        value, problem = parse_reply(text, model)
        if value is not None:
            problem = copied_example(messages, value.model_dump(mode="json"))
        return (value, None) if problem is None else (None, problem)

    def _from_cache(self, key: str, model: type[T],
                    messages: list[dict]) -> tuple[T, dict] | None:
        if self.cache is None:
            return None
        entry = self.cache.get(key)
        if not entry or entry.get("parsed") is None:
            return None
        if copied_example(messages, entry["parsed"]) is not None:
            return None   # kept by an older release that took the prompt's example: ask again
        try:
            return model.model_validate(entry["parsed"]), entry
        except ValueError:
            return None   # stale entry from an older model definition: ask again

    def _record(self, prompt_name: str, messages: list[dict], key: str, started: float,
                st: CallState, *, cached: bool, text: str | None, parsed: dict | None,
                tokens: tuple[int, int], status: str = "ok",
                error: str | None = None) -> LLMCallRecord:
        latency = 0.0 if cached else time.perf_counter() - started
        r = self.redact
        record = LLMCallRecord(
            id=uuid.uuid4().hex[:12], prompt_name=prompt_name, backend=self.backend.name,
            model=self.backend.model, messages=r.value([dict(m) for m in messages]),
            response_text=r.text(text), parsed=r.value(parsed),
            input_tokens=int(tokens[0] or 0), output_tokens=int(tokens[1] or 0),
            latency_s=latency, cached=cached, status=status, error=r.text(error),
            attempts=st.attempts, cache_key=key, created_at=datetime.now(timezone.utc),
            server=getattr(self.backend, "base_url", None), served_model=st.served_model,
            finish_reason=st.finish_reason, max_tokens=st.cap, requests=st.log,
            context=current_context())
        self._usage.add(prompt_name, cached=cached, failed=status == "failed",
                        requests=st.attempts, input_tokens=record.input_tokens,
                        output_tokens=record.output_tokens, latency_s=latency)
        self.sink.write(record)
        return record
