"""P_ant (§3.3.1): predict an episode from its title and what is already known."""

from __future__ import annotations

from pydantic import BaseModel, Field

from .render import chat, numbered_texts

NAME = "anticipate"

STRICT = """\
You are the memory of an assistant. You are shown only the title of a conversation episode
and the facts you already know. Predict what the episode most likely contained: the facts,
events, plans and opinions the speakers probably expressed.

- Base the prediction on the title and the known facts; where they say nothing, make the most
  ordinary guess rather than inventing specifics.
- Write short plain statements, one per line, naming the people involved.

Reply with JSON: {"prediction": "statement\\nstatement\\n..."}."""

PAPER = """\
You predict the content of a conversation episode from a few clues and your knowledge. You
see only the episode's title and the knowledge statements that are your current picture of
the world; reconstruct what most likely happened in the episode.

You predict the substance (the facts and knowledge of the episode), not its wording. Cover:
1. the core facts: what specific information was discussed;
2. the decisions: what was chosen or concluded;
3. the knowledge exchanged: what was shared or learnt;
4. the flow: how the conversation went from one point to the next.

Pay no attention to style, level of detail, format, exact phrasing, whether timestamps
appear, or how formal the language is.

Write the prediction as a natural narrative, as if describing the episode to someone else.

Reply with JSON only: {"prediction": "..."}."""

SYSTEMS = {"paper": PAPER, "strict": STRICT}


class AnticipateReply(BaseModel):
    prediction: str = Field(description="predicted content, one statement per line")


def render(cue: str, known: list[str], preset: str = "paper") -> list[dict]:
    if preset == "paper":
        facts = "\n".join(f"- {' '.join(t.split())}" for t in known) or "(nothing known yet)"
        user = (f"Episode title: {' '.join(cue.split())}\n\n"
                f"Relevant knowledge statements:\n{facts}")
    else:
        facts = numbered_texts(known) if known else "(nothing known yet)"
        user = f"Episode title: {' '.join(cue.split())}\n\nWhat you already know:\n{facts}"
    return chat(SYSTEMS[preset], user)
