"""P_ant (§3.3.1): predict an episode from its title and what is already known."""

from __future__ import annotations

from pydantic import BaseModel, Field

from .render import chat, numbered_texts

NAME = "anticipate"

SYSTEM = """\
You are the memory of an assistant. You are shown only the title of a conversation episode
and the facts you already know. Predict what the episode most likely contained: the facts,
events, plans and opinions the speakers probably expressed.

- Base the prediction on the title and the known facts; where they say nothing, make the most
  ordinary guess rather than inventing specifics.
- Write short plain statements, one per line, naming the people involved.

Reply with JSON: {"prediction": "statement\\nstatement\\n..."}."""


class AnticipateReply(BaseModel):
    prediction: str = Field(description="predicted content, one statement per line")


def render(cue: str, known: list[str]) -> list[dict]:
    facts = numbered_texts(known) if known else "(nothing known yet)"
    user = f"Episode title: {' '.join(cue.split())}\n\nWhat you already know:\n{facts}"
    return chat(SYSTEM, user)
