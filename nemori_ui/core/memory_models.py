"""What the Python API hands back: typed models, never bare dicts."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from .errors import InputError

Kind = Literal["message", "episode", "semantic"]
KINDS: tuple[str, ...] = ("message", "episode", "semantic")


class Added(BaseModel):
    """What one `add` or `flush` did."""
    message_ids: list[str]        # the run's id of each message given (a retry: the stored one)
    windows_processed: int        # windows closed and processed by this call
    pending: int                  # messages in the buffer, waiting for their window to fill
    unprocessed: int = 0          # messages stored but not in memory yet (buffer included)
    error: str | None = None      # processing failed after the messages were stored


class EpisodeHit(BaseModel):
    id: str
    score: float
    cue: str
    narrative: str
    time: str                     # when it began, as the answer prompt reads it
    start: datetime | None = None
    end: datetime | None = None
    message_ids: list[str] = []


class MemoryHit(BaseModel):
    id: str
    score: float
    text: str
    time: str                     # when its latest source message was said
    source_message_ids: list[str] = []


class MessageHit(BaseModel):
    """A raw message of one of the best episodes."""
    episode_id: str
    episode_score: float
    message_id: str
    speaker: str
    text: str
    timestamp: datetime | None = None
    source_ref: str | None = None


class SearchResult(BaseModel):
    """What `search` found, and how much of the run it could not see yet."""
    query: str
    episodes: list[EpisodeHit]
    semantic: list[MemoryHit]
    raw: list[MessageHit]
    context: str                  # the memory as the answer step reads it
    context_tokens: int
    pending: int                  # messages stored but not in memory yet: not searched
    processing: bool              # a window is being processed at this moment


class Item(BaseModel):
    """One thing the run holds: a message, an episode or a semantic memory."""
    id: str
    kind: Kind
    text: str                     # the message's text, the episode's narrative, the memory
    status: str = "active"        # active, superseded, deleted (messages: always active)
    speaker: str | None = None    # messages
    timestamp: datetime | None = None   # messages
    cue: str | None = None        # episodes
    start: datetime | None = None  # episodes: first and last message's time;
    end: datetime | None = None    # memories: their source messages' times
    message_ids: list[str] = []   # episodes: their messages; memories: their sources
    supersedes: list[str] = []
    superseded_by: str | None = None
    window: int | None = None
    origin: str | None = None     # memories: new, merge, conflict, append, summary, update


class Filters(BaseModel):
    """What `get_all` and `search` keep. Every field is optional; all given must hold."""
    model_config = ConfigDict(extra="forbid")
    kind: Kind | list[Kind] | None = None
    speaker: str | list[str] | None = None    # said by (episodes, memories: any source line)
    since: datetime | None = None              # at or after (an episode: its end)
    until: datetime | None = None              # at or before (an episode: its start)
    include_superseded: bool = False           # get_all: superseded and deleted too

    def kinds(self) -> set[str]:
        if self.kind is None:
            return set(KINDS)
        return {self.kind} if isinstance(self.kind, str) else set(self.kind)

    def speakers(self) -> set[str] | None:
        if self.speaker is None:
            return None
        return {self.speaker} if isinstance(self.speaker, str) else set(self.speaker)

    @classmethod
    def of(cls, value: "Filters | dict | None", **direct) -> "Filters":
        """From the `filters` argument (a Filters or a dict) and keyword filters."""
        if value is not None and not isinstance(value, (Filters, dict)):
            raise InputError(f"expected a dict or Filters, got {type(value).__name__}",
                             field="filters")
        data = value.model_dump(exclude_unset=True) if isinstance(value, Filters) else \
            dict(value or {})
        data.update({k: v for k, v in direct.items() if v is not None})
        try:
            return cls(**data)
        except ValidationError as exc:
            err = exc.errors()[0]
            where = ".".join(str(p) for p in err["loc"][:1])
            raise InputError(f"{err['msg']} (known filters: {', '.join(cls.model_fields)})",
                             field=f"filters.{where}" if where else "filters") from None
