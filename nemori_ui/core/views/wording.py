"""Words the pages say about a run: counts, and an example question about its own speaker."""

from __future__ import annotations

from ..counts import plural

__all__ = ["ask_placeholder", "plural"]


def ask_placeholder(speakers: list[str]) -> str:
    """An example question about this conversation's own first speaker, not a name from the
    bundled sample."""
    who = next((s for s in speakers if s.strip()), None)
    return (f"e.g. Where does {who} live?" if who
            else "e.g. What did they decide last week?")
