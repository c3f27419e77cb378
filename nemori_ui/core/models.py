"""Typed records shared by every stage, the store and the UI."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

from .stage_events import StageEvent  # noqa: F401  (the union of every stage's event)

Role = Literal["user", "assistant", "system", "other"]
# deleted: taken out of memory by a caller of the API (its row stays, for the history)
Status = Literal["active", "superseded", "deleted"]


class Message(BaseModel):
    id: str                       # stable within a conversation: "m0001", ...
    speaker: str
    role: Role = "user"
    text: str
    timestamp: datetime | None = None
    session: int = 1              # 1-based session number within the conversation
    source_ref: str | None = None  # e.g. LoCoMo dia_id "D1:3", or "line 12"


class Conversation(BaseModel):
    id: str
    messages: list[Message]
    speakers: list[str] = Field(default_factory=list)
    # Extra material a format carries (LoCoMo qa, LongMemEval question...). Kept for evaluation.
    extra: dict[str, Any] = Field(default_factory=dict)

    @property
    def sessions(self) -> int:
        return len({m.session for m in self.messages})

    @property
    def first(self) -> datetime | None:
        stamps = [m.timestamp for m in self.messages if m.timestamp]
        return min(stamps) if stamps else None

    @property
    def last(self) -> datetime | None:
        stamps = [m.timestamp for m in self.messages if m.timestamp]
        return max(stamps) if stamps else None


class Transcript(BaseModel):
    format: str
    source: str                   # file name the transcript came from
    conversations: list[Conversation]

    def conversation(self, conv_id: str | None) -> Conversation:
        if conv_id is None:
            return self.conversations[0]
        for conv in self.conversations:
            if conv.id == conv_id:
                return conv
        known = ", ".join(c.id for c in self.conversations)
        raise KeyError(f"no conversation '{conv_id}' in {self.source} (has: {known})")


class RawEpisode(BaseModel):
    """A group of consecutive-or-not messages of one window, as partitioned."""
    window: int
    index: int                    # position within the window's partition
    message_ids: list[str]
    topic: str = ""


class Episode(BaseModel):
    id: str
    cue: str
    narrative: str
    message_ids: list[str]
    status: Status = "active"
    superseded_by: str | None = None
    supersedes: list[str] = Field(default_factory=list)
    window: int = 0
    start: datetime | None = None
    end: datetime | None = None
    embedding: list[float] | None = None


class SemanticMemory(BaseModel):
    id: str
    text: str
    status: Status = "active"
    superseded_by: str | None = None
    supersedes: list[str] = Field(default_factory=list)
    # update: a caller of the API rewrote it
    origin: Literal["new", "merge", "conflict", "append", "summary", "update"] = "new"
    source_episode_ids: list[str] = Field(default_factory=list)
    source_message_ids: list[str] = Field(default_factory=list)
    window: int = 0
    embedding: list[float] | None = None


RUN_KIND = "run"                  # an LLM call made for a window of a run
# calls made for anything else, kept in the call log (replay: a call sent again, edited)
OUTSIDE_KINDS = ("ask", "eval", "judge", "replay")


class LLMCallRecord(BaseModel):
    id: str
    prompt_name: str
    backend: str
    model: str
    messages: list[dict[str, Any]]
    response_text: str | None = None
    parsed: dict[str, Any] | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    latency_s: float = 0.0
    cached: bool = False
    # interrupted: the process stopped (Ctrl-C, SIGTERM, SIGHUP) while the call was in flight
    status: Literal["ok", "repaired", "failed", "interrupted"] = "ok"
    error: str | None = None
    attempts: int = 1                 # requests sent: retries and the repair included
    cache_key: str = ""
    created_at: datetime | None = None
    server: str | None = None         # base URL without credentials; None for OpenAI itself
    served_model: str | None = None   # the model the server says answered
    finish_reason: str | None = None
    max_tokens: int | None = None     # the output cap of the last request
    # one entry per request: n, seconds, outcome (ok, timed out, truncated, failed, rejected,
    # interrupted), error, input/output tokens (estimated when the server sent no usage),
    # max_tokens
    requests: list[dict[str, Any]] = Field(default_factory=list)
    # what the call served: {"kind": "run" | "ask" | "eval" | "judge", "run_id", "window",
    # "eval_id", "item_id"}
    context: dict[str, Any] | None = None

    @property
    def kind(self) -> str:
        return (self.context or {}).get("kind") or RUN_KIND
