"""P_par (§3.2.1): split one observation window into episodes."""

from __future__ import annotations

from pydantic import BaseModel, Field

from ..models import Message
from .render import chat, numbered_messages

NAME = "partition"

SYSTEM = """\
You segment a conversation into episodes for a memory system.
An episode is a stretch of messages about one topic or event whose messages make sense
together; splitting it would lose context, merging unrelated topics would blur it.

Rules:
- Every message number appears in exactly one episode; none is left out or repeated.
- Start a new episode when the topic or activity changes, or after a long pause in time.
- Keep a question with its answer, and small talk with the exchange it belongs to.
- Episodes are usually runs of consecutive numbers; join non-adjacent messages only when the
  conversation clearly returns to an earlier topic.
- Prefer a few coherent episodes over many tiny ones.

Reply with JSON: {"episodes": [{"indices": [1, 2, 3], "topic": "short topic label"}, ...]},
episodes in the order they start."""


class EpisodeGroup(BaseModel):
    indices: list[int] = Field(description="1-based message numbers in this episode")
    topic: str = Field(description="a short label of what the episode is about")


class PartitionReply(BaseModel):
    episodes: list[EpisodeGroup]


def render(window: list[Message]) -> list[dict]:
    user = (f"Messages 1 to {len(window)}:\n{numbered_messages(window)}\n\n"
            f"Partition messages 1 to {len(window)} into episodes.")
    return chat(SYSTEM, user)
