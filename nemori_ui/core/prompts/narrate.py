"""P_nar (§3.2.2): turn a raw episode into a searchable title and a narrative."""

from __future__ import annotations

from pydantic import BaseModel, Field

from ..models import Message
from .render import chat, numbered_messages

NAME = "narrate"

SYSTEM = """\
You write the episodic memory of a conversation excerpt, for later search and recall.

Write:
- "cue": a searchable title of 10 to 20 words naming who, what and when (absolute date).
- "narrative": an account in the third person, in the order things happened. Name the
  speakers; never write "I" or "you". Convert every relative time ("yesterday", "last week",
  "next Friday") into an absolute date, using the timestamp of the message that says it.
  Keep the salient details exactly: names, numbers, places, dates, titles, plans, feelings
  that matter. Leave out greetings and filler. Do not add anything that was not said.

Reply with JSON: {"cue": "...", "narrative": "..."}."""


class NarrateReply(BaseModel):
    cue: str = Field(description="searchable title, 10-20 words")
    narrative: str = Field(description="third-person account with absolute dates")


def render(messages: list[Message]) -> list[dict]:
    user = f"Conversation excerpt:\n{numbered_messages(messages)}"
    return chat(SYSTEM, user)
