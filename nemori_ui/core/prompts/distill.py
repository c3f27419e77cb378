"""P_dis (§3.3.2): keep what the raw episode says that the prediction missed or got wrong."""

from __future__ import annotations

from pydantic import BaseModel, Field

from ..models import Message
from .render import chat, numbered_messages

NAME = "distill"

# Shared with direct distillation (Nemori-s), which keeps the same notion of an insight.
INSIGHT_RULES = """\
An insight is a piece of lasting knowledge:
- persistent: true beyond this moment (facts about people, their relationships, preferences,
  possessions, jobs, plans, and events that happened, with their absolute dates);
  not greetings, passing moods or conversational filler;
- specific: concrete names, numbers, places, titles and dates, never vague;
- atomic: one fact per insight, a single self-contained sentence that names the person
  (no "he", "she", "I", "you") and uses absolute dates taken from the message timestamps.
Each insight cites, in "lines", the numbers of the messages it comes from."""

SYSTEM = f"""\
You compare a conversation episode with a prediction of it that was made from existing
knowledge. Extract the insights the episode contains that the prediction missed or got wrong.

{INSIGHT_RULES}

Anything the prediction already states correctly is known: produce no insight for it. When the
prediction got something wrong, state the correct fact. If nothing is new, return an empty list.

Reply with JSON: {{"insights": [{{"text": "...", "lines": [3, 4]}}, ...]}}."""


class InsightItem(BaseModel):
    text: str = Field(description="one self-contained fact")
    lines: list[int] = Field(description="numbers of the messages it comes from")


class DistillReply(BaseModel):
    insights: list[InsightItem]


def render(messages: list[Message], prediction: str) -> list[dict]:
    guess = prediction.strip() or "(no prediction: nothing was known)"
    user = (f"Episode (messages 1 to {len(messages)}):\n{numbered_messages(messages)}\n\n"
            f"Prediction:\n{guess}")
    return chat(SYSTEM, user)
