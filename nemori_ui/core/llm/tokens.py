"""The one token estimate, for servers that send no usage and for context sizes."""

from __future__ import annotations

import math


def estimate_tokens(text: str) -> int:
    """Tokens as GPT-family tokenizers count English text: about four characters each."""
    return math.ceil(len(text or "") / 4)


def estimate_messages(messages: list[dict]) -> int:
    return estimate_tokens("".join(str(m.get("content") or "") for m in messages))
