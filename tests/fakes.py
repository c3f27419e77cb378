"""Typed fakes for unit tests of single stages: a scripted decider and a tiny embedder."""

from __future__ import annotations

import hashlib
from collections import deque

import numpy as np

from nemori_ui.core.pipeline.decisions import (AnswerDecision, AnticipationDecision,
                                               ConsolidationDecision, DistillDecision, Insight,
                                               NarrationDecision, PartitionDecision, SelectDecision,
                                               SummaryDecision)


# HashEmbedder's similarities are not MiniLM's: a consolidation gate on its scale, where some
# insights of the tests' transcripts reach a call and some do not (MiniLM's 0.83 admits none).
HASH_GATE = 0.60


class HashEmbedder:
    """Deterministic unit vectors: equal texts get equal vectors, texts sharing words are close."""

    name = "hash-test"

    def __init__(self, dim: int = 64):
        self.dim = dim
        self.calls = 0

    def embed(self, texts):
        self.calls += 1
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in text.lower().split():
                h = int(hashlib.md5(word.strip(".,!?:").encode()).hexdigest(), 16)
                out[row, h % self.dim] += 1.0
            if not out[row].any():
                out[row, 0] = 1.0
        return out / np.linalg.norm(out, axis=1, keepdims=True)


class ScriptedDecider:
    """Answers each stage from a queue the test fills; falls back to simple defaults."""

    label = "scripted"

    def __init__(self):
        self.queues: dict[str, deque] = {}
        self.seen: dict[str, list] = {}

    def enqueue(self, stage: str, decision) -> "ScriptedDecider":
        self.queues.setdefault(stage, deque()).append(decision)
        return self

    def _next(self, stage, default, *args):
        self.seen.setdefault(stage, []).append(args)
        queue = self.queues.get(stage)
        return queue.popleft() if queue else default

    def partition(self, window):
        return self._next("partition", PartitionDecision(groups=[list(range(1, len(window) + 1))]), window)

    def narrate(self, messages):
        return self._next("narrate", NarrationDecision(
            cue=messages[0].text[:30], narrative=" ".join(m.text for m in messages)), messages)

    def select_integration(self, new, candidates):
        return self._next("select", SelectDecision(idx=-1), new, candidates)

    def merge_episodes(self, old, new, messages):
        return self._next("merge_episodes", NarrationDecision(
            cue=old.cue, narrative=old.narrative + " " + new.narrative), old, new, messages)

    def anticipate(self, cue, evoked):
        return self._next("anticipate", AnticipationDecision(
            prediction="\n".join(m.text for m, _ in evoked)), cue, evoked)

    def distill(self, messages, prediction):
        return self._next("distill", DistillDecision(insights=[
            Insight(text=m.text, source_message_ids=[m.id]) for m in messages]), messages, prediction)

    def distill_direct(self, messages):
        return self._next("distill_direct", DistillDecision(insights=[
            Insight(text=m.text, source_message_ids=[m.id]) for m in messages]), messages)

    def distill_cold(self, episode, messages):
        return self._next("distill_cold", DistillDecision(insights=[
            Insight(text=episode.narrative, source_message_ids=[m.id for m in messages])]),
            episode, messages)

    def consolidate(self, insight, candidates, elaborates=None):
        return self._next("consolidate", ConsolidationDecision(action="new"), insight, candidates)

    def summarize(self, summary, insights):
        return self._next("summarize", SummaryDecision(summary="\n".join([summary, *insights]).strip()),
                          summary, insights)

    def answer(self, question, context):
        return self._next("answer", AnswerDecision(answer="scripted"), question, context)
