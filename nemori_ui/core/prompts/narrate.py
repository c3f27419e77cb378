"""P_nar (§3.2.2): turn a raw episode into a searchable title and a narrative."""

from __future__ import annotations

from pydantic import BaseModel, Field

from ..models import Message
from .render import chat, day_span, numbered_messages

NAME = "narrate"

STRICT = """\
You write the episodic memory of a conversation excerpt, for later search and recall.

Write:
- "cue": a searchable title of 10 to 20 words naming who, what and when (absolute date).
- "narrative": an account in the third person, in the order things happened. Name the
  speakers; never write "I" or "you". Convert every relative time ("yesterday", "last week",
  "next Friday") into an absolute date, using the timestamp of the message that says it.
  Keep the salient details exactly: names, numbers, places, dates, titles, plans, feelings
  that matter. Leave out greetings and filler. Do not add anything that was not said.

Reply with JSON: {"cue": "...", "narrative": "..."}."""

PAPER = """\
You turn a conversation excerpt into an episodic memory: a title and a narrative that a
search will later find and a reader will understand without the conversation.

Write:
- "cue": a concise, specific title of 10 to 20 words that names the topic or activity and
  its date, easy to find by keyword search.
- "narrative": a detailed third-person account of the excerpt, told as a coherent story in
  time order, keeping cause and effect. It must say who took part and when the conversation
  happened (the date and the hour, taken from the message timestamps, never today's date),
  what was discussed, what was decided, what feelings were expressed and what plans or
  outcomes came of it. Keep the specific details a keyword search would use: names, places,
  numbers, titles.

Time:
- The conversation happened at the time of its messages: read it from the timestamps, or
  from the content when there are none.
- Whenever someone uses a relative time ("yesterday", "last week", "next month"), keep the
  phrase and write the absolute date it stands for in parentheses right after it.

Example, for messages sent on 2 October 2023 around 6 pm about a cycling trip:
{"cue": "Bike ride to Lake Tegel planned for Saturday 7 October 2023 with a picnic stop",
 "narrative": "On 2 October 2023 at about 6:00 PM, Lena told Tom she wanted to cycle to Lake
 Tegel this weekend (7-8 October 2023) and asked whether he would come. Tom agreed and
 suggested leaving at 9:00 AM on Saturday (7 October 2023) to avoid the afternoon rain. They
 settled on packing sandwiches for a picnic at the north shore. Lena said she was relieved
 to get out after a stressful week at work."}

Reply with JSON only: {"cue": "...", "narrative": "..."}."""

SYSTEMS = {"paper": PAPER, "strict": STRICT}


class NarrateReply(BaseModel):
    cue: str = Field(description="searchable title, 10-20 words")
    narrative: str = Field(description="third-person account with absolute dates")


def render(messages: list[Message], preset: str = "paper") -> list[dict]:
    user = f"Conversation excerpt:\n{numbered_messages(messages)}"
    if preset == "paper":
        stamps = [m.timestamp for m in messages if m.timestamp]
        when = day_span(min(stamps), max(stamps)) if stamps else "unknown (no timestamps)"
        user = f"The conversation took place: {when}\n\n{user}"
    return chat(SYSTEMS[preset], user)
