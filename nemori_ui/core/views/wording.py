"""Counts said in words."""

from __future__ import annotations


def plural(n: int, noun: str, nouns: str | None = None) -> str:
    """'1 conflict', '2 conflicts', '0 conflicts'."""
    return f"{n} {noun if n == 1 else nouns or noun + 's'}"


def ask_placeholder(speakers: list[str]) -> str:
    """An example question about this conversation's own first speaker, not a name from the
    bundled sample."""
    who = next((s for s in speakers if s.strip()), None)
    return (f"e.g. Where does {who} live?" if who
            else "e.g. What did they decide last week?")
