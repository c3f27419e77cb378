"""P_ans (§3.4): answer a question from the retrieved memory.

The paper preset follows the published evaluation: a very short answer, reasoned step by step
over memory lines that each carry their timestamp, replied in plain text, and the whole reply
is what F1 and BLEU-1 score, as the official evaluation scores it. The strict preset replies
in JSON with its reasoning in a field of its own, so only the short answer is scored, and
abstains when the memory does not hold the answer.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from ..llm.schema import FreeText
from .render import chat

NAME = "answer"

STRICT = """\
You answer a question about past conversations using only the memories provided: episode
narratives, known facts and original messages.

- Answer briefly: a few words or one short sentence, no explanation.
- Give dates as absolute dates; when a memory says "last year" or similar, work the date out
  from the date of that memory.
- When the memories disagree, trust the most recent one.
- If the memories do not contain the answer, answer "Not mentioned in the conversation."

Think first in "reasoning": the memories that bear on the question and any date arithmetic.
Reply with JSON: {"reasoning": "...", "answer": "..."}."""

PAPER = """\
You answer questions from the memories of a conversation between two speakers. Every memory
line starts with its timestamp in brackets; use it.

Instructions:
1. Read all the memories of both speakers carefully.
2. Pay close attention to the timestamps to determine the answer.
3. For a question about a specific event or fact, look for direct evidence in the memories.
4. When memories contradict each other, the most recent one wins.
5. For relative time references ("last year", "two months ago"), work out the actual date
   from the timestamp of the memory that contains them: a memory dated 4 May 2022 saying
   "went to India last year" means the trip was in 2021.
6. Always turn relative references into specific dates, months or years ("last year" becomes
   "2022", "two months ago" becomes "March 2023"); never answer with the relative phrase.
7. Keep to what the memories say; do not confuse people named in a memory with the two
   speakers who had the conversation.
8. The answer has fewer than 5-6 words.

Think step by step: find the memories that bear on the question, check their timestamps and
content, look for explicit dates, places or events, show any date arithmetic, and check that
the answer addresses the question. Reply in plain text with the short, specific answer,
without vague time references."""

SYSTEMS = {"paper": PAPER, "strict": STRICT}


class ReasonedAnswerReply(BaseModel):
    # reasoning first: the model works the answer out before it commits to it
    reasoning: str = Field(description="step-by-step reasoning over the memories")
    answer: str = Field(description="the answer, fewer than 5-6 words")


# the paper preset's reply is plain text, scored whole; strict's is JSON, its answer scored
REPLIES = {"paper": FreeText, "strict": ReasonedAnswerReply}


def scored_text(reply) -> str:
    """What F1 and BLEU-1 score of a reply: all of a plain-text one, the answer field of JSON."""
    return reply.text if isinstance(reply, FreeText) else reply.answer


SCORING = {"paper": "F1 and BLEU-1 score the whole plain-text reply, as the official "
                    "evaluation does (paper prompts)",
           "strict": "F1 and BLEU-1 score the JSON reply's answer field, its reasoning left out "
                     "(strict prompts)"}


def render(question: str, context: str, preset: str = "paper") -> list[dict]:
    user = f"Memories:\n{context.strip() or '(none)'}\n\nQuestion: {' '.join(question.split())}"
    return chat(SYSTEMS[preset], user)
