"""What the Prediction error views return: an episode's evoked memories, its prediction beside
its raw messages, its insights with their consolidation, and what a τ admits."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from ..stage_events import CoveredStatement


@dataclass(frozen=True)
class Evoked:
    """What an episode's cue called up from semantic memory, against τ."""
    tau: float
    cold_start: bool                    # nothing passed τ: no prediction was asked for
    management: str
    prediction: str
    # rank, memory, text, score (the cue's), passed, continued, recall score and recalled by
    # (the statement that called it up), by cue (among the cue's top K_s)
    frame: pd.DataFrame
    passed: int


@dataclass(frozen=True)
class Outcome:
    """What consolidation did with one insight."""
    action: str
    result_id: str | None
    targets: list[str]                  # the memories a merge or a conflict replaced
    unchanged: bool                     # a merge that left the memory as it was


@dataclass(frozen=True)
class PredictionLine:
    """One statement of the prediction, with the raw statements it already held."""
    text: str
    held: list[str]


@dataclass(frozen=True)
class ComparedMessage:
    """A raw message of the episode, marked by what became of it."""
    message: str
    time: str
    speaker: str
    text: str
    status: str                         # learnt, predicted not stored, or plain
    learnt: list[str]                   # the insights that cite it
    covered: list[CoveredStatement]     # its statements the prediction already held


@dataclass(frozen=True)
class CitedMessage:
    """A raw line an insight cites."""
    message: str
    speaker: str
    text: str


@dataclass(frozen=True)
class ProducedInsight:
    """An insight the distillation stored, the raw lines it cites, and its consolidation."""
    text: str
    source_message_ids: list[str]
    sources: list[CitedMessage]         # the cited messages the run holds
    outcome: Outcome | None             # None: not consolidated


@dataclass(frozen=True)
class Comparison:
    """The predicted episode beside the real one (see `prediction.comparison`)."""
    episode_id: str
    cue: str
    mode: str                           # "prediction-error", or "direct" in Nemori-s
    read: str                           # "narrative": the v1 cold start read the narrative
    prediction_lines: list[PredictionLine]
    rows: list[ComparedMessage]
    insights: list[ProducedInsight]
    covered: list[CoveredStatement]
    statements_checked: bool            # the engine reported which statements were held
    fallback: str | None
    counts: dict[str, int]              # messages per status


@dataclass(frozen=True)
class Admitted:
    """What a τ lets through of the looked-at similarities."""
    pairs: int
    passing: int
    episodes: int
    evoking: int                        # episodes evoking any memory
