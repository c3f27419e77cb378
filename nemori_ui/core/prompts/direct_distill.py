"""Nemori-s: distil insights from the raw episode alone, without a prediction to compare."""

from __future__ import annotations

from ..models import Message
from .distill import DistillReply, insight_rules
from .render import chat, numbered_messages

NAME = "distill_direct"

HEADS = {
    "strict": "You extract lasting knowledge from a conversation episode for a memory system.",
    "paper": "You are a memory system. Extract high-value, persistent semantic memories from a "
             "conversation episode: long-term knowledge, not passing details of the talk.",
}

_TAIL = """\
If the episode holds nothing lasting, return an empty list.

Reply with JSON: {"insights": [{"text": "...", "lines": [3, 4]}, ...]}."""


def system(preset: str = "paper", policy: str = "preset") -> str:
    return f"{HEADS[preset]}\n\n{insight_rules(preset, policy)}\n\n{_TAIL}"


SYSTEMS = {"paper": system("paper"), "strict": system("strict")}

DirectDistillReply = DistillReply


def render(messages: list[Message], preset: str = "paper", dates: str = "preset") -> list[dict]:
    user = f"Episode (messages 1 to {len(messages)}):\n{numbered_messages(messages)}"
    return chat(system(preset, dates), user)
