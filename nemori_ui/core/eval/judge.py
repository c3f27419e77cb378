"""The LLM judge: a separate model (gpt-4o-mini by default, as in the paper) behind its own
gateway, so its calls are cached, retried and counted like every other call but never mixed
with the answering model's.

A judge call that fails gives no verdict (not a WRONG one): the question is left out of the
judge score and counted as a judge failure.

Two presets: `paper`, the published protocol (the Mem0 rubric that the paper's LoCoMo
figures and the official code use; LongMemEval's four task prompts and its abstention
prompt), and `strict`, our stricter rubric, whose scores are not comparable with Table 2.
"""

from __future__ import annotations

from pydantic import BaseModel

from ..clients import DEFAULT_ENV, RunEnvironment, build_gateway, openai_backend
from ..config import PipelineConfig
from ..prompts import MAX_TOKENS
from ..prompts import judge as prompts
from .qa import QAItem

DEFAULT_JUDGE_MODEL = "gpt-4o-mini"


class Verdict(BaseModel):
    correct: bool | None            # None: the judge gave no usable reply
    label: str | None = None        # LoCoMo CORRECT / WRONG; LongMemEval yes / no
    reason: str = ""


JUDGE_PRESETS = {"paper": "the published rubric (Mem0's LoCoMo judge; LongMemEval's task "
                          "prompts)",
                 "strict": "our stricter rubric (not comparable with the paper's tables)"}


class Judge:
    def __init__(self, gateway, preset: str = "paper"):
        self.gateway = gateway
        self.preset = preset
        backend = gateway.backend
        self.label = f"{getattr(backend, 'name', 'llm')}:{getattr(backend, 'model', '?')}"

    def _ask(self, name: str, messages: list[dict], model):
        result = self.gateway.complete(name, messages, model, temperature=0.0,
                                       max_tokens=MAX_TOKENS.get(name))
        self.gateway.drain_records()   # a store's sink has written them; without one, dropped
        return result

    def locomo(self, item: QAItem, answer: str) -> Verdict:
        result = self._ask(prompts.NAME,
                           prompts.render(item.question, item.answer, answer, self.preset),
                           prompts.JudgeReply)
        if not result.ok:
            return Verdict(correct=None, reason=f"judge call failed: {result.record.error}")
        reply = result.value
        return Verdict(correct=reply.label == "CORRECT", label=reply.label,
                       reason=reply.reason.strip())

    def longmemeval(self, item: QAItem, answer: str) -> Verdict:
        messages = prompts.render_longmemeval(item.category, item.question, item.answer, answer,
                                              abstention=item.abstention, preset=self.preset)
        result = self._ask(prompts.LONGMEMEVAL_NAME, messages, prompts.VerdictReply)
        if not result.ok:
            return Verdict(correct=None, reason=f"judge call failed: {result.record.error}")
        reply = result.value
        return Verdict(correct=reply.correct, label="yes" if reply.correct else "no",
                       reason=reply.reason.strip())

    def __call__(self, benchmark: str, item: QAItem, answer: str) -> Verdict:
        return self.longmemeval(item, answer) if benchmark == "longmemeval" \
            else self.locomo(item, answer)

    def totals(self) -> dict:
        return self.gateway.totals()


def build_judge(config: PipelineConfig, store, model: str = DEFAULT_JUDGE_MODEL,
                env: RunEnvironment = DEFAULT_ENV, *, preset: str = "paper") -> Judge | None:
    """A judge for an LLM run, asking the environment's judge backend if it gives one; None for
    the offline engine (nothing to judge with)."""
    backend = env.judge_backend
    if config.backend == "offline" and backend is None:
        return None
    if backend is None:
        backend = openai_backend(config, model, env)
    return Judge(build_gateway(config, store, backend, temperature=0.0), preset)
