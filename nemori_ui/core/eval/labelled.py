"""Scores a run against one of our labelled transcripts (`tests/fixtures/labelled/`).

A label file names messages by an exact part of their text and lists the transcript's lasting
facts, the facts said again later (repeats), the real changes of fact, look-alike pairs that
are both true (distinct), later details of a known topic, and messages that are only talk.
What is counted, with a reader's question for each:

- facts: precision and recall of the active memories against the labelled facts;
- changes resolved: a conflict from the changing message replaced a memory of the old one;
- false conflicts: conflicts that are no labelled change (distinct pairs included);
- talk share: active memories that come only from messages labelled as talk;
- duplicated repeats: an active memory from the repeat alone that states the fact as first said;
- details stored: the later message is a source of some active memory.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from ..models import Message, SemanticMemory, StageEvent
from .knowledge import KnowledgeScore, score, states_matrix


@dataclass(frozen=True)
class LabelledScore:
    knowledge: KnowledgeScore
    changes: int
    resolved: int
    conflicts: int
    false_conflicts: int
    talk_share: float
    repeats: int
    duplicated: int
    details: int
    details_stored: int


def load_labels(text_path: Path) -> dict:
    return json.loads(Path(text_path).with_suffix(".json").read_text())


def _finder(messages: list[Message]):
    def find(part: str) -> str:
        hits = [m.id for m in messages if part in m.text]
        if len(hits) != 1:
            raise ValueError(f"label {part!r} matches {len(hits)} messages, not one")
        return hits[0]
    return find


def score_labelled(labels: dict, messages: list[Message], memories: list[SemanticMemory],
                   events: list[StageEvent], speakers: list[str], embed) -> LabelledScore:
    find = _finder(messages)
    active = [m for m in memories if m.status == "active"]
    facts = labels.get("facts", [])
    knowledge = score([m.text for m in active], [f["fact"] for f in facts], speakers,
                      len(messages), embed)

    by_id = {m.id: m for m in memories}
    changes = {(find(a), find(b)) for a, b in labels.get("changes", [])}
    conflicts = [e.payload for e in events
                 if e.stage == "consolidate" and e.payload.action == "conflict"]
    resolved_pairs, false = set(), 0
    for c in conflicts:
        old = {mid for t in c.targets if t in by_id for mid in by_id[t].source_message_ids}
        pairs = {(o, n) for o in old for n in c.source_message_ids} & changes
        resolved_pairs |= pairs
        false += not pairs

    talk = {find(p) for p in labels.get("phatic", [])}
    from_talk = sum(bool(m.source_message_ids) and set(m.source_message_ids) <= talk
                    for m in active)

    repeats = [(find(a), find(b)) for a, b in labels.get("repeats", [])]
    duplicated = 0
    for first, later in repeats:
        said = [f["fact"] for f in facts if find(f["message"]) == first]
        alone = [m for m in active if later in m.source_message_ids
                 and first not in m.source_message_ids]
        if said and alone:
            hit = states_matrix([m.text for m in alone], embed([m.text for m in alone]),
                                said, embed(said), speakers)
            duplicated += bool(hit.any())

    details = [find(b) for _, b in labels.get("details", [])]
    stored = sum(any(d in m.source_message_ids for m in active) for d in details)
    return LabelledScore(knowledge, len(changes), len(resolved_pairs), len(conflicts), false,
                         from_talk / len(active) if active else 0.0, len(repeats), duplicated,
                         len(details), stored)
