"""P_dis (§3.3.2): keep what the raw episode says that the prediction missed or got wrong.

The date policy is its own setting: the official implementation's prompt leaves dates out of
insights, while the paper's case study keeps a dated fact. `dates_kept` says which a preset
does unless the run overrides it.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from ..models import Message
from .render import chat, numbered_messages

NAME = "distill"

_STRICT_KEEP = """\
An insight is a piece of lasting knowledge:
- persistent: true beyond this moment (facts about people, their relationships, preferences,
  possessions, jobs, plans, and events that happened, with their absolute dates);
  not greetings, passing moods or conversational filler;
- specific: concrete names, numbers, places, titles and dates, never vague;
- atomic: one fact per insight, a single self-contained sentence that names the person
  (no "he", "she", "I", "you") and uses absolute dates taken from the message timestamps."""

_STRICT_EXCLUDE = """\
An insight is a piece of lasting knowledge:
- persistent: true beyond this moment (facts about people, their relationships, preferences,
  possessions, jobs, plans); not greetings, passing moods or conversational filler;
- specific: concrete names, numbers, places and titles, never vague;
- atomic: one fact per insight, a single self-contained sentence that names the person
  (no "he", "she", "I", "you"); leave time and date information out of it."""

_PAPER_TESTS = """\
Keep only high-value knowledge, which passes all four tests:
- persistence: will it still be true in six months?
- specificity: does it hold concrete, searchable information?
- utility: does it help anticipate the person's future needs or preferences?
- independence: is it understood without the conversation around it?

Worth keeping: identity and background (names, jobs, employers, education); lasting
preferences (favourite books, films, tools; long-held likes and dislikes); technical details
(technologies, versions, methods); relationships (family, friends, colleagues, mentors); goals
and plans; beliefs and values; habits and routines.
Not worth keeping: passing emotions or reactions, thanks and acknowledgements, vague
statements, anything that only makes sense inside this conversation.

Each statement is atomic and self-contained: it names the person, includes every specific
detail (names, titles, versions) and uses the present tense for lasting facts. {dates}
Fewer, valuable statements are better than many.{cites}

Examples:
GOOD: "Priya's favourite novel is 'The Remains of the Day' by Kazuo Ishiguro"
GOOD: "Marco works as a data engineer at a logistics start-up in Milan"
BAD: "Marco thanked Priya for the advice"
BAD: "Priya was happy about the answer\""""

_PAPER_DATES = {
    "exclude": "Leave time and date information out of the statement.",
    "keep": "When the fact is a dated event, keep its date as an absolute date taken from "
            "the message timestamps.",
}

# What each preset does unless a run says otherwise.
DATES_KEPT = {"paper": False, "strict": True}


def dates_kept(preset: str, policy: str = "preset") -> bool:
    return DATES_KEPT[preset] if policy == "preset" else policy == "keep"


_CITES = 'Each insight cites, in "lines", the numbers of the messages it comes from.'


def insight_rules(preset: str = "paper", policy: str = "preset", cites: bool = True) -> str:
    """What an insight is; `cites`: each names the message lines it comes from."""
    keep = dates_kept(preset, policy)
    if preset == "strict":
        rules = _STRICT_KEEP if keep else _STRICT_EXCLUDE
        return f"{rules}\n{_CITES}" if cites else rules
    cited = " " + _CITES.replace(" numbers of", " numbers\nof") if cites else ""
    return (_PAPER_TESTS.replace("{dates}", _PAPER_DATES["keep" if keep else "exclude"])
            .replace("{cites}", cited))


# Kept for callers that want today's rules by name (the strict preset's default).
INSIGHT_RULES = insight_rules("strict", "keep")

_STRICT_HEAD = """\
You compare a conversation episode with a prediction of it that was made from existing
knowledge. Extract the insights the episode contains that the prediction missed or got wrong."""

_STRICT_TAIL = """\
Anything the prediction already states correctly is known: produce no insight for it. When the
prediction got something wrong, state the correct fact. If nothing is new, return an empty list.

Reply with JSON: {"insights": [{"text": "...", "lines": [3, 4]}, ...]}."""

_PAPER_HEAD = """\
You extract valuable knowledge by comparing an original conversation with a prediction of
its content. Extract only the knowledge that is in the original but missing from the
prediction or misrepresented by it."""

_PAPER_TAIL = """\
Reply with JSON only: {"insights": [{"text": "a statement", "lines": [3, 4]}, ...]}, and an
empty list when the original holds nothing of value that the prediction lacks."""


def system(preset: str = "paper", policy: str = "preset") -> str:
    head, tail = (_PAPER_HEAD, _PAPER_TAIL) if preset == "paper" else (_STRICT_HEAD, _STRICT_TAIL)
    return f"{head}\n\n{insight_rules(preset, policy)}\n\n{tail}"


SYSTEMS = {"paper": system("paper"), "strict": system("strict")}


class InsightItem(BaseModel):
    text: str = Field(description="one self-contained fact")
    lines: list[int] = Field(description="numbers of the messages it comes from")


class DistillReply(BaseModel):
    insights: list[InsightItem]


def render(messages: list[Message], prediction: str, preset: str = "paper",
           dates: str = "preset") -> list[dict]:
    guess = prediction.strip() or "(no prediction: nothing was known)"
    label = "Predicted content" if preset == "paper" else "Prediction"
    user = (f"Episode (messages 1 to {len(messages)}):\n{numbered_messages(messages)}\n\n"
            f"{label}:\n{guess}")
    return chat(system(preset, dates), user)
