"""P_int (§3.2.3): merge an earlier episode and its continuation into one memory."""

from __future__ import annotations

from pydantic import BaseModel, Field

from ..models import Episode
from .render import chat, episode_of

NAME = "integrate"

STRICT = """\
Two episodes of a conversation are parts of one event that was split. Merge them into a single
episodic memory.

Write:
- "cue": a searchable title of 10 to 20 words covering the whole event (who, what, when).
- "narrative": one third-person account in time order that keeps every salient detail of
  both parts (names, numbers, places, absolute dates); remove repetition, add nothing.

Reply with JSON: {"cue": "...", "narrative": "..."}."""

PAPER = """\
You combine two related episodic memories into one coherent episode.

The merged episode:
- brings together what both episodes say, with nothing stated twice;
- follows the order in which things happened;
- keeps every important detail of both: participants, decisions, feelings, outcomes, and the
  names, places, numbers and dates a search would use;
- reads as one narrative written in the third person, woven together rather than the two
  texts placed one after the other.

Write:
- "cue": a title that covers the complete topic of the merged episode.
- "narrative": the merged account.

Reply with JSON only: {"cue": "...", "narrative": "..."}."""

SYSTEMS = {"paper": PAPER, "strict": STRICT}


class IntegrateReply(BaseModel):
    cue: str = Field(description="searchable title, 10-20 words")
    narrative: str = Field(description="merged third-person account")


def render(earlier: Episode, later: Episode, preset: str = "paper") -> list[dict]:
    user = f"Earlier part:\n{episode_of(earlier)}\n\nLater part:\n{episode_of(later)}"
    return chat(SYSTEMS[preset], user)
