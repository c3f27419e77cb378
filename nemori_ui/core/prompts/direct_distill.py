"""Nemori-s: distil insights from the raw episode alone, without a prediction to compare."""

from __future__ import annotations

from ..models import Message
from .distill import INSIGHT_RULES, DistillReply
from .render import chat, numbered_messages

NAME = "distill_direct"

SYSTEM = f"""\
You extract lasting knowledge from a conversation episode for a memory system.

{INSIGHT_RULES}

If the episode holds nothing lasting, return an empty list.

Reply with JSON: {{"insights": [{{"text": "...", "lines": [3, 4]}}, ...]}}."""

DirectDistillReply = DistillReply


def render(messages: list[Message]) -> list[dict]:
    user = f"Episode (messages 1 to {len(messages)}):\n{numbered_messages(messages)}"
    return chat(SYSTEM, user)
