"""P_ans (§3.4): answer a question from the retrieved memory."""

from __future__ import annotations

from pydantic import BaseModel, Field

from .render import chat

NAME = "answer"

SYSTEM = """\
You answer a question about past conversations using only the memories provided: episode
narratives, known facts and original messages.

- Answer briefly: a few words or one short sentence, no explanation.
- Give dates as absolute dates; when a memory says "last year" or similar, work the date out
  from the date of that memory.
- When the memories disagree, trust the most recent one.
- If the memories do not contain the answer, answer "Not mentioned in the conversation."

Reply with JSON: {"answer": "..."}."""


class AnswerReply(BaseModel):
    answer: str = Field(description="the short answer")


def render(question: str, context: str) -> list[dict]:
    user = f"Memories:\n{context.strip() or '(none)'}\n\nQuestion: {' '.join(question.split())}"
    return chat(SYSTEM, user)
