"""The prediction-error demo: Nemori beside Nemori-s (no prediction) on the same transcript."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..config import PipelineConfig
from ..eval.prediction import MERGED, STORED, UNREAD, Fate, fates
from ..models import Conversation
from ..retrieval import count_tokens
from ..store import Store, runs
from ..views.prediction import predicted
from ..views.run_data import RunData

MATCH = 0.80
VARIANTS = ("nemori", "nemori-s")
# what Nemori-s did with a statement Nemori predicted, in the demo's words
THEIR_FATE = {STORED: "stored again as a new memory", MERGED: "merged into a memory it held",
              UNREAD: "not read as a statement"}


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
    """A fact told again that Nemori did not store because an earlier episode's knowledge
    predicted it: where it was said again, the memory that held it and where that was first
    told, and what Nemori-s did with the same statement. Without the offline engine's record
    of what a prediction held, it is a Nemori-s insight Nemori never produced, and only its
    text and episode are known."""
    text: str
    message_id: str | None
    predicted_by: str | None        # the prediction line that held it: the memory's text
    score: float | None
    episode_id: str
    memory_id: str | None = None
    first_message_id: str | None = None     # the message the memory was first learnt from
    first_said: str = ""                    # ... as said
    first_session: int | None = None
    again_said: str = ""                    # the message it was said again in, as said
    again_session: int | None = None
    speaker: str = ""
    nemori_s: str = ""                      # what Nemori-s did with it (eval/prediction fates)


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
    # what Nemori-s did with the facts Nemori predicted: fate -> how many
    nemori_s_did: dict[str, int] = field(default_factory=dict)
    inferred: bool = False          # skipped facts inferred from Nemori-s (no engine record)


def _skipped(nemori: RunData, direct: RunData, embedder) -> list[SkippedFact]:
    """Every statement a prediction from earlier episodes held, told as said twice."""
    theirs = fates(direct)
    found = []
    for ev in nemori.stage("distill"):
        for c in predicted(nemori, ev):
            again = nemori.message_by_id.get(c.message_id or "")
            first = nemori.message_by_id.get(c.learnt_from or "")
            found.append(SkippedFact(
                text=c.text, message_id=c.message_id, predicted_by=c.predicted_by,
                score=c.score, episode_id=ev.payload.episode_id, memory_id=c.memory_id,
                first_message_id=c.learnt_from, first_said=first.text if first else "",
                first_session=first.session if first else None,
                again_said=again.text if again else "",
                again_session=again.session if again else None,
                speaker=again.speaker if again else "",
                nemori_s=THEIR_FATE[_their_fate(c.text, c.message_id, theirs, embedder)]))
    return found


def _their_fate(text: str, message_id: str | None, theirs: list[Fate], embedder) -> str:
    """What Nemori-s did with the statement: the fate of its nearest statement from the same
    message (the two runs read one transcript, so message ids agree)."""
    same = [f for f in theirs if message_id in f.message_ids]
    if not same:
        return UNREAD
    exact = [f for f in same if f.text == text]
    if exact:
        return exact[0].fate
    vecs = embedder.embed([text] + [f.text for f in same])
    return same[int(np.argmax(vecs[1:] @ vecs[0]))].fate


def prediction_demo(nemori: RunData, direct: RunData, embedder) -> PredictionDemo:
    """What each stored, what Nemori skipped because it predicted it, and what both kept."""
    ours, theirs = _insights(nemori), _insights(direct)
    skipped = _skipped(nemori, direct, embedder)
    inferred = False
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
        if not skipped and not nemori.is_offline:
            # without the offline engine's record of covered statements, a direct insight that
            # Nemori never produced is one its prediction held
            held = sims.max(axis=0) < MATCH
            skipped = [SkippedFact(text=t.text, message_id=None, predicted_by=None, score=None,
                                   episode_id=t.episode_id) for t, h in zip(theirs, held) if h]
            inferred = bool(skipped)
    did = {said: sum(f.nemori_s == said for f in skipped) for said in THEIR_FATE.values()}
    return PredictionDemo(nemori=_stored(nemori), nemori_s=_stored(direct),
                          skipped_as_predicted=skipped, kept_by_both=both,
                          nemori_s_did={k: v for k, v in did.items() if v}, inferred=inferred)
