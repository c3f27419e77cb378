"""A window's decisions as one trace: each stage event a span with its calls' timing and cost.

The stages of a window run partition → narrate → integrate → anticipate → distill →
consolidate; each recorded event is one decision, and the calls it made carry their latency,
tokens, cache hits and retries. A span starts when its first call was sent (the call's end
less its latency) and lasts until its last call ended. The offline engine's decisions are not
timed: they keep their place in the order and take no width, with the rule and score that
decided them.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from ..models import LLMCallRecord
from ..deciders.offline import OFFLINE_LABEL
from ..stage_events import StageEvent, fallback_reasons
from .wording import plural

STAGE_ORDER = ("partition", "narrate", "integrate", "anticipate", "distill", "consolidate")


class Span(BaseModel):
    """One decision of the window, with what its calls cost."""
    seq: int
    stage: str
    episode_id: str | None = None
    label: str                            # what was decided, in a few words
    decided_by: str                       # the model, the offline engine, or a fallback to it
    rule: str = ""                        # why, as the decision recorded it
    score: float | None = None            # the similarity that decided it, where one did
    start_s: float | None = None          # from the window's first request; None: not timed
    duration_s: float = 0.0
    input_tokens: int = 0
    output_tokens: int = 0
    calls: int = 0
    cached: int = 0
    retries: int = 0                      # requests beyond one per call (retries and repairs)
    failed: int = 0
    call_ids: list[str] = Field(default_factory=list)


class WindowTrace(BaseModel):
    window: int
    spans: list[Span]
    duration_s: float                     # first request sent to last reply received
    timed: bool                           # any span carries call timing


def _label(event: StageEvent) -> tuple[str, str, float | None]:
    """(what was decided, the rule or reason, the score that decided it)."""
    p = event.payload
    stage = event.stage
    if stage == "partition":
        repairs = f", {len(p.repairs)} repaired" if p.repairs else ""
        return f"{plural(len(p.groups), 'episode')}{repairs}", "; ".join(p.repairs), None
    if stage == "narrate":
        return p.cue or "(no title)", "", None
    if stage == "integrate":
        best = max((c.score for c in p.candidates), default=None)
        if p.target:
            return f"continues {p.target}", p.reason, best
        return "kept apart", p.skipped or p.reason, best
    if stage == "anticipate":
        passed = sum(e.passed for e in p.evoked)
        what = "nothing known yet" if p.cold_start else f"{passed} of {len(p.evoked)} evoked"
        best = max((e.score for e in p.evoked), default=None)
        return what, f"τ = {p.tau:g}" if p.tau is not None else "", best
    if stage == "distill":
        told = sum(c.kind != "carried" for c in p.covered)
        covered = f", {told} predicted" if told else ""
        return f"{plural(len(p.insights), 'insight')}{covered}", p.mode, None
    if p.action == "summary":
        return f"summary rewritten with {len(p.insights)}", "", None
    best = max((c.score for c in p.candidates), default=None)
    return p.action, p.skipped or p.reason, best


def _decided_by(event: StageEvent, calls: list[LLMCallRecord]) -> str:
    fell_back = fallback_reasons(event.payload)
    if fell_back:
        return "offline engine (fallback)"
    if calls:
        return f"{calls[0].backend}:{calls[0].model}"
    return OFFLINE_LABEL


def window_trace(window: int, events: list[StageEvent],
                 calls: list[LLMCallRecord]) -> WindowTrace:
    """The trace of one window from its events (any order) and the calls they name."""
    by_id = {c.id: c for c in calls}
    timed = [c for c in calls if c.created_at is not None and not c.cached]
    origin = min((c.created_at.timestamp() - c.latency_s for c in timed), default=None)
    spans, end = [], 0.0
    counted: set[str] = set()
    for event in sorted(events, key=lambda e: e.seq):
        # a call that decided several insights at once counts with the first of them
        mine = [by_id[i] for i in event.call_ids if i in by_id and i not in counted]
        counted.update(c.id for c in mine)
        label, rule, score = _label(event)
        span = Span(seq=event.seq, stage=event.stage,
                    episode_id=getattr(event.payload, "episode_id", None), label=label,
                    decided_by=_decided_by(event, mine), rule=rule,
                    score=None if score is None else round(score, 4), call_ids=event.call_ids,
                    calls=len(mine), cached=sum(c.cached for c in mine),
                    retries=sum(max(0, c.attempts - 1) for c in mine),
                    failed=sum(c.status == "failed" for c in mine),
                    input_tokens=sum(c.input_tokens for c in mine),
                    output_tokens=sum(c.output_tokens for c in mine))
        sent = [c for c in mine if c.created_at is not None and not c.cached]
        if sent and origin is not None:
            starts = [c.created_at.timestamp() - c.latency_s - origin for c in sent]
            ends = [c.created_at.timestamp() - origin for c in sent]
            # the duration from the rounded ends, so a span never passes the window's rounded end
            span.start_s = round(min(starts), 3)
            span.duration_s = round(round(max(ends), 3) - span.start_s, 3)
            end = max(end, max(ends))
        spans.append(span)
    return WindowTrace(window=window, spans=spans, duration_s=round(end, 3),
                       timed=any(s.start_s is not None for s in spans))


class StageTotal(BaseModel):
    stage: str
    decisions: int
    calls: int
    cached: int
    retries: int
    seconds: float                        # time in calls, summed (calls may overlap)
    input_tokens: int
    output_tokens: int


def stage_totals(trace: WindowTrace) -> list[StageTotal]:
    """Per stage, in the method's order: decisions, calls, time in calls, tokens."""
    rows = []
    for stage in STAGE_ORDER:
        mine = [s for s in trace.spans if s.stage == stage]
        if mine:
            rows.append(StageTotal(
                stage=stage, decisions=len(mine), calls=sum(s.calls for s in mine),
                cached=sum(s.cached for s in mine), retries=sum(s.retries for s in mine),
                seconds=round(sum(s.duration_s for s in mine), 2),
                input_tokens=sum(s.input_tokens for s in mine),
                output_tokens=sum(s.output_tokens for s in mine)))
    return rows
