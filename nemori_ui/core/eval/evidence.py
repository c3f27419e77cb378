"""Which evidence turns a retrieved context holds.

An episode in the context holds all its raw turns (its narrative, or for the top r its raw
messages). A semantic memory holds a turn only when it was distilled from that turn *and* its
text carries the turn's answer-bearing words: the gold answer's content words that the turn
holds, or, where the turn holds none of them (or no answer is given), most of the turn's content
words. So a memory that kept the topic of a turn but not its answer ("Caroline talked about a
book" for "which book?") is not credited, a merged memory does not bring every turn of every
version it absorbed, and a memory written from a photo's caption does not bring the words said
beside the photo.
"""

from __future__ import annotations

import numpy as np

from ..models import Message, SemanticMemory
from ..offline.facts import stem
from ..offline.phatic import without_captions
from ..offline.text import content_words
from ..retrieval import count_tokens

CARRIED = 0.5     # share of a clause's content words the memory must hold
AT_LEAST = 2      # and never fewer than this many


def content_stems(text: str) -> set[str]:
    return {stem(w) for w in content_words(text)}


def carries(memory_text: str, turn_text: str, answer: str | None = None) -> bool:
    """Whether the memory's text carries the turn's answer-bearing words."""
    held = content_stems(memory_text)
    said = content_stems(without_captions(turn_text))
    bearing = content_stems(str(answer)) & said if answer is not None else set()
    if bearing:
        return bearing <= held
    return bool(said) and len(said & held) >= max(AT_LEAST, CARRIED * len(said))


def credited_turns(memories: list[SemanticMemory], messages: dict[str, Message],
                   answer: str | None = None) -> set[str]:
    """The turns the retrieved memories bring into the context, for a question whose gold
    answer is `answer`."""
    found = set()
    for memory in memories:
        for mid in memory.source_message_ids:
            turn = messages.get(mid)
            if turn is not None and carries(memory.text, turn.text, answer):
                found.add(mid)
    return found


def share(marks: list[dict], key: str = "found") -> float:
    """The share of evidence turns marked found (`key`: "found" or "in_episodes")."""
    return sum(bool(m[key]) for m in marks) / len(marks) if marks else 0.0


def all_found(marks: list[dict], key: str = "found") -> bool:
    """A question counts as recalled only when every one of its evidence turns is held."""
    return bool(marks) and all(m[key] for m in marks)


def evidence_found(evidence_ids: list[str | None], episode_ids: set[str],
                   memory_ids: set[str]) -> list[dict]:
    """For each evidence turn: found in the episodes, and in the whole context."""
    return [{"in_episodes": mid in episode_ids, "found": mid in episode_ids or mid in memory_ids}
            for mid in evidence_ids]


def memory_only_recall(memories: list[SemanticMemory], vectors, messages: dict[str, Message],
                       items, question_vectors, budget: int) -> float:
    """Memory-only evidence recall at equal tokens (the paper's "w/o e" setting): for each
    question, the most similar memories while they fit in `budget` tokens, and the mean share
    of its evidence turns they carry (`credited_turns`). `items`: the questions (with evidence)
    in the order of `question_vectors`; `vectors`: the memories' unit vectors."""
    if not memories or not items:
        return 0.0
    shares = []
    for item, q in zip(items, question_vectors):
        taken, used = [], 0
        for i in np.argsort(-(vectors @ q)):
            cost = count_tokens(memories[i].text) + 1
            if used + cost > budget:
                break
            taken.append(memories[i])
            used += cost
        held = credited_turns(taken, messages, item.answer)
        shares.append(sum(e.message_id in held for e in item.evidence) / len(item.evidence))
    return float(np.mean(shares))
