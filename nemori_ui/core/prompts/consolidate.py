"""P_con (§3.3.3): how a new insight relates to the most similar existing memories."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from .render import chat, numbered_texts

NAME = "consolidate"

# What each action means, shared by the prompt for one fact and the one for an episode's facts.
STRICT_ACTIONS = """\
- "new": the fact is distinct from all of them (different subject, or adds an unrelated
  detail). This is the default: choose it whenever unsure.
- "merge": the fact is about the same thing as one or more stored facts and complements them
  without contradiction. Give "targets" (their numbers) and "merged_text": one sentence that
  states everything the new fact and the targets say, losing no detail.
- "conflict": the fact contradicts or updates one or more stored facts (a changed plan, a new
  job, a corrected number or date). Give "targets" (the outdated facts); the new fact replaces
  them, so "merged_text" is null.
For "new", "targets" is [] and "merged_text" is null."""

STRICT = f"""\
You maintain a store of facts. A new fact arrives; compare it with the most similar stored facts
and choose one action:
{STRICT_ACTIONS}

Reply with JSON: {{"reason": "one sentence", "action": "new", "targets": [], "merged_text": null}}."""

# The core library of the official implementation has no consolidation step; its desktop
# application's has the same three outcomes, merging rephrasings and letting a contradiction
# replace the old fact. This text follows that.
PAPER_ACTIONS = """\
- "new": it says something none of them says. This is the default: choose it whenever
  unsure, and for statements that are merely on a related topic.
- "merge": it restates one or more stored statements (a rephrasing, or the same fact with a
  detail added) without contradicting them. Give "targets" (their numbers) and
  "merged_text": one statement that keeps every detail of the new one and of the targets.
- "conflict": it contradicts one or more stored statements (a changed job, plan, preference,
  number or date). Give "targets" (the statements it makes outdated); the new statement
  replaces them and "merged_text" is null.
For "new", "targets" is [] and "merged_text" is null.

Examples: "Ana lives in Porto" merges with "Ana's home is in Porto"; "Ana moved to Lisbon"
conflicts with "Ana lives in Porto"; "Ana likes jazz" is new beside "Ana plays the piano"."""

PAPER = f"""\
You keep a store of knowledge statements free of duplicates and contradictions. A new
statement arrives with the most similar stored statements; decide what happens to it:
{PAPER_ACTIONS}

Reply with JSON only: {{"reason": "one sentence", "action": "new", "targets": [],
"merged_text": null}}."""

SYSTEMS = {"paper": PAPER, "strict": STRICT}


class ConsolidateReply(BaseModel):
    reason: str = Field(description="one sentence on why")
    action: Literal["new", "merge", "conflict"] = "new"
    targets: list[int] = Field(default_factory=list, description="numbers of stored facts")
    merged_text: str | None = Field(None, description="the unified fact, for merge only")


def render(insight: str, existing: list[str], preset: str = "paper") -> list[dict]:
    user = (f"New fact: {' '.join(insight.split())}\n\n"
            f"Stored facts (1 to {len(existing)}):\n{numbered_texts(existing)}")
    return chat(SYSTEMS[preset], user)
