"""Is a run's prediction real? Two figures, read from the stored events of a finished run.

- **prediction precision**: of the statements the run skipped as predicted, the share whose
  covering memory was learnt only from messages outside the episode being distilled. A memory
  learnt from the episode's own first part "predicts" nothing: the episode is re-reading itself.
- **repeat recall**: of the facts told again in a later session by the same person, the share
  whose second telling was skipped as predicted rather than stored again. For a LoCoMo-shaped
  file the repeats are pairs of the speaker's own `observation` annotations from two different
  sessions that state the same fact (MiniLM cosine at least `REPEAT_SIM` and a shared content
  word); for one of our labelled transcripts, its `repeats`.

Each statement a run read has one fate (`Fate`): predicted, carried (known from the episode it
continues), stored (a new memory or a conflict), merged (consolidation found it known) or, for
a repeat whose second telling gave no statement at all, unread. The yardstick's words come from
`yardstick.py`, never from the engine being measured.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from ..models import Conversation, Message
from ..stage_events import ConsolidatePayload
from ..store.run_data import RunData
from ..views.prediction import classed
from .knowledge import locomo_observations
from .yardstick import content_stems

REPEAT_SIM = 0.85
PREDICTED, CARRIED, STORED, MERGED, UNREAD = "predicted", "carried", "stored again", "merged", \
    "not read as a statement"
FATES = (PREDICTED, CARRIED, STORED, MERGED, UNREAD)
_SESSION = re.compile(r"D(\d+):")


@dataclass(frozen=True)
class Told:
    """A reference fact and the messages that told it (an observation, or a labelled fact)."""
    fact: str
    message_ids: list[str]


@dataclass(frozen=True)
class Repeat:
    """A fact its speaker told in one session and again in a later one."""
    speaker: str
    first: str                     # the fact as first told
    later: str                     # the fact as told again
    later_messages: list[str]      # the messages of its second telling


@dataclass(frozen=True)
class Fate:
    """What became of one statement a run read."""
    text: str
    message_ids: list[str]
    fate: str
    episode_id: str
    episode_messages: frozenset[str]
    memory_id: str | None = None       # the memory that covered it, for predicted / carried


@dataclass(frozen=True)
class PredictionFigures:
    skipped: int                       # statements skipped as predicted
    precise: int                       # ... whose covering memory came from outside the episode
    repeats: int
    outcomes: dict[str, int] = field(default_factory=dict)   # repeats by fate
    distilled_twice: int = 0           # messages read by more than one distillation
    wrong: int = 0                     # skipped statements that told a fact told for the first time
    judged: int = 0                    # skipped statements whose message tells a reference fact

    @property
    def precision(self) -> float:
        return self.precise / self.skipped if self.skipped else 1.0

    @property
    def recall(self) -> float:
        return self.outcomes.get(PREDICTED, 0) / self.repeats if self.repeats else 0.0


def _sessions(refs: list[str]) -> set[int]:
    return {int(m.group(1)) for r in refs if (m := _SESSION.match(r))}


def locomo_repeats(conv: Conversation, embed) -> list[Repeat]:
    """Observations of one speaker in two different sessions that state the same fact; each
    later observation counted once, against the earliest one it repeats."""
    ref_to_id = {m.source_ref: m.id for m in conv.messages if m.source_ref}
    obs = [(speaker, fact, refs) for speaker, fact, refs in locomo_observations(conv.extra)
           if _sessions(refs) and any(r in ref_to_id for r in refs)]
    if not obs:
        return []
    vecs = np.asarray(embed([f for _, f, _ in obs]), dtype=np.float32)
    sims = vecs @ vecs.T
    names = frozenset(w for s in conv.speakers for w in s.split())
    words = [content_stems(f, names) for _, f, _ in obs]
    found = []
    for j, (speaker, fact, refs) in enumerate(obs):
        starts = min(_sessions(refs))
        earlier = [i for i, (s, _, r) in enumerate(obs)
                   if s == speaker and max(_sessions(r)) < starts and sims[i, j] >= REPEAT_SIM
                   and words[i] & words[j]]
        if earlier:
            first = min(earlier, key=lambda i: (min(_sessions(obs[i][2])), i))
            found.append(Repeat(speaker=speaker, first=obs[first][1], later=fact,
                                later_messages=[ref_to_id[r] for r in refs if r in ref_to_id]))
    return found


def labelled_repeats(labels: dict, messages: list[Message]) -> list[Repeat]:
    """The `repeats` of one of our labelled transcripts: (first telling, later telling)."""
    def find(part: str) -> Message:
        hits = [m for m in messages if part in m.text]
        if len(hits) != 1:
            raise ValueError(f"label {part!r} matches {len(hits)} messages, not one")
        return hits[0]

    found = []
    for first, later in labels.get("repeats", []):
        a, b = find(first), find(later)
        fact = next((f["fact"] for f in labels.get("facts", []) if f["message"] == first),
                    a.text)
        found.append(Repeat(speaker=a.speaker, first=fact, later=fact, later_messages=[b.id]))
    return found


def _consolidation(data: RunData) -> dict[tuple[str, str], list[str]]:
    """(episode, insight text) -> what consolidation did with it, in order."""
    done: dict[tuple[str, str], list[str]] = {}
    for ev in sorted(data.stage("consolidate"), key=lambda e: e.seq):
        p = ev.payload
        for text in p.insight_texts:
            action = p.action if isinstance(p, ConsolidatePayload) else "new"
            done.setdefault((p.episode_id, text), []).append(
                MERGED if action == "merge" else STORED)
    return done


def fates(data: RunData) -> list[Fate]:
    """Every statement the run's distillations read, with what became of it. A skipped
    statement's class and memory are the ones every page reads (`views.prediction.classed`,
    which also classes a run stored before statements were)."""
    done = _consolidation(data)
    out = []
    for ev in sorted(data.stage("distill"), key=lambda e: e.seq):
        p = ev.payload
        inside = frozenset(ev.message_ids)
        for c in classed(data, ev):
            out.append(Fate(text=c.text, message_ids=[c.message_id] if c.message_id else [],
                            fate=PREDICTED if c.kind == "predicted" else CARRIED,
                            episode_id=p.episode_id, episode_messages=inside,
                            memory_id=c.memory_id))
        for ins in p.insights:
            queue = done.get((p.episode_id, ins.text)) or [STORED]
            out.append(Fate(text=ins.text, message_ids=list(ins.source_message_ids),
                            fate=queue.pop(0) if len(queue) > 1 else queue[0],
                            episode_id=p.episode_id, episode_messages=inside))
    return out


def read_twice(data: RunData) -> dict[str, list[str]]:
    """Messages that more than one distillation read, with the episodes that read them."""
    readers: dict[str, list[str]] = {}
    for ev in data.stage("distill"):
        carried = set(ev.payload.carried_message_ids)
        for mid in ev.message_ids:
            if mid not in carried:
                readers.setdefault(mid, []).append(ev.payload.episode_id)
    return {mid: eps for mid, eps in readers.items() if len(eps) > 1}


def reference_facts(conv: Conversation) -> list[Told]:
    """A LoCoMo-shaped conversation's observations, each with the messages it cites."""
    ref_to_id = {m.source_ref: m.id for m in conv.messages if m.source_ref}
    return [Told(fact, [ref_to_id[r] for r in refs if r in ref_to_id])
            for _, fact, refs in locomo_observations(conv.extra)]


def labelled_facts(labels: dict, messages: list[Message]) -> list[Told]:
    """One of our labelled transcripts' facts, each with the message that tells it."""
    out = []
    for f in labels.get("facts", []):
        hits = [m.id for m in messages if f["message"] in m.text]
        out.append(Told(f["fact"], hits[:1]))
    return out


def wrongly_skipped(every: list[Fate], told: list[Told], repeats: list[Repeat],
                    embed) -> tuple[int, int]:
    """(skipped statements whose nearest reference fact of their message is told there for
    the first time, skipped statements whose message tells any reference fact): a fact the
    prediction could not have known, lost. A fact is told again when a repeat's second
    telling is that message and its fact is the nearest."""
    skipped = [f for f in every if f.fate == PREDICTED and f.message_ids]
    if not skipped or not told:
        return 0, 0
    again = {(mid, r.later) for r in repeats for mid in r.later_messages}
    wrong = judged = 0
    for f in skipped:
        mine = [t for t in told if set(t.message_ids) & set(f.message_ids)]
        if not mine:
            continue
        judged += 1
        vecs = np.asarray(embed([f.text] + [t.fact for t in mine]), dtype=np.float32)
        nearest = mine[int(np.argmax(vecs[1:] @ vecs[0]))]
        repeated = any((mid, nearest.fact) in again for mid in f.message_ids) or any(
            set(r.later_messages) & set(f.message_ids) and r.first == nearest.fact
            for r in repeats)
        wrong += not repeated
    return wrong, judged


def prediction_figures(data: RunData, repeats: list[Repeat], embed,
                       told: list[Told] | None = None) -> PredictionFigures:
    """Prediction precision and repeat recall of one run, with each repeat's fate; with the
    reference facts `told`, also how many skipped statements told a fact for the first time."""
    every = fates(data)
    skipped = [f for f in every if f.fate == PREDICTED]
    precise = 0
    for f in skipped:
        memory = data.memory_by_id.get(f.memory_id) if f.memory_id else None
        precise += bool(memory and memory.source_message_ids
                        and not set(memory.source_message_ids) & f.episode_messages)
    outcomes = {name: 0 for name in FATES}
    for r in repeats:
        outcomes[repeat_fate(r, every, embed)] += 1
    wrong, judged = wrongly_skipped(every, told or [], repeats, embed)
    return PredictionFigures(skipped=len(skipped), precise=precise, repeats=len(repeats),
                             outcomes=outcomes, distilled_twice=len(read_twice(data)),
                             wrong=wrong, judged=judged)


def repeat_fate(repeat: Repeat, every: list[Fate], embed) -> str:
    """The fate of the statement of the second telling nearest to the fact."""
    said = set(repeat.later_messages)
    mine = [f for f in every if said & set(f.message_ids)]
    if not mine:
        return UNREAD
    vecs = np.asarray(embed([repeat.later] + [f.text for f in mine]), dtype=np.float32)
    return mine[int(np.argmax(vecs[1:] @ vecs[0]))].fate
