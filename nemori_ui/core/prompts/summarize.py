"""P_sum (Appendix A.1): fold new insights into one running summary."""

from __future__ import annotations

from pydantic import BaseModel, Field

from .render import chat

NAME = "summarize"

SYSTEM = """\
You keep a single running summary of everything known about the people in a conversation.
Update it with the new facts:
- add what is new; where a new fact contradicts the summary, keep the new fact and drop the
  old one; do not repeat what is already there;
- keep every specific name, number, place and absolute date; remove nothing that is still true;
- write compact plain statements, one per line, grouped by person or subject.

Reply with JSON: {"summary": "..."}."""

# Appendix A's variant has no official prompt to follow: both presets use this one.
SYSTEMS = {"paper": SYSTEM, "strict": SYSTEM}


class SummarizeReply(BaseModel):
    summary: str = Field(description="the whole updated summary")


def render(summary: str, insights: list[str], preset: str = "paper") -> list[dict]:
    current = summary.strip() or "(empty: nothing known yet)"
    fresh = "\n".join(f"- {' '.join(t.split())}" for t in insights)
    user = f"Current summary:\n{current}\n\nNew facts:\n{fresh}"
    return chat(SYSTEMS[preset], user)
