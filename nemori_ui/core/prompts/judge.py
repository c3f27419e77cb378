"""Judge prompts: was a generated answer right? One for LoCoMo (CORRECT / WRONG with a reason),
and yes / no prompts for LongMemEval that depend on the question type.

LoCoMo's gold answers are short and the generated ones are free text, so the judge is told to
be generous about wording, length and date formats and strict about substance.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from .render import chat, one_line

NAME = "judge"

SYSTEM = """\
You grade answers to questions about past conversations. You see the question, the gold
answer and a generated answer. Decide whether the generated answer is CORRECT or WRONG.

- Be generous about form: different wording, extra detail, or a longer answer is CORRECT as
  long as it states what the gold answer states and does not contradict it.
- Dates and times: a different format, a relative phrasing that resolves to the same date
  ("the Sunday before 25 May 2023" for "21 May 2023"), or naming the same month, year or period
  is CORRECT.
- Lists: the generated answer must cover the substance of the gold answer; missing the main
  item, or adding items that contradict it, is WRONG.
- A refusal ("not mentioned", "I don't know") is WRONG unless the gold answer says the same.
- An answer about a different person, event, number or time is WRONG.

Reply with JSON: {"reason": "one sentence", "label": "CORRECT"} or with "WRONG"."""


class JudgeReply(BaseModel):
    reason: str = Field(description="one sentence on why")
    label: Literal["CORRECT", "WRONG"]


def render(question: str, gold: str, answer: str) -> list[dict]:
    user = (f"Question: {one_line(question)}\nGold answer: {one_line(gold)}\n"
            f"Generated answer: {one_line(answer) or '(empty)'}")
    return chat(SYSTEM, user)


# -- LongMemEval --------------------------------------------------------------------------------

LONGMEMEVAL_NAME = "judge_longmemeval"

_LME_HEAD = """\
You check whether a chat assistant's response answers a user's question correctly. You see the
question, what a correct response must contain, and the response."""

_LME_TAIL = """
Reply with JSON: {"reason": "one sentence", "correct": true} or false."""

_LME_RULES = {
    "default": """
Answer true if the response contains the correct answer or something equivalent to it. A
response that gives only part of the required answer, or a different one, is false.""",
    "temporal-reasoning": """
Answer true if the response contains the correct answer or something equivalent to it. Do
not penalise an off-by-one error in a count of days, weeks or months (18 days for 19 days).
A response that gives only part of the required answer, or a different one, is false.""",
    "knowledge-update": """
The user's information changed over time and the correct answer is the latest one. Answer true
if the response gives the updated answer, even if it also mentions the earlier information;
false if it gives only the outdated answer or a different one.""",
    "single-session-preference": """
The required part is a rubric describing what a good, personalised response does. Answer true
if the response follows the rubric, using the user's own preferences or circumstances
correctly; it need not cover every point of the rubric. A generic response is false.""",
    "abstention": """
The question cannot be answered from the conversation history; the required part explains
why. Answer true if the response says the question cannot be answered, or that the
information was never given; false if it makes up an answer.""",
}


_REQUIRED = {"abstention": "Why it cannot be answered", "single-session-preference": "Rubric"}


class VerdictReply(BaseModel):
    reason: str = Field(description="one sentence on why")
    correct: bool


def longmemeval_rule(question_type: str, abstention: bool) -> str:
    if abstention:
        return "abstention"
    return question_type if question_type in _LME_RULES else "default"


def longmemeval_system(question_type: str, abstention: bool = False) -> str:
    return _LME_HEAD + _LME_RULES[longmemeval_rule(question_type, abstention)] + _LME_TAIL


def render_longmemeval(question_type: str, question: str, gold: str, answer: str, *,
                       abstention: bool = False) -> list[dict]:
    required = _REQUIRED.get(longmemeval_rule(question_type, abstention), "Correct answer")
    user = (f"Question: {one_line(question)}\n{required}: {one_line(gold)}\n"
            f"Response: {one_line(answer) or '(empty)'}")
    return chat(longmemeval_system(question_type, abstention), user)
