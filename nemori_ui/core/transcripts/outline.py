"""What `inspect` shows, computed once here so the CLI and the UI report the same numbers."""

from __future__ import annotations

from typing import Any

from ..models import Transcript


def outline(transcript: Transcript) -> dict[str, Any]:
    """JSON-ready overview: format and, per conversation, speakers, counts and time span.

    Timestamps are ISO 8601 strings (naive, see timestamps.py) or None when a conversation has
    no timestamps at all.
    """
    return {
        "format": transcript.format,
        "conversations": [
            {
                "id": conv.id,
                "speakers": list(conv.speakers),
                "sessions": conv.sessions,
                "messages": len(conv.messages),
                "first": conv.first.isoformat() if conv.first else None,
                "last": conv.last.isoformat() if conv.last else None,
            }
            for conv in transcript.conversations
        ],
    }
