"""Counts said in words, for every layer: a page, a job's message and an error alike."""

from __future__ import annotations


def plural(n: int, noun: str, nouns: str | None = None) -> str:
    """'1 conflict', '2 conflicts', '0 conflicts'."""
    return f"{n} {noun if n == 1 else nouns or noun + 's'}"
