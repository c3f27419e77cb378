"""One logical request of a call, with its retries: how long each attempt may take, how long
the call may keep retrying, what a reply cut at its output cap gets, and a log entry for every
request sent, so a call's record shows each attempt whatever became of it.

A server that is not ready (HTTP 503 while it loads a model, connection refused while it
restarts) is asked again with a growing delay until the call's retry budget is spent: those
requests are not counted against `attempts`, which is for requests the server got wrong."""

from __future__ import annotations

import logging
import random
from dataclasses import dataclass, field

from . import stopping
from .protocol import ChatReply, StructuredOutputUnsupported, TransientError
from .repetition import repeated_tail
from .schema import is_free_text, response_format_for, schema_instruction
from .tokens import estimate_messages, estimate_tokens

log = logging.getLogger(__name__)

# A reply cut at its cap is asked once more with the cap multiplied by this, never above
# MAX_CAP; cut again, the call is recorded as truncated. A cut reply that repeats itself is
# not asked again: a larger cap would only buy more of the loop.
CAP_GROWTH = 2
MAX_CAP = 8192
MIN_ATTEMPT_S = 1.0     # an attempt with less time than this left in the budget is not started
NOT_READY_MAX_S = 8.0   # longest wait between two asks of a server that is not ready: a
                        # server back from a restart is used within this many seconds


class CallFailed(Exception):
    def __init__(self, message: str, *, backend: bool = False, text: str | None = None):
        super().__init__(message)
        self.backend = backend   # the server could not be used, as opposed to a bad reply
        self.text = text         # what the server did send (a reply cut at its cap)


@dataclass
class CallState:
    cap: int | None = None          # max_tokens of the next request
    started: float = 0.0            # gateway clock
    attempts: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    finish_reason: str | None = None
    served_model: str | None = None
    notes: list[str] = field(default_factory=list)
    log: list[dict] = field(default_factory=list)
    not_ready_note: int | None = None   # where in `notes` the not-ready retries are told


class Sender:
    def __init__(self, gateway):
        self.gw = gateway

    def _min_attempt(self) -> float:
        return min(MIN_ATTEMPT_S, self.gw.timeout_s / 2)

    def _left(self, st: CallState) -> float | None:
        """What is left of the call's retry budget, and of the run's: once no call has been
        answered for the budget, the run stops, so no request may wait beyond that."""
        budget = self.gw.retry_budget_s
        if budget is None:
            return None
        left = budget - (self.gw.clock() - st.started)
        silence = self.gw.streak_left()
        return left if silence is None else min(left, silence)

    def send(self, convo: list[dict], prompt_name: str, schema: dict, temperature: float,
             st: CallState) -> tuple[ChatReply, list[dict]]:
        """The reply (text already redacted) and the messages that produced it."""
        gw = self.gw
        failures, not_ready, enlarged = 0, 0, False
        while True:
            mode = gw.structured_output
            sent = convo if mode == "json_schema" else schema_instruction(convo, schema)
            response_format = response_format_for(mode, prompt_name, schema)
            st.attempts += 1
            entry = {"n": st.attempts, "max_tokens": st.cap}
            t0 = gw.clock()
            in_flight = 1
            try:
                with gw.limit as in_flight:
                    stopping.check()    # a call queued for a slot when the process stops
                    # the budget runs from the first request sent, not from the wait for a
                    # free slot: behind a one-slot server, calls queue here by design
                    t0 = gw.clock()
                    if not st.log:
                        st.started = t0
                    left = self._left(st)
                    deadline = gw.timeout_s if left is None else \
                        min(gw.timeout_s, max(self._min_attempt(), left))
                    entry["deadline_s"] = round(deadline, 1)
                    reply = gw.backend.chat(sent, temperature=temperature,
                                            response_format=response_format, timeout=deadline,
                                            max_tokens=st.cap)
            except KeyboardInterrupt:
                if "deadline_s" in entry:   # sent: the server may be writing the reply
                    self._log(st, entry, t0, "interrupted", "the process stopped before the reply")
                else:
                    st.attempts -= 1        # still waiting for a slot: nothing was sent
                raise
            except StructuredOutputUnsupported as exc:
                self._log(st, entry, t0, "rejected", str(exc))
                if mode != "json_schema":
                    raise CallFailed(f"server rejected response_format {mode}: {exc}") from None
                self._fall_back(str(exc), st)
                continue
            except TransientError as exc:
                if exc.not_ready:
                    not_ready += 1
                else:
                    failures += 1
                # a timed-out request reached the server, which read the prompt: its input
                # tokens were spent (an estimate, the server never said)
                spent = estimate_messages(sent) if exc.timed_out else 0
                st.input_tokens += spent
                self._log(st, entry, t0, "timed out" if exc.timed_out else "failed", str(exc),
                          input_tokens=spent)
                if exc.timed_out and gw.limit.queued_timeout(in_flight):
                    gw.notice(f"{prompt_name}: a request timed out with {in_flight} in flight; "
                              f"the server seems to queue them, so at most {gw.limit.limit} "
                              "will be sent at once")
                self._retry_or_fail(exc, failures, not_ready, prompt_name, st)
                continue
            except Exception as exc:  # noqa: BLE001 - any backend failure becomes a failed record
                self._log(st, entry, t0, "failed", f"{type(exc).__name__}: {exc}")
                raise CallFailed(f"{type(exc).__name__}: {exc}", backend=True) from None
            gw.limit.succeeded()
            reply = self._account(reply, sent, st)
            if reply.finish_reason == "length":
                self._log(st, entry, t0, "truncated", None, reply)
                cap = st.cap
                loop = repeated_tail(reply.text)
                if cap and not enlarged and cap < MAX_CAP and loop is None:
                    enlarged = True
                    st.cap = min(MAX_CAP, cap * CAP_GROWTH)
                    st.notes.append(f"reply cut at max_tokens={cap}; asked again with {st.cap}")
                    continue
                where = f"max_tokens={cap}" if cap else "the server's limit"
                if is_free_text(schema) and loop is None:
                    # plain text has no closing brace to miss: what was written is the reply
                    st.notes.append(f"reply cut at {where}; kept as written")
                    return reply, sent
                why = (f"the reply repeats {loop[0].strip()[:40]!r} {loop[1]} times and was cut "
                       f"at {where}: a model in a loop, not asked again with a larger cap"
                       if loop else f"the reply was cut at {where} (finish_reason length) "
                       "and is not valid JSON")
                raise CallFailed(f"truncated: {why}", text=reply.text)
            self._log(st, entry, t0, "ok", None, reply)
            return reply, sent

    def _retry_or_fail(self, exc: TransientError, failures: int, not_ready: int,
                       prompt_name: str, st: CallState) -> None:
        gw = self.gw
        left = self._left(st)
        if exc.not_ready:
            delay = self._backoff(not_ready, exc.retry_after, ceiling=NOT_READY_MAX_S)
            # without a budget the attempts bound it, as for any other failure
            spent = left is None and failures + not_ready > gw.retries
        else:
            delay = self._backoff(failures, exc.retry_after)
            spent = failures > gw.retries
        why = None
        if spent:
            why = ""
        elif left is not None and left - delay < self._min_attempt():
            why = f" within the {gw.retry_budget_s:g} s retry budget"
        elif gw.streak_expired():
            why = " (no call has been answered for too long)"
        if why is not None:
            raise CallFailed(gw.redact.text(f"gave up after {st.attempts} attempts{why}: {exc}"),
                             backend=True) from None
        # a failure a retry recovered from is still one: keep it on the call's record (a server
        # that was not ready for a minute is one note, not twenty)
        if exc.not_ready:
            note = gw.redact.text(f"the server was not ready for {not_ready} attempt"
                                  f"{'s' if not_ready > 1 else ''}, retried (last: {exc})")
            if st.not_ready_note is None:
                st.not_ready_note = len(st.notes)
                st.notes.append(note)
            else:
                st.notes[st.not_ready_note] = note
            budget = "" if left is None else f", for up to {max(0.0, left):.0f} s more"
            gw.notice(gw.redact.text(f"{prompt_name}: attempt {st.attempts}: the server is not "
                                     f"ready ({exc}); asking again in {delay:.1f} s{budget}"))
        else:
            st.notes.append(gw.redact.text(f"attempt {st.attempts} failed, retried: {exc}"))
            gw.notice(gw.redact.text(f"{prompt_name}: attempt {st.attempts} failed ({exc}); "
                                     f"retry {failures} of {gw.retries} in {delay:.1f} s"))
        gw.sleep(delay)

    def _account(self, reply: ChatReply, sent: list[dict], st: CallState) -> ChatReply:
        text = self.gw.redact.text(reply.text) or ""
        tokens_in, tokens_out = reply.input_tokens, reply.output_tokens
        if tokens_in == 0 and tokens_out == 0:
            # Some local servers send no usage block; an estimate beats a silent zero.
            tokens_in, tokens_out = estimate_messages(sent), estimate_tokens(text)
        st.input_tokens += tokens_in
        st.output_tokens += tokens_out
        st.finish_reason = reply.finish_reason
        st.served_model = reply.model or st.served_model
        return reply.model_copy(update={"text": text, "input_tokens": tokens_in,
                                        "output_tokens": tokens_out})

    def _log(self, st: CallState, entry: dict, t0: float, outcome: str, error: str | None,
             reply: ChatReply | None = None, input_tokens: int = 0) -> None:
        entry.update(seconds=round(self.gw.clock() - t0, 3), outcome=outcome,
                     error=self.gw.redact.text(error) if error else None,
                     input_tokens=reply.input_tokens if reply else input_tokens,
                     output_tokens=reply.output_tokens if reply else 0)
        st.log.append(entry)

    def _fall_back(self, reason: str, st: CallState) -> None:
        gw = self.gw
        with gw._lock:
            if gw.structured_output == "json_schema":
                gw.structured_output = "json_object"
                gw.fallback_reason = gw.redact.text(reason)
                log.warning("server does not support json_schema output; using json_object (%s)",
                            gw.fallback_reason)
        st.notes.append("server rejected response_format json_schema; switched to json_object")

    def _backoff(self, failure: int, retry_after: float | None,
                 ceiling: float | None = None) -> float:
        gw = self.gw
        most = gw.backoff_max_s if ceiling is None else min(ceiling, gw.backoff_max_s)
        if retry_after is not None and retry_after >= 0:
            return min(retry_after, most)
        ceiling = min(most, gw.backoff_base_s * 2 ** (failure - 1))
        # "Equal jitter": never less than half the step, so parallel callers spread out.
        return ceiling / 2 + random.uniform(0, ceiling / 2)
