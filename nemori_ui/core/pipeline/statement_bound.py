"""How long one semantic memory may be, and how a merge is kept within it.

A merge supersedes its targets with one statement. Joined end to end, a memory that keeps
being merged grows without bound (on a 20,000-message transcript some reached tens of
kilobytes) and stops being a statement at all. So the statement a merge stores is bounded:
the insight that caused it is kept whole, then the other sentences, the latest first, as many
as fit; they are stored in their order. What is dropped is still in the superseded versions.
"""

from __future__ import annotations

from ..offline.text import sentences

MAX_STATEMENT_CHARS = 600
ELLIPSIS = "…"


def bounded_statement(text: str, insight: str, limit: int = MAX_STATEMENT_CHARS) -> str:
    """`text` (a merge's statement, or an insight stored as new) within `limit` characters,
    repeated sentences said once; a text within it is returned as it is."""
    if len(text) <= limit:
        return text
    text = " ".join(text.split())
    parts: list[str] = []
    for sentence in sentences(text):
        if sentence.lower() not in (p.lower() for p in parts):
            parts.append(sentence)
    new = {s.lower() for s in sentences(" ".join(insight.split()))}
    keep = {i for i, p in enumerate(parts) if p.lower() in new}
    used = sum(len(parts[i]) + 1 for i in keep)
    for i in reversed(range(len(parts))):
        if i not in keep and used + len(parts[i]) + 1 <= limit + 1:
            keep.add(i)
            used += len(parts[i]) + 1
    kept = " ".join(parts[i] for i in sorted(keep))
    return kept if 0 < len(kept) <= limit else _cut(kept or text, limit)


def _cut(text: str, limit: int) -> str:
    """The text cut at the last word that fits, marked as cut."""
    head = text[:limit - len(ELLIPSIS)]
    if " " in head:
        head = head[:head.rindex(" ")]
    return head.rstrip(" ,;:") + ELLIPSIS
