"""The official v1 code's cold start: with nothing known, distil from the episode's narrative.

The paper predicts every episode from what is known (§3.3.1), so with an empty store the
prediction is empty and P_dis keeps whatever the raw episode holds of value. The official v1
code instead skips prediction when the store is empty and asks a direct-distillation prompt
over the episode's title and narrative, not its raw messages. This is that prompt, chosen by
`cold_start = "narrative"`; its rules are the direct distiller's, so the two variants differ
only in what they read.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from .direct_distill import HEADS
from .distill import insight_rules
from .render import chat, one_line

NAME = "cold_start"

_TAIL = """\
The episode is told as a narrative, not as messages: there are no lines to cite. If it holds
nothing lasting, return an empty list.

Reply with JSON only: {"statements": ["a statement", ...]}."""


def system(preset: str = "paper", policy: str = "preset") -> str:
    return f"{HEADS[preset]}\n\n{insight_rules(preset, policy, cites=False)}\n\n{_TAIL}"


SYSTEMS = {"paper": system("paper"), "strict": system("strict")}


class ColdStartReply(BaseModel):
    statements: list[str] = Field(description="self-contained statements of lasting knowledge")


def render(cue: str, narrative: str, preset: str = "paper", dates: str = "preset") -> list[dict]:
    user = f"Episode title: {one_line(cue)}\n\nEpisode narrative:\n{narrative.strip()}"
    return chat(system(preset, dates), user)
