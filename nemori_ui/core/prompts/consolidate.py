"""P_con (§3.3.3): how a new insight relates to the most similar existing memories."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from .render import chat, numbered_texts

NAME = "consolidate"

SYSTEM = """\
You maintain a store of facts. A new fact arrives; compare it with the most similar stored facts
and choose one action:
- "new": the fact is distinct from all of them (different subject, or adds an unrelated
  detail). This is the default: choose it whenever unsure.
- "merge": the fact is about the same thing as one or more stored facts and complements them
  without contradiction. Give "targets" (their numbers) and "merged_text": one sentence that
  states everything the new fact and the targets say, losing no detail.
- "conflict": the fact contradicts or updates one or more stored facts (a changed plan, a new
  job, a corrected number or date). Give "targets" (the outdated facts); the new fact replaces
  them, so "merged_text" is null.
For "new", "targets" is [] and "merged_text" is null.

Reply with JSON: {"reason": "one sentence", "action": "new", "targets": [], "merged_text": null}."""


class ConsolidateReply(BaseModel):
    reason: str = Field(description="one sentence on why")
    action: Literal["new", "merge", "conflict"] = "new"
    targets: list[int] = Field(default_factory=list, description="numbers of stored facts")
    merged_text: str | None = Field(None, description="the unified fact, for merge only")


def render(insight: str, existing: list[str]) -> list[dict]:
    user = (f"New fact: {' '.join(insight.split())}\n\n"
            f"Stored facts (1 to {len(existing)}):\n{numbered_texts(existing)}")
    return chat(SYSTEM, user)
