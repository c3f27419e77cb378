"""P_par (§3.2.1): split one observation window into episodes."""

from __future__ import annotations

from pydantic import BaseModel, Field

from ..models import Message
from .render import chat, numbered_messages

NAME = "partition"

STRICT = """\
You segment a conversation into episodes for a memory system.
An episode is a stretch of messages about one topic or event whose messages make sense
together; splitting it would lose context, merging unrelated topics would blur it.

Rules:
- Every message number appears in exactly one episode; none is left out or repeated.
- Start a new episode when the topic or activity changes, or after a long pause in time.
- Keep a question with its answer, and small talk with the exchange it belongs to.
- Episodes are usually runs of consecutive numbers; join non-adjacent messages only when the
  conversation clearly returns to an earlier topic.
- Prefer a few coherent episodes over many tiny ones.

Reply with JSON: {"episodes": [{"indices": [1, 2, 3], "topic": "short topic label"}, ...]},
episodes in the order they start."""

PAPER = """\
You divide a batch of conversation messages into episodes for a memory system. Be highly
sensitive to shifts: each episode should hold one core topic or event, and a new episode
starts whenever one of these signals appears:

1. Topic change (the strongest signal): a different subject, a move from one event to
   another, or a new question unrelated to the previous one.
2. Change of intent: the purpose of the talk changes (small talk to asking for help, work to
   private life), or the current question has been answered and the talk moves on.
3. Time: more than about 30 minutes between two messages, or transition words ("by the way",
   "oh, also", "earlier today", "before I forget").
4. Structure: an explicit change of subject ("quick question", "speaking of which") or a
   closing remark that ends the current topic.
5. Relevance: the new message has little to do with what came before, or concerns other
   people, places or events.

Principles:
- When in doubt, split: prefer smaller, focused episodes to one that mixes subjects.
- An episode usually has 2 to 15 messages and rarely more than 10 to 15.
- Every message number appears in exactly one episode; none is left out or repeated.
- An episode may take non-consecutive numbers when two threads interleave; topical coherence
  matters more than strict order.

Example reply for 9 messages:
{"episodes": [{"indices": [1, 2, 3, 4], "topic": "Planning a weekend bike ride to the lake"},
              {"indices": [5, 6, 7], "topic": "Question about a spreadsheet formula"},
              {"indices": [8, 9], "topic": "Moving next week's team meeting"}]}

Reply with JSON only: {"episodes": [{"indices": [...], "topic": "brief specific topic"}, ...]},
episodes in the order they start."""

SYSTEMS = {"paper": PAPER, "strict": STRICT}


class EpisodeGroup(BaseModel):
    indices: list[int] = Field(description="1-based message numbers in this episode")
    topic: str = Field(description="a short label of what the episode is about")


class PartitionReply(BaseModel):
    episodes: list[EpisodeGroup]


def render(window: list[Message], preset: str = "paper") -> list[dict]:
    user = (f"Messages 1 to {len(window)}:\n{numbered_messages(window)}\n\n"
            f"Partition messages 1 to {len(window)} into episodes.")
    return chat(SYSTEMS[preset], user)
