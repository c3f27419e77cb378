"""P_int (§3.2.3): merge an earlier episode and its continuation into one memory."""

from __future__ import annotations

from pydantic import BaseModel, Field

from ..models import Episode
from .render import chat, episode_of

NAME = "integrate"

SYSTEM = """\
Two episodes of a conversation are parts of one event that was split. Merge them into a single
episodic memory.

Write:
- "cue": a searchable title of 10 to 20 words covering the whole event (who, what, when).
- "narrative": one third-person account in time order that keeps every salient detail of
  both parts (names, numbers, places, absolute dates); remove repetition, add nothing.

Reply with JSON: {"cue": "...", "narrative": "..."}."""


class IntegrateReply(BaseModel):
    cue: str = Field(description="searchable title, 10-20 words")
    narrative: str = Field(description="merged third-person account")


def render(earlier: Episode, later: Episode) -> list[dict]:
    user = f"Earlier part:\n{episode_of(earlier)}\n\nLater part:\n{episode_of(later)}"
    return chat(SYSTEM, user)
