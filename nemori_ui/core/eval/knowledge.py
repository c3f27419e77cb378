"""How good a run's semantic memory is as knowledge, against a reference list of facts.

The reference is LoCoMo's per-session `observation` annotations (short third-person facts with
the turns they came from) or the `facts` of one of our labelled transcripts. A memory *states*
a reference fact when the two are close in meaning (MiniLM cosine at least `STATES_SIM`) and
share at least one content word other than the speakers' names: closeness alone would let
"Maya loves her job" state "Maya works as a nurse".

- recall: the share of reference facts stated by some active memory;
- precision: the share of active memories that state some reference fact;
- memories per message: how much of the transcript the store rewrites.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..offline.facts import stem
from .evidence import content_stems

STATES_SIM = 0.72


def _stems(text: str, names: set[str]) -> set[str]:
    return content_stems(text) - names


def states_matrix(memories: list[str], mem_vecs: np.ndarray, facts: list[str],
                  fact_vecs: np.ndarray, names: list[str]) -> np.ndarray:
    """states[i, j]: memory i states fact j."""
    if not memories or not facts:
        return np.zeros((len(memories), len(facts)), dtype=bool)
    low = {stem(n) for n in names}
    close = (np.asarray(mem_vecs) @ np.asarray(fact_vecs).T) >= STATES_SIM
    mem_words = [_stems(t, low) for t in memories]
    fact_words = [_stems(t, low) for t in facts]
    out = np.zeros_like(close)
    for i, j in zip(*np.nonzero(close)):
        out[i, j] = bool(mem_words[i] & fact_words[j])
    return out


@dataclass(frozen=True)
class KnowledgeScore:
    memories: int
    messages: int
    facts: int
    precision: float
    recall: float

    @property
    def per_message(self) -> float:
        return self.memories / self.messages if self.messages else 0.0


def score(memories: list[str], facts: list[str], names: list[str], messages: int,
          embed) -> KnowledgeScore:
    """Precision and recall of `memories` against `facts`; `embed` maps texts to unit vectors."""
    if not memories or not facts:
        return KnowledgeScore(len(memories), messages, len(facts), 0.0, 0.0)
    hit = states_matrix(memories, embed(memories), facts, embed(facts), names)
    return KnowledgeScore(len(memories), messages, len(facts), float(hit.any(axis=1).mean()),
                          float(hit.any(axis=0).mean()))


def locomo_observations(extra: dict) -> list[tuple[str, str, list[str]]]:
    """(speaker, fact, evidence dia_ids) of every observation a LoCoMo sample carries."""
    found = []
    for key, by_speaker in (extra.get("observation") or {}).items():
        if not isinstance(by_speaker, dict):
            continue
        for speaker, items in by_speaker.items():
            for item in items or []:
                if not isinstance(item, (list, tuple)) or not item:
                    continue
                fact, evidence = str(item[0]), item[1] if len(item) > 1 else []
                refs = [evidence] if isinstance(evidence, str) else list(evidence or [])
                found.append((speaker, fact, [str(r) for r in refs]))
    return found
