"""The offline engine as a decider: the same interface the LLM decider implements."""

from __future__ import annotations

import numpy as np

from ..config import OfflineThresholds
from ..models import Episode, Message, SemanticMemory
from ..pipeline.decisions import (AnswerDecision, AnticipationDecision, ConsolidationDecision,
                                  DistillDecision, Insight, NarrationDecision, PartitionDecision,
                                  Recall, SelectDecision, SummaryDecision)
from ..offline import episodes, knowledge
from ..offline.knowledge import VAGUE_KIND
from ..offline.phatic import PhaticClassifier
from ..offline.text import sentences

OFFLINE_LABEL = "offline engine, no LLM"


class OfflineDecider:
    label = OFFLINE_LABEL
    # its decisions cost nothing, and its own similarity bounds (conflict_sim, merge_sim) say
    # which candidates it weighs: the consolidation gate, which saves calls, does not apply
    makes_calls = False

    def __init__(self, embedder, limits: OfflineThresholds | None = None):
        self.embedder = embedder
        self.limits = limits or OfflineThresholds()
        self.classifier = PhaticClassifier(embedder, self.limits.phatic_margin)
        # narrate and distill read the same episode: read it once
        self._read: dict[tuple, list[knowledge.Clause]] = {}

    def _embed(self, texts: list[str]) -> np.ndarray:
        return self.embedder.embed(texts)

    def read(self, messages: list[Message]) -> list[knowledge.Clause]:
        return self.read_many([messages])[0]

    def read_many(self, episodes: list[list[Message]]) -> list[list[knowledge.Clause]]:
        keys = [tuple((m.id, m.speaker, m.text) for m in messages) for messages in episodes]
        fresh = {k: messages for k, messages in zip(keys, episodes) if k not in self._read}
        if fresh:
            if len(self._read) > 256:
                self._read.clear()
            read = knowledge.read_episodes(list(fresh.values()), self.classifier)
            self._read.update(zip(fresh, read))
        return [self._read[k] for k in keys]

    def partition(self, window: list[Message]) -> PartitionDecision:
        vectors = self._embed([m.text for m in window])
        cuts = episodes.cut_points(window, vectors, self.limits)
        groups, reasons = episodes.group_indices(len(window), cuts)
        # the episodes are read now, in one batch, for narration and distillation to reuse
        self.read_many([[window[i - 1] for i in g] for g in groups])
        return PartitionDecision(groups=groups, topics=reasons)

    def narrate(self, messages: list[Message]) -> NarrationDecision:
        facts = [c for c in self.read(messages) if c.is_knowledge]
        if facts:
            lines, vectors = [c.raw for c in facts], np.stack([c.vector for c in facts])
        else:
            lines = [m.text for m in messages]
            vectors = self._embed(lines)
        speaker = {m.id: m.speaker for m in messages}
        # what was said of substance that no memory could stand on is told as said, in quotes,
        # so the episode still holds it (and is found by it)
        quoted = [(speaker[c.message_id], c.raw) for c in self.read(messages)
                  if c.decision.kind == VAGUE_KIND]
        return NarrationDecision(cue=episodes.title(messages, lines, vectors),
                                 narrative=episodes.narrative(
                                     messages, [c.text for c in facts],
                                     np.stack([c.vector for c in facts]) if facts else None,
                                     quoted))

    def select_integration(self, new: Episode,
                           candidates: list[tuple[Episode, float]]) -> SelectDecision:
        idx, reason = episodes.continuation(new, candidates, self.limits)
        return SelectDecision(idx=idx, reason=reason)

    def merge_episodes(self, old: Episode, new: Episode,
                       messages: list[Message]) -> NarrationDecision:
        # the merged episode is narrated afresh from all its raw messages, in time order
        ordered = sorted(messages, key=lambda m: (m.timestamp is None, m.timestamp, m.id))
        return self.narrate(ordered)

    def recall(self, messages: list[Message]) -> Recall:
        """What the messages state, for evocation to call memories up by beside the cue."""
        found = [c for c in self.read(messages) if c.is_knowledge]
        vectors = np.stack([c.vector for c in found]) if found else \
            np.zeros((0, self.embedder.dim), dtype=np.float32)
        return Recall(statements=[c.text for c in found], vectors=vectors)

    def anticipate(self, cue: str,
                   evoked: list[tuple[SemanticMemory, float]]) -> AnticipationDecision:
        # without a model to imagine with, the best guess of an episode is what is known
        return AnticipationDecision(prediction="\n".join(m.text for m, _ in evoked))

    def distill(self, messages: list[Message], prediction: str) -> DistillDecision:
        read = self.read(messages)
        found = [c for c in read if c.is_knowledge]
        lines = [c.as_row() for c in read]
        if not found:
            return DistillDecision(insights=[], lines=lines)
        predicted = [line for line in prediction.splitlines() if line.strip()]
        texts = [c.text for c in found]
        cand = np.stack([c.vector for c in found])
        pred = self._embed(predicted) if predicted else np.zeros((0, cand.shape[1]), np.float32)
        held, adds_to = knowledge.prediction_error(texts, cand, predicted, pred, self.limits)
        return DistillDecision(
            insights=_unique([Insight(text=c.text, source_message_ids=[c.message_id],
                                      **({"elaborates": a} if a else {}))
                              for c, h, a in zip(found, held, adds_to) if h is None]),
            covered=[{"text": c.text, "message_id": c.message_id, "predicted_by": h[0],
                      "score": round(h[1], 4)} for c, h in zip(found, held) if h is not None],
            lines=lines)

    def distill_direct(self, messages: list[Message]) -> DistillDecision:
        read = self.read(messages)
        return DistillDecision(
            insights=_unique([Insight(text=c.text, source_message_ids=[c.message_id])
                              for c in read if c.is_knowledge]),
            lines=[c.as_row() for c in read])

    def distill_cold(self, episode: Episode, messages: list[Message]) -> DistillDecision:
        # the offline narrative is stitched from the messages' own clauses: reading the
        # messages themselves loses nothing and keeps each statement's source
        return self.distill(messages, "")

    def consolidate(self, insight: str, candidates: list[tuple[SemanticMemory, float]],
                    elaborates: str | None = None) -> ConsolidationDecision:
        action, targets, reason = knowledge.consolidation_rule(insight, candidates, self.limits,
                                                               elaborates)
        merged = None
        if action == "merge":
            merged = knowledge.merged_text(insight, [candidates[t - 1][0].text for t in targets])
        return ConsolidationDecision(action=action, targets=targets, merged_text=merged,
                                     reason=reason)

    def summarize(self, summary: str, insights: list[str]) -> SummaryDecision:
        lines = [line for line in summary.splitlines() if line.strip()]
        fresh = [i for i in insights if i not in lines]
        if lines and fresh:
            sims = self._embed(fresh) @ self._embed(lines).T
            fresh = [t for t, row in zip(fresh, sims) if row.max() < self.limits.covered_sim]
        return SummaryDecision(summary="\n".join(lines + fresh))

    def answer(self, question: str, context: str) -> AnswerDecision:
        lines, current = [], []
        in_knowledge = False
        for block in context.splitlines():
            if block.endswith(":") and not block.startswith(("-", " ", "[")):
                in_knowledge = block.startswith("Semantic memories")
            for s in sentences(block.lstrip("- ")):
                if len(s) > 3 and not s.endswith(":"):
                    lines.append(s)
                    current.append(in_knowledge)
        if not lines:
            return AnswerDecision(answer=knowledge.best_sentence(question, None, [], None))
        vecs = self._embed(lines)
        q = self._embed([question])[0]
        return AnswerDecision(answer=knowledge.best_sentence(question, q, lines, vecs, current))


def _unique(insights: list[Insight]) -> list[Insight]:
    """One insight per statement: a fact said twice in an episode is one fact, from both lines."""
    kept: dict[str, Insight] = {}
    for ins in insights:
        key = ins.text.lower()
        if key in kept:
            kept[key].source_message_ids += [m for m in ins.source_message_ids
                                             if m not in kept[key].source_message_ids]
        else:
            kept[key] = ins
    return list(kept.values())
