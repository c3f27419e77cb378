"""P_con (§3.3.3) asked once for all of an episode's insights that need a model.

Each insight still gets its own decision against its own candidates, as §3.3.3 describes; what
changes is the unit of work, the episode, which the paper credits for its cost (§4.3: no
message-wise processing). One call costs one system prompt and one list of stored statements,
where the candidates of one episode's insights overlap, instead of one of each per insight.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from .consolidate import PAPER_ACTIONS, STRICT_ACTIONS
from .render import chat, numbered_texts, one_line

NAME = "consolidate_episode"

STRICT = f"""\
You maintain a store of facts. New facts arrive from one conversation episode, each with the
stored facts most similar to it. For each new fact, compare it with its similar stored facts
and choose one action:
{STRICT_ACTIONS}
Targets are numbers of stored facts from the list.

Reply with JSON, one decision per new fact: {{"decisions": [{{"fact": 1, "reason": "one
sentence", "action": "new", "targets": [], "merged_text": null}}, ...]}}."""

PAPER = f"""\
You keep a store of knowledge statements free of duplicates and contradictions. New
statements arrive from one conversation episode, each with the stored statements most similar
to it; for each new statement, decide what happens to it:
{PAPER_ACTIONS}
Targets are numbers of stored statements from the list.

Reply with JSON only, one decision per new statement: {{"decisions": [{{"fact": 1, "reason":
"one sentence", "action": "new", "targets": [], "merged_text": null}}, ...]}}."""

SYSTEMS = {"paper": PAPER, "strict": STRICT}


class FactDecision(BaseModel):
    fact: int = Field(description="number of the new fact")
    reason: str = Field("", description="one sentence on why")
    action: Literal["new", "merge", "conflict"] = "new"
    targets: list[int] = Field(default_factory=list, description="numbers of stored facts")
    merged_text: str | None = Field(None, description="the unified fact, for merge only")


class ConsolidateEpisodeReply(BaseModel):
    decisions: list[FactDecision]


def render(stored: list[str], new: list[tuple[str, list[int]]],
           preset: str = "paper") -> list[dict]:
    """`stored`: every candidate of the episode's insights once; `new`: each insight with the
    1-based numbers of its own candidates in `stored`."""
    facts = "\n".join(f"[{i}] {one_line(text)} (similar: {', '.join(map(str, similar))})"
                      for i, (text, similar) in enumerate(new, start=1))
    user = (f"Stored facts (1 to {len(stored)}):\n{numbered_texts(stored)}\n\n"
            f"New facts (1 to {len(new)}), each with the stored facts most similar to it:\n"
            f"{facts}")
    return chat(SYSTEMS[preset], user)
