"""The LLM decider: each judgement of the method asked of a model through the gateway.

Every call goes through `LLMGateway.complete`, so caching, retries, repair and records are the
gateway's business. What is decided here is how a reply becomes a decision, and what happens
when there is no usable reply: that one decision is handed to the offline engine, with the
failed call kept in `call_ids` and the reason in `fallback`, so a run never dies on a bad reply
and the failure stays visible.
"""

from __future__ import annotations

from typing import Callable, TypeVar

from ..config import PipelineConfig
from ..models import Episode, Message, SemanticMemory
from ..pipeline.decisions import (AnswerDecision, AnticipationDecision, ConsolidationDecision,
                                  Decider, Decision, DistillDecision, Insight, NarrationDecision,
                                  PartitionDecision, SelectDecision, SummaryDecision)
from ..llm.servers import display_model
from ..prompts import (MAX_TOKENS, answer, anticipate, cold_start, consolidate,
                       consolidate_episode, direct_distill, distill, integrate, narrate,
                       partition, select, summarize)

D = TypeVar("D", bound=Decision)

DUPLICATE_COSINE = 0.9999     # what an identical text scores against itself, rounding aside


def exact_duplicate(insight: str, candidates: list[tuple[SemanticMemory, float]]) -> int | None:
    """The 1-based candidate that is the insight itself (same words, or cosine 1.0), if any."""
    words = " ".join(insight.lower().split()).rstrip(".")
    for k, (memory, score) in enumerate(candidates, start=1):
        if score >= DUPLICATE_COSINE or " ".join(memory.text.lower().split()).rstrip(".") == words:
            return k
    return None


class LLMDecider:
    # Integration is checked across windows only, as in the official implementation: the
    # partition has just separated the episodes of one window, so asking whether one
    # continues another would cost a select call per episode for nothing.
    integrates_within_window = False

    def __init__(self, gateway, config: PipelineConfig, fallback: Decider):
        self.gateway = gateway
        self.config = config
        self.fallback = fallback
        self.preset = config.prompts
        self.dates = config.distill_dates
        self.caps = dict(MAX_TOKENS)     # output cap per prompt; a slow test server gets less
        backend = gateway.backend
        model = getattr(backend, "model", None) or config.model
        self.label = f"{getattr(backend, 'name', config.backend)}:{display_model(model)}"

    # -- episodic -----------------------------------------------------------------------------

    def partition(self, window: list[Message]) -> PartitionDecision:
        result = self._ask(partition, partition.render(window, self.preset), partition.PartitionReply)
        if not result.ok:
            return self._offline(result, lambda: self.fallback.partition(window))
        # passed through as returned: the stage repairs and shows any gap or repeat
        episodes = result.value.episodes
        return PartitionDecision(groups=[list(e.indices) for e in episodes],
                                 topics=[e.topic.strip() for e in episodes],
                                 call_ids=[result.record.id])

    def narrate(self, messages: list[Message]) -> NarrationDecision:
        result = self._ask(narrate, narrate.render(messages, self.preset), narrate.NarrateReply)
        return self._narration(result, lambda: self.fallback.narrate(messages))

    def select_integration(self, new: Episode,
                           candidates: list[tuple[Episode, float]]) -> SelectDecision:
        episodes = [e for e, _ in candidates]
        result = self._ask(select, select.render(new, episodes, self.preset), select.SelectReply)
        if not result.ok:
            return self._offline(result, lambda: self.fallback.select_integration(new, candidates))
        # an index outside 1..K is the stage's to repair (and show), not ours to hide
        return SelectDecision(idx=result.value.idx, reason=result.value.reason.strip(),
                              call_ids=[result.record.id])

    def merge_episodes(self, old: Episode, new: Episode,
                       messages: list[Message]) -> NarrationDecision:
        result = self._ask(integrate, integrate.render(old, new, self.preset), integrate.IntegrateReply)
        return self._narration(result, lambda: self.fallback.merge_episodes(old, new, messages))

    # -- semantic -----------------------------------------------------------------------------

    def anticipate(self, cue: str,
                   evoked: list[tuple[SemanticMemory, float]]) -> AnticipationDecision:
        known = [m.text for m, _ in evoked]
        result = self._ask(anticipate, anticipate.render(cue, known, self.preset), anticipate.AnticipateReply)
        if not result.ok:
            return self._offline(result, lambda: self.fallback.anticipate(cue, evoked))
        return AnticipationDecision(prediction=result.value.prediction.strip(),
                                    call_ids=[result.record.id])

    def distill(self, messages: list[Message], prediction: str) -> DistillDecision:
        result = self._ask(distill, distill.render(messages, prediction, self.preset, self.dates), distill.DistillReply)
        if not result.ok:
            return self._offline(result, lambda: self.fallback.distill(messages, prediction))
        return self._insights(result, messages)

    def distill_direct(self, messages: list[Message]) -> DistillDecision:
        result = self._ask(direct_distill, direct_distill.render(messages, self.preset, self.dates),
                           direct_distill.DirectDistillReply)
        if not result.ok:
            return self._offline(result, lambda: self.fallback.distill_direct(messages))
        return self._insights(result, messages)

    def distill_cold(self, episode: Episode, messages: list[Message]) -> DistillDecision:
        result = self._ask(cold_start, cold_start.render(episode.cue, episode.narrative,
                                                         self.preset, self.dates),
                           cold_start.ColdStartReply)
        if not result.ok:
            return self._offline(result, lambda: self.fallback.distill_cold(episode, messages))
        ids = [m.id for m in messages]
        # a narrative has no lines: each statement comes from the whole episode
        insights = [Insight(text=text, source_message_ids=ids)
                    for text in (" ".join(t.split()) for t in result.value.statements) if text]
        return DistillDecision(insights=insights, call_ids=[result.record.id])

    def consolidate(self, insight: str, candidates: list[tuple[SemanticMemory, float]],
                    elaborates: str | None = None) -> ConsolidationDecision:
        duplicate = exact_duplicate(insight, candidates)
        if duplicate is not None:
            # a model has called a word-for-word copy "new": no model is asked about one
            memory = candidates[duplicate - 1][0]
            return ConsolidationDecision(action="merge", targets=[duplicate],
                                         merged_text=memory.text,
                                         reason=f"the same text as {memory.id}: not stored again")
        existing = [m.text for m, _ in candidates]
        result = self._ask(consolidate, consolidate.render(insight, existing, self.preset),
                           consolidate.ConsolidateReply)
        if not result.ok:
            return self._offline(result, lambda: self.fallback.consolidate(insight, candidates,
                                                                           elaborates))
        # targets pass through unfiltered: the stage repairs invalid ones and records it
        return _directive(result.value, list(result.value.targets), result.record.id)

    def consolidate_episode(self, items: list[tuple[str, list[tuple[SemanticMemory, float]],
                                                    str | None]]) -> list[ConsolidationDecision]:
        """One decision per (insight, candidates, elaborates), asked in one call: each insight
        against its own candidates, with the candidates of all listed once. A decision the
        reply leaves out is the offline engine's, with the reason shown."""
        out: list[ConsolidationDecision | None] = [None] * len(items)
        asked = []
        for k, (insight, candidates, elaborates) in enumerate(items):
            if exact_duplicate(insight, candidates) is not None:
                out[k] = self.consolidate(insight, candidates, elaborates)
            else:
                asked.append(k)
        if not asked:
            return out
        number: dict[str, int] = {}       # memory id -> its number in the stored list
        stored: list[str] = []
        for k in asked:
            for memory, _ in items[k][1]:
                if memory.id not in number:
                    number[memory.id] = len(stored) + 1
                    stored.append(memory.text)
        new = [(items[k][0], [number[m.id] for m, _ in items[k][1]]) for k in asked]
        result = self._ask(consolidate_episode,
                           consolidate_episode.render(stored, new, self.preset),
                           consolidate_episode.ConsolidateEpisodeReply)
        replies = {}
        if result.ok:
            for d in result.value.decisions:
                replies.setdefault(d.fact, d)
        for fact, k in enumerate(asked, start=1):
            insight, candidates, elaborates = items[k]
            offline = lambda: self.fallback.consolidate(insight, candidates,  # noqa: E731
                                                        elaborates)
            reply = replies.get(fact)
            if not result.ok:
                out[k] = self._offline(result, offline)
            elif reply is None:
                out[k] = self._offline(result, offline, why=f"no decision for fact {fact}")
            else:
                # a stored number that is not one of this insight's candidates is 0: the stage
                # repairs it and shows the repair
                local = {number[m.id]: i for i, (m, _) in enumerate(candidates, start=1)}
                out[k] = _directive(reply, [local.get(t, 0) for t in reply.targets],
                                    result.record.id)
        return out

    def summarize(self, summary: str, insights: list[str]) -> SummaryDecision:
        result = self._ask(summarize, summarize.render(summary, insights, self.preset),
                           summarize.SummarizeReply)
        offline = lambda: self.fallback.summarize(summary, insights)  # noqa: E731
        if not result.ok:
            return self._offline(result, offline)
        text = result.value.summary.strip()
        if not text:
            # an empty rewrite would silently drop everything known
            return self._offline(result, offline, why="the summary came back empty")
        return SummaryDecision(summary=text, call_ids=[result.record.id])

    def answer(self, question: str, context: str) -> AnswerDecision:
        result = self._ask(answer, answer.render(question, context, self.preset),
                           answer.REPLIES[self.preset],
                           temperature=self.config.answer_temperature)
        offline = lambda: self.fallback.answer(question, context)  # noqa: E731
        if not result.ok:
            return self._offline(result, offline)
        text = answer.scored_text(result.value).strip()
        if not text:
            return self._offline(result, offline, why="the answer came back empty")
        return AnswerDecision(answer=text, call_ids=[result.record.id])

    # -- shared -------------------------------------------------------------------------------

    def _ask(self, prompt, messages: list[dict], model, *, temperature: float | None = None):
        temp = self.config.temperature if temperature is None else temperature
        return self.gateway.complete(prompt.NAME, messages, model, temperature=temp,
                                     max_tokens=self.caps.get(prompt.NAME))

    def _narration(self, result, offline: Callable[[], NarrationDecision]) -> NarrationDecision:
        if not result.ok:
            return self._offline(result, offline)
        cue, text = result.value.cue.strip(), result.value.narrative.strip()
        if not cue or not text:
            return self._offline(result, offline, why="the title or narrative came back empty")
        return NarrationDecision(cue=" ".join(cue.split()), narrative=text,
                                 call_ids=[result.record.id])

    @staticmethod
    def _insights(result, messages: list[Message]) -> DistillDecision:
        ids = [m.id for m in messages]
        insights = []
        for item in result.value.insights:
            text = " ".join(item.text.split())
            if not text:
                continue
            cited = list(dict.fromkeys(ids[n - 1] for n in item.lines if 1 <= n <= len(ids)))
            # an insight that cites nothing usable still came from this episode
            insights.append(Insight(text=text, source_message_ids=cited or list(ids)))
        return DistillDecision(insights=insights, call_ids=[result.record.id])

    @staticmethod
    def _offline(result, decide: Callable[[], D], *, why: str | None = None) -> D:
        decision = decide()
        record = result.record
        if why is None:
            reason = f"LLM call failed ({record.error}); offline engine decided"
        else:
            reason = f"LLM reply unusable ({why}); offline engine decided"
        return decision.model_copy(update={"call_ids": [record.id, *decision.call_ids],
                                           "fallback": reason})


def _directive(reply, targets: list[int], call_id: str) -> ConsolidationDecision:
    """A consolidation reply as a decision; a merged text goes with a merge only."""
    merged = (reply.merged_text or "").strip() or None
    return ConsolidationDecision(action=reply.action, targets=targets,
                                 merged_text=merged if reply.action == "merge" else None,
                                 reason=reply.reason.strip(), call_ids=[call_id])
