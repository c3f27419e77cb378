"""What a decider returns for each stage, and the interface both deciders implement.

A decider makes the judgement calls of the method (where to cut, what to write, what is new).
The LLM decider asks a model through the gateway; the offline engine decides from embeddings
and rules. The pipeline stages do everything else (search, bookkeeping, events) the same way
for both.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

import numpy as np
from pydantic import BaseModel, Field

from ..models import Episode, Message, SemanticMemory
# Insight is a part of the distill event as stored; the deciders import it from here
from ..stage_events import CoveredStatement, Insight, LineReading  # noqa: F401


class Decision(BaseModel):
    call_ids: list[str] = Field(default_factory=list)
    fallback: str | None = None    # why the offline engine decided instead of the LLM


class PartitionDecision(Decision):
    groups: list[list[int]]        # 1-based indices into the window, as the decider returned them
    topics: list[str] = Field(default_factory=list)


class NarrationDecision(Decision):
    cue: str
    narrative: str


class SelectDecision(Decision):
    idx: int                       # 1-based index into the candidates, or -1 for none
    reason: str = ""


class AnticipationDecision(Decision):
    prediction: str


class DistillDecision(Decision):
    insights: list[Insight]
    # raw statements left out because the prediction already held them, where the decider
    # can tell, and how each raw clause was read, where the decider reads clause by clause
    covered: list[CoveredStatement] = Field(default_factory=list)
    lines: list[LineReading] = Field(default_factory=list)


@dataclass(frozen=True)
class Recall:
    """What an episode states, to evoke memories by (`Decider.recall`): each statement with
    its vector."""
    statements: list[str]
    vectors: np.ndarray


class ConsolidationDecision(Decision):
    action: Literal["new", "merge", "conflict"]
    targets: list[int] = Field(default_factory=list)   # 1-based indices into the candidates
    merged_text: str | None = None
    reason: str = ""


class SummaryDecision(Decision):
    summary: str


class AnswerDecision(Decision):
    answer: str


class Scored(BaseModel):
    """A search hit: the item and its cosine similarity to the query."""
    id: str
    score: float


class Decider(Protocol):
    label: str

    def partition(self, window: list[Message]) -> PartitionDecision: ...

    def narrate(self, messages: list[Message]) -> NarrationDecision: ...

    def select_integration(self, new: Episode,
                           candidates: list[tuple[Episode, float]]) -> SelectDecision: ...

    def merge_episodes(self, old: Episode, new: Episode,
                       messages: list[Message]) -> NarrationDecision: ...

    def anticipate(self, cue: str,
                   evoked: list[tuple[SemanticMemory, float]]) -> AnticipationDecision: ...

    def distill(self, messages: list[Message], prediction: str) -> DistillDecision: ...

    def distill_direct(self, messages: list[Message]) -> DistillDecision: ...

    # A decider that reads statements may also offer `recall(messages) -> Recall`: what the
    # messages state, for evocation to call memories up by (pipeline/semantic.py); the LLM
    # decider does not, and keeps the paper's evocation by the cue alone

    # with nothing stored, under `cold_start = "narrative"`: distil the episode as narrated
    def distill_cold(self, episode: Episode, messages: list[Message]) -> DistillDecision: ...

    # `elaborates`: the insight's `Insight.elaborates`, the text of the known fact it adds a
    # detail to, where the distilling decider could tell; a decider may ignore it
    def consolidate(self, insight: str, candidates: list[tuple[SemanticMemory, float]],
                    elaborates: str | None = None) -> ConsolidationDecision: ...

    # A decider with calls to save may also offer `consolidate_episode(items)`: one decision
    # per (insight, candidates, elaborates) of an episode, asked at once; the stage uses it
    # under gated consolidation with `consolidation_unit = "episode"` (pipeline/consolidation.py)

    def summarize(self, summary: str, insights: list[str]) -> SummaryDecision: ...

    def answer(self, question: str, context: str) -> AnswerDecision: ...
