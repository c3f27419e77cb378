"""The LLM judge: a separate model (gpt-4o-mini by default, as in the paper) behind its own
gateway, so its calls are cached, retried and counted like every other call but never mixed
with the answering model's.

A judge call that fails gives no verdict (not a WRONG one): the question is left out of the
judge score and counted as a judge failure.
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel

from ..config import PipelineConfig
from ..prompts import judge as prompts
from .qa import QAItem

DEFAULT_JUDGE_MODEL = "gpt-4o-mini"


class Verdict(BaseModel):
    correct: bool | None            # None: the judge gave no usable reply
    label: str | None = None        # LoCoMo CORRECT / WRONG; LongMemEval yes / no
    reason: str = ""


class Judge:
    def __init__(self, gateway):
        self.gateway = gateway
        backend = gateway.backend
        self.label = f"{getattr(backend, 'name', 'llm')}:{getattr(backend, 'model', '?')}"

    def _ask(self, name: str, messages: list[dict], model):
        result = self.gateway.complete(name, messages, model, temperature=0.0)
        self.gateway.drain_records()   # totals are kept by the gateway; records are not needed
        return result

    def locomo(self, item: QAItem, answer: str) -> Verdict:
        result = self._ask(prompts.NAME, prompts.render(item.question, item.answer, answer),
                           prompts.JudgeReply)
        if not result.ok:
            return Verdict(correct=None, reason=f"judge call failed: {result.record.error}")
        reply = result.value
        return Verdict(correct=reply.label == "CORRECT", label=reply.label,
                       reason=reply.reason.strip())

    def longmemeval(self, item: QAItem, answer: str) -> Verdict:
        messages = prompts.render_longmemeval(item.category, item.question, item.answer, answer,
                                              abstention=item.abstention)
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


def build_judge(config: PipelineConfig, store, model: str = DEFAULT_JUDGE_MODEL, *,
                backend=None, api_key: str | None = None,
                secrets: Mapping | None = None) -> Judge | None:
    """A judge for an LLM run; None for the offline engine (nothing to judge with)."""
    if config.backend == "offline" and backend is None:
        return None
    from ..llm import LLMGateway
    from ..store.caches import SqliteResponseCache
    if backend is None:
        from ..llm.openai_backend import OpenAIChatBackend, resolve_openai_settings
        key, base = resolve_openai_settings(api_key, config.base_url, secrets)
        backend = OpenAIChatBackend(model, api_key=key, base_url=base)
    gateway = LLMGateway(backend, SqliteResponseCache(store) if store else None,
                         max_concurrency=config.concurrency,
                         structured_output=config.structured_output, temperature=0.0)
    return Judge(gateway)
