"""Replay one call of a run with an edited prompt, and see how the decision would change.

The call is sent again through the run's gateway (its retries, repair and cache), with the
messages as edited and the reply model of the prompt it was made with; its record is kept in
the call log as a replay of the original (kind `replay`), so replays are variants of a run
that never touch what the run stored. What changed is read field by field from the two
parsed replies.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from .config import PipelineConfig
from .llm.sink import call_context
from .models import LLMCallRecord
from .prompts import MAX_TOKENS, PROMPTS, answer
from .store import call_log
from .store.db import Store

KIND = "replay"


class FieldChange(BaseModel):
    field: str
    before: Any = None
    after: Any = None


class Replay(BaseModel):
    """One replay: the call it repeats, the call it made, and the decision's changes."""
    original_id: str
    call_id: str
    prompt_name: str
    ok: bool
    error: str | None = None
    edited: bool                          # any message differs from the original's
    before: dict | None = None
    after: dict | None = None
    changes: list[FieldChange] = Field(default_factory=list)


def reply_model(prompt_name: str, preset: str) -> type[BaseModel]:
    """The reply model a prompt of this preset is asked with."""
    if prompt_name == answer.NAME:
        return answer.REPLIES[preset]
    module = PROMPTS[prompt_name]
    return next(v for k, v in vars(module).items()
                if k.endswith("Reply") and isinstance(v, type) and issubclass(v, BaseModel))


def decision_changes(before: dict | None, after: dict | None) -> list[FieldChange]:
    """Each top-level field whose value differs between two parsed replies, in field order."""
    before, after = before or {}, after or {}
    names = list(dict.fromkeys([*before, *after]))
    return [FieldChange(field=n, before=before.get(n), after=after.get(n))
            for n in names if before.get(n) != after.get(n)]


def replay_call(gateway, record: LLMCallRecord, messages: list[dict],
                config: PipelineConfig, run_id: str) -> Replay:
    """Send `record`'s prompt again as `messages`; the decision before and after."""
    if record.prompt_name not in PROMPTS:
        raise ValueError(f"call {record.id} ({record.prompt_name}) is not a stage's prompt")
    temperature = config.answer_temperature if record.prompt_name == answer.NAME \
        else config.temperature
    with call_context(KIND, run_id=run_id, replay_of=record.id):
        result = gateway.complete(record.prompt_name, messages,
                                  reply_model(record.prompt_name, config.prompts),
                                  temperature=temperature,
                                  max_tokens=MAX_TOKENS.get(record.prompt_name))
    return _replay(record, result.record, result.ok)


def replays_of(store: Store, run_id: str, record: LLMCallRecord) -> list[Replay]:
    """The stored replays of one call of a run, oldest first."""
    out = []
    for c in call_log.calls_of_run(store, run_id, kind=KIND):
        if (c.context or {}).get("replay_of") != record.id:
            continue
        out.append(_replay(record, c, c.status in ("ok", "repaired")))
    return out


def _replay(record: LLMCallRecord, made: LLMCallRecord, ok: bool) -> Replay:
    """The replay `made` of `record`, read from the two calls' records."""
    after = made.parsed if ok else None
    return Replay(original_id=record.id, call_id=made.id, prompt_name=record.prompt_name,
                  ok=ok, error=made.error, edited=made.messages != record.messages,
                  before=record.parsed, after=after,
                  changes=decision_changes(record.parsed, after) if ok else [])
