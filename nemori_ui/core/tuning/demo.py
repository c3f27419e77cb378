"""The prediction-error demo: Nemori beside Nemori-s (no prediction) on the same transcript."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..config import PipelineConfig
from ..models import Conversation
from ..retrieval import count_tokens
from ..store import Store, runs
from ..views.run_data import RunData

MATCH = 0.80
VARIANTS = ("nemori", "nemori-s")


def demo_config(variant: str) -> PipelineConfig:
    """The demo's settings: the defaults, with or without prediction."""
    return PipelineConfig(variant=variant)


def stored_demo_runs(store: Store, conv: Conversation, source: str) -> dict[str, str]:
    """The newest finished run of each demo variant on this very conversation, by variant: the
    demo is rebuilt from these, so a reload (or a second visitor) runs nothing again."""
    wanted = runs.content_hash(conv.messages)
    found = {}
    for variant in VARIANTS:
        rows = store.query(
            "SELECT id FROM runs WHERE conversation_id = ? AND source = ? AND fingerprint = ? "
            "AND status = 'done' ORDER BY created_at DESC, rowid DESC",
            (conv.id, source, demo_config(variant).fingerprint()))
        match = next((r["id"] for r in rows if runs.stored_hash(store, r["id"]) == wanted), None)
        if match:
            found[variant] = match
    return found


@dataclass(frozen=True)
class DistilledInsight:
    """An insight a run distilled, with the episode it came from."""
    text: str
    episode_id: str
    window: int
    source_message_ids: list[str]


def _insights(data: RunData) -> list[DistilledInsight]:
    return [DistilledInsight(text=i.text, episode_id=e.payload.episode_id, window=e.window,
                             source_message_ids=i.source_message_ids)
            for e in data.stage("distill") for i in e.payload.insights]


@dataclass(frozen=True)
class StoredTally:
    """What a demo run ends up holding: active memories, their tokens and characters, and the
    insights it distilled on the way."""
    run_id: str
    memories: int
    tokens: int
    chars: int
    insights: int


def _stored(data: RunData) -> StoredTally:
    active = [m for m in data.memories if m.status == "active"]
    text = "\n".join(m.text for m in active)
    return StoredTally(run_id=data.run_id, memories=len(active), tokens=count_tokens(text),
                       chars=len(text), insights=len(_insights(data)))


@dataclass(frozen=True)
class SkippedFact:
    """A statement Nemori did not store because its prediction held it. Without the offline
    engine's record of what it covered, it is a Nemori-s insight Nemori never produced, and
    only its text and episode are known."""
    text: str
    message_id: str | None
    predicted_by: str | None        # the prediction line that held it
    score: float | None
    episode_id: str


@dataclass(frozen=True)
class SharedInsight:
    """An insight both runs distilled, as each worded it."""
    nemori: str
    nemori_s: str
    score: float


@dataclass(frozen=True)
class PredictionDemo:
    nemori: StoredTally
    nemori_s: StoredTally
    skipped_as_predicted: list[SkippedFact]
    kept_by_both: list[SharedInsight]


def prediction_demo(nemori: RunData, direct: RunData, embedder) -> PredictionDemo:
    """What each stored, what Nemori skipped because it predicted it, and what both kept."""
    ours, theirs = _insights(nemori), _insights(direct)
    skipped = [SkippedFact(text=c.text, message_id=c.message_id, predicted_by=c.predicted_by,
                           score=c.score, episode_id=e.payload.episode_id)
               for e in nemori.stage("distill") for c in e.payload.covered]
    both = []
    if ours and theirs:
        va = embedder.embed([i.text for i in ours])
        vb = embedder.embed([i.text for i in theirs])
        sims = va @ vb.T
        for i, row in enumerate(sims):
            j = int(np.argmax(row))
            if row[j] >= MATCH:
                both.append(SharedInsight(nemori=ours[i].text, nemori_s=theirs[j].text,
                                          score=round(float(row[j]), 4)))
        if not skipped:
            # without the offline engine's record of covered statements, a direct insight that
            # Nemori never produced is one its prediction held
            held = sims.max(axis=0) < MATCH
            skipped = [SkippedFact(text=t.text, message_id=None, predicted_by=None, score=None,
                                   episode_id=t.episode_id) for t, h in zip(theirs, held) if h]
    return PredictionDemo(nemori=_stored(nemori), nemori_s=_stored(direct),
                          skipped_as_predicted=skipped, kept_by_both=both)
