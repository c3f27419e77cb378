"""Judge prompts: was a generated answer right? One for LoCoMo (CORRECT / WRONG with a reason)
and yes / no prompts for LongMemEval that depend on the question type, each in two presets.

`paper` is the published protocol: LoCoMo results in the paper (and the official code) are
graded by the generous judge of the Mem0 evaluation, LongMemEval by its own task-specific
prompts. `strict` is our stricter rubric, kept selectable; its figures are not comparable
with the paper's tables.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from .render import chat, one_line

NAME = "judge"

STRICT = """\
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

PAPER = """\
You are an expert grader who decides whether answers to questions match a gold standard
answer. Label a generated answer CORRECT or WRONG. You get:
(1) a question, asked by one user of another about their earlier conversations,
(2) the gold (ground truth) answer,
(3) a generated answer.

The question asks about something one user should know about the other from their past
conversations. The gold answer is usually short and names the topic, for instance:
Question: What did I bring back from my last trip to Japan?
Gold answer: A set of ceramic tea cups

The generated answer may be much longer. Grade generously: as long as it touches on the same
topic as the gold answer, it is CORRECT.

For questions about time, the gold answer is a specific date, month or year. The generated
answer may be longer or use relative references ("last Tuesday", "next month"); grade
generously: as long as it refers to the same date or period as the gold answer, it is
CORRECT, whatever the format ("May 7th" and "7 May" are the same date).

First give a one-sentence explanation of your reasoning, then the label; never give both
labels.

Reply with JSON only: {"reason": "one sentence", "label": "CORRECT"} or with "WRONG"."""

SYSTEMS = {"paper": PAPER, "strict": STRICT}


class JudgeReply(BaseModel):
    reason: str = Field(description="one sentence on why")
    label: Literal["CORRECT", "WRONG"]


def render(question: str, gold: str, answer: str, preset: str = "paper") -> list[dict]:
    user = (f"Question: {one_line(question)}\nGold answer: {one_line(gold)}\n"
            f"Generated answer: {one_line(answer) or '(empty)'}")
    return chat(SYSTEMS[preset], user)


# -- LongMemEval --------------------------------------------------------------------------------

LONGMEMEVAL_NAME = "judge_longmemeval"

_TAIL = """
Reply with JSON: {"reason": "one sentence", "correct": true} or false."""

_STRICT_HEAD = """\
You check whether a chat assistant's response answers a user's question correctly. You see the
question, what a correct response must contain, and the response."""

_STRICT_RULES = {
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

# The published LongMemEval grading, one rule per task, in our words.
_PAPER_HEAD = """\
You are an expert grader who decides whether a model's response matches a gold standard. You
see a question, the reference, and the model's response; answer true (yes) or false (no)."""

_CONTAINS = """
Answer true if the response contains the correct answer. Also answer true if the response is
equivalent to the correct answer, or contains all the intermediate steps needed to reach it.
If the response holds only a part of the information the answer requires, answer false."""

_PAPER_RULES = {
    "default": _CONTAINS,
    "temporal-reasoning": _CONTAINS + """
Do not penalise off-by-one errors in a number of days, weeks or months: if the question asks
for such a count and the response is off by one (19 days when the answer is 18), it is
still correct.""",
    "knowledge-update": """
Answer true if the response contains the correct answer. If the response mentions earlier
information together with the updated answer, it is correct as long as the updated answer
is the one required.""",
    "single-session-preference": """
The reference is a rubric for the desired personalised response. Answer true if the response
satisfies it. The response need not reflect every point of the rubric; it is correct as long
as it recalls and uses the user's personal information correctly.""",
    "abstention": """
The question cannot be answered from the conversation, and the reference explains why.
Answer true if the response correctly identifies the question as unanswerable: it may say
the information is incomplete, or that other information was given but not the one asked
for. A response that makes up an answer is false.""",
}

_LME = {"paper": (_PAPER_HEAD, _PAPER_RULES), "strict": (_STRICT_HEAD, _STRICT_RULES)}
_REQUIRED = {"abstention": "Why it cannot be answered", "single-session-preference": "Rubric"}


class VerdictReply(BaseModel):
    reason: str = Field(description="one sentence on why")
    correct: bool


def longmemeval_rule(question_type: str, abstention: bool) -> str:
    if abstention:
        return "abstention"
    return question_type if question_type in _STRICT_RULES else "default"


def longmemeval_system(question_type: str, abstention: bool = False,
                       preset: str = "paper") -> str:
    head, rules = _LME[preset]
    return head + rules[longmemeval_rule(question_type, abstention)] + _TAIL


def render_longmemeval(question_type: str, question: str, gold: str, answer: str, *,
                       abstention: bool = False, preset: str = "paper") -> list[dict]:
    required = _REQUIRED.get(longmemeval_rule(question_type, abstention), "Correct answer")
    user = (f"Question: {one_line(question)}\n{required}: {one_line(gold)}\n"
            f"Response: {one_line(answer) or '(empty)'}")
    return chat(longmemeval_system(question_type, abstention, preset), user)


def prompt_texts(preset: str = "paper") -> dict[str, str]:
    """Every judge prompt of a preset, by name, for display."""
    out = {NAME: SYSTEMS[preset]}
    for rule in _STRICT_RULES:
        out[f"{LONGMEMEVAL_NAME} ({rule})"] = longmemeval_system(
            rule if rule != "abstention" else "default", rule == "abstention", preset)
    return out
